import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError } from '../errors.js';
import type { SqlDialect } from './sql-dialect.js';
import { renderSql } from './sql-render.js';

/*
 * sql/ holds one text of every migration (schema/NNN_*.sql, applied once, in order, each recorded
 * in schema_migrations) and of every view (views/NNN_*.sql, applied again when they change), for
 * every destination: this reads them and renders them for one. sql/partials/ holds pieces those
 * files include (sql-partials.ts); it is read only through them, never listed here.
 */

export interface SqlFile {
  readonly version: number;
  readonly name: string;
  readonly file: string;
}

/** A file with its SQL for one destination. */
export interface RenderedSqlFile extends SqlFile {
  readonly sql: string;
}

/** `NNN_name.sql` files of a folder in numeric order; two files with one number is a packaging bug. */
export async function numberedSqlFiles(dir: string): Promise<SqlFile[]> {
  const names = existsSync(dir) ? await readdir(dir) : [];
  const files: SqlFile[] = [];
  for (const name of names) {
    const m = /^(\d+)_.+\.sql$/.exec(name);
    if (m) files.push({ version: Number(m[1]), name, file: join(dir, name) });
  }
  files.sort((a, b) => a.version - b.version);
  for (let i = 1; i < files.length; i++) {
    if (files[i]?.version === files[i - 1]?.version) {
      throw new InternalError(`two SQL files share number ${files[i]?.version} in ${dir}`, { dir });
    }
  }
  return files;
}

/** The SQL of one file for a destination. */
export async function renderFile(f: SqlFile, dialect: SqlDialect): Promise<string> {
  return renderSql(await readFile(f.file, 'utf8'), f.file, dialect);
}

/** Every file of `dir/part` (schema or views) in order, rendered for a destination. */
export async function renderedSqlFiles(
  dir: string,
  part: 'schema' | 'views',
  dialect: SqlDialect,
): Promise<RenderedSqlFile[]> {
  const files = await numberedSqlFiles(join(dir, part));
  return Promise.all(files.map(async (f) => ({ ...f, sql: await renderFile(f, dialect) })));
}
