import type { Row, SqlSession } from '../load/session.js';
import { addDays } from '../util/day.js';
import { maskEmails, maskEmailsOrNull } from '../util/personal-data.js';
import type {
  AssistantDay,
  AssistantPeriod,
  AssistantSection,
  FeedbackItem,
  FeedbackSection,
  FeedbackWeek,
  UniquePeriod,
  UniquesSection,
} from './model.js';
import { utcDay, utcStart } from '../load/sql-dialect.js';
import type { StreamWindow } from './streams.js';

/**
 * The report's sections of the event streams (feedback, assistant) and of the true unique
 * visitors of weeks and months (site_weekly, site_monthly). They read the tables and sync_windows
 * directly. An event stream's section is gathered only when the project has a loaded window of
 * that stream: a stream never synced gives no section, not one of zeros.
 */

export interface EventWindow extends StreamWindow {
  /** When the report is built: the age of an open feedback item is counted to it. */
  readonly now: Date;
  /** --include-personal-data: only then is feedback.contact read at all. */
  readonly personalData: boolean;
  /** Open feedback items and unanswered questions listed. */
  readonly topItems: number;
}

function num(row: Row, col: string): number {
  const v = row[col];
  if (v === null || v === undefined) return 0;
  return typeof v === 'bigint' ? Number(v) : Number(v);
}

function strOrNull(row: Row, col: string): string | null {
  const v = row[col];
  return typeof v === 'string' ? v : null;
}

const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

/** The event streams with at least one loaded window for the project, from sync_windows itself. */
export async function loadedEventStreams(session: SqlSession, projectId: string): Promise<Set<string>> {
  const rows = await session.rows(
    `SELECT DISTINCT stream FROM sync_windows
      WHERE project_id = $1::VARCHAR AND status = 'loaded' AND stream IN ('feedback', 'assistant')`,
    [projectId],
  );
  return new Set(rows.map((r) => String(r['stream'])));
}

/**
 * The complete days of [from, to] of one stream: inside a loaded window and fetched after the day
 * ended (a window fetched during its last day holds only part of that day's events).
 */
function loadedDays(stream: 'feedback' | 'assistant'): string {
  return `cal AS (
    SELECT CAST(d AS DATE) AS day
      FROM generate_series($2::DATE::TIMESTAMP, $3::DATE::TIMESTAMP, INTERVAL '1 day') AS t(d)),
  loaded AS (
    SELECT c.day FROM cal c
     WHERE EXISTS (
       SELECT 1 FROM sync_windows w
        WHERE w.project_id = $1::VARCHAR AND w.stream = '${stream}' AND w.status = 'loaded'
          AND w.window_start <= c.day AND c.day < w.window_end
          AND w.fetched_at >= ${utcStart('c.day + 1')}))`;
}

