import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../src/errors.js';
import { DUCKDB_DIALECT } from '../../src/load/duckdb/dialect.js';
import { pgDialectFor, POSTGRES_DIALECT } from '../../src/load/postgres/dialect.js';
import { renderSql, splitArgs } from '../../src/load/sql-render.js';
import type { PartialSource } from '../../src/load/sql-partials.js';
import { sqlDir } from '../../src/paths.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Partials from a map instead of sql/partials/. */
function partialsOf(map: Record<string, string>): PartialSource {
  return (name) => (name in map ? { text: map[name] as string, file: `partials/${name}.sql` } : undefined);
}

describe('the SQL renderer', () => {
  it('fills a fragment with arguments in each destination’s dialect', () => {
    const sql = 'SELECT {{ int_div(v.day - w.p_start, 7) }}, {{ lower_all(trim(q)) }}';
    expect(renderSql(sql, 'f.sql', DUCKDB_DIALECT)).toBe('SELECT (v.day - w.p_start) // (7), lower(trim(q))');
    expect(renderSql(sql, 'f.sql', POSTGRES_DIALECT)).toBe(
      'SELECT (v.day - w.p_start) / (7), (lower((trim(q)) COLLATE "und-x-icu") COLLATE "default")',
    );
  });

  it('fills a fragment inside another fragment’s arguments, the inner one first', () => {
    const sql =
      "SELECT {{ lower_all(replace({{ int_div(a, 2) }}, 'x', 'y')) }}, {{ create_schema({{ private_schema }}) }}";
    expect(renderSql(sql, 'f.sql', DUCKDB_DIALECT)).toBe(
      `SELECT lower(replace((a) // (2), 'x', 'y')), CREATE SCHEMA IF NOT EXISTS "main_private";`,
    );
    expect(renderSql(sql, 'f.sql', pgDialectFor('acme'))).toContain(
      `(lower((replace((a) / (2), 'x', 'y')) COLLATE "und-x-icu") COLLATE "default"), -- schema "acme_private"`,
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

  describe('partials', () => {
    it('includes a partial alone on its line at the tag’s indentation, and one inside a line as is, without its opening comment', () => {
      const partials = partialsOf({
        counts: '-- what it is\nhuman bigint,\nai    bigint,\n',
        id: 'project_id',
      });
      const sql = 'CREATE TABLE t (\n  {{> counts }}\n  x int\n);\nSELECT {{> id }}, 1;';
      expect(renderSql(sql, 'f.sql', DUCKDB_DIALECT, partials)).toBe(
        'CREATE TABLE t (\n  human bigint,\n  ai    bigint,\n  x int\n);\nSELECT project_id, 1;',
      );
    });

    it('fills a partial’s placeholders with its named arguments, then its fragments per destination', () => {
      const partials = partialsOf({
        per: 'date_trunc({{ grain }}, {{ col }}) AS {{ col }}_start, {{ lower_all(q) }}',
      });
      const sql = "SELECT {{> per(grain = 'week', col = day) }}";
      expect(renderSql(sql, 'f.sql', DUCKDB_DIALECT, partials)).toBe(
        "SELECT date_trunc('week', day) AS day_start, lower(q)",
      );
      expect(renderSql(sql, 'f.sql', POSTGRES_DIALECT, partials)).toContain('COLLATE "und-x-icu"');
    });

    it('includes the partials a partial names', () => {
      const partials = partialsOf({ outer: 'a,\n{{> inner(n = 2) }}\n', inner: 'b{{ n }}' });
      expect(renderSql('  {{> outer }}', 'f.sql', DUCKDB_DIALECT, partials)).toBe('  a,\n  b2');
    });

    it('refuses an unknown partial, naming it', () => {
      expect(() => renderSql('{{> nowhere }}', 'f.sql', DUCKDB_DIALECT, partialsOf({}))).toThrow(
        /unknown SQL partial \{\{> nowhere \}\}/,
      );
    });

    it('refuses a partial that includes itself, directly or through another', () => {
      const partials = partialsOf({ me: 'x {{> me }}', a: '{{> b }}', b: '{{> a }}' });
      expect(() => renderSql('{{> me }}', 'f.sql', DUCKDB_DIALECT, partials)).toThrow(/me includes itself/);
      expect(() => renderSql('{{> a }}', 'f.sql', DUCKDB_DIALECT, partials)).toThrow(/a > b > a/);
    });

    it('refuses an argument the partial never uses, and one without a name', () => {
      const partials = partialsOf({ p: 'x {{ n }}' });
      expect(() => renderSql('{{> p(n = 1, m = 2) }}', 'f.sql', DUCKDB_DIALECT, partials)).toThrow(
        /no \{\{ m \}\} to fill/,
      );
      expect(() => renderSql('{{> p(1) }}', 'f.sql', DUCKDB_DIALECT, partials)).toThrow(/name = sql/);
    });

    it('every partial under sql/partials/ is included by some file', () => {
      const texts = ['schema', 'views', 'partials'].flatMap((d) =>
        readdirSync(join(sqlDir(), d)).map((f) => readFileSync(join(sqlDir(), d, f), 'utf8')),
      );
      const unused = readdirSync(join(sqlDir(), 'partials'))
        .map((f) => f.replace(/\.sql$/, ''))
        .filter((name) => !texts.some((t) => new RegExp(`\\{\\{>\\s*${name}\\b`).test(t)));
      expect(unused).toEqual([]);
    });

    it('reads partials from sql/partials/ beside the file’s folder by default', () => {
      const file = join(sqlDir(), 'schema', '001_init.sql');
      expect(() => renderSql('{{> no_such_partial }}', file, DUCKDB_DIALECT)).toThrow(InternalError);
      expect(renderSql(readFileSync(file, 'utf8'), file, DUCKDB_DIALECT)).not.toMatch(/\{\{/);
    });
  });
});
