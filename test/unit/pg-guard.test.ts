import { describe, expect, it } from 'vitest';
import { SqlError } from '../../src/errors.js';
import { decodeUnicodeEscapes, tokenize } from '../../src/load/postgres/sql-lexer.js';
import { RefusedStatement, refuseLeavingReadOnly } from '../../src/load/postgres/query-guard.js';

/** SQL that could leave the read-only transaction `query` runs in, in the spellings an attacker would try. */
const ATTACKS: [string, string][] = [
  [
    'the issue’s payload',
    'SET TRANSACTION READ WRITE; DELETE FROM mintlify.site_daily; SELECT count(*) FROM mintlify.site_daily',
  ],
  ['lower case and comments', '/* hi */ set/**/transaction -- x\n read write; delete from site_daily'],
  [
    'after a read, with a semicolon in a string',
    "SELECT ';'; SET TRANSACTION READ WRITE; DELETE FROM site_daily",
  ],
  ['after a dollar quote', 'SELECT $q$ ; $q$; SeT transaction_read_only TO off; DELETE FROM site_daily'],
  ['SET SESSION CHARACTERISTICS', 'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE'],
  ['SET default_transaction_read_only', 'SET default_transaction_read_only = off'],
  ['SET LOCAL transaction_read_only', 'SET LOCAL transaction_read_only = false'],
  ['RESET ALL', 'RESET ALL'],
  ['SET ROLE', 'SET ROLE postgres'],
  ['DISCARD', 'DISCARD ALL'],
  ['BEGIN', 'BEGIN; DELETE FROM site_daily'],
  ['START TRANSACTION', 'START TRANSACTION READ WRITE; DELETE FROM site_daily'],
  ['COMMIT', 'COMMIT; DELETE FROM site_daily'],
  ['END', 'END'],
  ['ROLLBACK', 'ROLLBACK; DELETE FROM site_daily'],
  ['ABORT', 'ABORT'],
  ['a savepoint', 'SAVEPOINT s; DELETE FROM site_daily; ROLLBACK TO SAVEPOINT s'],
  ['RELEASE', 'RELEASE SAVEPOINT s'],
  ['PREPARE TRANSACTION', "PREPARE TRANSACTION 'x'"],
  ['set_config', "SELECT set_config('transaction_read_only', 'off', false)"],
  [
    'set_config schema-qualified and quoted',
    `SELECT "pg_catalog"."set_config"('default_transaction_read_only', 'off', false)`,
  ],
  ['set_config spelled in Unicode escapes', `SELECT U&"\\0073et_config"('statement_timeout', '0', false)`],
  [
    'set_config with its own escape character',
    `SELECT U&"!0073et_config" UESCAPE '!'('statement_timeout', '0', false)`,
  ],
  ['set_config in a DO block', "DO $$BEGIN PERFORM set_config('statement_timeout', '0', false); END$$"],
  ['SET inside a DO block', 'DO $body$ BEGIN SET TRANSACTION READ WRITE; DELETE FROM site_daily; END $body$'],
  ['COPY to a program', "COPY (SELECT 1) TO PROGRAM 'touch /tmp/mintlify-etl-owned'"],
  ['dblink', "SELECT dblink_exec('dbname=mintlify_test', 'DELETE FROM mintlify.site_daily')"],
  ['LOCK', 'LOCK site_daily IN ACCESS EXCLUSIVE MODE'],
  ['LOAD', "LOAD 'auto_explain'"],
  ['SET inside a parenthesis', '(SET TRANSACTION READ WRITE)'],
  ['an escape string hiding nothing', "SELECT E'\\''; SET TRANSACTION READ WRITE"],
  ['a DO block with a quoted body', "DO 'BEGIN PERFORM set_config(''x'', ''1'', false); END'"],
  ['lo_export', "SELECT lo_export(1, '/tmp/x')"],
  ['ROLLBACK AND CHAIN', 'ROLLBACK AND CHAIN'],
  ['COMMIT PREPARED', "COMMIT PREPARED 'x'"],
  ['RESET a setting', 'reset statement_timeout'],
  ['SET SESSION AUTHORIZATION', 'SET SESSION AUTHORIZATION postgres'],
  ['set_config after a line comment ending the input', 'SELECT 1 --\n; SELECT set_config(1,2,3)'],
  ['lo_export in a DO block', "DO $$BEGIN PERFORM lo_export(1, '/tmp/x'); END$$"],
  ['lo_import in a DO block', "DO $d$ BEGIN PERFORM lo_import('/etc/passwd'); END $d$"],
  ['lo_import', "SELECT lo_import('/etc/passwd')"],
  [
    'dblink_exec in a DO block',
    "DO $$BEGIN PERFORM dblink_exec('dbname=x', 'DELETE FROM site_daily'); END$$",
  ],
];

describe('the read-only guard of query on PostgreSQL', () => {
  it.each(ATTACKS)('refuses %s', (_what, sql) => {
    const err = (() => {
      try {
        refuseLeavingReadOnly(sql);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RefusedStatement);
    expect(err).toBeInstanceOf(SqlError);
    expect((err as SqlError).exitCode).toBe(2);
    expect((err as Error).message).not.toContain('\n');
  });

  it.each([
    "SELECT 'SET TRANSACTION READ WRITE; COMMIT' AS a",
    'SELECT $x$ set_config(1) $x$ /* RESET ALL; */ AS b',
    'SELECT 1 AS "commit", 2 AS "begin" -- ; SET x = 1',
    'SELECT day, total FROM site_daily ORDER BY day DESC LIMIT 14',
    'WITH x AS (SELECT 1) SELECT * FROM x; SHOW search_path; EXPLAIN ANALYZE SELECT 1',
    'DO $$BEGIN PERFORM pg_sleep(0.1); END$$',
    'SELECT "SET_CONFIG" FROM t',
    'SELECT settings, reset_at, offset_x FROM t',
  ])('lets data that only looks like those words through: %s', (sql) => {
    expect(() => refuseLeavingReadOnly(sql)).not.toThrow();
  });

  it('names what it refused', () => {
    expect(() => refuseLeavingReadOnly('SELECT 1; set transaction read write')).toThrow(
      /^SET TRANSACTION is refused before anything ran/,
    );
    expect(() => refuseLeavingReadOnly('SELECT pg_catalog.set_config(1, 2, true)')).toThrow(
      /^set_config\(\) is refused/,
    );
  });
});

describe('the PostgreSQL lexer', () => {
  it('decodes U& names with the default and a chosen escape character', () => {
    expect(decodeUnicodeEscapes('\\0073et\\+00005F', '\\')).toBe('set_');
    expect(decodeUnicodeEscapes('a!!b!0063', '!')).toBe('a!bc');
    const [t] = tokenize(`U&"d!0061t!+000061" UESCAPE '!' + 1`);
    expect(t).toMatchObject({ kind: 'name', value: 'data' });
  });

  it('reads strings, names, dollar quotes and nested comments as single tokens', () => {
    const kinds = tokenize(`SELECT E'it\\'s', 'a''b', "x""y", $t$ $$ $t$, /* a /* b */ c */ 1;`).map(
      (t) => `${t.kind}:${t.value}`,
    );
    expect(kinds).toEqual([
      'word:select',
      "string:it\\'s",
      'other:,',
      "string:a'b",
      'other:,',
      'name:x"y',
      'other:,',
      'string: $$ ',
      'other:,',
      'other:1',
      'semicolon:;',
    ]);
  });
});
