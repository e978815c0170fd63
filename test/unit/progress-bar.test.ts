import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress, progressLine, type LineParts } from '../../src/cli/progress-bar.js';
import { createLogger } from '../../src/util/log.js';

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
      ` ${'█'.repeat(5)}${'░'.repeat(35)} 12/90 windows | 340 requests | 12,345 rows | ETA 3m 20s | budget wait 4m 10s`,
    );
  });

  it('fits 80 columns by shrinking the bar and dropping the row count before the ETA and the wait', () => {
    const line = progressLine(busy, 80);
    expect(line.length).toBeLessThan(80);
    expect(line).toContain('12/90 windows');
    expect(line).toContain('340 requests');
    expect(line).toContain('ETA 3m 20s');
    expect(line).toContain('budget wait 4m 10s');
    expect(line).not.toContain('rows');
    expect(line).toMatch(/^ [█░]{10,} /);
  });

  it('keeps the windows, the ETA and the wait on 40 columns', () => {
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
      etaMs: 200_000,
    });
    sink?.stop();
    const drawn = written.map((s) => s.replace(ESCAPES, '')).filter((s) => s.includes('windows'));
    expect(drawn.length).toBeGreaterThan(0);
    for (const line of drawn) {
      expect(line.length).toBeLessThan(80);
      expect(line).toContain('ETA');
      expect(line).toContain('budget wait');
    }
  });
});

describe('the progress bar of a run', () => {
  afterEach(() => vi.unstubAllEnvs());

  function terminal(): { stream: NodeJS.WriteStream; written: string[] } {
    vi.stubEnv('CI', '');
    const written: string[] = [];
    const stream = {
      isTTY: true,
      columns: 120,
      write: (s: string) => written.push(s) > 0,
    } as unknown as NodeJS.WriteStream;
    return { stream, written };
  }
  const state = { windowsTotal: 90, windowsDone: 12, requests: 340, rows: 12_345, waitingUntil: undefined };

  it("shows the run's budget-aware ETA, not one guessed from windows per second", () => {
    const { stream, written } = terminal();
    const sink = createProgress(stream);
    sink?.start({ ...state, etaMs: 138_000 });
    sink?.stop();
    expect(written.join('').replace(ESCAPES, '')).toContain('ETA 2m 18s');
  });

  it('counts windows, and takes a grown total (the threads planned after the turns load)', () => {
    const { stream, written } = terminal();
    const sink = createProgress(stream);
    sink?.start(state);
    sink?.update({ ...state, windowsTotal: 100, windowsDone: 13 });
    sink?.stop();
    expect(written.join('').replace(ESCAPES, '')).toContain('13/100 windows');
  });

  it('stops by clearing its line and showing the cursor again, so Ctrl-C leaves no debris', () => {
    const { stream, written } = terminal();
    const sink = createProgress(stream);
    sink?.start(state);
    sink?.stop();
    expect(written.at(-1)).toBe('\r\x1b[2K\x1b[?25h');
    const after = written.length;
    sink?.update({ ...state, windowsDone: 20 });
    sink?.stop();
    expect(written).toHaveLength(after);
  });

  it('puts a log line on a cleared line of its own and draws the bar again below it', () => {
    const { stream, written } = terminal();
    const sink = createProgress(stream);
    const log = createLogger({
      write: (line) => stream.write(line),
      beforeWrite: () => sink?.suspend?.(),
      afterWrite: () => sink?.resume?.(),
    });
    sink?.start(state);
    const before = written.length;
    log.warn('SIGINT: stopping after the days already fetched');
    const around = written.slice(before);
    expect(around[0]).toBe('\r\x1b[2K');
    expect(around[1]).toBe('warn: SIGINT: stopping after the days already fetched\n');
    expect(around.slice(2).join('').replace(ESCAPES, '')).toContain('12/90 windows');
    sink?.stop();
  });
});
