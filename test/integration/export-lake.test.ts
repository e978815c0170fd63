import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEventsSql } from '../helpers/analytics-events-rows.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { withDuckFile } from '../helpers/duck-file.js';
import { startS3CountingProxy, type S3CountingProxy } from '../helpers/s3-counting-proxy.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import pg from 'pg';
import { copyDuckFileToPostgres } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import type { TableManifest } from '../../src/export/lake/manifest.js';
import type { LakeExportSummary as LakeSummary } from '../../src/export/lake/lake-export.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

const PATHS = ['/docs/intro', '/文档/快速开始', '/say "hi", then\nleave', "/it's/ünïcode 🚀", '/a,b'];
const DAYS = ['2026-01-05', '2026-01-31', '2026-02-01', '2026-02-14', '2026-03-09'];
const PROJECTS = ['docs-a', 'docs b/ü'];
/** The tables checked row by row: their columns as the files hold them and the database has them. */
const CHECKED: Record<string, string> = {
  site_daily: 'project_id, day, human, ai, total, partial',
  page_daily: 'project_id, day, path, human, ai, total',
  analytics_events: 'project_id, day, event_id, event_type, created_at, path, traffic_class',
};

let s3: S3Server;
let proxy: S3CountingProxy;
let client: S3Client;
let dir: string;
let dbFile: string;
let reader: DuckDBInstance;
let rc: DuckDBConnection;

const exportArgs = (to: string, more: string[] = []): string[] => [
  'export',
  '--db',
  dbFile,
  '--to',
  to,
  '--json',
  ...more,
];
// TMPDIR: the CLI stages in the test's temp folder, where the kill test looks for its leftovers.
const env = (): Record<string, string> => ({ ...s3.env, AWS_ENDPOINT_URL_S3: proxy.url, TMPDIR: tmpdir() });

async function fill(): Promise<void> {
  await withDuckFile(dbFile, async (db) => {
    for (const project of PROJECTS) {
      for (const [d, day] of DAYS.entries()) {
        await db.connection.run(
          `INSERT INTO site_daily VALUES ('${project.replaceAll("'", "''")}', DATE '${day}', ${d + 1}, ${d}, ${2 * d + 1}, ${d % 2 === 0}, TIMESTAMPTZ '2026-04-01 00:00:00+00', 'run-1')`,
        );
        for (const [i, path] of PATHS.entries()) {
          await db.connection.run(`INSERT INTO page_daily VALUES ($1, $2::DATE, $3, $4, $5, $6)`, [
            project,
            day,
            path,
            10 * d + i,
            i,
            10 * d + 2 * i,
          ]);
        }
      }
    }
    await db.connection.run(
      insertEventsSql(
        DAYS.flatMap((day, d) =>
          PATHS.map((path, i) => ({
            id: `e-${d}-${i}`,
            type: 'page_view',
            at: `${day}T0${i}:15:00.123456Z`,
            path,
          })),
        ),
      ),
    );
  });
}

/** The rows the files of the current manifests hold, downloaded and read back with DuckDB. */
async function lakeRows(prefix: string, table: string): Promise<unknown[][]> {
  const manifest = JSON.parse(await getText(`${prefix}/${table}/_manifest.json`)) as TableManifest;
  const local = mkdtempSync(join(dir, 'read-'));
  for (const f of manifest.files) {
    const file = join(local, f.key);
    mkdirSync(dirname(file), { recursive: true });
    const got = await client.send(new GetObjectCommand({ Bucket: 'lake', Key: `${prefix}/${f.key}` }));
    writeFileSync(file, await got.Body!.transformToByteArray());
  }
  if (manifest.files.length === 0) return [];
  const list = manifest.files.map((f) => `'${join(local, f.key).replaceAll("'", "''")}'`).join(', ');
  const read = await rc.runAndReadAll(
    `SELECT ${CHECKED[table]} FROM read_parquet([${list}], hive_partitioning = true) ORDER BY ALL`,
  );
  return read.getRowsJson();
}

async function dbRows(table: string): Promise<unknown[][]> {
  const read = await rc.runAndReadAll(`SELECT ${CHECKED[table]} FROM src.${table} ORDER BY ALL`);
  return read.getRowsJson();
}

