import type { Command } from 'commander';
import type { CommandResult } from './result.js';

export type Register = (program: Command, run: (fn: () => Promise<CommandResult>) => Promise<void>) => void;

/**
 * Each command's module is imported only when that command runs: together they pull in DuckDB,
 * pg, undici, zod, Plot, d3 and jsdom, about a second and 60 MiB of start-up that `query`, a cron
 * job or `--help` should not pay.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  sync: async () => (await import('./sync.js')).registerSync,
  check: async () => (await import('./check.js')).registerCheck,
  status: async () => (await import('./status.js')).registerStatus,
  query: async () => (await import('./query.js')).registerQuery,
  export: async () => (await import('./export.js')).registerExport,
  report: async () => (await import('./report.js')).registerReport,
  gaps: async () => (await import('./gaps.js')).registerGaps,
  alerts: async () => (await import('./alerts.js')).registerAlerts,
  digest: async () => (await import('./digest.js')).registerDigest,
  agent: async () => (await import('./agent.js')).registerAgent,
  emulator: async () => (await import('./emulator.js')).registerEmulator,
  demo: async () => (await import('./demo.js')).registerDemo,
  prune: async () => (await import('./prune.js')).registerPrune,
  sql: async () => (await import('./sql.js')).registerSql,
  reclassify: async () => (await import('./reclassify.js')).registerReclassify,
};

/**
 * What the top-level help lists for each command, in this order: its usage term and summary,
 * as the command's own module declares them (test/unit/command-list.test.ts keeps the two equal),
 * so that listing them loads none of those modules.
 */
export const COMMAND_LIST: readonly (readonly [name: string, term: string, summary: string])[] = [
  [
    'sync',
    'sync [options]',
    'load docs analytics (visitors, views, searches, ...) into DuckDB or PostgreSQL, incremental by default',
  ],
  [
    'check',
    'check [options]',
    'one real request per project and stream: are the URL, the key and the project right?',
  ],
  [
    'status',
    'status [options]',
    'show coverage and gaps per stream, recent runs and the request budget left',
  ],
  ['query', 'query [options] [sql]', 'run SQL on the database (read-only) and print the rows'],
  [
    'export',
    'export [options]',
    "write every loaded stream's tables as hive-partitioned Parquet (or CSV) files",
  ],
  [
    'report',
    'report [options]',
    'show visitor trends: site totals, weekly, top pages, biggest movers (terminal or HTML)',
  ],
  [
    'gaps',
    'gaps [options]',
    'rank content gaps: unanswered questions, searches without clicks, flagged pages, pages losing readers',
  ],
  [
    'alerts',
    'alerts [options]',
    'after a sync: tell what changed (traffic, searches, feedback, assistant, the pipeline itself)',
  ],
  ['digest', 'digest [options]', 'the week at a glance, in Markdown (Slack, GitHub) or HTML (e-mail)'],
  ['agent', 'agent', 'create, follow and message Mintlify agent jobs (recorded in agent_jobs)'],
  [
    'emulator',
    'emulator [options]',
    'run a local emulator of the Mintlify API (for demos, tests, benchmarks)',
  ],
  ['demo', 'demo [options]', 'try it with no account: local emulator + sync + report'],
  [
    'prune',
    'prune [options]',
    'remove the days after a given day (stored under a clock that was ahead); a dry run unless --yes',
  ],
  [
    'sql',
    'sql [options]',
    'print the SQL of the tables, views and macros for DuckDB or PostgreSQL (no database needed)',
  ],
  [
    'reclassify',
    'reclassify [options]',
    "re-classify the loaded events' traffic (human, ai_answers, ...) by the user agent lists",
  ],
];

/**
 * The commands a run needs: the one named (also after `help`), none for --version, and for the
 * top-level help or an unknown command only their names and summaries (`listOnly`).
 */
export async function commandsFor(
  argv: readonly string[],
): Promise<{ registers: Register[]; listOnly: boolean }> {
  const named = argv[0] === 'help' ? argv[1] : argv[0];
  if (named !== undefined && Object.hasOwn(COMMANDS, named))
    return { registers: [await (COMMANDS[named] as () => Promise<Register>)()], listOnly: false };
  return { registers: [], listOnly: !(argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version')) };
}

/** The commands as the top-level help lists them: name, usage term and summary, nothing else. */
export function listCommands(program: Command): void {
  const terms = new Map<string, string>();
  for (const [name, term, summary] of COMMAND_LIST) {
    program.command(name).summary(summary);
    terms.set(name, term);
  }
  const help = program.createHelp();
  program.configureHelp({
    subcommandTerm: (cmd) => terms.get(cmd.name()) ?? help.subcommandTerm(cmd),
  });
}
