import { describe, expect, it } from 'vitest';
import {
  BUDGET_SCOPE_ENV,
  keyFingerprint,
  parseBudgetScope,
  resolveBudgetScope,
} from '../../src/api/budget-scope.js';
import { ApiKey } from '../../src/api/key.js';
import { UsageError } from '../../src/errors.js';

const KEY = 'mint_4f9aT0pSecretKeyValue0123456789';

describe('budget scope', () => {
  it('fingerprints a key the same way every time, as key: and 16 hex digits', () => {
    const a = keyFingerprint(KEY);
    expect(a).toMatch(/^key:[0-9a-f]{16}$/);
    expect(keyFingerprint(KEY)).toBe(a);
    expect(keyFingerprint(new ApiKey(KEY))).toBe(a);
    // A known value: a change of prefix or length would split every warehouse's budget in two.
    expect(keyFingerprint('mint_example')).toBe('key:afd84bb9b4caba3f');
  });

  it('never contains the key, nor a piece of it, nor its plain SHA-256', async () => {
    const fp = keyFingerprint(KEY);
    expect(fp).not.toContain(KEY);
    expect(fp).not.toContain(KEY.slice(5, 13));
    const { createHash } = await import('node:crypto');
    const plain = createHash('sha256').update(KEY).digest('hex');
    expect(plain).not.toContain(fp.slice(4));
  });

  it('gives two keys two scopes', () => {
    expect(keyFingerprint(`${KEY}x`)).not.toBe(keyFingerprint(KEY));
  });

  it('takes a name of 1 to 64 letters, digits, dots, underscores and dashes', () => {
    for (const name of ['a', 'acme-docs', 'Org_2.prod', 'x'.repeat(64)])
      expect(parseBudgetScope(name)).toBe(name);
  });

  it('refuses an empty, long or odd name without echoing it', () => {
    for (const name of ['', 'x'.repeat(65), 'acme docs', 'key:0123', 'ünicode', 'a/b']) {
      const err = (() => {
        try {
          parseBudgetScope(name);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(/^--budget-scope must be 1 to 64 letters/);
      if (name !== '') expect((err as Error).message).not.toContain(name);
    }
  });

  it('prefers the flag, then the variable, then the key, and has none without any', () => {
    const env = { [BUDGET_SCOPE_ENV]: 'from-env' };
    expect(resolveBudgetScope({ name: 'flag', apiKey: KEY, env })).toBe('flag');
    expect(resolveBudgetScope({ apiKey: KEY, env })).toBe('from-env');
    expect(resolveBudgetScope({ apiKey: KEY, env: {} })).toBe(keyFingerprint(KEY));
    expect(resolveBudgetScope({ apiKey: KEY, env: { [BUDGET_SCOPE_ENV]: '' } })).toBe(keyFingerprint(KEY));
    expect(resolveBudgetScope({ env: {} })).toBeUndefined();
    expect(() => resolveBudgetScope({ env: { [BUDGET_SCOPE_ENV]: 'a b' } })).toThrow(
      /^MINTLIFY_ETL_BUDGET_SCOPE must be/,
    );
  });
});
