import { describe, expect, it } from 'vitest';
import { escapeControl, safeJson, safeLine, safeText, shorten, untrusted } from '../../src/util/safe-text.js';
import { registerSecret } from '../../src/util/secrets.js';
import { maskUserinfo, registerUrlSecrets } from '../../src/util/url-text.js';

describe('output text is made safe before it leaves the process', () => {
  it('escapes a newline, a carriage return, an escape character and a line separator: one value never splits or forges a line', () => {
    expect(escapeControl('a\nb\rc\u001b[2Jd\u2028e\tf')).toBe('a\\nb\\rc\\u001b[2Jd\\u2028e\tf');
    expect(safeLine('path /tmp/x\ny/analytics.duckdb')).toBe('path /tmp/x\\ny/analytics.duckdb');
  });

  it('shortens a 70,000-character value to its first 200 characters and its length', () => {
    const id = 'T'.repeat(70_000);
    expect(shorten(id)).toBe(`${'T'.repeat(200)}… (70000 chars)`);
    const line = safeLine(`thread ${id} is gone`);
    expect(line).toBe(`thread ${'T'.repeat(200)}… (70000 chars) is gone`);
    expect(untrusted(id)).toHaveLength(200 + '… (70000 chars)'.length);
  });

  it('keeps a value of 300 characters whole', () => {
    const path = `/${'p'.repeat(299)}`;
    expect(safeLine(`path ${path}`)).toBe(`path ${path}`);
  });

  it('bounds a line made of many short values', () => {
    expect(safeLine('ab '.repeat(100_000)).length).toBeLessThan(10_100);
  });

  it('redacts secrets before shortening, so a cut cannot leave half a secret', () => {
    const secret = `mint_safeText_${'k'.repeat(20)}`;
    registerSecret(secret, 'mint_****');
    const line = safeLine(`${'x'.repeat(190)}${secret}${'y'.repeat(400)}`);
    expect(line).not.toContain('safeText');
  });

  it('masks the user and password of any URL, and the password wherever else it shows', () => {
    registerUrlSecrets('https://alice:s3cr%2Ft-pw@proxy.example.com/api');
    expect(maskUserinfo('at https://alice:s3cr%2Ft-pw@proxy.example.com/api')).toBe(
      'at https://***@proxy.example.com/api',
    );
    expect(safeLine('server said: bad password s3cr/t-pw')).toBe('server said: bad password ****');
    // The user name is no secret: "alice" elsewhere in a message stays.
    expect(safeLine('alice')).toBe('alice');
  });

  it('keeps multi-line output as lines, each made safe', () => {
    expect(safeText('one\ntwo\u0007')).toBe('one\ntwo\\u0007');
  });

  it('redacts every string and key of a --json value, after JSON decoding', () => {
    const secret = 'mint_safeJson_0123456789';
    registerSecret(secret, 'mint_****');
    const value = { error: `refused ${secret}`, nested: [{ [secret]: 'x' }], n: 1, none: null };
    expect(safeJson(value)).toEqual({
      error: 'refused mint_****',
      nested: [{ 'mint_****': 'x' }],
      n: 1,
      none: null,
    });
  });
});
