import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import type { SqlSession } from '../../src/load/session.js';
import { addDays } from '../../src/util/day.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * v_coverage counts and lists days, whatever the stream's windows are (a day, an ISO week, a range
 * of event days): a day is partial when it had not ended when the newest window covering it was
 * fetched, truncated when that window was cut short by a page cap. Only windows_loaded counts
 * windows.
 */

const WINDOWS: readonly [
  stream: string,
  start: string,
  end: string,
  fetchedAt: string,
  truncated: boolean,
][] = [
  // A complete week, and this week fetched on Wednesday at noon: Monday and Tuesday are over.
  ['visitors_weekly', '2026-03-02', '2026-03-09', '2026-03-10T01:00:00Z', false],
  ['visitors_weekly', '2026-03-09', '2026-03-16', '2026-03-11T12:00:00Z', false],
  // February cut short by a page cap; March to the 10th fetched at 23:30 on the 10th.
  ['feedback', '2026-02-01', '2026-03-01', '2026-03-02T06:00:00Z', true],
  ['feedback', '2026-03-01', '2026-03-11', '2026-03-10T23:30:00Z', false],
  // Days with a hole: 03-03 never loaded.
  ['visitors', '2026-03-01', '2026-03-02', '2026-03-02T06:00:00Z', false],
  ['visitors', '2026-03-02', '2026-03-03', '2026-03-03T06:00:00Z', true],
  ['visitors', '2026-03-04', '2026-03-05', '2026-03-04T20:00:00Z', false],
];

async function seed(s: SqlSession): Promise<void> {
  for (const [stream, start, end, fetchedAt, truncated] of WINDOWS) {
    await s.run(
      `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
         attempts, fetched_at, run_id)
       VALUES ('cv', $1::VARCHAR, $2::DATE, $3::DATE, 'loaded', 1, 1, $4::BOOLEAN, 1, $5::TIMESTAMPTZ, 'seed')`,
      [stream, start, end, truncated, fetchedAt],
    );
  }
}

function daysFrom(first: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => addDays(first, i));
}

const runIf = hasPostgres();

describe.skipIf(!runIf)('v_coverage in days', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client | undefined;
  let db: Database | undefined;
  const sessions: Record<string, SqlSession> = {};

  beforeAll(async () => {
    server = await startPostgres();
    client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    await migratePostgres(client, { schema: 'cov' });
    db = await openDatabase(tempDbPath());
    sessions['duckdb'] = db.session;
    sessions['postgres'] = pgSession(client);
    for (const s of Object.values(sessions)) await seed(s);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await server?.stop();
  });

  it.each(['duckdb', 'postgres'])(
    'lists and counts days for week, range and day windows alike, windows only in windows_loaded, on %s',
    async (name) => {
      const rows = await sessions[name]!.rows(
        `SELECT stream, first_day, last_day, days_loaded, days_missing, missing_days, days_partial, partial_days,
                days_truncated, truncated_days, windows_loaded
           FROM v_coverage WHERE project_id = 'cv' ORDER BY stream`,
      );
      expect(rows).toEqual([
        {
          stream: 'feedback',
          first_day: '2026-02-01',
          last_day: '2026-03-10',
          days_loaded: 38,
          days_missing: 0,
          missing_days: [],
          days_partial: 1,
          partial_days: ['2026-03-10'],
          days_truncated: 28,
          truncated_days: daysFrom('2026-02-01', 28),
          windows_loaded: 2,
        },
        {
          stream: 'visitors',
          first_day: '2026-03-01',
          last_day: '2026-03-04',
          days_loaded: 3,
          days_missing: 1,
          missing_days: ['2026-03-03'],
          days_partial: 1,
          partial_days: ['2026-03-04'],
          days_truncated: 1,
          truncated_days: ['2026-03-02'],
          windows_loaded: 3,
        },
        {
          stream: 'visitors_weekly',
          first_day: '2026-03-02',
          last_day: '2026-03-15',
          days_loaded: 14,
          days_missing: 0,
          missing_days: [],
          days_partial: 5,
          partial_days: daysFrom('2026-03-11', 5),
          days_truncated: 0,
          truncated_days: [],
          windows_loaded: 2,
        },
      ]);
    },
  );
});
