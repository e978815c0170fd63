import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SqlError } from '../../src/errors.js';
import { pgSqlError } from '../../src/load/postgres/user-query.js';
import { isCursorQuery, splitStatements } from '../../src/load/postgres/statements.js';
import {
  isoFromPgTimestamp,
  jsonNumericText,
  pgColumns,
  pgJsonValue,
  PG_OID,
} from '../../src/load/postgres/query-values.js';

describe('splitting PostgreSQL SQL into statements', () => {
  it('splits at semicolons and leaves out blank statements and comments alone', () => {
    expect(splitStatements('SELECT 1; SELECT 2;\n -- done\n')).toEqual(['SELECT 1', ' SELECT 2']);
    expect(splitStatements('  ;  ; /* x */ ')).toEqual([]);
  });

  it('never splits inside quotes, identifiers, comments or dollar quotes', () => {
    const sql = [
      "SELECT 'a;b', 'it''s;'",
      'SELECT 1 AS "x;y"',
      "SELECT E'\\';' AS e",
      'SELECT 1 -- a; comment\n + 1',
      'SELECT /* a /* nested; */ still; */ 1',
      'SELECT $$a;b$$, $tag$ $$; $tag$',
    ];
    expect(splitStatements(sql.join(';'))).toEqual(sql);
  });

  it('takes $1 for a parameter, not a dollar quote', () => {
    expect(splitStatements('SELECT $1; SELECT 2')).toEqual(['SELECT $1', ' SELECT 2']);
  });

  it('knows which statements a cursor can run', () => {
    expect(isCursorQuery(' /* c */ (SELECT 1)')).toBe(true);
    expect(isCursorQuery('with x as (select 1) select * from x')).toBe(true);
    expect(isCursorQuery('SHOW search_path')).toBe(false);
    expect(isCursorQuery('EXPLAIN SELECT 1')).toBe(false);
  });
});

describe('PostgreSQL values as the DuckDB path prints them', () => {
  it('reads integers as numbers while exact, as text beyond', () => {
    expect(pgJsonValue(PG_OID.int8, '42')).toBe(42);
    expect(pgJsonValue(PG_OID.int8, '9007199254740993')).toBe('9007199254740993');
    expect(pgJsonValue(PG_OID.int4, '-7')).toBe(-7);
  });

  it('reads doubles and numerics as DuckDB converts DOUBLE and DECIMAL', () => {
    expect(pgJsonValue(PG_OID.float8, '0.1')).toBe(0.1);
    expect(pgJsonValue(PG_OID.float8, 'NaN')).toBe('NaN');
    expect(pgJsonValue(PG_OID.float8, '-Infinity')).toBe('-Infinity');
    expect(jsonNumericText('12.50')).toBe(12.5);
    expect(jsonNumericText('12.3333333333333333')).toBe('12.3333333333333333');
    expect(jsonNumericText('123456789012345678901234')).toBe('123456789012345678901234');
  });

  it('reads times in UTC with milliseconds, microseconds only when there are some', () => {
    expect(isoFromPgTimestamp('2026-01-02 03:04:05+00', 'Z')).toBe('2026-01-02T03:04:05.000Z');
    expect(isoFromPgTimestamp('2026-01-02 03:04:05.000007+00', 'Z')).toBe('2026-01-02T03:04:05.000007Z');
    expect(isoFromPgTimestamp('2026-01-02 08:34:05.12+05:30', 'Z')).toBe('2026-01-02T03:04:05.120Z');
    expect(isoFromPgTimestamp('2026-01-01 22:04:05.5-05', 'Z')).toBe('2026-01-02T03:04:05.500Z');
    expect(isoFromPgTimestamp('2026-01-02 03:04:05.5', '')).toBe('2026-01-02T03:04:05.500');
    expect(isoFromPgTimestamp('infinity', 'Z')).toBe('infinity');
  });

  it('reads booleans, days, jsonb with keys by name, and arrays element by element', () => {
    expect(pgJsonValue(PG_OID.bool, 't')).toBe(true);
    expect(pgJsonValue(PG_OID.date, '2026-03-01')).toBe('2026-03-01');
    expect(pgJsonValue(PG_OID.jsonb, '[{"url": "u", "title": "t"}]')).toEqual([{ title: 't', url: 'u' }]);
    expect(JSON.stringify(pgJsonValue(PG_OID.jsonb, '{"url": "u", "title": "t"}'))).toBe(
      '{"title":"t","url":"u"}',
    );
    expect(pgJsonValue(1016, '{1,NULL,3}')).toEqual([1, null, 3]);
    expect(pgJsonValue(1009, '{"a,b",NULL,"c\\"d"}')).toEqual(['a,b', null, 'c"d']);
    expect(pgJsonValue(1007, '{{1,2},{3,4}}')).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(pgJsonValue(PG_OID.text, null)).toBeNull();
  });

  it("names duplicate columns as DuckDB's client does and aligns numbers", () => {
    const cols = pgColumns([
      { name: 'a', dataTypeID: PG_OID.int8 },
      { name: 'a', dataTypeID: PG_OID.text },
      { name: 'd', dataTypeID: PG_OID.date },
    ]);
    expect(cols.map((c) => [c.key, c.numeric, c.whole])).toEqual([
      ['a', true, true],
      ['a:1', false, false],
      ['d', false, true],
    ]);
  });

  it("turns PostgreSQL's errors into one-line SQL errors and leaves other errors alone", () => {
    const refused = Object.assign(
      new pg.DatabaseError('cannot execute INSERT in a read-only transaction', 0, 'error'),
      { code: '25006' },
    );
    const e = pgSqlError(refused, 1000);
    expect(e).toBeInstanceOf(SqlError);
    expect((e as Error).message).toMatch(
      /^cannot execute INSERT in a read-only transaction \(query is read-only/,
    );
    const lost = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(pgSqlError(lost, 1000)).toBe(lost);
  });
});
