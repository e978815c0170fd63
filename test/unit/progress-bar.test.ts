import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress, progressLine, type LineParts } from '../../src/cli/progress-bar.js';

// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b(?:\[[0-9;?]*[A-Za-z]|[78])/g;

const busy: LineParts = {
  done: 12,
  total: 90,
  requests: 340,
  rows: 12_345,
  etaMs: 200_000,
  waitMs: 250_000,
};

describe('the progress line', () => {
  it('shows everything, with a 40-column bar, when the terminal is wide', () => {
    const line = progressLine(busy, 200);
    expect(line).toBe(
      ` ${'█'.repeat(5)}${'░'.repeat(35)} 12/90 days | 340 requests | 12,345 rows | ETA 3m 20s | budget wait 4m 10s`,
    );
  });

  it('fits 80 columns by shrinking the bar and dropping the row count before the ETA and the wait', () => {
    const line = progressLine(busy, 80);
    expect(line.length).toBeLessThan(80);
    expect(line).toContain('12/90 days');
    expect(line).toContain('340 requests');
    expect(line).toContain('ETA 3m 20s');
    expect(line).toContain('budget wait 4m 10s');
    expect(line).not.toContain('rows');
    expect(line).toMatch(/^ [█░]{10,} /);
  });

  it('keeps the days, the ETA and the wait on 40 columns', () => {
    const line = progressLine(busy, 40);
    expect(line.length).toBeLessThan(40);
    expect(line).toContain('12/90');
    expect(line).toContain('ETA 3m 20s');
    expect(line).toContain('wait 4m 10s');
    expect(line).not.toContain('requests');
  });

  it('gives the bar the room the wait leaves when there is no wait', () => {
    const line = progressLine({ ...busy, waitMs: undefined }, 80);
    expect(line.length).toBeLessThan(80);
    expect(line).toContain('12,345 rows | ETA 3m 20s');
    expect(line).not.toContain('wait');
  });

  it('shows an unknown ETA as a dash and never exceeds even a tiny terminal', () => {
    expect(progressLine({ ...busy, etaMs: undefined, waitMs: undefined }, 200)).toContain('ETA –');
    expect(progressLine(busy, 12).length).toBeLessThan(12);
  });
});

describe('the progress bar on an 80-column terminal', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('draws a line that ends inside the terminal and still shows the ETA and the budget wait', () => {
    vi.stubEnv('CI', '');
    const written: string[] = [];
    const stream = {
      isTTY: true,
      columns: 80,
      write: (s: string) => written.push(s) > 0,
    } as unknown as NodeJS.WriteStream;
    const sink = createProgress(stream);
    expect(sink).toBeDefined();
    sink?.start({
      windowsTotal: 90,
      windowsDone: 12,
      requests: 340,
      rows: 12_345,
      waitingUntil: Date.now() + 250_000,
    });
    sink?.stop();
    const drawn = written.map((s) => s.replace(ESCAPES, '')).filter((s) => s.includes('days'));
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) {
      expect(line.length).toBeLessThan(80);
      expect(line).toContain('ETA');
      expect(line).toContain('budget wait');
    }
  });
});
