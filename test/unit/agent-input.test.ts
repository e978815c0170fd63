import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_CHARS, singleProject, validateJobId, validatePrompt } from '../../src/agent/input.js';
import { UsageError } from '../../src/errors.js';

describe('validatePrompt', () => {
  it('returns the prompt exactly as given, spaces and newlines included', () => {
    expect(validatePrompt('  Document the API\n')).toBe('  Document the API\n');
  });

  it.each([[''], ['   '], ['\n\t ']])('refuses the empty or blank prompt %j with a usage error', (p) => {
    expect(() => validatePrompt(p)).toThrow(UsageError);
    expect(() => validatePrompt(p)).toThrow(/--prompt is empty/);
  });

  it('accepts exactly 10,000 characters and refuses 10,001 naming both numbers', () => {
    expect(MAX_PROMPT_CHARS).toBe(10_000);
    expect(validatePrompt('a'.repeat(10_000))).toHaveLength(10_000);
    expect(() => validatePrompt('a'.repeat(10_001))).toThrow(
      /--prompt is 10,001 characters, more than the 10,000 allowed/,
    );
  });

  it('counts an emoji as one character, not two UTF-16 units', () => {
    expect(validatePrompt('😀'.repeat(10_000))).toHaveLength(20_000);
  });
});

describe('validateJobId', () => {
  it('accepts ids as the service prints them', () => {
    expect(validateJobId('job_6f1c2a')).toBe('job_6f1c2a');
    expect(validateJobId('3f2b9c1e-0d4a-4e57-9a43-1f0f8a7d2b11')).toBe(
      '3f2b9c1e-0d4a-4e57-9a43-1f0f8a7d2b11',
    );
  });

  it.each([[''], ['a/b'], ['job 1'], ['https://x/job/1'], ['x'.repeat(257)]])('refuses %j', (id) => {
    expect(() => validateJobId(id)).toThrow(UsageError);
  });
});

describe('singleProject', () => {
  it('takes one project', () => {
    expect(singleProject(['proj'])).toBe('proj');
  });

  it('refuses several projects, naming them', () => {
    expect(() => singleProject(['a', 'b'])).toThrow(
      'agent commands work on exactly one project, got 2 (a, b): pass --project ID',
    );
  });
});
