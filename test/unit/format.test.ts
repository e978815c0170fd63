import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth as reportWidth } from '../../src/report/text.js';
import {
  cellText,
  csvField,
  displayWidth,
  formatCsv,
  formatJson,
  formatJsonl,
  formatTable,
  truncate,
} from '../../src/query/format.js';
import { type Column } from '../../src/load/query-result.js';
import { readQuery, sqlErrorMessage } from '../../src/load/duckdb/user-query.js';
import { isoFromMicros } from '../../src/load/duckdb/query-values.js';
import { jsonInteger } from '../../src/load/query-result.js';

const col = (name: string, numeric = false, key = name): Column => ({ name, key, numeric });

describe('csvField', () => {
  it('leaves plain text, numbers and unicode unquoted', () => {
    expect(csvField('/docs/intro')).toBe('/docs/intro');
    expect(csvField(42)).toBe('42');
    expect(csvField('/文档/ünïcode 🚀')).toBe('/文档/ünïcode 🚀');
    expect(csvField(true)).toBe('true');
  });

  it('quotes a field holding a comma, a quote, CR or LF and doubles the quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('"')).toBe('""""');
  });

  it('writes NULL as an empty field and the empty string as ""', () => {
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('""');
  });

  it('writes lists and structs as JSON text, quoted because of their commas and quotes', () => {
    expect(csvField([1, 2])).toBe('"[1,2]"');
    expect(csvField({ a: 'x' })).toBe('"{""a"":""x""}"');
  });
});

describe('formatCsv', () => {
  it('writes a header row, then one line per row', () => {
    const text = formatCsv(
      [col('path'), col('total', true)],
      [
        ['/a,b', 3],
        ['/"q"', null],
      ],
    );
    expect(text).toBe('path,total\n"/a,b",3\n"/""q""",\n');
  });

  it('writes only the header for an empty result', () => {
    expect(formatCsv([col('day'), col('total', true)], [])).toBe('day,total\n');
  });
});

describe('JSON output', () => {
  it('keys each object by the unique column key and keeps nulls', () => {
    const cols = [col('n', true), col('n', true, 'n:1'), col('d')];
    expect(JSON.parse(formatJson(cols, [[1, 2, null]]))).toEqual([{ n: 1, 'n:1': 2, d: null }]);
  });

  it('prints [] for no rows, and jsonl prints nothing', () => {
    expect(formatJson([col('a')], [])).toBe('[]\n');
    expect(formatJsonl([col('a')], [])).toBe('');
  });

  it('prints one object per line in jsonl', () => {
    expect(formatJsonl([col('a')], [['x'], ['y\nz']])).toBe('{"a":"x"}\n{"a":"y\\nz"}\n');
  });
});

describe('jsonInteger', () => {
  it('keeps safe integers as numbers and larger ones as exact strings', () => {
    expect(jsonInteger(42n)).toBe(42);
    expect(jsonInteger(BigInt(Number.MAX_SAFE_INTEGER))).toBe(9007199254740991);
    expect(jsonInteger(BigInt(Number.MAX_SAFE_INTEGER) + 1n)).toBe('9007199254740992');
    expect(jsonInteger(-(2n ** 70n))).toBe('-1180591620717411303424');
  });
});

describe('isoFromMicros', () => {
  it('writes UTC ISO 8601 and keeps microseconds when there are any', () => {
    expect(isoFromMicros(1_767_225_600_000_000n, 'Z')).toBe('2026-01-01T00:00:00.000Z');
    expect(isoFromMicros(1_767_225_600_123_456n, 'Z')).toBe('2026-01-01T00:00:00.123456Z');
    expect(isoFromMicros(-1n, '')).toBe('1969-12-31T23:59:59.999999');
  });
});

