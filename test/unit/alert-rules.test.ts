import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { defaultRules, parseRules } from '../../src/insights/alert-rules.js';
import { deferredStreams } from '../../src/insights/alert-pipeline.js';

function refusal(data: unknown): string {
  try {
    parseRules(data, 'rules.json');
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('accepted');
}

describe('the alert rules file', () => {
  it('overrides the keys it gives and keeps the defaults of the others', () => {
    const rules = parseRules({ traffic: { threshold: 4 }, search: { enabled: false } }, 'rules.json');
    expect(rules.traffic).toEqual({ ...defaultRules().traffic, threshold: 4 });
    expect(rules.search.enabled).toBe(false);
    expect(rules.pipeline).toEqual(defaultRules().pipeline);
  });

  it('names the key of a wrong value', () => {
    expect(refusal({ traffic: { threshold: 'high' } })).toMatch(/^--rules rules\.json: traffic\.threshold: /);
  });

  it('names an unknown key, so that a typo does not leave a default in place silently', () => {
    expect(refusal({ feedback: { minCuont: 2 } })).toBe('--rules rules.json: feedback.minCuont: unknown key');
    expect(refusal({ trafic: {} })).toBe('--rules rules.json: trafic: unknown key');
  });

  it('refuses a file that is not an object', () => {
    expect(refusal([1])).toMatch(/^--rules rules\.json: \(top level\): /);
  });
});

describe('deferred days of a run', () => {
  it('groups the days of the project by stream (visitors has no stream part), before the day only', () => {
    const m = deferredStreams(
      ['p:2026-01-02', 'p:views:2026-01-01', 'q:2026-01-01', 'p:views:2026-01-03', 'p:2026-01-01'],
      'p',
      '2026-01-03',
    );
    expect([...m]).toEqual([
      ['visitors', ['2026-01-01', '2026-01-02']],
      ['views', ['2026-01-01']],
    ]);
  });
});
