import pg from 'pg';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import type { PostgresServer } from '../helpers/postgres.js';
import { runCliProcess, type EmulatorProcess } from './procs.js';

/** The parts of `sync --json` the PostgreSQL benchmarks report. */
export interface PgSyncSummary {
  readonly status: string;
  readonly requests: number;
  readonly rows: number;
  readonly durationMs: number;
}

export interface PgSyncRun {
  readonly summary: PgSyncSummary;
  /** The process, from spawn to exit (Node start-up and exit included). */
  readonly wallMs: number;
  readonly maxRssMiB: number | undefined;
  /** The CLI process's own user + system CPU seconds (not the server's or the emulator's). */
  readonly cpuS: number | undefined;
}

/**
 * A fresh database on `server`, migrated: the warehouse as it stands before a first sync. Each
 * measurement gets its own, so no run finds windows an earlier one settled.
 */
export async function freshDatabase(server: PostgresServer, name: string): Promise<string> {
  const admin = new pg.Client({
    host: '127.0.0.1',
    port: server.port,
    user: 'postgres',
    database: 'postgres',
  });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await admin.end();
  }
  const url = `postgresql://postgres@127.0.0.1:${server.port}/${name}`;
  const client = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await client.connect();
  try {
    await migratePostgres(client);
  } finally {
    await client.end();
  }
  return url;
}

/** Drops a database freshDatabase made (its rows would only fill the disk). */
export async function dropDatabase(server: PostgresServer, name: string): Promise<void> {
  const admin = new pg.Client({
    host: '127.0.0.1',
    port: server.port,
    user: 'postgres',
    database: 'postgres',
  });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * `mintlify-etl sync --json` of the last `days` days as its own process (under /usr/bin/time for
 * its peak RSS) into a PostgreSQL URL, against an emulator process, with a budget that never binds.
 */
export async function pgSyncProcess(emu: EmulatorProcess, url: string, days: number): Promise<PgSyncRun> {
  const r = await runCliProcess(
    ['sync', '--from', addDays(todayUtc(), -days), '--db', url, '--rate-limit', '1000000/1h', '--json'],
    { MINTLIFY_API_URL: emu.url, MINTLIFY_API_KEY: emu.apiKey, MINTLIFY_PROJECT_ID: emu.projectId },
  );
  if (r.code !== 0) throw new Error(`sync into PostgreSQL exited ${r.code}: ${r.stderr.slice(-2000)}`);
  const summary = JSON.parse(r.stdout) as PgSyncSummary;
  if (summary.status !== 'succeeded') throw new Error(`sync into PostgreSQL ended ${summary.status}`);
  return { summary, wallMs: r.wallMs, maxRssMiB: r.maxRssMiB, cpuS: r.cpuS };
}