/** Open items oldest first, and the helpful share of contextual feedback per ISO week of the window. */
export async function gatherFeedback(session: SqlSession, w: EventWindow): Promise<FeedbackSection> {
  const [counts] = await session.rows(
    `SELECT count(*) AS open,
            count(*) FILTER (WHERE status = 'pending') AS pending,
            count(*) FILTER (WHERE status = 'in_progress') AS in_progress,
            count(DISTINCT path) AS pages
       FROM feedback WHERE project_id = $1::VARCHAR AND status IN ('pending', 'in_progress')`,
    [w.projectId],
  );
  // The contact column is named only when asked for: without the flag it never leaves the database.
  const contact = w.personalData ? ', contact' : '';
  const items = await session.rows(
    `SELECT id, path, source, status, comment, created_at${contact},
            count(*) OVER (PARTITION BY path) AS page_open
       FROM feedback WHERE project_id = $1::VARCHAR AND status IN ('pending', 'in_progress')
      ORDER BY created_at ASC NULLS LAST, ${session.sql.codePoint('path')}, ${session.sql.codePoint('id')}
      LIMIT $2::INTEGER`,
    [w.projectId, w.topItems],
  );
  const nowMs = w.now.getTime();
  const open = items.map((r): FeedbackItem => {
    const createdAt = strOrNull(r, 'created_at');
    const ms = createdAt === null ? Number.NaN : Date.parse(createdAt);
    return {
      id: String(r['id']),
      path: String(r['path']),
      source: String(r['source']),
      status: String(r['status']),
      comment: maskEmailsOrNull(strOrNull(r, 'comment')),
      createdAt,
      ageDays: Number.isFinite(ms) ? Math.max(0, Math.floor((nowMs - ms) / 86_400_000)) : null,
      pageOpen: num(r, 'page_open'),
      ...(w.personalData ? { contact: strOrNull(r, 'contact') } : {}),
    };
  });

  // Whole ISO weeks that meet the window, cut at its last day; only days of loaded windows count.
  const weekRows = await session.rows(
    `WITH ${loadedDays('feedback')},
     votes AS (
       SELECT ${utcDay('created_at')} AS day,
              count(*) FILTER (WHERE helpful) AS up,
              count(*) FILTER (WHERE NOT helpful) AS down
         FROM feedback
        WHERE project_id = $1::VARCHAR AND source = 'contextual' AND helpful IS NOT NULL
          AND created_at >= ${utcStart('$2::DATE')} AND created_at < ${utcStart('$3::DATE + 1')}
        GROUP BY 1),
     -- The Monday of each day's ISO week (isodow: Monday 1).
     weeks AS (
       SELECT l.day, l.day - CAST(extract(isodow FROM l.day) AS INTEGER) + 1 AS week_start FROM loaded l)
     SELECT k.week_start,
            CAST(extract(isoyear FROM k.week_start) AS INTEGER) AS iso_year,
            CAST(extract(week FROM k.week_start) AS INTEGER) AS iso_week,
            count(*) AS days, coalesce(sum(v.up), 0) AS up, coalesce(sum(v.down), 0) AS down
       FROM weeks k LEFT JOIN votes v ON v.day = k.day
      GROUP BY k.week_start ORDER BY k.week_start`,
    [w.projectId, weekStart(w.from), w.to],
  );
  const weekly = weekRows.map((r): FeedbackWeek => ({
    weekStart: String(r['week_start']),
    isoYear: num(r, 'iso_year'),
    isoWeek: num(r, 'iso_week'),
    daysLoaded: num(r, 'days'),
    up: num(r, 'up'),
    down: num(r, 'down'),
    helpfulShare: share(num(r, 'up'), num(r, 'up') + num(r, 'down')),
  }));
  const up = weekly.reduce((s, x) => s + x.up, 0);
  const down = weekly.reduce((s, x) => s + x.down, 0);
  return {
    openCount: counts ? num(counts, 'open') : 0,
    pendingCount: counts ? num(counts, 'pending') : 0,
    inProgressCount: counts ? num(counts, 'in_progress') : 0,
    openPages: counts ? num(counts, 'pages') : 0,
    open,
    weekly,
    up,
    down,
    helpfulShare: share(up, up + down),
    personalData: w.personalData,
  };
}

/** The Monday of the ISO week of a day. */
function weekStart(day: string): string {
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  return addDays(day, -weekday);
}

/**
 * Answered and clarifying shares per complete day of the window, the 7 days to the last one, and
 * the unanswered questions of the window grouped ignoring case and spacing.
 */
export async function gatherAssistant(
  session: SqlSession,
  w: EventWindow,
): Promise<AssistantSection | undefined> {
  // From 6 days before the window too, so that a short report still sums 7 days.
  const start = addDays(w.to, -6) < w.from ? addDays(w.to, -6) : w.from;
  const rows = await session.rows(
    `WITH ${loadedDays('assistant')},
     t AS (
       SELECT ${utcDay('ts')} AS day, count(*) AS turns,
              count(*) FILTER (WHERE resolution_status = 'answered') AS answered,
              count(*) FILTER (WHERE response_type = 'clarifying_question') AS clarifying
         FROM assistant_turns
        WHERE project_id = $1::VARCHAR AND ts >= ${utcStart('$2::DATE')} AND ts < ${utcStart('$3::DATE + 1')}
        GROUP BY 1)
     SELECT l.day, coalesce(t.turns, 0) AS turns,
            coalesce(t.answered, 0) AS answered, coalesce(t.clarifying, 0) AS clarifying
       FROM loaded l LEFT JOIN t ON t.day = l.day
      ORDER BY l.day`,
    [w.projectId, start, w.to],
  );
  const all = rows.map((r): AssistantDay => ({
    day: String(r['day']),
    turns: num(r, 'turns'),
    answered: num(r, 'answered'),
    clarifying: num(r, 'clarifying'),
    answeredShare: share(num(r, 'answered'), num(r, 'turns')),
    clarifyingShare: share(num(r, 'clarifying'), num(r, 'turns')),
  }));
  const daily = all.filter((d) => d.day >= w.from);
  const latest = daily.at(-1);
  if (!latest) return undefined;
  const period = (from: string, to: string): AssistantPeriod => {
    const days = all.filter((d) => d.day >= from && d.day <= to);
    const sum = (k: 'turns' | 'answered' | 'clarifying'): number => days.reduce((s, d) => s + d[k], 0);
    const turns = sum('turns');
    return {
      from,
      to,
      daysLoaded: days.length,
      turns,
      answered: sum('answered'),
      clarifying: sum('clarifying'),
      unanswered: turns - sum('answered'),
      answeredShare: share(sum('answered'), turns),
      clarifyingShare: share(sum('clarifying'), turns),
    };
  };
  const query = (expr: string): string => session.sql.codePoint(expr);
  const questions = await session.rows(
    `WITH ${loadedDays('assistant')},
     u AS (
       SELECT question_key(a.query) AS k,
              a.query, a.ts, a.thread_id
         FROM assistant_turns a JOIN loaded l ON l.day = ${utcDay('a.ts')}
        WHERE a.project_id = $1::VARCHAR AND a.resolution_status = 'unanswered'),
     spelled AS (SELECT k, query, count(*) AS n, max(ts) AS last FROM u GROUP BY k, query),
     -- The spelling asked most, then last, then the greatest (arg_max on DuckDB).
     g AS (
       SELECT k, sum(n) AS n, (array_agg(query ORDER BY n DESC, last DESC, ${query('query')} DESC))[1] AS query,
              max(last) AS last
         FROM spelled GROUP BY k),
     th AS (SELECT k, count(DISTINCT thread_id) AS threads FROM u GROUP BY k)
     SELECT g.query, g.n, th.threads, g.last, count(*) OVER () AS distinct_n
       FROM g JOIN th USING (k)
      WHERE g.k <> ''
      ORDER BY g.n DESC, g.last DESC, ${query('g.query')}
      LIMIT $4::INTEGER`,
    [w.projectId, w.from, w.to, w.topItems],
  );
  return {
    daily,
    latest,
    last7: period(addDays(latest.day, -6), latest.day),
    window: period(w.from, w.to),
    unanswered: questions.map((r) => ({
      query: maskEmails(String(r['query'])),
      count: num(r, 'n'),
      threads: num(r, 'threads'),
      lastAsked: String(r['last']),
    })),
    unansweredDistinct: questions[0] ? num(questions[0], 'distinct_n') : 0,
  };
}

