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
