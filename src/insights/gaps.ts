import type { Row, SqlParam, SqlSession } from '../load/session.js';

/** How a gap's score is computed, as `gaps` and the report say it (content_gaps computes it). */
export const SCORE_RULE =
  'score = readers the gap failed in the window (1 per unanswered turn, 0.5 per search without a click, 1 per thumbs-down or comment, 0.1 per human view lost) x trend (new 1.5, worse 1.25, same 1, better 0.75; no trend, and no factor, unless its stream holds both windows whole)';

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
  /**
   * null unless the gap's stream holds every day of the window and of the one before it whole:
   * after a first sync the window before is not loaded, and a count of 0 there is no count.
   */
  readonly previousCount: number | null;
  /** null when previousCount is (no comparison: the text says "not loaded"). */
  readonly trend: GapTrend | null;
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

/** The ranked gaps of every project (or one), best first. */
export async function readGaps(session: SqlSession, q: GapQuery): Promise<Gap[]> {
  const where: string[] = [];
  const params: SqlParam[] = [q.days, q.to ?? null];
  if (q.projectId !== undefined) {
    params.push(q.projectId);
    where.push(`project_id = $${params.length}::VARCHAR`);
  }
  if (q.limit !== undefined) {
    params.push(q.limit);
    where.push(`rank <= $${params.length}::BIGINT`);
  }
  if (q.gapIds !== undefined) {
    params.push(q.gapIds);
    where.push(`gap_id = ANY($${params.length}::VARCHAR[])`);
  }
  // content_gaps is a DuckDB table macro and a PostgreSQL table function: called alike.
  const rows = await session.rows(
    `SELECT * FROM content_gaps($1::INTEGER, $2::DATE)
     ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY project_id COLLATE "C", rank`,
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
    previousCount: (r['previous_count'] as number | null) ?? null,
    trend: (r['trend'] as GapTrend | null) ?? null,
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

/** What the text shows for a gap's trend: "not loaded" when the window before is not whole. */
export function trendText(g: Pick<Gap, 'trend'>): string {
  return g.trend ?? 'not loaded';
}

/** A fix still in progress: a job that has not reached a terminal status (or was never seen again). */
export function fixIsOpen(fix: Gap['fix']): boolean {
  return fix !== null && (fix.status === null || fix.status === 'active');
}

/** The projects with any loaded or attempted window. */
export async function projectsWithWindows(session: SqlSession): Promise<string[]> {
  const rows = await session.rows(
    'SELECT project_id FROM sync_windows GROUP BY project_id ORDER BY project_id COLLATE "C"',
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
export async function readOutcomes(
  session: SqlSession,
  projectId: string,
  limit: number,
): Promise<GapOutcome[]> {
  const rows = await session.rows(
    `SELECT * FROM v_gap_outcomes WHERE project_id = $1::VARCHAR
     ORDER BY completed_at DESC, job_id COLLATE "C", gap_id COLLATE "C" LIMIT $2::INTEGER`,
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