/** '2026-W05' for an ISO week, '2026-02' for a month. */
function periodLabel(r: Row): string {
  if (r['grain'] === 'month') return String(r['period_start']).slice(0, 7);
  return `${num(r, 'iso_year')}-W${String(num(r, 'iso_week')).padStart(2, '0')}`;
}

/** The month before the one starting on `day` (a 1st). */
function previousMonth(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - 1);
  return d.toISOString().slice(0, 10);
}

/**
 * True unique visitors of the latest complete ISO week and month, and of the one in progress
 * after each when loaded, each complete one against the complete period just before it.
 */
export async function gatherUniques(
  session: SqlSession,
  projectId: string,
): Promise<UniquesSection | undefined> {
  const rows = await session.rows(
    `SELECT 'week' AS grain, period_start,
            CAST(extract(isoyear FROM period_start) AS INTEGER) AS iso_year,
            CAST(extract(week FROM period_start) AS INTEGER) AS iso_week,
            human, ai, total, partial
       FROM site_weekly WHERE project_id = $1::VARCHAR
     UNION ALL
     SELECT 'month', period_start, NULL, NULL, human, ai, total, partial
       FROM site_monthly WHERE project_id = $1::VARCHAR
     ORDER BY grain, period_start`,
    [projectId],
  );
  if (rows.length === 0) return undefined;
  const pick = (
    grain: 'week' | 'month',
    previous: (day: string) => string,
  ): { complete?: UniquePeriod; partial?: UniquePeriod } => {
    const mine = rows.filter((r) => r['grain'] === grain);
    const byStart = new Map(mine.map((r) => [String(r['period_start']), r]));
    const toPeriod = (r: Row, withChange: boolean): UniquePeriod => {
      const start = String(r['period_start']);
      const prev = byStart.get(previous(start));
      const prevTotal = prev && prev['partial'] !== true ? num(prev, 'total') : null;
      const total = num(r, 'total');
      return {
        periodStart: start,
        label: periodLabel(r),
        human: num(r, 'human'),
        ai: num(r, 'ai'),
        total,
        partial: r['partial'] === true,
        previousTotal: prevTotal,
        totalChangePct:
          withChange && prevTotal !== null && prevTotal > 0 ? (total - prevTotal) / prevTotal : null,
      };
    };
    const complete = mine.filter((r) => r['partial'] !== true).at(-1);
    const after = complete ? String(complete['period_start']) : '';
    const partial = mine.filter((r) => r['partial'] === true && String(r['period_start']) > after).at(-1);
    return {
      ...(complete ? { complete: toPeriod(complete, true) } : {}),
      ...(partial ? { partial: toPeriod(partial, false) } : {}),
    };
  };
  const week = pick('week', (d) => addDays(d, -7));
  const month = pick('month', previousMonth);
  return {
    ...(week.complete ? { week: week.complete } : {}),
    ...(week.partial ? { weekPartial: week.partial } : {}),
    ...(month.complete ? { month: month.complete } : {}),
    ...(month.partial ? { monthPartial: month.partial } : {}),
  };
}
