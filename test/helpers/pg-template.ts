import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTemplate, PG_SHARED_ENV, PG_TEMPLATE_ENV, postgresBinDir, stopServerIn } from './postgres.js';

/**
 * vitest global setup: one initdb per run instead of one per PostgreSQL test file. The template
 * data folder (with the test database made) is copied by each worker's one server (and by every
 * private server a file starts), which then only pays for `pg_ctl start`. The workers keep their
 * servers in a folder of the run, and the teardown stops any a worker left running (a worker
 * killed before its exit handler ran). Without the binaries it does nothing (the files skip or,
 * under MINTLIFY_ETL_REQUIRE_POSTGRES=1, fail as before). The projects that name it share the
 * first one's template and folder (the first one's teardown removes them, at the run's end).
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (!postgresBinDir()) return undefined;
  // Every project that names this setup runs it in the same process: the first one's serves all.
  const made = process.env[PG_SHARED_ENV];
  if (made !== undefined && existsSync(made)) return undefined;
  const { data, remove } = await makeTemplate();
  const shared = mkdtempSync(join(tmpdir(), 'mintlify-etl-pg-workers-'));
  // The server user (as root: postgres) must reach the servers' folders inside.
  chmodSync(shared, 0o755);
  // Workers are started after the global setup and inherit this environment.
  process.env[PG_TEMPLATE_ENV] = data;
  process.env[PG_SHARED_ENV] = shared;
  return async () => {
    delete process.env[PG_TEMPLATE_ENV];
    delete process.env[PG_SHARED_ENV];
    for (const name of existsSync(shared) ? readdirSync(shared) : []) {
      await stopServerIn(join(shared, name, 'data'));
    }
    rmSync(shared, { recursive: true, force: true });
    remove();
  };
}
