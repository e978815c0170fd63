import { describe, expect, it } from 'vitest';
import { EMAIL_TOKEN, maskEmails } from '../../src/util/personal-data.js';
import { EMAIL_CASES, NOT_EMAILS } from '../helpers/email-forms.js';

describe("readers' e-mail addresses", () => {
  it.each(EMAIL_CASES)('are masked in %j', (text, masked) => {
    expect(maskEmails(text)).toBe(masked);
  });

  it.each(NOT_EMAILS)('leave text without one as it is: %j', (text) => {
    expect(maskEmails(text)).toBe(text);
  });

  it('are replaced by [email], and masking twice changes nothing', () => {
    expect(EMAIL_TOKEN).toBe('[email]');
    for (const [text] of EMAIL_CASES) expect(maskEmails(maskEmails(text))).toBe(maskEmails(text));
  });

  it('are found in linear time in a 30,000-character answer without a space', () => {
    const long = `${'a'.repeat(30_000)}%%%${'b.'.repeat(10_000)}`;
    // The part before the at sign is at most 64 characters: without that bound JavaScript's
    // backtracking takes minutes on this (quadratic), far past the test's timeout.
    expect(maskEmails(long)).toBe(long);
  });
});