async function getText(key: string): Promise<string> {
  const got = await client.send(new GetObjectCommand({ Bucket: 'lake', Key: key }));
  return got.Body!.transformToString('utf8');
}

async function keys(prefix: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: `${prefix}/` }));
  return (listed.Contents ?? []).map((o) => o.Key!.slice(prefix.length + 1)).sort();
}

async function expectLakeHoldsTheDatabase(prefix: string): Promise<void> {
  await rc.run(`ATTACH '${dbFile}' AS src (READ_ONLY)`);
  try {
    for (const table of Object.keys(CHECKED)) {
      const want = await dbRows(table);
      expect(want.length).toBeGreaterThan(0);
      expect(await lakeRows(prefix, table), table).toEqual(want);
    }
  } finally {
    await rc.run('DETACH src');
  }
}

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket('lake');
  proxy = await startS3CountingProxy(s3.url);
  client = new S3Client({
    region: 'us-east-1',
    endpoint: s3.url,
    forcePathStyle: true,
    credentials: {
      accessKeyId: s3.env['AWS_ACCESS_KEY_ID']!,
      secretAccessKey: s3.env['AWS_SECRET_ACCESS_KEY']!,
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'lake-export-'));
  dbFile = join(dir, 'analytics.duckdb');
  await fill();
  reader = await DuckDBInstance.create(':memory:');
  rc = await reader.connect();
}, 60_000);

afterAll(async () => {
  rc?.closeSync();
  reader?.closeSync();
  client?.destroy();
  await proxy?.stop();
  await s3?.stop();
});

