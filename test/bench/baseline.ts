import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A built copy of an older commit of this package, ready to run as `node <cli> ...`. */
export type Baseline =
  | {
      readonly ok: true;
      readonly commit: string;
      readonly dir: string;
      readonly cli: string;
      readonly built: boolean;
    }
  | { readonly ok: false; readonly commit: string; readonly reason: string };

export interface BaselineOptions {
  /** The git checkout the commit is taken from. */
  readonly repo: string;
  /** Where built copies are kept between runs (one folder per commit). */
  readonly cacheDir?: string;
  readonly log?: (message: string) => void;
}

/** Where built copies live by default: outside the checkout, so `npm ci` there never wipes them. */
export function defaultBaselineCache(): string {
  return process.env['MINTLIFY_BENCH_BASELINE_CACHE'] ?? join(tmpdir(), 'mintlify-etl-baselines');
}

/** Marks a copy whose install and build finished (a killed build leaves none, and is redone). */
const READY = '.bench-ready';

async function sh(cmd: string, args: readonly string[], cwd: string): Promise<void> {
  // npm needs the user's environment (HOME, its cache and registry settings); the build takes a minute.
  await run(cmd, args, { cwd, env: process.env, maxBuffer: 64 * 2 ** 20, timeout: 15 * 60_000 });
}

/** The full hash of `rev` in `repo`, or undefined when git or the commit is not there. */
async function resolveCommit(repo: string, rev: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', repo, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

function lastLines(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  const text = (err.stderr ?? '').trim() || (err.message ?? String(e));
  return text.split('\n').slice(-5).join(' / ');
}

/**
 * The package as it was at `rev`, installed (`npm ci`) and built, under the cache folder keyed by
 * the commit: the first run takes a minute or two, later runs reuse it. Built from `git archive`
 * rather than a worktree, so nothing is registered in the repository and a stale copy is a plain
 * folder to delete. Never throws: a missing git, commit or registry gives a reason to report.
 */
export async function prepareBaseline(rev: string, opts: BaselineOptions): Promise<Baseline> {
  const commit = await resolveCommit(opts.repo, rev);
  if (commit === undefined)
    return {
      ok: false,
      commit: rev,
      reason: `commit ${rev} is not in ${opts.repo} (or git is not installed)`,
    };
  const cache = opts.cacheDir ?? defaultBaselineCache();
  const dir = join(cache, commit);
  const cli = join(dir, 'dist', 'src', 'cli', 'main.js');
  if (existsSync(join(dir, READY)) && existsSync(cli)) return { ok: true, commit, dir, cli, built: false };
  const work = `${dir}.tmp-${process.pid}`;
  try {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    opts.log?.(`baseline: git archive ${commit.slice(0, 7)} into ${work}`);
    await sh(
      'git',
      ['-C', opts.repo, 'archive', '--format=tar', `--output=${join(work, 'src.tar')}`, commit],
      work,
    );
    await sh('tar', ['-xf', 'src.tar'], work);
    rmSync(join(work, 'src.tar'));
    opts.log?.('baseline: npm ci (its prepare script builds)');
    await sh('npm', ['ci', '--no-audit', '--no-fund'], work);
    if (!existsSync(join(work, 'dist', 'src', 'cli', 'main.js'))) await sh('npm', ['run', 'build'], work);
    writeFileSync(join(work, READY), `${commit}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
    return { ok: true, commit, dir, cli, built: true };
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    return { ok: false, commit, reason: `preparing ${commit.slice(0, 7)} failed: ${lastLines(e)}` };
  }
}
