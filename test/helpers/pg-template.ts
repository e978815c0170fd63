import { makeTemplate, PG_TEMPLATE_ENV, postgresBinDir } from './postgres.js';

/**
 * vitest global setup: one initdb per run instead of one per PostgreSQL test file. The template
 * data folder (with the test database made) is copied by every startPostgres, which then only
 * pays for `pg_ctl start`; each file still gets its own server. Without the binaries it does
 * nothing (the files skip or, under MINTLIFY_ETL_REQUIRE_POSTGRES=1, fail as before).
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (!postgresBinDir()) return undefined;
  const { data, remove } = await makeTemplate();
  // Workers are started after the global setup and inherit this environment.
  process.env[PG_TEMPLATE_ENV] = data;
  return () => {
    delete process.env[PG_TEMPLATE_ENV];
    remove();
  };
}
