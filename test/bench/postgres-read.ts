/**
 * Peak RSS and wall time of `export` and `query` reading a PostgreSQL destination of a big site.
 *
 *   npm run build && node dist/test/bench/postgres-read.js [paths=5000] [days=1096]
 *
 * Starts a private server (test/helpers/postgres.ts), fills site_daily and page_daily with
 * `paths` pages a day for `days` days by generate_series, then runs each command in a child
 * process under /usr/bin/time -f %M: export to Parquet, and a query of every page_daily row as
 * CSV into a pipe that is read and dropped, once per FETCH size.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { printRows } from '../../src/cli/query-action.js';
import { createOutput } from '../../src/cli/output.js';
import { exportFromPostgres } from '../../src/load/postgres/export.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { quoteIdent } from '../../src/load/quote-ident.js';
import { withPostgresQuery } from '../../src/load/postgres/user-query.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { startPostgres } from '../helpers/postgres.js';

const SCHEMA = 'mintlify';

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await client.connect();
  await client.query(`SET search_path TO ${quoteIdent(SCHEMA)}`);
  await client.query("SET TimeZone TO 'UTC'");
  return client;
}

/** The child: one command, then exit. */
async function child(url: string, what: string, arg: string): Promise<void> {
  const client = await connect(url);
  try {
    if (what === 'export') {
      const settings = JSON.parse(process.env['MINTLIFY_BENCH_DUCK_SETTINGS'] ?? '{}') as Record<
        string,
        string
      >;
      await exportFromPostgres(client, { outDir: arg, format: 'parquet' }, settings);
    } else if (what === 'query')
      await withPostgresQuery(client, 'SELECT * FROM page_daily', { timeoutMs: 3_600_000 }, (s) =>
        printRows(s, { format: 'csv' }, createOutput(process.stdout)),
      );
    else if (what === 'query-fetch') {
      // The runner alone, rows counted and dropped: the FETCH size's own cost.
      let rows = 0;
      await withPostgresQuery(client, 'SELECT * FROM page_daily', { fetchRows: Number(arg) }, async (s) => {
        for await (const b of s.batches) rows += b.length;
      });
      process.stderr.write(`rows ${rows}\n`);
    }
  } finally {
    await client.end();
  }
}

function measure(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ ms: number; rssMiB: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const p = spawn(
      '/usr/bin/time',
      ['-f', 'maxrss %M', process.execPath, fileURLToPath(import.meta.url), ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    let err = '';
    p.stdout.resume();
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      const kb = /maxrss (\d+)/.exec(err)?.[1];
      if (code !== 0 || kb === undefined) reject(new Error(`child ${args.join(' ')} failed: ${err}`));
      else resolve({ ms: Date.now() - started, rssMiB: Number(kb) / 1024 });
    });
  });
}

async function fill(client: pg.Client, paths: number, days: number): Promise<void> {
  const span = `generate_series(DATE '2023-01-01', DATE '2023-01-01' + ${days - 1}, INTERVAL '1 day') d`;
  await client.query(
    `INSERT INTO site_daily SELECT 'bench', d::date, 1000, 10, 1010, false, now(), 'r' FROM ${span}`,
  );
  await client.query(
    `INSERT INTO page_daily SELECT 'bench', d::date, '/docs/section-' || (p % 40) || '/page-' || p, p % 97, p % 7, p % 97 + p % 7
     FROM ${span}, generate_series(1, ${paths}) p`,
  );
  await client.query('ANALYZE');
}

async function main(): Promise<void> {
  const [, , first, second, third] = process.argv;
  if (first === '--child') return child(second ?? '', third ?? '', process.argv[5] ?? '');
  const paths = Number(first ?? 5000);
  const days = Number(second ?? 1096);
  const server = await startPostgres();
  const out = mkdtempSync(join(tmpdir(), 'mintlify-etl-bench-export-'));
  try {
    const client = await connect(server.url);
    await migratePostgres(client, { schema: SCHEMA });
    const t0 = Date.now();
    await fill(client, paths, days);
    const rows = (await client.query<{ n: number }>('SELECT count(*) AS n FROM page_daily')).rows[0]?.n;
    await client.end();
    console.log(`filled ${rows} page_daily rows (${paths} paths x ${days} days) in ${Date.now() - t0} ms`);
    const idle = await measure(['--child', server.url, 'none', '']);
    console.log(`baseline (connect, exit): ${idle.rssMiB.toFixed(0)} MiB`);
    // MINTLIFY_BENCH_DUCK_VARIANTS: a JSON list of DuckDB settings to export under, e.g. [{},{"threads":"1"}].
    const variants = JSON.parse(process.env['MINTLIFY_BENCH_DUCK_VARIANTS'] ?? '[{}]') as unknown[];
    for (const v of variants)
      for (let i = 0; i < 2; i++) {
        rmSync(out, { recursive: true, force: true });
        const e = await measure(['--child', server.url, 'export', out], {
          MINTLIFY_BENCH_DUCK_SETTINGS: JSON.stringify(v),
        });
        console.log(
          `export parquet ${JSON.stringify(v)}: ${(e.ms / 1000).toFixed(1)} s, peak ${e.rssMiB.toFixed(0)} MiB`,
        );
      }
    if (process.env['MINTLIFY_BENCH_EXPORT_ONLY'] === '1') return;
    const q = await measure(['--child', server.url, 'query', '']);
    console.log(
      `query csv of every page_daily row: ${(q.ms / 1000).toFixed(1)} s, peak ${q.rssMiB.toFixed(0)} MiB`,
    );
    for (const n of [500, 2048, 10_000]) {
      const f = await measure(['--child', server.url, 'query-fetch', String(n)]);
      console.log(`  FETCH ${n}: ${(f.ms / 1000).toFixed(1)} s, peak ${f.rssMiB.toFixed(0)} MiB`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