describe('DuckDB values as JSON', () => {
  let instance: DuckDBInstance;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
  });
  afterAll(() => instance.closeSync());

  it('converts integers, dates, timestamps, decimals, lists and structs', async () => {
    const conn = await instance.connect();
    const { columns, rows } = await readQuery(
      conn,
      `SELECT 12::BIGINT AS big, 9007199254740993::BIGINT AS huge, 170141183460469231731687303715884105727::HUGEINT AS h,
        DATE '2026-03-01' AS day, TIMESTAMPTZ '2026-03-01 10:20:30.5+00' AS at, TIMESTAMP '2026-03-01 10:20:30' AS ts,
        1.50::DECIMAL(5,2) AS dec, ['a', NULL]::VARCHAR[] AS list, {'x': 1, 'd': DATE '2026-01-02'} AS st,
        'nan'::DOUBLE AS nan, 0.25::DOUBLE AS dbl, true AS flag, NULL::INTEGER AS nothing`,
    );
    conn.closeSync();
    expect(rows).toEqual([
      [
        12,
        '9007199254740993',
        '170141183460469231731687303715884105727',
        '2026-03-01',
        '2026-03-01T10:20:30.500Z',
        '2026-03-01T10:20:30.000',
        1.5,
        ['a', null],
        { x: 1, d: '2026-01-02' },
        'NaN',
        0.25,
        true,
        null,
      ],
    ]);
    expect(columns.filter((c) => c.numeric).map((c) => c.name)).toEqual([
      'big',
      'huge',
      'h',
      'dec',
      'nan',
      'dbl',
      'nothing',
    ]);
  });

  it('writes infinite dates as infinity and every timestamp precision in the same ISO form', async () => {
    const conn = await instance.connect();
    const { columns, rows } = await readQuery(
      conn,
      `SELECT 'infinity'::DATE AS a, '-infinity'::DATE AS b, 'infinity'::TIMESTAMP_NS AS c,
        TIMESTAMP_NS '2026-03-01 12:34:56.123456789' AS ns, TIMESTAMP_MS '2026-03-01 12:34:56.123' AS ms,
        TIMESTAMP_S '2026-03-01 12:34:56' AS s, TIMESTAMP '2026-03-01 12:34:56' AS us`,
    );
    conn.closeSync();
    expect(rows).toEqual([
      [
        'infinity',
        '-infinity',
        'infinity',
        '2026-03-01T12:34:56.123456789',
        '2026-03-01T12:34:56.123',
        '2026-03-01T12:34:56.000',
        '2026-03-01T12:34:56.000',
      ],
    ]);
    expect(columns.every((c) => c.whole === true)).toBe(true);
  });

  it('folds a DuckDB error onto one line without the LINE excerpt', async () => {
    const conn = await instance.connect();
    const err = await readQuery(conn, 'SELECT * FROM nope').catch((e: unknown) => e);
    conn.closeSync();
    expect(err).toMatchObject({ code: 'E_SQL', exitCode: 2 });
    expect((err as Error).message).toBe(
      (err as Error).message.split('\n')[0], // a single line
    );
    expect((err as Error).message).toMatch(/^Catalog Error: Table with name nope does not exist!/);
    expect((err as Error).message).not.toContain('LINE 1');
  });

  it('takes the text before the first blank line of a message', () => {
    expect(
      sqlErrorMessage(
        new Error('Parser Error: syntax error at or near "SELEC"\n\nLINE 1: SELEC 1\n        ^'),
      ),
    ).toBe('Parser Error: syntax error at or near "SELEC"');
  });
});

describe('displayWidth and truncate', () => {
  it('counts wide CJK characters and emoji as two cells and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('文档')).toBe(4);
    expect(displayWidth('🚀')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
    // Emoji drawn as emoji by default outside the big emoji blocks, and with U+FE0F.
    expect(displayWidth('☕')).toBe(2);
    expect(displayWidth('⌚')).toBe(2);
    expect(displayWidth('❤\ufe0f')).toBe(2);
    expect(displayWidth('❤')).toBe(1);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('🇺🇸')).toBe(2);
    expect(displayWidth('a\u200bb')).toBe(2);
  });

  it('measures the same in the query tables and the report', () => {
    for (const text of ['/文档/☕', 'x\u200by', 'e\u0301', '🚀'])
      expect(reportWidth(text)).toBe(displayWidth(text));
  });

  it('cuts to the width with an ellipsis, never splitting a character', () => {
    expect(truncate('abcdefgh', 5)).toBe('abcd…');
    expect(truncate('abcde', 5)).toBe('abcde');
    expect(truncate('文档文档', 5)).toBe('文档…');
    expect(displayWidth(truncate('文档文档', 5))).toBe(5);
  });
});

