import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/duckdb-temp.js';
import { hasPostgres, postgresBinDir, REQUIRE_POSTGRES_ENV } from '../helpers/postgres.js';

let cleanups: (() => void)[] = [];
afterEach(() => {
  cleanups.forEach((c) => c());
  cleanups = [];
});

/** A fake /usr/lib/postgresql holding server binaries for these versions. */
function debianRoot(versions: readonly string[]): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  for (const v of versions) {
    mkdirSync(join(dir, v, 'bin'), { recursive: true });
    for (const b of ['initdb', 'pg_ctl']) writeFileSync(join(dir, v, 'bin', b), '');
  }
  return dir;
}

describe('whether the PostgreSQL tests run', () => {
  it('uses the newest installed server version', () => {
    const root = debianRoot(['9', '15', '16']);
    expect(postgresBinDir(root)).toBe(join(root, '16', 'bin'));
  });

  it('skips, saying in one line how to install PostgreSQL, when the binaries are missing', () => {
    const said: string[] = [];
    expect(hasPostgres({}, join(debianRoot([]), 'absent'), (l) => said.push(l))).toBe(false);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('apt-get install postgresql');
  });

  it('fails instead of skipping when the environment requires PostgreSQL (CI)', () => {
    const root = join(debianRoot([]), 'absent');
    expect(() => hasPostgres({ [REQUIRE_POSTGRES_ENV]: '1' }, root, () => {})).toThrow(
      /apt-get install postgresql/,
    );
  });

  it('runs when the binaries are there, required or not', () => {
    const root = debianRoot(['15']);
    expect(hasPostgres({ [REQUIRE_POSTGRES_ENV]: '1' }, root, () => {})).toBe(true);
  });
});
