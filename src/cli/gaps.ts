import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { projectsWithWindows, readGaps, SCORE_RULE, trendText, type Gap } from '../insights/gaps.js';
import { formatTable } from '../query/format.js';
import { type Column } from '../load/query-result.js';
import { addDays, parseDay } from '../util/day.js';
import { openToRead } from './open-readonly.js';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp, dbTargetOf } from './destination-flags.js';

interface GapsFlags {
  db?: string;
  schema?: string;
  project?: string;
  days: number;
  to?: string;
  limit: number;
  json?: boolean;
}

export function registerGaps(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('gaps')
    .summary(
      'rank content gaps: unanswered questions, searches without clicks, flagged pages, pages losing readers',
    )
    .description(
      `Ranks, from the database alone (opened read-only, no API call), what the docs fail to answer,
per project, over the --days days ending at the project's last complete loaded day (or
before --to), against the same number of days before:

  unanswered  questions the assistant left unanswered or answered with a clarifying
              question, the same question in other case, punctuation or spacing once
  search      terms searched 10+ times with a click-through rate of 5% or less
  flagged     pages with 3+ thumbs-down or comments not dismissed by triage
  losing      pages whose human views fell 25%+, beyond their usual weekly change

Each gap keeps its id from run to run (a hash of project, kind and subject), so
\`mintlify-etl agent fix GAP_ID\` can act on it. The same data is the view
v_content_gaps (28 days) and the macro content_gaps(days, to_day).

${SCORE_RULE}.`,
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option(
      '--days <n>',
      'days in the window (and in the one it is compared with)',
      intFlag('--days', 1, 366),
      28,
    )
    .option(
      '--to <day>',
      'the window ends before this UTC day (exclusive, like sync); default: after the last complete loaded day',
    )
    .option('--limit <n>', 'the top N gaps of each project', intFlag('--limit', 1, 10_000), 20)
    .option('--json', 'print the gaps as one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl gaps
  $ mintlify-etl gaps --days 7 --limit 5
  $ mintlify-etl gaps --to 2026-01-01 --json | jq '.gaps[0]'
  $ mintlify-etl agent fix GAP_ID --dry-run`,
    )
    .action((flags: GapsFlags) => run(() => gapsCommand(flags)));
}

async function gapsCommand(flags: GapsFlags): Promise<CommandResult> {
  const to = flags.to === undefined ? undefined : parseDay(flags.to, '--to');
  const db = await openToRead(dbTargetOf(flags));
  const session = db.session;
  let gaps: Gap[];
  try {
    if (flags.project !== undefined && !(await projectsWithWindows(session)).includes(flags.project)) {
      throw new UsageError(
        `project ${flags.project} has no data in ${db.label}: see \`mintlify-etl status\``,
        {
          project: flags.project,
        },
      );
    }
    gaps = await readGaps(session, {
      days: flags.days,
      ...(to !== undefined ? { to } : {}),
      ...(flags.project !== undefined ? { projectId: flags.project } : {}),
      limit: flags.limit,
    });
  } finally {
    await db.close();
  }
  if (flags.json) return { exitCode: 0, json: { days: flags.days, scoreRule: SCORE_RULE, gaps } };
  process.stdout.write(formatGaps(gaps, flags.days, process.stdout.isTTY ? process.stdout.columns : 120));
  return { exitCode: 0 };
}

const COLUMNS: readonly Column[] = [
  { name: '#', key: 'rank', numeric: true },
  { name: 'gap', key: 'gap', numeric: false, whole: true },
  { name: 'kind', key: 'kind', numeric: false, whole: true },
  { name: 'subject', key: 'subject', numeric: false },
  { name: 'now', key: 'now', numeric: true },
  { name: 'before', key: 'before', numeric: true },
  { name: 'trend', key: 'trend', numeric: false, whole: true },
  { name: 'score', key: 'score', numeric: true },
  { name: 'fix', key: 'fix', numeric: false },
];

/** One table per project, the window named once, the score rule at the end. */
export function formatGaps(gaps: readonly Gap[], days: number, maxWidth: number): string {
  if (gaps.length === 0) return `No content gaps in the last ${days} days loaded (or nothing loaded yet).\n`;
  const out: string[] = [];
  for (const project of [...new Set(gaps.map((g) => g.projectId))]) {
    const mine = gaps.filter((g) => g.projectId === project);
    const first = mine[0] as Gap;
    out.push(
      `Content gaps · ${project} · ${first.windowStart} to ${addDays(first.windowEnd, -1)} (${days} days) vs the ${days} days before`,
    );
    const rows = mine.map((g) => [
      g.rank,
      g.gapId,
      g.kind,
      g.subject,
      g.currentCount,
      g.previousCount,
      trendText(g),
      g.score,
      g.fix === null ? '' : `${g.fix.status ?? 'sent'} ${g.fix.jobId}`,
    ]);
    out.push(formatTable(COLUMNS, rows, { maxWidth, footer: false, nullText: '' }).trimEnd(), '');
  }
  out.push(`${SCORE_RULE}.`, 'Evidence of each: --json. A fix: mintlify-etl agent fix GAP_ID --dry-run', '');
  return out.join('\n');
}
