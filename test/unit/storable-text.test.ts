import { describe, expect, it } from 'vitest';
import { withoutQuotedValues } from '../../src/load/driver-message.js';
import { eventChunks } from '../../src/load/window-data.js';
import { jsonChunks } from '../../src/load/window-data.js';
import { isStorable, storableJson, storableText } from '../../src/load/storable-text.js';

describe('text both destinations can store', () => {
  it('replaces NUL and each unpaired surrogate by U+FFFD, and keeps a pair', () => {
    expect(storableText('a\u0000b')).toBe('a\ufffdb');
    expect(storableText('\ud800x\udc00')).toBe('\ufffdx\ufffd');
    expect(storableText('\udfff\ud800')).toBe('\ufffd\ufffd');
    expect(storableText('😀 \ud83d\ude00')).toBe('😀 😀');
    expect(storableText('tab\tand\u0001 stay')).toBe('tab\tand\u0001 stay');
    expect(isStorable('plain 文档 🚀')).toBe(true);
    expect(isStorable('x\ud800')).toBe(false);
    // A lone LOW surrogate alone in the text (no high one beside it to set the check off).
    expect(isStorable('x\udc00')).toBe(false);
    expect(storableText('Great \udc00 docs')).toBe('Great \ufffd docs');
    expect(storableText('\udfff')).toBe('\ufffd');
    expect(isStorable('x\u0000')).toBe(false);
  });

  it('writes rows as JSON with every string storable, nested ones and keys included', () => {
    const row = { a: 'x\u0000', s: [{ title: '\ud800', url: 'u\udc00' }], n: 1, k: null };
    expect(JSON.parse(storableJson(row))).toEqual({
      a: 'x\ufffd',
      s: [{ title: '\ufffd', url: 'u\ufffd' }],
      n: 1,
      k: null,
    });
    expect(JSON.parse(storableJson({ ['k\u0000']: 1 }))).toEqual({ 'k\ufffd': 1 });
    // A field list keeps only those fields, as JSON.stringify's does.
    expect(storableJson([{ a: '\u0000', b: 2 }], ['a'])).toBe('[{"a":"\ufffd"}]');
  });

  it('leaves text as it is when it only looks like an escape (a backslash before u0000)', () => {
    const row = { a: '\\u0000 and \\ud800' };
    expect(JSON.parse(storableJson(row))).toEqual(row);
  });

  it('is the way every stream writes its load text: day tables, columns and event rows', () => {
    const byRow = jsonChunks([{ query: 'q\u0000' }], { table: 't', columns: [['query', 'VARCHAR']] });
    expect(JSON.parse(byRow[0]?.body ?? '')).toEqual([{ query: 'q\ufffd' }]);
    const byColumn = jsonChunks([{ path: '/\ud800' }], {
      table: 't',
      columns: [['path', 'VARCHAR']],
      byColumn: true,
    });
    expect(JSON.parse(byColumn[0]?.body ?? '')).toEqual({ path: ['/\ufffd'] });
    const events = eventChunks([{ comment: '\udc00', sources: [{ title: 'a\u0000' }] }]);
    expect(JSON.parse(events.chunks[0]?.body ?? '')).toEqual([
      { comment: '\ufffd', sources: [{ title: 'a\ufffd' }] },
    ]);
  });
});

describe("a driver's message about a failed load", () => {
  it("drops DuckDB's copy of the JSON it was reading", () => {
    expect(
      withoutQuotedValues(
        'Invalid Input Error: Malformed JSON at byte 63 of input: no low surrogate in string.  Input: "[{"query":"my secret question..."\nmore',
      ),
    ).toBe('Invalid Input Error: Malformed JSON at byte 63 of input: no low surrogate in string.');
  });

  it('ends at the first quoted value, shown as …, and keeps the names of objects', () => {
    expect(withoutQuotedValues("Conversion Error: Could not convert string 'my secret' to INT64")).toBe(
      "Conversion Error: Could not convert string '…'",
    );
    expect(withoutQuotedValues('invalid input syntax for type bigint: "12 my secret"')).toBe(
      'invalid input syntax for type bigint: "…"',
    );
    // A value holding quotes: nothing after its first quote is shown.
    expect(withoutQuotedValues('Unexpected token \'M\', "[{"query":"my secret"}" is not valid JSON')).toBe(
      "Unexpected token '…'",
    );
    expect(withoutQuotedValues('value "it\'s a secret')).toBe('value "…"');
    expect(withoutQuotedValues('relation "feedback" does not exist')).toBe(
      'relation "feedback" does not exist',
    );
    expect(withoutQuotedValues('invalid byte sequence for encoding "UTF8": 0x00')).toBe(
      'invalid byte sequence for encoding "UTF8": 0x00',
    );
    expect(withoutQuotedValues('column "my secret words" of relation "x"')).toBe('column "…"');
  });
});
