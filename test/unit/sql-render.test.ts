import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../src/errors.js';
import { DUCKDB_DIALECT } from '../../src/load/duckdb/dialect.js';
import { POSTGRES_DIALECT } from '../../src/load/postgres/dialect.js';
import { renderSql, splitArgs } from '../../src/load/sql-render.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('the SQL renderer', () => {
  it('fills a fragment with arguments in each destination’s dialect', () => {
    const sql = 'SELECT {{ int_div(v.day - w.p_start, 7) }}, {{ lower_all(trim(q)) }}';
    expect(renderSql(sql, 'f.sql', DUCKDB_DIALECT)).toBe('SELECT (v.day - w.p_start) // (7), lower(trim(q))');
    expect(renderSql(sql, 'f.sql', POSTGRES_DIALECT)).toBe(
      'SELECT (v.day - w.p_start) / (7), (lower((trim(q)) COLLATE "und-x-icu") COLLATE "default")',
    );
  });

  it('writes a function block as a DuckDB macro and as a PostgreSQL SQL function', () => {
    const sql =
      '{{# scalar_function twice(s text) RETURNS text }}\n  s || s\n{{/ scalar_function }}\nSELECT 1;';
    expect(renderSql(sql, 'f.sql', DUCKDB_DIALECT)).toBe(
      'CREATE OR REPLACE MACRO twice(s) AS\n  s || s;\nSELECT 1;',
    );
    expect(renderSql(sql, 'f.sql', POSTGRES_DIALECT)).toBe(
      'CREATE OR REPLACE FUNCTION twice(s text) RETURNS text\nLANGUAGE sql IMMUTABLE\nAS $$\n  SELECT s || s\n$$;\nSELECT 1;',
    );
  });

  it('refuses an unknown fragment, a wrong number of arguments and a brace it cannot read', () => {
    expect(() => renderSql('{{ nope }}', 'f.sql', DUCKDB_DIALECT)).toThrow(InternalError);
    expect(() => renderSql('{{ int_div(a) }}', 'f.sql', DUCKDB_DIALECT)).toThrow(/takes 2 argument/);
    expect(() => renderSql('{{ int_div(a, b }}', 'f.sql', DUCKDB_DIALECT)).toThrow(InternalError);
  });

  it('splits arguments at the commas outside parentheses and quotes', () => {
    expect(splitArgs("a, f(b, c), 'x, y', (run_id, seq)")).toEqual([
      'a',
      'f(b, c)',
      "'x, y'",
      '(run_id, seq)',
    ]);
    expect(splitArgs('')).toEqual([]);
  });

  it('no module outside src/load asks which dialect its session speaks: fragments come from session.sql', () => {
    const asking = tsFiles(SRC)
      .filter((f) => !relative(SRC, f).startsWith('load'))
      .filter((f) => /\.dialect\b/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(asking).toEqual([]);
  });
});
