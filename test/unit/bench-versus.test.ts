import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareBaseline } from '../bench/baseline.js';
import { CHANGES_HEADING, mergeSections } from '../bench/merge.js';
import { pairOrder, versusMarkdown, type SyncSample, type VersusMeasurements } from '../bench/versus.js';

const sample = (wallMs: number, syncMs = wallMs - 400): SyncSample => ({
  wallMs,
  syncMs,
  cpuS: 1.5,
  maxRssMiB: 150,
  requests: 138,
  rows: 27_600,
});

function measured(old: number[], current: number[], oldHasPostgres = false): VersusMeasurements {
  return {
    commit: '6cb36afa5d3afb19a22747855c5524a031f1ade0',
    days: 46,
    old: old.map((ms) => sample(ms)),
    current: current.map((ms) => sample(ms)),
    oldHelpMs: old.map(() => 300),
    currentHelpMs: current.map(() => 320),
    load: [1.2, 1.4],
    cores: 2,
    oldHasPostgres,
  };
}

const AT = new Date('2026-11-27T18:00:00Z');

describe('the side-by-side benchmark of this code against 11-23', () => {
  it('reports the ratio of the medians, current over old, and misses the target when the current code is slower', () => {
    const md = versusMarkdown(measured([1700, 1650, 1750, 1700, 1720], [1890, 1850, 1900, 1880, 1950]), AT);
    expect(md).toContain('**1.11**');
    expect(md).toContain("At least as fast as 11-23's (ratio ≤ 1.00): **missed**");
    expect(md).toContain('| 11-23 (6cb36af) | 1.70 (1.65–1.75, n=5) |');
    expect(md).toContain('| this code | 1.89 (1.85–1.95, n=5) |');
  });

  it('meets the target when the current code takes no longer than the old', () => {
    const md = versusMarkdown(measured([1700, 1700, 1700], [1650, 1700, 1690]), AT);
    expect(md).toContain("At least as fast as 11-23's (ratio ≤ 1.00): met");
  });

  it('warns that the verdict is weak when the load average was above the core count', () => {
    const quiet = versusMarkdown(measured([1700], [1690]), AT);
    expect(quiet).not.toContain('this verdict is weak');
    const busy = versusMarkdown({ ...measured([1700], [1690]), load: [9.5, 12] }, AT);
    expect(busy).toContain('The machine was busy (load average 12.0 on 2 cores)');
    expect(busy).toContain('this verdict is weak');
  });

  it("says PostgreSQL was not measured because 11-23's code has no PostgreSQL destination", () => {
    expect(versusMarkdown(measured([1], [1]), AT)).toContain('6cb36af has no PostgreSQL destination');
  });

  it('flags runs where the two builds did different work', () => {
    const m = measured([1700], [1700]);
    const md = versusMarkdown({ ...m, current: [{ ...sample(1700), rows: 1 }] }, AT);
    expect(md).toContain('did not make the same requests or load the same rows');
  });

  it('takes the pairs in ABBA order so a drift hits both builds alike', () => {
    expect(pairOrder(4)).toEqual([
      ['old', 'current'],
      ['current', 'old'],
      ['old', 'current'],
      ['current', 'old'],
    ]);
  });

  it('gives a reason instead of failing when the old commit is not in the repository', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'versus-cache-'));
    try {
      const b = await prepareBaseline('0000000000000000000000000000000000000000', {
        repo: process.cwd(),
        cacheDir: cache,
      });
      expect(b.ok).toBe(false);
      if (!b.ok) expect(b.reason).toMatch(/is not in/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});

describe('updating one section of BENCHMARKS.md', () => {
  const doc = [
    '# Benchmarks',
    '',
    '## 1. One',
    '',
    'old one',
    '',
    '## 2. Two',
    '',
    'two',
    '',
    CHANGES_HEADING,
    '',
    'notes',
    '',
  ].join('\n');

  it('replaces a section measured again and keeps every other one as it was', () => {
    const out = mergeSections(doc, [{ id: 'one', title: '1. One', markdown: 'new one' }]);
    expect(out).toContain('## 1. One\n\nnew one\n\n## 2. Two\n\ntwo\n');
    expect(out).not.toContain('old one');
    expect(out).toContain(`${CHANGES_HEADING}\n\nnotes`);
  });

  it('puts a section not there yet after the numbered ones, before the notes', () => {
    const out = mergeSections(doc, [{ id: 'x', title: '11. Eleven', markdown: 'eleven' }]);
    expect(out).toContain(`two\n\n## 11. Eleven\n\neleven\n\n${CHANGES_HEADING}`);
  });
});
