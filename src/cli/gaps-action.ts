import { UsageError } from '../errors.js';
import { projectsWithWindows, readGaps, SCORE_RULE, trendText, type Gap } from '../insights/gaps.js';
import { formatTable } from '../query/format.js';
import { type Column } from '../load/query-result.js';
import { addDays, parseDay } from '../util/day.js';
import { openToRead } from './open-readonly.js';
import type { CommandResult } from './result.js';
import { dbTargetOf } from './destination-flags.js';
import type { GapsFlags } from './gaps.js';

/*
 * What `mintlify-etl gaps` does. Its flags and help are gaps.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function gapsCommand(flags: GapsFlags): Promise<CommandResult> {
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
