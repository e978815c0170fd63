import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/load/duckdb/database.js';
import { withDuckFile } from '../helpers/duck-file.js';
import { exportTables } from '../../src/load/duckdb/export.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import type { ExportOptions, ExportSummary } from '../../src/load/export-plan.js';
import { exportFromPostgres } from '../../src/load/postgres/export.js';
import {
  HASH_KEY,
  LEDGER_SQL,
  ledgerSql,
  insertEventsSql,
  type EventFixtureRow,
} from '../helpers/analytics-events-rows.js';
import { hasPostgres } from '../helpers/postgres.js';
import { pgSchemaWith } from '../helpers/pg-schema.js';

/*
 * export of the event stream (analytics_events): hive-partitioned by day, personal columns only
 * with --include-personal-data, the ledger and the visitor_key hash key never written, --from/--to
 * re-exports by whole months. The rows are inserted with SQL both destinations run.
 */

const EVENTS: readonly EventFixtureRow[] = [
  {
    id: 'e1',
    type: 'docs.content.view',
    at: '2026-01-31T23:59:00Z',
    anon: 'anon-1',
    session: 's1',
    user: 'u1',
    properties: '{"q":"hi"}',
  },
  { id: 'e2', type: 'docs.content.view', at: '2026-02-01T00:01:00Z', anon: 'anon-1', session: 's1' },
  {
    id: 'e3',
    type: 'docs.search.query',
    at: '2026-02-01T10:00:00Z',
    cls: 'ai_answers',
    properties: '{"query":"install"}',
  },
  { id: 'e4', type: 'docs.content.view', at: '2026-02-14T12:00:00Z', host: 'google.com', session: 's2' },
  { id: 'e5', type: 'docs.content.md.view', at: '2026-03-01T08:00:00Z', cls: 'ai_answers', user: 'u2' },
];

const PERSONAL = ['anon_id', 'session_id', 'user_id', 'properties'];
const ALWAYS = [
  'event_id',
  'event_type',
  'subdomain',
  'created_at',
  'path',
  'referrer',
  'referrer_host',
  'traffic_class',
  'visitor_key',
  'user_agent',
  'object_key',
];

let reader: DuckDBInstance;
beforeAll(async () => {
  reader = await DuckDBInstance.create(':memory:');
});
afterAll(() => reader.closeSync());

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

async function read(sql: string): Promise<Record<string, unknown>[]> {
  const conn = await reader.connect();
  try {
    return await queryRows(conn, sql);
  } finally {
    conn.closeSync();
  }
}

/** The exported events read back as a BI user reads them (hive partitioning on). */
function readEvents(out: string, columns = '*'): Promise<Record<string, unknown>[]> {
  const glob = join(out, 'analytics_events', '**', '*.parquet').replaceAll("'", "''");
  return read(`SELECT ${columns} FROM read_parquet('${glob}', hive_partitioning = true) ORDER BY event_id`);
}

/** The columns inside one file (no hive partitioning). */
async function fileColumns(file: string): Promise<string[]> {
  const rows = await read(
    `DESCRIBE SELECT * FROM read_parquet('${file.replaceAll("'", "''")}', hive_partitioning = false)`,
  );
  return rows.map((r) => String(r['column_name']));
}

const dayFile = (day: string): string =>
  join(
    'project_id=docs-a',
    `year=${day.slice(0, 4)}`,
    `month=${day.slice(5, 7)}`,
    `day=${day}`,
    'data_0.parquet',
  );

/** What every destination must write for EVENTS. */
async function expectDayPartitionsWithoutPersonalData(out: string, summary: ExportSummary): Promise<void> {
  expect(summary.tables.find((t) => t.table === 'analytics_events')).toMatchObject({
    rows: 5,
    files: 4,
    partitions: 4,
  });
  expect(filesUnder(join(out, 'analytics_events'))).toEqual(
    ['2026-01-31', '2026-02-01', '2026-02-14', '2026-03-01'].map(dayFile),
  );
  expect(summary.skippedColumns).toContainEqual({
    table: 'analytics_events',
    columns: PERSONAL,
    reason: 'personal',
  });
  for (const file of filesUnder(join(out, 'analytics_events'))) {
    const columns = await fileColumns(join(out, 'analytics_events', file));
    expect(columns.sort(), file).toEqual([...ALWAYS].sort());
  }
  const rows = await readEvents(
    out,
    "event_id, strftime(day, '%Y-%m-%d') AS day, typeof(day) AS t, project_id, traffic_class",
  );
  expect(rows.map((r) => [r['event_id'], r['day'], r['t']])).toEqual(
    EVENTS.map((e) => [e.id, e.at.slice(0, 10), 'DATE']),
  );
  expectNoHashKey(out);
}