describe('formatTable', () => {
  const cols = [col('path'), col('human', true), col('total', true)];

  it('aligns columns, right-aligns numbers and ends with the row count', () => {
    const text = formatTable(
      cols,
      [
        ['/a', 5, 1200],
        ['/longer/path', 12, 7],
      ],
      { maxWidth: 120 },
    );
    expect(text.split('\n')).toEqual([
      'path          human  total',
      '------------  -----  -----',
      '/a                5   1200',
      '/longer/path     12      7',
      '(2 rows)',
      '',
    ]);
  });

  it('prints the header and (0 rows) for an empty result', () => {
    expect(formatTable(cols, [], { maxWidth: 120 })).toBe(
      'path  human  total\n----  -----  -----\n(0 rows)\n',
    );
  });

  it('says (1 row) and shows NULL for null', () => {
    expect(formatTable([col('a')], [[null]], { maxWidth: 80 })).toBe('a\n----\nNULL\n(1 row)\n');
  });

  it('cuts cells longer than 40 characters with an ellipsis', () => {
    const long = `/${'x'.repeat(60)}`;
    const lines = formatTable([col('path')], [[long]], { maxWidth: 200 }).split('\n');
    expect(lines[2]).toBe(`${long.slice(0, 39)}…`);
    expect(lines[2]).toHaveLength(40);
  });

  it('narrows the widest column to fit the width', () => {
    const long = `/${'y'.repeat(38)}`;
    const text = formatTable(cols, [[long, 1, 2]], { maxWidth: 30 });
    for (const line of text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(30);
    expect(text).toContain('(1 row)');
    expect(text.split('\n')[2]).toMatch(/^\/y+…\s+1\s+2$/);
  });

  it('leaves out columns that cannot fit and names them', () => {
    const many = Array.from({ length: 12 }, (_, i) => col(`column_${i}`, true));
    const text = formatTable(many, [many.map((_, i) => i)], { maxWidth: 40 });
    const lines = text.split('\n');
    for (const line of lines.slice(0, 3)) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(lines.at(-2)).toMatch(
      /^\(\d+ more columns not shown: .*column_11; widen with --max-width or use --format csv\)$/,
    );
  });

  it('shows fractions with four decimals at most, integers in full', () => {
    const lines = formatTable(
      [col('share', true), col('n', true)],
      [
        [1 / 6, 9007199254740991],
        [0.00001234, 2.5],
      ],
      {
        maxWidth: 80,
      },
    ).split('\n');
    expect(lines[2]).toBe('   0.1667  9007199254740991');
    expect(lines[3]).toBe('0.0000123               2.5');
  });

  it('keeps days whole: columns are never narrowed below 10 cells', () => {
    const text = formatTable([col('day'), col('path')], [['2026-03-01', `/${'z'.repeat(50)}`]], {
      maxWidth: 30,
    });
    expect(text.split('\n')[2]).toBe(`2026-03-01  /${'z'.repeat(16)}…`);
  });

  it('never cuts a number, a timestamp or a header: a column that does not fit is left out whole', () => {
    const ts = { ...col('loaded_at'), whole: true };
    const text = formatTable(
      [col('path'), col('total_visitor_days_7d', true), ts, col('human', true)],
      [[`/${'p'.repeat(30)}`, 1234567890, '2026-03-01T12:34:56.789Z', 42]],
      { maxWidth: 50 },
    );
    const lines = text.split('\n');
    for (const line of lines.slice(0, 3)) expect(displayWidth(line)).toBeLessThanOrEqual(50);
    expect(lines[0]).toMatch(/^path\s+total_visitor_days_7d$/);
    expect(lines[2]).toMatch(/^\/p+…\s+1234567890$/);
    expect(lines.at(-2)).toBe(
      '(2 more columns not shown: loaded_at, human; widen with --max-width or use --format csv)',
    );
  });

  it('shows a newline inside a cell as ↵ so the grid holds', () => {
    expect(formatTable([col('p')], [['a\nb']], { maxWidth: 80 }).split('\n')[2]).toBe('a↵b');
  });

  it('pads unicode by its display width', () => {
    const lines = formatTable(
      [col('path'), col('n', true)],
      [
        ['/文档', 1],
        ['/abcd', 22],
      ],
      { maxWidth: 80 },
    ).split('\n');
    expect(lines[2]).toBe('/文档   1');
    expect(lines[3]).toBe('/abcd  22');
  });
});

describe('cellText', () => {
  it('renders values the way CSV and tables show them', () => {
    expect(cellText(null)).toBeUndefined();
    expect(cellText(1.5)).toBe('1.5');
    expect(cellText(['a'])).toBe('["a"]');
  });
});