describe('export --to s3://BUCKET/PREFIX (a DuckDB file as the source)', () => {
  it('writes every table hive-partitioned, and the files its manifests name hold exactly the tables rows', async () => {
    proxy.reset();
    const run = await runCli(exportArgs('s3://lake/warehouse'), env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    await expectLakeHoldsTheDatabase('warehouse');
    const all = await keys('warehouse');
    expect(all).toContain('site_daily/_manifest.json');
    expect(
      all.some((k) =>
        /^page_daily\/project_id=docs-a\/year=2026\/month=02\/data_0-[0-9a-f]{16}\.parquet$/.test(k),
      ),
    ).toBe(true);
    expect(
      all.some((k) =>
        /^analytics_events\/project_id=docs-a\/year=2026\/month=03\/day=2026-03-09\/data_0-[0-9a-f]{16}\.parquet$/.test(
          k,
        ),
      ),
    ).toBe(true);
    const manifest = JSON.parse(await getText('warehouse/page_daily/_manifest.json')) as TableManifest;
    expect(manifest.columns.map((c) => c.name)).toEqual(['day', 'path', 'human', 'ai', 'total']);
    expect(manifest.columns.find((c) => c.name === 'day')?.type).toBe('DATE');
    expect(manifest.partitionColumns).toEqual(['project_id', 'year', 'month']);
    expect(manifest.rows).toBe(PROJECTS.length * DAYS.length * PATHS.length);
    expect(proxy.counts.deleteRequests).toBe(0);
  });

  it('writes no object when run again with nothing new, after one listing and a GET per manifest', async () => {
    await runCli(exportArgs('s3://lake/again'), env());
    const before = await keys('again');
    proxy.reset();
    const run = await runCli(exportArgs('s3://lake/again'), env());
    expect(run.code).toBe(0);
    expect(proxy.counts.put).toBe(0);
    expect(proxy.counts.deleteRequests).toBe(0);
    expect(proxy.counts.list).toBe(1);
    expect(proxy.counts.get).toBe(before.filter((k) => k.endsWith('/_manifest.json')).length);
    expect(await keys('again')).toEqual(before);
    // No partition was read again: each one's version matched its manifest's.
    const summary = JSON.parse(run.stdout) as LakeSummary;
    for (const t of summary.tables) expect(t.partitionsChanged, t.table).toBe(0);
    expect(summary.tables.find((t) => t.table === 'analytics_events')?.partitionsUnchanged).toBe(DAYS.length);
  });

  it('reads every partition of a table again when what it writes changes (--include-personal-data)', async () => {
    await runCli(exportArgs('s3://lake/mode'), env());
    const run = await runCli(exportArgs('s3://lake/mode', ['--include-personal-data']), env());
    expect(run.code).toBe(0);
    const events = (JSON.parse(run.stdout) as LakeSummary).tables.find((t) => t.table === 'analytics_events');
    expect(events).toMatchObject({ partitionsChanged: DAYS.length, partitionsUnchanged: 0 });
    const manifest = JSON.parse(await getText('mode/analytics_events/_manifest.json')) as TableManifest;
    expect(manifest.columns.map((c) => c.name)).toContain('anon_id');
  });

  it('rewrites only the files of a month whose rows changed, and keeps the old file readable for the grace period', async () => {
    await runCli(exportArgs('s3://lake/changed'), env());
    const before = await keys('changed');
    await withDuckFile(dbFile, (db) =>
      db.connection.run(
        `UPDATE page_daily SET total = total + 1000 WHERE project_id = 'docs-a' AND day = DATE '2026-02-14'`,
      ),
    );
    proxy.reset();
    const run = await runCli(exportArgs('s3://lake/changed'), env());
    expect(run.code).toBe(0);
    const read = (JSON.parse(run.stdout) as LakeSummary).tables.map((t) => [t.table, t.partitionsChanged]);
    expect(read.filter(([, n]) => n !== 0)).toEqual([['page_daily', 1]]);
    const data = proxy.putKeys.filter((k) => !k.endsWith('_manifest.json'));
    expect(data).toHaveLength(1);
    expect(data[0]).toMatch(
      /^changed\/page_daily\/project_id=docs-a\/year=2026\/month=02\/data_0-[0-9a-f]{16}\.parquet$/,
    );
    expect(proxy.putKeys.filter((k) => k.endsWith('_manifest.json'))).toEqual([
      'changed/page_daily/_manifest.json',
    ]);
    expect(proxy.counts.deleteRequests).toBe(0);
    // The file the old manifest named is still there for queries that read it.
    expect(await keys('changed')).toEqual([...before, data[0]!.slice('changed/'.length)].sort());
    await expectLakeHoldsTheDatabase('changed');
    const manifest = JSON.parse(await getText('changed/page_daily/_manifest.json')) as TableManifest;
    expect(manifest.retired).toHaveLength(1);

    // Past the grace period the next export deletes it, and writes only the manifest that forgets it.
    proxy.reset();
    const later = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const next = await runCli(exportArgs('s3://lake/changed'), { ...env(), MINTLIFY_ETL_NOW: later });
    expect(next.code).toBe(0);
    expect(proxy.putKeys).toEqual(['changed/page_daily/_manifest.json']);
    expect(proxy.counts.deleteRequests).toBe(1);
    expect(await keys('changed')).not.toContain(manifest.retired[0]!.key);
    expect((await keys('changed')).length).toBe(before.length);
    await expectLakeHoldsTheDatabase('changed');
  });

  it('deletes the files a killed export left unnamed, only once they are older than the grace period', async () => {
    await runCli(exportArgs('s3://lake/killed'), env());
    const stray = 'killed/site_daily/project_id=docs-a/year=2026/month=01/data_0-00000000deadbeef.parquet';
    await client.send(new PutObjectCommand({ Bucket: 'lake', Key: stray, Body: 'half of a file' }));
    proxy.reset();
    await runCli(exportArgs('s3://lake/killed'), env());
    expect(proxy.counts.deleteRequests).toBe(0);
    expect(await keys('killed')).toContain(stray.slice('killed/'.length));
    const later = new Date(Date.now() + 2 * 3_600_000).toISOString();
    await runCli(exportArgs('s3://lake/killed'), { ...env(), MINTLIFY_ETL_NOW: later });
    expect(await keys('killed')).not.toContain(stray.slice('killed/'.length));
    await expectLakeHoldsTheDatabase('killed');
  });
});

describe('export --to s3://… beside objects it did not write', () => {
  it('never deletes a file it did not write, however old, in a table folder it exports to', async () => {
    await runCli(exportArgs('s3://lake/shared'), env());
    const theirs = [
      'shared/site_daily/project_id=docs-a/year=2026/month=01/their-backfill.parquet',
      'shared/site_daily/project_id=docs-a/year=2026/month=01/data_0.parquet',
      'shared/page_daily/notes.parquet',
    ];
    for (const key of theirs)
      await client.send(new PutObjectCommand({ Bucket: 'lake', Key: key, Body: 'a user file' }));
    const later = new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();
    proxy.reset();
    const run = await runCli(exportArgs('s3://lake/shared'), { ...env(), MINTLIFY_ETL_NOW: later });
    expect(run.code).toBe(0);
    expect(proxy.counts.deleteRequests).toBe(0);
    const left = await keys('shared');
    for (const key of theirs) expect(left).toContain(key.slice('shared/'.length));
    await expectLakeHoldsTheDatabase('shared');
  });

  it('refuses a first export into a prefix that holds objects of something else, and writes nothing', async () => {
    const theirs = ['foreign/site_daily/2025.parquet', 'foreign/README.txt'];
    for (const key of theirs)
      await client.send(new PutObjectCommand({ Bucket: 'lake', Key: key, Body: 'a user file' }));
    proxy.reset();
    const run = await runCli(exportArgs('s3://lake/foreign'), env());
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/not written by mintlify-etl/);
    expect(run.stderr).toContain('README.txt');
    expect(proxy.putKeys).toEqual([]);
    expect(proxy.counts.deleteRequests).toBe(0);
    expect(await keys('foreign')).toEqual(['README.txt', 'site_daily/2025.parquet']);
  });

  it('refuses a first export into a folder that holds files of something else', async () => {
    const lake = join(dir, 'their-folder');
    mkdirSync(join(lake, 'page_daily'), { recursive: true });
    writeFileSync(join(lake, 'page_daily', 'mine.parquet'), 'a user file');
    const run = await runCli(exportArgs(lake), {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not written by mintlify-etl/);
    expect(readdirSync(lake)).toEqual(['page_daily']);
    expect(readdirSync(join(lake, 'page_daily'))).toEqual(['mine.parquet']);
  });
});

describe('export --to s3://… when S3 says no', () => {
  it('names a missing bucket in one line, exit 2, and writes nothing', async () => {
    const run = await runCli(exportArgs('s3://no-such-bucket/lake'), env());
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/s3:\/\/no-such-bucket\/lake\/: no such bucket/);
    expect(run.stderr).not.toMatch(/internal error/);
  });

  it('says the endpoint could not be reached, without its password, and exits 4', async () => {
    const run = await runCli(exportArgs('s3://lake/unreachable'), {
      ...s3.env,
      AWS_ENDPOINT_URL_S3: 'http://user:hunter2-secret@127.0.0.1:9',
      AWS_MAX_ATTEMPTS: '1',
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/could not be reached/);
    expect(run.stderr).not.toContain('hunter2-secret');
    expect(run.stderr).not.toMatch(/internal error/);
  });
});

describe('export --to s3://… killed mid-export', () => {
  it('leaves the last manifest and every file it names whole; the next export completes the new snapshot', async () => {
    const args = exportArgs('s3://lake/kill');
    expect((await runCli(args, env())).code).toBe(0);
    const before = await getText('kill/page_daily/_manifest.json');
    await withDuckFile(dbFile, (db) =>
      db.connection.run(`UPDATE page_daily SET ai = ai + 7 WHERE day >= DATE '2026-03-01'`),
    );
    const run = runCliProcess(args, env());
    proxy.onPut = (key) => {
      if (key.startsWith('kill/page_daily/') && !key.endsWith('_manifest.json')) run.child.kill('SIGKILL');
    };
    try {
      expect((await run).signal).toBe('SIGKILL');
    } finally {
      proxy.onPut = undefined;
    }
    expect(await getText('kill/page_daily/_manifest.json')).toBe(before);
    const manifest = JSON.parse(before) as TableManifest;
    const rows = await lakeRows('kill', 'page_daily');
    expect(rows.length).toBe(manifest.rows);
    const leftover = `mintlify-etl-lake-${run.child.pid}-`;
    expect(readdirSync(tmpdir()).some((n) => n.startsWith(leftover))).toBe(true);
    const again = await runCli(args, env());
    expect(again.code).toBe(0);
    await expectLakeHoldsTheDatabase('kill');
    // The killed export's private copy of the tables is gone with it.
    expect(readdirSync(tmpdir()).some((n) => n.startsWith(leftover))).toBe(false);
  });
});

describe('export --to DIR (a folder lake)', () => {
  it('writes the same layout and manifests, and nothing when run again', async () => {
    const lake = join(dir, 'lake');
    const first = await runCli(exportArgs(lake), {});
    expect(first.code).toBe(0);
    const manifest = JSON.parse(
      readFileSync(join(lake, 'page_daily', '_manifest.json'), 'utf8'),
    ) as TableManifest;
    expect(manifest.files.length).toBeGreaterThan(0);
    for (const f of manifest.files) expect(readFileSync(join(lake, f.key)).length).toBe(f.bytes);
    const again = await runCli(exportArgs(lake), {});
    const summary = JSON.parse(again.stdout) as { objectsPut: number; objectsDeleted: number };
    expect(summary.objectsPut).toBe(0);
    expect(summary.objectsDeleted).toBe(0);
  });

  it('keeps --to YYYY-MM-DD with --out as the end of the months exported', async () => {
    const out = join(dir, 'out');
    const run = await runCli(['export', '--db', dbFile, '--out', out, '--to', '2026-02-01', '--json'], {});
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { range: unknown }).range).toEqual({ from: null, to: '2026-02-01' });
  });
});

