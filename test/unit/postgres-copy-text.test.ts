import { describe, expect, it } from 'vitest';
import {
  bigintText,
  chunkLines,
  encoderFor,
  linePrefix,
  textField,
} from '../../src/load/postgres/copy-text.js';

describe('COPY text fields', () => {
  it('escapes backslash, tab, newline and carriage return, and leaves every other character as it is', () => {
    expect(textField('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(textField('"quoted", \'single\', 🚀 文档, \\N')).toBe('"quoted", \'single\', 🚀 文档, \\\\N');
    expect(textField('')).toBe('');
  });

  it('refuses NUL and an unpaired surrogate, naming the column', () => {
    expect(() => textField('a\u0000b', 'comment')).toThrow(/^column comment: a value holds U\+0000 \(NUL\)/);
    expect(() => textField('x\ud800', 'path')).toThrow(
      /^column path: a value holds an unpaired UTF-16 surrogate/,
    );
  });

  it('writes NULL, booleans and numbers as PostgreSQL reads them, and a VARCHAR boolean as its text', () => {
    const bool = encoderFor({ name: 'b', type: 'BOOLEAN' });
    expect([true, false, null, undefined].map(bool)).toEqual(['t', 'f', '\\N', '\\N']);
    expect(encoderFor({ name: 's', type: 'VARCHAR' })(true)).toBe('true');
    expect(encoderFor({ name: 'n', type: 'DOUBLE' })(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(encoderFor({ name: 'n', type: 'BIGINT' })(2 ** 53 - 1)).toBe('9007199254740991');
  });

  it('keeps a list of structs to its shape (missing fields NULL, others dropped) and refuses NUL inside it', () => {
    const sources = encoderFor({ name: 'sources', type: 'X', json: '[{"title":"VARCHAR","url":"VARCHAR"}]' });
    expect(sources([{ title: 'a\tb', extra: 1 }, { url: 'u' }])).toBe(
      '[{"title":"a\\\\tb","url":null},{"title":null,"url":"u"}]',
    );
    expect(sources([])).toBe('[]');
    expect(() => sources([{ title: '\u0000', url: 'u' }])).toThrow(/column sources: .*NUL/);
  });

  it('turns a chunk of rows or of columns into one line per row after the window prefix', () => {
    const columns = [
      { name: 'path', type: 'VARCHAR' },
      { name: 'total', type: 'BIGINT' },
    ];
    const enc = columns.map(encoderFor);
    const prefix = linePrefix(['p\t1', '2026-11-02']);
    const rows = {
      rows: 2,
      body: JSON.stringify([
        { path: '/a', total: 1 },
        { path: '/b\n', total: null },
      ]),
    };
    const cols = { rows: 2, body: JSON.stringify({ path: ['/a', '/b\n'], total: [1, null] }) };
    const want = 'p\\t1\t2026-11-02\t/a\t1\np\\t1\t2026-11-02\t/b\\n\t\\N\n';
    expect(chunkLines(rows, columns, enc, prefix, false)).toBe(want);
    expect(chunkLines(cols, columns, enc, prefix, true)).toBe(want);
  });

  it('writes a count past 2^53 as the integer the double holds, as DuckDB binds it', () => {
    expect(bigintText(99079191802150830)).toBe('99079191802150832');
    expect(bigintText(null)).toBeNull();
  });
});
