import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventProgress, eventProgressLine, shortSize } from '../../src/cli/event-progress-bar.js';
import {
  EventProgress,
  type EventProgressState,
  type EventProgressSink,
} from '../../src/pipeline/event-progress.js';

function recording(): EventProgressSink & { states: EventProgressState[]; stopped: boolean } {
  const sink = {
    states: [] as EventProgressState[],
    stopped: false,
    start: (s: EventProgressState) => void sink.states.push(s),
    update: (s: EventProgressState) => void sink.states.push(s),
    stop: () => void (sink.stopped = true),
  };
  return sink;
}

describe("the event phase's progress counts", () => {
  it("counts an object's events once it loads, and drops those of an object that failed", () => {
    const sink = recording();
    const p = new EventProgress(sink, () => 0);
    p.start();
    p.listed(100, true);
    p.listed(50, true);
    p.listed(10, false);
    p.listingEnded();
    p.reading();
    p.eventsRead(7);
    expect(p.state().events).toBe(7);
    p.read(100, true);
    p.reading();
    p.eventsRead(3);
    p.read(50, false);
    p.skipped();
    p.stop();
    expect(sink.states.at(-1)).toMatchObject({
      objectsDone: 3,
      objectsListed: 3,
      listingDone: true,
      bytesRead: 150,
      bytesToRead: 150,
      events: 7,
    });
    expect(sink.stopped).toBe(true);
  });

  it('estimates by the larger share left, of bytes or of objects, from the time the reads took', () => {
    let now = 1_000;
    const p = new EventProgress(undefined, () => now);
    for (const size of [1_000, 1_000, 1_000, 1_000]) p.listed(size, true);
    expect(p.state().etaMs).toBeUndefined();
    p.reading();
    now += 2_000;
    p.read(1_000, true);
    // A quarter read in 2 s: three quarters left by bytes and by objects alike.
    expect(p.state().etaMs).toBe(6_000);
    // Three tiny objects more: by bytes little is left, by objects much more; the larger holds.
    for (let i = 0; i < 3; i++) p.listed(1, true);
    expect(p.state().etaMs).toBe(12_000);
  });

  it('tells no display anything before it starts or after it stops', () => {
    const sink = recording();
    const p = new EventProgress(sink, () => 0);
    p.listed(1, true);
    expect(sink.states).toHaveLength(0);
    p.start();
    p.stop();
    p.listed(1, true);
    expect(sink.states).toHaveLength(1);
  });
});

const busy: EventProgressState = {
  objectsDone: 1_234,
  objectsListed: 5_000,
  listingDone: true,
  bytesRead: 123 * 2 ** 20,
  bytesToRead: 480 * 2 ** 20,
  events: 45_678,
  etaMs: 130_000,
};

describe("the event phase's bar line", () => {
  it('shows objects, bytes, events and the ETA with a 40-column bar filled by bytes on a wide terminal', () => {
    expect(eventProgressLine(busy, 200)).toBe(
      ` ${'█'.repeat(10)}${'░'.repeat(30)} 1,234/5,000 objects | 123.0 MiB/480.0 MiB | 45,678 events | ETA 2m 10s`,
    );
  });

  it('marks the totals and the ETA as "so far" while the listing runs', () => {
    const line = eventProgressLine({ ...busy, listingDone: false }, 200);
    expect(line).toContain('1,234/5,000+ objects | 123.0 MiB/480.0 MiB+ |');
    expect(line).toContain('ETA ≥ 2m 10s');
  });

  it('drops the bytes, then the events, before the objects and the ETA on narrow terminals', () => {
    const at80 = eventProgressLine(busy, 80);
    expect(at80.length).toBeLessThan(80);
    expect(at80).toContain('45,678 events | ETA 2m 10s');
    expect(at80).not.toContain('MiB');
    const at40 = eventProgressLine(busy, 40);
    expect(at40.length).toBeLessThan(40);
    expect(at40).toContain('1,234/5,000');
    expect(at40).toContain('ETA 2m 10s');
    expect(eventProgressLine(busy, 12).length).toBeLessThan(12);
  });

  it('writes sizes short', () => {
    expect(shortSize(0)).toBe('0 B');
    expect(shortSize(1_023)).toBe('1023 B');
    expect(shortSize(1_536)).toBe('1.5 KiB');
    expect(shortSize(3 * 2 ** 30)).toBe('3.0 GiB');
  });
});

describe("the event phase's bar", () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is drawn only on a terminal, and never in CI', () => {
    vi.stubEnv('CI', '');
    const stream = (isTTY: boolean): NodeJS.WriteStream =>
      ({ isTTY, columns: 80, write: () => true }) as unknown as NodeJS.WriteStream;
    expect(createEventProgress(stream(false))).toBeUndefined();
    expect(createEventProgress(stream(true))).toBeDefined();
    vi.stubEnv('CI', '1');
    expect(createEventProgress(stream(true))).toBeUndefined();
  });
});
