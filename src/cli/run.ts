import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, type Help } from 'commander';
import { EtlError, EXIT, isEtlError, UsageError } from '../errors.js';
import { packageRoot } from '../paths.js';
import { startRun } from '../util/run-state.js';
import { safeJson, safeLine, safeText } from '../util/safe-text.js';
import { registerSecret } from '../util/secrets.js';
import { commandsFor, listCommands } from './commands.js';
import { addDocsPages } from './docs-pages.js';
import { helpReference } from './help-reference.js';
import { wrapHelpText } from './help-wrap.js';
import type { CommandResult } from './result.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Prints a failure as one line (and, with MINTLIFY_ETL_DEBUG, its causes or stack), each made
 * safe on the way out: secrets redacted whatever produced the message.
 */
function report(e: unknown): number {
  const debug = Boolean(process.env['MINTLIFY_ETL_DEBUG']);
  if (isEtlError(e)) {
    process.stderr.write(`mintlify-etl: ${safeLine(e.message)}\n`);
    if (debug) for (const cause of causes(e)) process.stderr.write(`  cause: ${safeLine(cause)}\n`);
    return e.exitCode;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  process.stderr.write(
    `mintlify-etl: internal error: ${safeLine(err.message)}\n${debug ? `${safeText(err.stack ?? '')}\n` : '  (set MINTLIFY_ETL_DEBUG=1 for the stack)\n'}`,
  );
  return EXIT.internal;
}

/** The messages of an error's `cause` chain, bounded: a cause may be anything, even a cycle. */
function causes(e: Error): string[] {
  const out: string[] = [];
  for (let c: unknown = e.cause; c !== undefined && c !== null && out.length < 5;) {
    out.push(c instanceof Error ? c.message : typeof c === 'string' ? c : (JSON.stringify(c) ?? typeof c));
    c = c instanceof Error ? c.cause : undefined;
  }
  return out;
}

/**
 * A key given as a flag would show in `ps` and the shell history, so there is no --api-key; its
 * absence must not read as "did you mean --api-url?". Nothing after `--` is a flag.
 */
function refuseKeyFlag(argv: readonly string[]): void {
  const flags = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  if (flags.some((a) => a === '--api-key' || a.startsWith('--api-key='))) {
    throw new UsageError(
      'there is no --api-key option (a key on the command line shows in `ps`): set MINTLIFY_API_KEY or pass --api-key-file PATH',
    );
  }
}

/**
 * The key in the environment is a secret for every command, not only those that send it: a
 * database written by an older version may hold it in an error that `status` would print.
 */
function registerEnvironmentKey(env: NodeJS.ProcessEnv): void {
  const value = env['MINTLIFY_API_KEY']?.trim() ?? '';
  // Only a value shaped like a key: a stray "mint" would mask the word in every message.
  if (/^mint_.{4,}$/.test(value)) registerSecret(value, 'mint_****');
}

/**
 * Deprecation notices are messages for a library's developers, not for the user of a command:
 * pg prints one when it reads ~/.pgpass (which libpq users rely on) and others for its own
 * internals. MINTLIFY_ETL_DEBUG shows them.
 */
function quietDeprecations(env: NodeJS.ProcessEnv): void {
  if (!env['MINTLIFY_ETL_DEBUG']) process.noDeprecation = true;
}

/**
 * One run of the CLI, as the shell's arguments ask: returns the exit code and never exits, so
 * that the tests can run it in their own process (test/helpers/cli-in-process.ts).
 */
export async function runMain(argv: readonly string[]): Promise<number> {
  startRun();
  quietDeprecations(process.env);
  registerEnvironmentKey(process.env);
  try {
    refuseKeyFlag(argv);
  } catch (e) {
    return report(e);
  }
  let exitCode: number = EXIT.ok;
  const run = async (fn: () => Promise<CommandResult>): Promise<void> => {
    try {
      const result = await fn();
      if (result.json !== undefined)
        process.stdout.write(`${JSON.stringify(safeJson(result.json), null, 2)}\n`);
      exitCode = result.exitCode;
    } catch (e) {
      exitCode = report(e);
      // A monitor that asked for --json gets JSON on stdout even when the command fails.
      if (argv.includes('--json')) {
        const error = isEtlError(e)
          ? { code: e.code, message: e.message }
          : { code: 'E_INTERNAL', message: e instanceof Error ? e.message : 'internal error' };
        process.stdout.write(`${JSON.stringify(safeJson({ status: 'error', exitCode, error }), null, 2)}\n`);
      }
    }
  };

  const program = new Command('mintlify-etl')
    .description(
      'Keeps a database current with your Mintlify docs site analytics (unique visitors, views, searches, feedback, assistant questions, per day and per page, human and AI): a DuckDB file (the default) or a PostgreSQL schema (--db postgresql://...). Reports, content gaps, alerts and a weekly digest from it, and drives Mintlify agent jobs. Start with `mintlify-etl demo`.',
    )
    .version(version(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(safeText(s)) })
    .configureHelp({
      boxWrap(this: Help, str: string, width: number) {
        return wrapHelpText(this, str, width);
      },
    })
    .addHelpText(
      'after',
      `${helpReference()}\n\nDocs: ${join(packageRoot(), 'docs', 'getting-started.md')} (every page: ${join(packageRoot(), 'docs')})`,
    );
  const { registers, listOnly } = await commandsFor(argv);
  for (const register of registers) register(program, run);
  if (listOnly) listCommands(program);
  addDocsPages(program);

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      ) {
        return EXIT.ok;
      }
      if (e.code === 'commander.executeSubCommandAsync') return EXIT.internal;
      return EXIT.usage;
    }
    // Argument parsers throw our UsageError from inside commander.
    if (e instanceof EtlError) return report(e);
    return report(e);
  }
  return exitCode;
}
