import { describe, expect, it } from 'vitest';
import { addDays, buildDataset } from '../../src/emulator/index.js';
import { cutCodePoints, LONGEST_ANSWER, LONGEST_QUERY } from '../../src/emulator/long-text.js';

const TODAY = '2025-03-15';
const data = buildDataset({ seed: 7, days: 60, paths: 300, today: TODAY });
const turns = data.assistantTurns(data.days[0]!, addDays(TODAY, 1));
const codePoints = (s: string): number => Array.from(s).length;

describe('the emulator’s default data has a real site’s shapes (issue 27, item 2)', () => {
  it('answers run from a few hundred characters to 30,000, unanswered turns’ too', () => {
    const lengths = turns.map((t) => codePoints(t.response));
    expect(Math.max(...lengths)).toBeGreaterThan(20_000);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(LONGEST_ANSWER);
    const unanswered = turns.filter((t) => t.resolutionStatus === 'unanswered');
    expect(Math.max(...unanswered.map((t) => codePoints(t.response)))).toBeGreaterThan(3_000);
  });

  it('asks an 864-character question and searches an 864-character term, on every day with searches', () => {
    expect(turns.some((t) => codePoints(t.query) === LONGEST_QUERY)).toBe(true);
    for (const day of data.days) {
      const { searches } = data.searches(day);
      if (searches.length === 0) continue;
      expect(searches.some((s) => codePoints(s.searchQuery) === LONGEST_QUERY)).toBe(true);
    }
  });

  it('carries combining accents, ZWJ emoji, right-to-left script and astral characters, never a lone surrogate', () => {
    const text = turns.map((t) => t.response).join('\n');
    for (const odd of ['e\u0301', '👩‍💻', 'مرحبا', '\u200b', '\u00a0', '𠜎']) expect(text).toContain(odd);
    expect(turns.every((t) => t.response.isWellFormed() && t.query.isWellFormed())).toBe(true);
  });

  it('cuts long text between code points, never inside a surrogate pair', () => {
    expect(cutCodePoints('a𠜎b', 2)).toBe('a𠜎');
    expect(cutCodePoints('a𠜎b', 1)).toBe('a');
  });
});
