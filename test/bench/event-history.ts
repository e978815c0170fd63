/*
 * A history of analytics_events made by SQL for the increment benchmark (event-increment.ts): the
 * rows a site's earlier syncs would have stored, without running them (20 million events through
 * the sync would take hours). Random UUID ids, in time order over the days before the increment
 * (so DuckDB's row groups hold days in order, as a real load leaves them), values shaped like the
 * stream's (event types, paths, referrers, classes, visitor and session keys, user agents, small
 * properties and now and then an assistant answer), and the event_objects ledger of the objects
 * they came from, so that the sync lists against a ledger as a real one does.
 */

/** How a statement is written for one destination. */
interface Dialect {
  /** Integer division of two integer expressions. */
  div(a: string, b: string): string;
  uuid: string;
  /** Rows 0..n-1 as column `i` (BIGINT). */
  series(n: number): string;
  /** An instant `ms` (epoch milliseconds, whole seconds) as the emulator's key: `2026-10-27T06:07:00.000Z.jsonl`. */
  key(ms: string): string;
  instant(ms: string): string;
  json(pairs: string): string;
}

const DUCK: Dialect = {
  div: (a, b) => `(${a}) // (${b})`,
  uuid: 'CAST(uuid() AS VARCHAR)',
  series: (n) => `range(0, ${n}) r(i)`,
  key: (ms) => `strftime(epoch_ms(${ms}), '%Y-%m-%dT%H:%M:%S') || '.000Z.jsonl'`,
  // The session's TimeZone is UTC (the builder sets it): the cast keeps the instant.
  instant: (ms) => `CAST(epoch_ms(${ms}) AS TIMESTAMPTZ)`,
  json: (pairs) => `json_object(${pairs})`,
};

const PG: Dialect = {
  div: (a, b) => `(${a}) / (${b})`,
  uuid: 'gen_random_uuid()::text',
  series: (n) => `generate_series(0::bigint, ${n - 1}::bigint) r(i)`,
  key: (ms) =>
    `to_char(TIMESTAMP 'epoch' + (${ms}) * INTERVAL '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS') || '.000Z.jsonl'`,
  instant: (ms) => `TIMESTAMPTZ 'epoch' + (${ms}) * INTERVAL '1 millisecond'`,
  json: (pairs) => `jsonb_build_object(${pairs})`,
};

const DAY_MS = 86_400_000;
/** Objects are named 7 minutes after the slice of the day they hold, as the emulator names them. */
const DELIVERY_MS = 7 * 60_000;
/** About as many events per object as the increment's objects hold. */
const EVENTS_PER_OBJECT = 1_500;

export interface HistoryPlan {
  /** Events in the table. */
  readonly events: number;
  /** The first day, YYYY-MM-DD (UTC). */
  readonly firstDay: string;
  readonly days: number;
  readonly project: string;
  /** The source label the increment's folder gets (`file:///…/`): the ledger's rows are under it. */
  readonly source: string;
}

/** Objects a day: the history's events in objects of about EVENTS_PER_OBJECT. */
export function objectsPerDay(p: HistoryPlan): number {
  return Math.max(1, Math.round(p.events / p.days / EVENTS_PER_OBJECT));
}

const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** The object key of object `j` (of `k`) of day `d` (expressions), epoch ms of the first day given. */
function objectKey(d: Dialect, firstMs: number, k: number, day: string, j: string): string {
  return d.key(
    `${firstMs} + (${day}) * ${DAY_MS} + ${d.div(`((${j}) + 1) * 86400`, String(k))} * 1000 + ${DELIVERY_MS}`,
  );
}

