import { describe, expect, it } from 'vitest';
import { SecretRegistry } from '../../src/util/secrets.js';

const PASSWORD = 'pa"ss wörd/😀x';

function registry(): SecretRegistry {
  const r = new SecretRegistry();
  r.register(PASSWORD);
  return r;
}

const unicode = (s: string, upper = false): string =>
  [...s]
    .flatMap((c) => (c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)]))
    .map(
      (u) => `\\u${upper ? u.toString(16).toUpperCase().padStart(4, '0') : u.toString(16).padStart(4, '0')}`,
    )
    .join('');

describe('a registered secret is redacted in every spelling it can take', () => {
  it.each([
    ['raw', PASSWORD],
    ['JSON-escaped as json writes it', JSON.stringify(PASSWORD).slice(1, -1)],
    ['\\u-escaped, every character (lower-case hex)', unicode(PASSWORD)],
    ['\\u-escaped, every character (upper-case hex)', unicode(PASSWORD, true)],
    ['half raw, half \\u-escaped', [...PASSWORD].map((c, i) => (i % 2 ? unicode(c) : c)).join('')],
    ['percent-encoded', encodeURIComponent(PASSWORD)],
    [
      'percent-encoded, every byte, lower-case hex',
      [...Buffer.from(PASSWORD)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    ],
    ['form-encoded (space as +)', new URLSearchParams({ p: PASSWORD }).toString().slice(2)],
    ['as HTML character references', [...PASSWORD].map((c) => `&#${c.codePointAt(0)};`).join('')],
    ['in base64', Buffer.from(PASSWORD).toString('base64').replace(/=+$/, '')],
    ['in base64url', Buffer.from(PASSWORD).toString('base64url')],
  ])('%s', (_how, spelled) => {
    expect(registry().redact(`before ${spelled} after`)).toBe('before **** after');
  });

  it('shows each secret as its own mask, the longer first when one contains the other', () => {
    const r = new SecretRegistry();
    r.register('mint_abcdef', 'mint_****');
    r.register('mint_abcdef_longer');
    expect(r.redact('mint_abcdef_longer and mint_abcdef')).toBe('**** and mint_****');
  });

  it('does not register a value too short to tell from ordinary text', () => {
    const r = new SecretRegistry();
    expect(r.register('abc')).toBe(false);
    expect(r.redact('abc')).toBe('abc');
  });

  it('leaves a text without secrets as it is', () => {
    expect(registry().redact('GET /v1/analytics/proj/visitors?limit=250')).toBe(
      'GET /v1/analytics/proj/visitors?limit=250',
    );
  });
});

describe('no piece of 8 characters or more of a secret shows', () => {
  const KEY = 'mint_SuperSecretKey_Q1w2E3r4T5y6';
  const keyRegistry = (): SecretRegistry => {
    const r = new SecretRegistry();
    r.register(KEY, 'mint_****');
    return r;
  };
  /** Every 8-character piece of the key that is still in `text`. */
  const pieces = (text: string): string[] =>
    Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8)).filter((p) => text.includes(p));

  it('redacts a key echoed in two parts (22 of its 32 characters)', () => {
    const out = keyRegistry().redact('invalid key "mint_Super ... SecretKey_Q1w2E3r4T5y6" for proj');
    expect(out).toBe('invalid key "mint_**** ... mint_****" for proj');
  });

  it.each([
    ['an 8-character piece', 'key ends in Q1w2E3r4T5y6'.slice(-8)],
    [
      'a piece \\u-escaped',
      [...'SecretKey_Q1w2'].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    ],
    [
      'a piece percent-encoded',
      [...'SecretKey_Q1w2'].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
    ],
    ['a piece as HTML references', [...'SecretKey_Q1w2'].map((c) => `&#${c.charCodeAt(0)};`).join('')],
    ['a piece in base64', Buffer.from('perSecretKey_Q1').toString('base64')],
    ['a piece in base64 at another alignment', Buffer.from('uperSecretKey_Q1').toString('base64')],
    ['a piece in base64url at the third alignment', Buffer.from('erSecretKey_Q1w2').toString('base64url')],
  ])('redacts %s', (_how, spelled) => {
    const out = keyRegistry().redact(`before ${spelled} after`);
    expect(out).toMatch(/^before (mint_\*\*\*\*)[A-Za-z0-9+/=_-]{0,3} after$/);
  });

  it('merges overlapping pieces into one mask and leaves 7-character pieces alone', () => {
    const r = keyRegistry();
    expect(r.redact('x SuperSecretKe y')).toBe('x mint_**** y');
    expect(r.redact('x mint_Su y SecretK z')).toBe('x mint_Su y SecretK z');
    expect(pieces(r.redact(`${KEY.slice(0, 15)}|${KEY.slice(10)}|${KEY}`))).toEqual([]);
  });

  it('keeps pieces of a value registered without them (a webhook URL’s public host)', () => {
    const r = new SecretRegistry();
    r.register('https://hooks.example.com/services/T0/B0/XYZsecret', 'webhook-url-****', { pieces: false });
    expect(r.redact('see https://hooks.example.com/other')).toBe('see https://hooks.example.com/other');
    expect(r.redact('at https://hooks.example.com/services/T0/B0/XYZsecret.')).toBe('at webhook-url-****.');
  });

  it('redacts a piece at the end of a long text with many encodings', () => {
    const r = keyRegistry();
    const big = `${'lorem ipsum %20 &amp; \\n '.repeat(200_000)}${KEY.slice(3, 20)}`;
    const out = r.redact(big);
    expect(out.endsWith('mint_****')).toBe(true);
    expect(out.length).toBe(big.length - 17 + 'mint_****'.length);
  });
});
