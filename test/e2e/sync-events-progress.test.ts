import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortSize } from '../../src/cli/event-progress-bar.js';
import { generateEventStream, writeEventStream, type EventStream } from '../../src/emulator/events/index.js';
import { runCli } from '../helpers/cli.js';
import { eventTargets, type EventsJson, type SyncTarget } from '../helpers/event-checks.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { barFrames, runCliOnTty } from '../helpers/tty-cli.js';

/*
 * sync --events on a terminal draws a bar of objects, bytes and events while it loads, and the bar
 * ends on the numbers of the run's summary (as --json gives them for the same objects); piped, or
 * with --json, it draws nothing. The CLI runs on a pseudo-terminal (util-linux `script`).
 */

const PROJECT = 'proj_bar';
const env = { MINTLIFY_PROJECT_ID: PROJECT };
const stream = generateEventStream({ seed: 53, days: 10, endDay: '2026-11-20' });
const bytes = (s: EventStream): number => s.objects.reduce((n, o) => n + o.body.length, 0);

interface Frame {
  readonly done: number;
  readonly listed: number;
  readonly listing: boolean;
  readonly bytesRead: string;
  readonly bytesToRead: string;
  readonly events: number;
  readonly eta: string;
}

const FRAME =
  /([\d,]+)\/([\d,]+)(\+?) objects \| ([\d.]+ \w+)\/([\d.]+ \w+)\+? \| ([\d,]+) events \| ETA (.+)$/;
const num = (s: string): number => Number(s.replace(/,/g, ''));

function frames(output: string): Frame[] {
  return barFrames(output, ' objects |').map((line) => {
    const m = FRAME.exec(line);
    if (m === null) throw new Error(`not a bar line: ${line}`);
    const [, done, listed, more, read, toRead, events, eta] = m as unknown as string[];
    return {
      done: num(done ?? ''),
      listed: num(listed ?? ''),
      listing: more === '+',
      bytesRead: read ?? '',
      bytesToRead: toRead ?? '',
      events: num(events ?? ''),
      eta: eta ?? '',
    };
  });
}

async function syncJson(args: readonly string[], extra: Record<string, string> = {}): Promise<EventsJson> {
  const r = await runCli(['sync', '--streams', 'events', ...args, '--json'], { ...env, ...extra });
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { events: EventsJson }).events;
}

/** The bar's last frame is the summary's objects listed, events read, and every byte read. */
function expectEndsOnSummary(last: Frame | undefined, e: EventsJson, read: number): void {
  expect(last).toEqual({
    done: e.listed,
    listed: e.listed,
    listing: false,
    bytesRead: shortSize(read),
    bytesToRead: shortSize(read),
    events: e.events,
    eta: expect.any(String) as string,
  });
}

const { targets, stop } = eventTargets();
afterAll(async () => {
  await stop();
});

describe.each(targets)('the event load on a terminal, from a folder into %s', (_name, target) => {
  let folder: string;
  let t: SyncTarget;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'mlx-bar-'));
    await writeEventStream(folder, stream);
    t = await target();
  });

  it('draws a bar that starts while the listing runs and ends on the objects, bytes and events the summary counts', async () => {
    const r = await runCliOnTty(['sync', '--streams', 'events', '--events', folder, ...t.args], env);
    expect(r.code).toBe(0);
    const drawn = frames(r.stdout);
    expect(drawn[0]).toMatchObject({ done: 0, listed: 0, listing: true, events: 0, eta: '–' });
    // The same objects into a twin destination, its summary as --json gives it.
    const twin = await target();
    const e = await syncJson(['--events', folder, ...twin.args]);
    expect(e).toMatchObject({ listed: stream.objects.length, loaded: stream.objects.length, failed: 0 });
    expectEndsOnSummary(drawn.at(-1), e, bytes(stream));
    // And the summary on the terminal, below the cleared bar, says the same.
    expect(r.stdout).toContain(`${e.loaded} object(s) loaded of ${e.listed} listed`);
    expect(r.stdout).toContain(`of ${e.events.toLocaleString('en-US')} read`);
    // Never more done than listed, never fewer events than a frame before.
    for (const [i, f] of drawn.entries()) {
      expect(f.done).toBeLessThanOrEqual(f.listed);
      expect(f.events).toBeGreaterThanOrEqual(drawn[i - 1]?.events ?? 0);
    }
  });

  it('ends a run with nothing new on every object listed and none read', async () => {
    const r = await runCliOnTty(['sync', '--streams', 'events', '--events', folder, ...t.args], env);
    expect(r.code).toBe(0);
    const last = frames(r.stdout).at(-1);
    const listed = /0 object\(s\) loaded of (\d+) listed/.exec(r.stdout)?.[1];
    expect(Number(listed)).toBeGreaterThan(0);
    expect(last).toMatchObject({
      done: Number(listed),
      listed: Number(listed),
      listing: false,
      bytesRead: '0 B',
      bytesToRead: '0 B',
      events: 0,
    });
  });
});

describe('the event load without a terminal, or with --json', () => {
  let folder: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'mlx-bar-'));
    await writeEventStream(folder, stream);
  });

  it('draws nothing when stderr is piped, CI or not', async () => {
    const [t] = targets[0] ?? [];
    expect(t).toBe('DuckDB');
    const db = join(mkdtempSync(join(tmpdir(), 'mlx-bar-db-')), 'a.duckdb');
    const r = await runCli(['sync', '--streams', 'events', '--events', folder, '--db', db], {
      ...env,
      CI: '',
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${stream.objects.length} object(s) loaded`);
    expect(r.stderr).not.toContain('objects |');
    expect(r.stderr).not.toContain('\x1b[');
  });

  it('draws nothing with --json on a terminal: its stdout is the summary alone', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'mlx-bar-db-')), 'a.duckdb');
    const r = await runCliOnTty(
      ['sync', '--streams', 'events', '--events', folder, '--db', db, '--json'],
      env,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('objects |');
    expect(r.stdout).toContain('"events"');
  });
});

describe('the event load on a terminal, from S3', () => {
  const BUCKET = 'acme-analytics';
  const PREFIX = 'mintlify/events';
  const s3stream = generateEventStream({ seed: 59, days: 10, endDay: '2026-11-20', prefix: PREFIX });
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
    await s3.createBucket(BUCKET);
    for (const o of s3stream.objects) await s3.put(BUCKET, o.key, o.body);
  });
  afterAll(async () => {
    await s3?.stop();
  });

  it('ends its bar on the objects, bytes and events the summary counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mlx-bar-db-'));
    const source = ['--events', `s3://${BUCKET}/${PREFIX}`];
    const r = await runCliOnTty(['sync', '--streams', 'events', ...source, '--db', join(dir, 'a.duckdb')], {
      ...env,
      ...s3.env,
    });
    expect(r.code).toBe(0);
    const e = await syncJson([...source, '--db', join(dir, 'b.duckdb')], s3.env);
    expect(e).toMatchObject({ listed: s3stream.objects.length, failed: 0 });
    expectEndsOnSummary(frames(r.stdout).at(-1), e, bytes(s3stream));
  });
});