/** Neither the hash key's table nor the key itself is anywhere in OUT; nor the ledger. */
function expectNoHashKey(out: string): void {
  expect(readdirSync(out)).not.toContain('event_hash_key');
  expect(readdirSync(out)).not.toContain('event_objects');
  for (const file of filesUnder(out)) {
    if (statSync(join(out, file)).isFile())
      expect(readFileSync(join(out, file)).toString('latin1'), file).not.toContain(HASH_KEY);
  }
}

describe('export of analytics_events from DuckDB', () => {
  let dir: string;
  let dbFile: string;

  const withDb = <T>(fn: (db: Database) => Promise<T>, readOnly = false): Promise<T> =>
    withDuckFile(dbFile, fn, readOnly);
  const exportTo = (out: string, opts: Partial<ExportOptions> = {}): Promise<ExportSummary> =>
    withDb((db) => exportTables(db.connection, { outDir: out, format: 'parquet', ...opts }), true);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-export-events-'));
    dbFile = join(dir, 'analytics.duckdb');
    await withDb(async (db) => {
      await db.connection.run(insertEventsSql(EVENTS));
      for (const sql of LEDGER_SQL) await db.connection.run(sql);
    });
  });

  it('writes one partition per project and UTC day, without the personal columns, the ledger or the hash key', async () => {
    const out = join(dir, 'out');
    await expectDayPartitionsWithoutPersonalData(out, await exportTo(out));
  });

  it('writes anon_id, session_id, user_id and properties with --include-personal-data, still never the hash key', async () => {
    const out = join(dir, 'out');
    const summary = await exportTo(out, { includePersonalData: true });
    expect(summary.skippedColumns).toEqual([]);
    const rows = await readEvents(out, 'event_id, anon_id, session_id, user_id, properties');
    expect(
      rows.map((r) => [r['event_id'], r['anon_id'], r['session_id'], r['user_id'], r['properties']]),
    ).toEqual([
      ['e1', 'anon-1', 's1', 'u1', '{"q":"hi"}'],
      ['e2', 'anon-1', 's1', null, null],
      ['e3', null, null, null, '{"query":"install"}'],
      ['e4', null, 's2', null, null],
      ['e5', null, null, 'u2', null],
    ]);
    expectNoHashKey(out);
  });

  it('with --from/--to rewrites the days of the months in scope, removes the emptied day, leaves other months alone', async () => {
    const out = join(dir, 'out');
    await exportTo(out);
    const january = join(out, 'analytics_events', dayFile('2026-01-31'));
    const before = readFileSync(january);
    await withDb(async (db) => {
      await db.connection.run("DELETE FROM analytics_events WHERE event_id = 'e4'");
      await db.connection.run("UPDATE analytics_events SET path = '/changed' WHERE event_id IN ('e1', 'e2')");
    });
    const summary = await exportTo(out, { from: '2026-02-10', to: '2026-02-20' });
    expect(summary.tables.find((t) => t.table === 'analytics_events')).toMatchObject({
      rows: 2,
      files: 1,
      removedFiles: 1,
    });
    expect(filesUnder(join(out, 'analytics_events'))).toEqual(
      ['2026-01-31', '2026-02-01', '2026-03-01'].map(dayFile),
    );
    expect(readFileSync(january).equals(before)).toBe(true);
    const rows = await readEvents(out, 'event_id, path');
    expect(rows.map((r) => [r['event_id'], r['path']])).toEqual([
      ['e1', '/intro'],
      ['e2', '/changed'],
      ['e3', '/intro'],
      ['e5', '/intro'],
    ]);
  });

  it('writes CSV day partitions with a header, the day read back from the folder', async () => {
    const out = join(dir, 'out');
    await exportTo(out, { format: 'csv' });
    expect(filesUnder(join(out, 'analytics_events'))).toEqual(
      ['2026-01-31', '2026-02-01', '2026-02-14', '2026-03-01'].map((d) =>
        dayFile(d).replace('.parquet', '.csv'),
      ),
    );
    const glob = join(out, 'analytics_events', '**', '*.csv').replaceAll("'", "''");
    const rows = await read(
      `SELECT event_id, strftime(day, '%Y-%m-%d') AS day FROM read_csv('${glob}', hive_partitioning = true, header = true) ORDER BY event_id`,
    );
    expect(rows.map((r) => [r['event_id'], r['day']])).toEqual(EVENTS.map((e) => [e.id, e.at.slice(0, 10)]));
  });

  it('writes a busy table a few days per statement: the same files and rows in chunks of one row', async () => {
    const whole = join(dir, 'whole');
    const chunked = join(dir, 'chunked');
    await exportTo(whole);
    const summary = await exportTo(chunked, { chunkRows: 1 });
    expect(summary.tables.find((t) => t.table === 'analytics_events')).toMatchObject({ rows: 5, files: 4 });
    expect(filesUnder(join(chunked, 'analytics_events'))).toEqual(
      filesUnder(join(whole, 'analytics_events')),
    );
    expect(await readEvents(chunked)).toEqual(await readEvents(whole));
  });

  it('writes the day partitions of a project id DuckDB must encode in a folder name', async () => {
    await withDb((db) =>
      db.connection.run(insertEventsSql([{ ...EVENTS[0]!, id: 'z1', project: 'docs a/b' }])),
    );
    const out = join(dir, 'out');
    const summary = await exportTo(out);
    expect(summary.tables.find((t) => t.table === 'analytics_events')).toMatchObject({ rows: 6, files: 5 });
    const rows = await readEvents(out, "event_id, project_id, strftime(day, '%Y-%m-%d') AS day");
    expect(rows.find((r) => r['event_id'] === 'z1')).toEqual({
      event_id: 'z1',
      project_id: 'docs a/b',
      day: '2026-01-31',
    });
  });

  it('skips an empty analytics_events as empty and writes no folder for it', async () => {
    await withDb((db) => db.connection.run('DELETE FROM analytics_events'));
    const out = join(dir, 'out');
    const summary = await exportTo(out);
    expect(summary.skipped).toContainEqual({ table: 'analytics_events', reason: 'empty' });
    expect(readdirSync(out)).not.toContain('analytics_events');
  });

  it('never exports event_hash_key, even when a caller lists it among the tables', async () => {
    const out = join(dir, 'out');
    const summary = await exportTo(out, {
      tables: [
        { table: 'event_hash_key', stream: 'events', columns: ['id', 'hash_key'], order: 'id', always: true },
      ],
      includePersonalData: true,
    });
    expect(summary.tables).toEqual([]);
    expect(summary.skipped).toEqual([{ table: 'event_hash_key', reason: 'secret' }]);
    expectNoHashKey(out);
  });
});