/** The INSERT of the history's events, `plan.events` rows in time order. */
function eventsSql(d: Dialect, p: HistoryPlan): string {
  const firstMs = Date.parse(`${p.firstDay}T00:00:00Z`);
  const k = objectsPerDay(p);
  const span = p.days * DAY_MS;
  // ms: the event's offset from the first day's midnight, spread evenly; v: its visitor.
  const ms = d.div(`i * ${span}`, String(p.events));
  const day = d.div('ms', String(DAY_MS));
  const slice = d.div(`(ms % ${DAY_MS}) * ${k}`, String(DAY_MS));
  const answer = `repeat('The answer is in the guide, under Settings. ', 40)`;
  return `INSERT INTO analytics_events (project_id, event_id, event_type, subdomain, created_at, day, path,
  referrer, referrer_host, traffic_class, visitor_key, anon_id, session_id, user_id, user_agent, properties,
  object_key, run_id, loaded_at)
SELECT ${quote(p.project)}, ${d.uuid},
  CASE WHEN i % 200 = 7 THEN 'docs.assistant.completed' WHEN i % 23 = 3 THEN 'docs.search.query'
    WHEN i % 17 = 5 THEN 'docs.content.md.view' WHEN i % 29 = 11 THEN 'docs.code_block.copy'
    ELSE 'docs.content.view' END,
  'acme', ${d.instant(`${firstMs} + ms`)} + (i % 1000) * INTERVAL '1 microsecond',
  CAST(${quote(p.firstDay)} AS DATE) + CAST(${day} AS INTEGER),
  '/docs/section-' || (v % 50) || '/page-' || ((i * 7919) % 3000),
  CASE WHEN i % 3 = 0 THEN 'https://www.google.com/search?q=guide+' || (i % 1000)
    WHEN i % 7 = 1 THEN 'https://chatgpt.com/' END,
  CASE WHEN i % 3 = 0 THEN 'www.google.com' WHEN i % 7 = 1 THEN 'chatgpt.com' END,
  CASE WHEN i % 11 = 0 THEN 'ai_answers' WHEN i % 37 = 0 THEN 'search_index' ELSE 'human' END,
  md5('k' || v) || md5('v' || v), CASE WHEN v % 5 <> 0 THEN md5('a' || v) END, md5('s' || ${d.div('i', '8')}),
  CASE WHEN v % 40 = 0 THEN 'user-' || v END,
  CASE i % 4 WHEN 0 THEN 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
    WHEN 1 THEN 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15'
    WHEN 2 THEN 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)'
    ELSE 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' END,
  CASE WHEN i % 200 = 7 THEN ${d.json(`'question', 'How do I rotate key ' || (i % 977) || '?', 'answer', ${answer}`)}
    WHEN i % 23 = 3 THEN ${d.json(`'query', 'webhook retries ' || (i % 311)`)}
    ELSE ${d.json(`'title', 'Page ' || ((i * 7919) % 3000)`)} END,
  ${objectKey(d, firstMs, k, day, slice)}, 'history', now()
FROM (SELECT i, ${ms} AS ms, (i * 2654435761) % 250000 AS v FROM ${d.series(p.events)}) e`;
}

/** The ledger row of every object the history's events came from. */
function ledgerSql(d: Dialect, p: HistoryPlan): string {
  const firstMs = Date.parse(`${p.firstDay}T00:00:00Z`);
  const k = objectsPerDay(p);
  const objects = k * p.days;
  const each = Math.round(p.events / objects);
  return `INSERT INTO event_objects (project_id, source, object_key, etag, size, lines, events, new_events,
  rejected, unmapped, run_id, loaded_at)
SELECT ${quote(p.project)}, ${quote(p.source)}, ${objectKey(d, firstMs, k, d.div('i', String(k)), `i % ${k}`)},
  md5('etag' || i), ${each * 700}, ${each + 3}, ${each + 2}, ${each}, 1, 0, 'history', now()
FROM ${d.series(objects)}`;
}

export function duckHistorySql(p: HistoryPlan): string[] {
  return p.events === 0 ? [] : [eventsSql(DUCK, p), ledgerSql(DUCK, p)];
}

export function pgHistorySql(p: HistoryPlan): string[] {
  return p.events === 0 ? [] : [eventsSql(PG, p), ledgerSql(PG, p)];
}
