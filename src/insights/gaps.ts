import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../load/database.js';
import type { SqlSession } from '../load/session.js';
import { queryRows, type Row } from '../load/sql.js';

/** How a gap's score is computed, as `gaps` and the report say it (content_gaps computes it). */
export const SCORE_RULE =
  'score = readers the gap failed in the window (1 per unanswered turn, 0.5 per search without a click, 1 per thumbs-down or comment, 0.1 per human view lost) x trend (new 1.5, worse 1.25, same 1, better 0.75)';

export const GAP_KINDS = ['unanswered', 'search', 'flagged', 'losing'] as const;
export type GapKind = (typeof GAP_KINDS)[number];
export type GapTrend = 'new' | 'worse' | 'same' | 'better';

/** One content gap, as `content_gaps` (sql/views/140_v_content_gaps.sql) defines it. */
export interface Gap {
  readonly projectId: string;
  readonly rank: number;
  readonly gapId: string;
  readonly kind: GapKind;
  readonly subject: string;
  readonly subjectKey: string;
  /** The window [windowStart, windowEnd), windowEnd exclusive, and the same length before it. */
  readonly windowStart: string;
  readonly windowEnd: string;
  readonly measure: string;
  readonly currentCount: number;
  readonly previousCount: number;
  readonly trend: GapTrend;
  readonly score: number;
  /** CTR for a search gap, the fall for a losing page, else null. */
  readonly rate: number | null;
  readonly category: string | null;
  readonly answerExcerpt: string | null;
  readonly examples: readonly string[];
  readonly pages: readonly string[];
  readonly fix: {
    readonly jobId: string;
    readonly status: string | null;
    readonly prLink: string | null;
  } | null;
}

export interface GapQuery {
  /** Days in the window (and in the one before it). */
  readonly days: number;
  /** The window ends before this day (exclusive); default: after each project's last complete loaded day. */
  readonly to?: string;
  readonly projectId?: string;
  /** The top gaps of each project. */
  readonly limit?: number;
  /** Only these gaps (agent fix), whatever their rank. */
  readonly gapIds?: readonly string[];
}

/**
 * Where gaps are read from: a session of either destination (the report), or a DuckDB connection
 * (the callers not yet on SqlSession). The SQL below runs on both dialects.
 */
type GapReader = SqlSession | DuckDBConnection;

function rowsOf(from: GapReader, sql: string, params: (string | number | null)[]): Promise<Row[]> {
  return 'dialect' in from ? from.rows(sql, params) : queryRows(from, sql, params);
}

/** The ranked gaps of every project (or one), best first. */
export async function readGaps(conn: GapReader, q: GapQuery): Promise<Gap[]> {
  const where: string[] = [];
  const params: (string | number | null)[] = [q.days, q.to ?? null];
  if (q.projectId !== undefined) {
    params.push(q.projectId);
    where.push(`project_id = $${params.length}`);
  }
  if (q.limit !== undefined) {
    params.push(q.limit);
    where.push(`rank <= $${params.length}`);
  }
  if (q.gapIds !== undefined) {
    const first = params.length + 1;
    params.push(...q.gapIds);
    where.push(`gap_id IN (${q.gapIds.map((_, i) => `$${first + i}`).join(', ')})`);
  }
  const rows = await rowsOf(
    conn,
    `SELECT * FROM content_gaps($1::INTEGER, $2::DATE)
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY project_id, rank`,
    params,
  );
  return rows.map(toGap);
}

function toGap(r: Row): Gap {
  const fixJob = r['fix_job_id'] as string | null;
  return {
    projectId: r['project_id'] as string,
    rank: r['rank'] as number,
    gapId: r['gap_id'] as string,
    kind: r['kind'] as GapKind,
    subject: r['subject'] as string,
    subjectKey: r['subject_key'] as string,
    windowStart: r['window_start'] as string,
    windowEnd: r['window_end'] as string,
    measure: r['measure'] as string,
    currentCount: r['current_count'] as number,
    previousCount: r['previous_count'] as number,
    trend: r['trend'] as GapTrend,
    score: r['score'] as number,
    rate: r['rate'] as number | null,
    category: r['category'] as string | null,
    answerExcerpt: r['answer_excerpt'] as string | null,
    examples: r['examples'] as string[],
    pages: r['pages'] as string[],
    fix:
      fixJob === null
        ? null
        : {
            jobId: fixJob,
            status: r['fix_status'] as string | null,
            prLink: r['fix_pr_link'] as string | null,
          },
  };
}

/** A fix still in progress: a job that has not reached a terminal status (or was never seen again). */
export function fixIsOpen(fix: Gap['fix']): boolean {
  return fix !== null && (fix.status === null || fix.status === 'active');
}

/** The projects with any loaded or attempted window. */
export async function projectsWithWindows(db: Database): Promise<string[]> {
  const rows = await queryRows(
    db.connection,
    'SELECT DISTINCT project_id FROM sync_windows ORDER BY project_id',
  );
  return rows.map((r) => r['project_id'] as string);
}

/** The effect of one fixed gap (v_gap_outcomes). */
export interface GapOutcome {
  readonly jobId: string;
  readonly gapId: string;
  readonly kind: GapKind;
  readonly subject: string;
  readonly prLink: string;
  readonly completedAt: string;
  readonly measure: string;
  readonly daysBefore: number;
  readonly daysAfter: number;
  readonly before: number | null;
  readonly after: number | null;
  readonly changePct: number | null;
  readonly verdict: 'improved' | 'worse' | 'same' | 'too little data';
}

/** The outcomes of a project's fixes, newest fix first. */
export async function readOutcomes(conn: GapReader, projectId: string, limit: number): Promise<GapOutcome[]> {
  const rows = await rowsOf(
    conn,
    `SELECT * FROM v_gap_outcomes WHERE project_id = $1 ORDER BY completed_at DESC, job_id, gap_id LIMIT $2`,
    [projectId, limit],
  );
  return rows.map((r) => ({
    jobId: r['job_id'] as string,
    gapId: r['gap_id'] as string,
    kind: r['kind'] as GapKind,
    subject: r['subject'] as string,
    prLink: r['pr_link'] as string,
    completedAt: r['completed_at'] as string,
    measure: r['measure'] as string,
    daysBefore: r['days_before'] as number,
    daysAfter: r['days_after'] as number,
    before: r['measure_before'] as number | null,
    after: r['measure_after'] as number | null,
    changePct: r['change_pct'] as number | null,
    verdict: r['verdict'] as GapOutcome['verdict'],
  }));
}
