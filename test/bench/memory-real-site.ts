import { scratch } from './context.js';
import { measureCliProcess, runCliProcess, startEmulatorProcess } from './procs.js';
import { fixed, table, thousands, verdict } from './stats.js';

/** The real site of issue 27 (item 2): 21 days of 6,218 paths. */
export const REAL_SITE = { days: 21, paths: 6218, seed: 7 } as const;

/** Every read command, as a user types it after `--db`. */
const READS: readonly (readonly string[])[] = [
  ['report'],
  ['report', '--html', '<dir>/report.html'],
  ['gaps'],
  ['gaps', '--json'],
  ['digest'],
  ['status'],
  ['alerts', '--json'],
  ['query', 'SELECT query, response FROM assistant_turns ORDER BY length(response) DESC'],
  ['export', '--out', '<dir>/export'],
];

interface ReadRun {
  readonly command: string;
  readonly code: number | null;
  readonly peakMiB: number;
  readonly seconds: number;
}

/**
 * Peak RSS of every read command on a database of a real site's shapes (issue 27, item 2: report,
 * gaps and digest failed for memory on one): a sync of REAL_SITE's days from an emulator process
 * with the default data (answers up to 30,140 characters, 864-character questions and search
 * terms), then each command as a process under /usr/bin/time.
 */
export async function measureRealSiteReads(log: (line: string) => void): Promise<string> {
  const emu = await startEmulatorProcess([
    '--days',
    String(REAL_SITE.days + 1),
    '--paths',
    String(REAL_SITE.paths),
    '--seed',
    String(REAL_SITE.seed),
  ]);
  const s = scratch('mintlify-bench-real-site-');
  const runs: ReadRun[] = [];
  try {
    const env = {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
      MINTLIFY_ETL_DB: s.db,
    };
    const from = new Date(Date.now() - REAL_SITE.days * 86_400_000).toISOString().slice(0, 10);
    const sync = await runCliProcess(['sync', '--from', from, '--rate-limit', '1000000/1h', '-q'], env);
    if (sync.code !== 0) throw new Error(`real-site sync exited ${String(sync.code)}: ${sync.stderr}`);
    for (const args of READS) {
      const argv = args.map((a) => a.replace('<dir>', s.dir));
      const r = await measureCliProcess(argv, env);
      const command = args.map((a) => (a.includes(' ') ? 'SQL' : a.replace('<dir>/', ''))).join(' ');
      runs.push({ command, code: r.code, peakMiB: r.maxRssMiB ?? NaN, seconds: r.wallMs / 1000 });
      log(
        `memory: real site, ${command}: exit ${String(r.code)}, peak RSS ${fixed(r.maxRssMiB ?? NaN, 0)} MiB`,
      );
    }
  } finally {
    s.remove();
    await emu.close();
  }
  const worst = Math.max(...runs.map((r) => r.peakMiB));
  const failed = runs.filter((r) => r.code !== 0 && !(r.command.startsWith('alerts') && r.code === 6));
  return [
    `Every read command on a real site's shapes (issue 27, item 2): \`sync\` of ${REAL_SITE.days} days from an emulator process with ${thousands(REAL_SITE.paths)} paths (seed ${REAL_SITE.seed}; its default data has answers up to 30,140 characters and 864-character questions and search terms), then each command as a process under \`/usr/bin/time -f %M\`, stdout read and dropped. \`query SQL\` is \`SELECT query, response FROM assistant_turns ORDER BY length(response) DESC\`.`,
    '',
    table(
      ['command', 'exit', 'peak RSS MiB', 'wall s'],
      runs.map((r) => [r.command, String(r.code), fixed(r.peakMiB, 0), fixed(r.seconds, 1)]),
    ),
    '',
    `- Worst peak ${fixed(worst, 0)} MiB (target < 300: ${verdict(worst < 300)}); every command succeeded: ${verdict(failed.length === 0)}.`,
  ].join('\n');
}
