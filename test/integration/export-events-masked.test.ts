import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTables } from '../../src/load/duckdb/export.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import type { ExportSummary } from '../../src/load/export-plan.js';
import { exportFromPostgres } from '../../src/load/postgres/export.js';
import { insertEventsSql, type EventFixtureRow } from '../helpers/analytics-events-rows.js';
import { withDuckFile } from '../helpers/duck-file.js';
import { EMAIL_CASES, NOT_EMAILS } from '../helpers/email-forms.js';
import { pgSchemaWith } from '../helpers/pg-schema.js';
import { hasPostgres } from '../helpers/postgres.js';

/*
 * export without --include-personal-data writes analytics_events' path with readers' e-mail
 * addresses masked ([email], the rule of src/util/personal-data.ts), and its referrer without its
 * query string and fragment (e-mails and ips travel there) and masked too; referrer_host stays.
 * With --include-personal-data both are written as sent. The same on both destinations.
 */

/** [referrer as sent, as exported without personal data]. */
const REFERRERS: readonly (readonly [string | null, string | null])[] = [
  ['https://ref.example/search?q=bob@corp.io&ip=203.0.113.7', 'https://ref.example/search'],
  ['https://ref.example/users/bob%40corp.io/edit#me', 'https://ref.example/users/[email]/edit'],
  ['https://ref.example/a#b?c=alice@example.com', 'https://ref.example/a'],
  ['https://ref.example/x?line\nbreak=203.0.113.9', 'https://ref.example/x'],
  ['mailto:grace@corp.example.org?subject=hi', 'mailto:[email]'],
  ['android-app://com.google.android.gm/#inbox', 'android-app://com.google.android.gm/'],
  ['?only=a.query@string.io', ''],
  ['https://ref.example/plain', 'https://ref.example/plain'],
  [null, null],
];

/** [path as sent, as exported without personal data]: every odd e-mail form, and text without one. */
const PATHS: readonly (readonly [string, string])[] = [
  ...EMAIL_CASES,
  ...NOT_EMAILS.map((p) => [p, p] as const),
];

const ROWS: EventFixtureRow[] = PATHS.map(([path], i) => ({
  id: `e${String(i).padStart(2, '0')}`,
  type: 'docs.content.view',
  at: '2026-02-01T10:00:00Z',
  path,
  host: 'ref.example',
}));

/** The rows, then each row's referrer set to REFERRERS (round robin), with SQL both destinations run. */
function fixtureSql(): string[] {
  return [
    insertEventsSql(ROWS),
    ...ROWS.map((r, i) => {
      const ref = REFERRERS[i % REFERRERS.length]?.[0] ?? null;
      return `UPDATE analytics_events SET referrer = ${ref === null ? 'NULL' : `'${ref.replaceAll("'", "''")}'`} WHERE event_id = '${r.id}'`;
    }),
  ];
}

let reader: DuckDBInstance;
const dirs: string[] = [];
beforeAll(async () => {
  reader = await DuckDBInstance.create(':memory:');
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function exported(out: string): Promise<Record<string, unknown>[]> {
  const conn = await reader.connect();
  try {
    const glob = join(out, 'analytics_events', '**', '*.parquet').replaceAll("'", "''");
    return await queryRows(
      conn,
      `SELECT event_id, path, referrer, referrer_host FROM read_parquet('${glob}', hive_partitioning = true) ORDER BY event_id`,
    );
  } finally {
    conn.closeSync();
  }
}

function expectMasked(rows: Record<string, unknown>[]): void {
  expect(rows.map((r) => r['path'])).toEqual(PATHS.map(([, masked]) => masked));
  expect(rows.map((r) => r['referrer'])).toEqual(ROWS.map((_, i) => REFERRERS[i % REFERRERS.length]?.[1]));
  expect(new Set(rows.map((r) => r['referrer_host']))).toEqual(new Set(['ref.example']));
}

function expectAsSent(rows: Record<string, unknown>[]): void {
  expect(rows.map((r) => r['path'])).toEqual(PATHS.map(([sent]) => sent));
  expect(rows.map((r) => r['referrer'])).toEqual(ROWS.map((_, i) => REFERRERS[i % REFERRERS.length]?.[0]));
}

function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-export-masked-'));
  dirs.push(dir);
  return join(dir, 'out');
}

describe('export of analytics_events from DuckDB, path and referrer', () => {
  let db: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-export-masked-db-'));
    dirs.push(dir);
    db = join(dir, 'analytics.duckdb');
    await withDuckFile(db, async (d) => {
      for (const sql of fixtureSql()) await d.connection.run(sql);
    });
  });
  const run = (out: string, includePersonalData: boolean): Promise<ExportSummary> =>
    withDuckFile(
      db,
      (d) => exportTables(d.connection, { outDir: out, format: 'parquet', includePersonalData }),
      true,
    );

  it('masks e-mail addresses in both and drops the referrer query string and fragment, without --include-personal-data', async () => {
    const out = outDir();
    await run(out, false);
    expectMasked(await exported(out));
  });

  it('writes both as sent with --include-personal-data', async () => {
    const out = outDir();
    await run(out, true);
    expectAsSent(await exported(out));
  });
});

describe.skipIf(!hasPostgres())('export of analytics_events from PostgreSQL, path and referrer', () => {
  const pgClient = pgSchemaWith('masked', fixtureSql());
  let client: pg.Client;
  beforeAll(() => {
    client = pgClient();
  });

  it('masks e-mail addresses in both and drops the referrer query string and fragment, without --include-personal-data', async () => {
    const out = outDir();
    await exportFromPostgres(client, { outDir: out, format: 'parquet' });
    expectMasked(await exported(out));
  });

  it('writes both as sent with --include-personal-data', async () => {
    const out = outDir();
    await exportFromPostgres(client, { outDir: out, format: 'parquet', includePersonalData: true });
    expectAsSent(await exported(out));
  });
});