describe.skipIf(!hasPostgres())('export of analytics_events from PostgreSQL', () => {
  const pgClient = pgSchemaWith('ev', [insertEventsSql(EVENTS), ...ledgerSql('ev_private')]);
  let client: pg.Client;
  let dir: string;

  beforeEach(() => {
    client = pgClient();
    dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-export-events-pg-'));
  });

  it('writes the same day partitions without personal data, the ledger or the hash key', async () => {
    const out = join(dir, 'out');
    const summary = await exportFromPostgres(client, { outDir: out, format: 'parquet' });
    await expectDayPartitionsWithoutPersonalData(out, summary);
  });

  it('writes the personal columns with --include-personal-data, properties as JSON text', async () => {
    const out = join(dir, 'out');
    await exportFromPostgres(client, { outDir: out, format: 'parquet', includePersonalData: true });
    const rows = await readEvents(out, 'event_id, anon_id, user_id, properties, created_at');
    expect(
      rows.map((r) => [r['event_id'], r['anon_id'], r['user_id'], r['properties'], r['created_at']]),
    ).toEqual([
      ['e1', 'anon-1', 'u1', '{"q": "hi"}', '2026-01-31T23:59:00.000Z'],
      ['e2', 'anon-1', null, null, '2026-02-01T00:01:00.000Z'],
      ['e3', null, null, '{"query": "install"}', '2026-02-01T10:00:00.000Z'],
      ['e4', null, null, null, '2026-02-14T12:00:00.000Z'],
      ['e5', null, 'u2', null, '2026-03-01T08:00:00.000Z'],
    ]);
  });

  it('re-exports a range: the emptied day of the month in scope is removed', async () => {
    const out = join(dir, 'out');
    await exportFromPostgres(client, { outDir: out, format: 'parquet' });
    await client.query("DELETE FROM analytics_events WHERE event_id = 'e4'");
    try {
      const summary = await exportFromPostgres(client, {
        outDir: out,
        format: 'parquet',
        from: '2026-02-01',
        to: '2026-03-01',
      });
      expect(summary.tables.find((t) => t.table === 'analytics_events')).toMatchObject({
        rows: 2,
        removedFiles: 1,
      });
      expect(filesUnder(join(out, 'analytics_events'))).toEqual(
        ['2026-01-31', '2026-02-01', '2026-03-01'].map(dayFile),
      );
    } finally {
      await client.query(insertEventsSql(EVENTS.filter((e) => e.id === 'e4')));
    }
  });
});