describe.skipIf(!hasPostgres())(
  'export --to s3://BUCKET/PREFIX (a PostgreSQL destination as the source)',
  () => {
    let server: PostgresServer | undefined;
    let pgUrl = '';

    beforeAll(async () => {
      server = await startPostgres();
      pgUrl = server.url;
      await copyDuckFileToPostgres(dbFile, pgUrl, 'lake', Object.keys(CHECKED));
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('writes the same rows as the DuckDB file holds, and nothing when run again', async () => {
      const args = ['export', '--db', pgUrl, '--schema', 'lake', '--to', 's3://lake/from-pg', '--json'];
      const first = await runCli(args, env());
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      await expectLakeHoldsTheDatabase('from-pg');
      proxy.reset();
      const again = await runCli(args, env());
      expect(again.code).toBe(0);
      expect(proxy.counts.put).toBe(0);
      expect(proxy.counts.deleteRequests).toBe(0);
      for (const t of (JSON.parse(again.stdout) as LakeSummary).tables)
        expect(t.partitionsChanged, t.table).toBe(0);
    });

    it('reads again only the day whose events changed, and retires the files of a day whose rows are gone', async () => {
      const args = ['export', '--db', pgUrl, '--schema', 'lake', '--to', 's3://lake/pg-days', '--json'];
      expect((await runCli(args, env())).code).toBe(0);
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(
          `UPDATE lake.analytics_events SET path = path || '?v=2' WHERE day = DATE '2026-01-31'`,
        );
        await client.query(`DELETE FROM lake.analytics_events WHERE day = DATE '2026-03-09'`);
        const run = await runCli(args, env());
        expect(run.code).toBe(0);
        const events = (JSON.parse(run.stdout) as LakeSummary).tables.find(
          (t) => t.table === 'analytics_events',
        );
        expect(events).toMatchObject({
          partitionsChanged: 1,
          partitionsUnchanged: DAYS.length - 2,
          filesRetired: 2,
        });
        const manifest = JSON.parse(
          await getText('pg-days/analytics_events/_manifest.json'),
        ) as TableManifest;
        expect(manifest.files.map((f) => f.partition['day'])).toEqual(DAYS.slice(0, -1));
        expect(manifest.rows).toBe((DAYS.length - 1) * PATHS.length);
      } finally {
        await client.query(
          `UPDATE lake.analytics_events SET path = replace(path, '?v=2', '') WHERE day = DATE '2026-01-31'`,
        );
        await client.end();
      }
    });
  },
);
