/**
 * A few analytics_events rows as one INSERT both destinations run (DuckDB and PostgreSQL read the
 * same literals), with the ledger and hash-key rows a loaded destination has beside them. Tests of
 * export and of the report's event-stream section insert them directly: no S3, no source.
 */

/** The destination's visitor_key key: must never reach an export. */
export const HASH_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

export interface EventFixtureRow {
  readonly id: string;
  readonly type: string;
  /** ISO instant (UTC). */
  readonly at: string;
  readonly path?: string | null;
  readonly host?: string | null;
  readonly cls?: string;
  readonly visitor?: string | null;
  readonly anon?: string | null;
  readonly session?: string | null;
  readonly user?: string | null;
  readonly properties?: string | null;
  readonly project?: string;
}

function lit(v: string | null | undefined): string {
  return v === null || v === undefined ? 'NULL' : `'${v.replaceAll("'", "''")}'`;
}

/** One INSERT of `rows` into analytics_events (day: the UTC day of `at`). */
export function insertEventsSql(rows: readonly EventFixtureRow[]): string {
  const tuples = rows.map(
    (r) =>
      `(${lit(r.project ?? 'docs-a')}, ${lit(r.id)}, ${lit(r.type)}, 'acme', TIMESTAMPTZ '${r.at}', DATE '${r.at.slice(0, 10)}', ` +
      `${lit(r.path ?? '/intro')}, ${r.host ? lit(`https://${r.host}/x`) : 'NULL'}, ${lit(r.host ?? null)}, ${lit(r.cls ?? 'human')}, ` +
      `${lit(r.visitor === undefined ? `v-${r.id}` : r.visitor)}, ${lit(r.anon ?? null)}, ${lit(r.session ?? null)}, ${lit(r.user ?? null)}, ` +
      `'Mozilla/5.0', ${lit(r.properties ?? null)}, 'events/2026/obj-1.jsonl', 'run-1', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
  );
  return `INSERT INTO analytics_events (project_id, event_id, event_type, subdomain, created_at, day, path, referrer,
    referrer_host, traffic_class, visitor_key, anon_id, session_id, user_id, user_agent, properties, object_key, run_id, loaded_at)
    VALUES ${tuples.join(',\n')}`;
}

/** The ledger row and the hash key a load leaves beside the events (the key in its own schema). */
export function ledgerSql(privateSchema = 'main_private'): string[] {
  return [
    `INSERT INTO event_objects VALUES ('docs-a', 's3://bucket/events/', 'events/2026/obj-1.jsonl', 'etag-1', 100, 5, 5, 5, 0, 0, 'run-1', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
    `INSERT INTO ${privateSchema}.event_hash_key VALUES (1, '${HASH_KEY}', TIMESTAMPTZ '2026-04-01 00:00:00+00')`,
  ];
}

/** ledgerSql of a DuckDB file (its key schema: main_private). */
export const LEDGER_SQL = ledgerSql();

const view = (
  id: string,
  at: string,
  visitor: string | null,
  more: Partial<EventFixtureRow> = {},
): EventFixtureRow => ({
  id,
  type: 'docs.content.view',
  at,
  visitor,
  ...more,
});

/**
 * Events of March 2026 whose report section (28 days to 2026-03-28) and digest (2026-W13)
 * test/integration/report-event-stream.test.ts works out by hand.
 */
export const SECTION_EVENTS: readonly EventFixtureRow[] = [
  view('a1', '2026-03-02T10:00:00Z', 'A', { host: 'google.com' }),
  view('a2', '2026-03-25T10:00:00Z', 'A', { host: 'google.com' }),
  view('b1', '2026-03-25T11:00:00Z', 'B', { host: 'github.com' }),
  view('b2', '2026-03-26T11:00:00Z', 'B'),
  view('c1', '2026-03-27T11:00:00Z', 'C', { cls: 'ai_answers' }),
  view('d1', '2026-03-10T11:00:00Z', 'D'),
  view('d2', '2026-03-10T11:05:00Z', 'D', { type: 'docs.content.md.view' }),
  view('e1', '2026-03-24T11:00:00Z', 'E', { cls: 'search_index', host: 'bing.com' }),
  view('f1', '2026-03-05T11:00:00Z', 'F', { cls: 'training' }),
  view('n1', '2026-03-26T12:00:00Z', null),
  // outside the 28 days: never counted
  view('g1', '2026-02-28T23:59:59Z', 'G', { host: 'outside.example' }),
  view('g2', '2026-03-29T00:00:00Z', 'G', { host: 'outside.example' }),
  // the search funnel: s1 clicked a result, s2 closed without a click, s3 only searched
  { id: 's1q', type: 'docs.search.query', at: '2026-03-23T10:00:00Z', session: 's1', visitor: 'A' },
  { id: 's1c', type: 'docs.search.result_click', at: '2026-03-23T10:01:00Z', session: 's1', visitor: 'A' },
  { id: 's1x', type: 'docs.search.close', at: '2026-03-23T10:02:00Z', session: 's1', visitor: 'A' },
  { id: 's2q', type: 'docs.search.query', at: '2026-03-24T10:00:00Z', session: 's2', visitor: 'B' },
  { id: 's2x', type: 'docs.search.close', at: '2026-03-24T10:01:00Z', session: 's2', visitor: 'B' },
  { id: 's3q', type: 'docs.search.query', at: '2026-03-03T10:00:00Z', session: 's3', visitor: 'D' },
  // the assistant funnel
  { id: 'x1', type: 'docs.assistant.enter', at: '2026-03-04T10:00:00Z', visitor: 'A' },
  { id: 'x2', type: 'docs.assistant.enter', at: '2026-03-25T10:00:00Z', visitor: 'B' },
  { id: 'x3', type: 'docs.assistant.completed', at: '2026-03-25T10:01:00Z', visitor: 'B' },
  { id: 'x4', type: 'docs.assistant.source_click', at: '2026-03-25T10:02:00Z', visitor: 'B' },
];
