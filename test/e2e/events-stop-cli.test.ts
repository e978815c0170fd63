import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEventStream, writeEventStream } from '../../src/emulator/events/index.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/db.js';
import { eventTargets, expectEventsExact, reading } from '../helpers/event-checks.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

/*
 * The event phase as a process: a signal during a load ends it with 130 and the run recorded
 * incomplete (never "succeeded"), the object in flight rolled back and not recorded as failed; a
 * first run into a new DuckDB file that meets an object it cannot read keeps what it loaded; and a
 * key's control characters never reach the terminal raw.
 */

const PROJECT = 'proj_stop';
const env = { MINTLIFY_PROJECT_ID: PROJECT };
const stream = generateEventStream({ seed: 37, days: 8, endDay: '2026-11-20', objectsPerDay: 4 });
let folder: string;
const { targets, stop } = eventTargets();

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mlx-events-stop-'));
  await writeEventStream(folder, stream);
});
afterAll(async () => {
  await stop();
});

interface Summary {
  status: string;
  exitCode: number;
  stopReason: string | null;
  events: { loaded: number; failed: number; stopReason: string | null };
}

describe.each(targets)('a signal during an event load into %s', (name, target) => {
  const signal: NodeJS.Signals = name === 'DuckDB' ? 'SIGINT' : 'SIGTERM';

  it(`${signal}: exits 130, records the run incomplete, and the next run loads the rest exactly`, async () => {
    const t = await target();
    const run = runCliProcess(
      ['sync', '--streams', 'events', '--events', folder, ...t.args, '--json', '--verbose'],
      env,
    );
    // The first object committed: the signal lands in the load, not before it. Once: a second
    // signal means "quit now" (exit 130 without the summary), and the object in flight when the
    // first one lands logs "loaded" too.
    let sent = false;
    run.child.stderr?.on('data', (d: Buffer) => {
      if (sent || !d.toString().includes('events: loaded ')) return;
      sent = true;
      run.child.kill(signal);
    });
    const r = await run;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`${signal}: stopping`);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s).toMatchObject({ status: 'incomplete', exitCode: 130, stopReason: 'interrupted' });
    expect(s.events).toMatchObject({ stopReason: 'interrupted', failed: 0 });
    expect(s.events.loaded).toBeGreaterThan(0);
    expect(s.events.loaded).toBeLessThan(stream.objects.length);
    await reading(t.place, async (db) => {
      expect(await db.rows('SELECT status FROM sync_runs')).toEqual([{ status: 'incomplete' }]);
      // The object in flight was rolled back, not failed.
      expect(await db.rows('SELECT object_key FROM event_object_failures')).toEqual([]);
    });
    const next = await runCli(['sync', '--streams', 'events', '--events', folder, ...t.args], env);
    expect(next.code).toBe(0);
    await reading(t.place, (db) => expectEventsExact(db, stream, PROJECT));
  }, 60_000);
});

describe('a key with control characters', () => {
  it('is escaped in the sync summary, its warnings and status: no line can be forged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mlx-events-keys-'));
    const good =
      '{"eventType":"docs.content.view","payload":{"event_id":"e1","subdomain":"docs","created_at":"2026-11-20T10:00:00Z"}}\n';
    const files = {
      '2026/11/20/2026-11-20T01.jsonl': Buffer.from(good),
      '2026/11/20/2026-11-20T02\nproject forged: 0 events\u001b[2J.jsonl': gzipSync(good).subarray(0, 12),
      '2026/11/20/2026-11-20T03\u001b]0;title\u0007.jsonl': Buffer.from(good.replace('e1', 'e3')),
    };
    for (const [k, b] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, k)), { recursive: true });
      writeFileSync(join(dir, k), b);
    }
    const db = tempDbPath();
    const r = await runCli(['sync', '--streams', 'events', '--events', dir, '--db', db], env);
    expect(r.code).toBe(4);
    const status = await runCli(['status', '--db', db], env);
    expect(status.code).toBe(0);
    for (const out of [r.stderr, status.stdout]) {
      // eslint-disable-next-line no-control-regex -- the point: no raw control character
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
      expect(out.split('\n').some((l) => l.startsWith('project forged'))).toBe(false);
    }
    expect(status.stdout).toContain('2026-11-20T02\\nproject forged: 0 events\\u001b[2J.jsonl');
    expect(status.stdout).toContain('newest 2026/11/20/2026-11-20T03\\u001b]0;title\\u0007.jsonl');
  }, 30_000);
});

describe('a first run into a new DuckDB file that meets an archived object', () => {
  let s3: S3Server | undefined;
  afterAll(async () => {
    await s3?.stop();
  });

  it('keeps the objects it loaded, exits 4 and names the archived object, never the credentials', async () => {
    s3 = await startS3Server();
    await s3.createBucket('arch');
    const client = new S3Client({
      endpoint: s3.url,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key' },
    });
    const line = (id: string): string =>
      `{"eventType":"docs.content.view","payload":{"event_id":"${id}","subdomain":"docs","created_at":"2026-11-20T10:00:00Z"}}\n`;
    const put = async (key: string, id: string, cls?: 'GLACIER'): Promise<void> => {
      await client.send(
        new PutObjectCommand({
          Bucket: 'arch',
          Key: `p/${key}`,
          Body: line(id),
          ...(cls ? { StorageClass: cls } : {}),
        }),
      );
    };
    await put('2026/11/20/01.jsonl', 'a');
    await put('2026/11/20/02.jsonl', 'b', 'GLACIER');
    await put('2026/11/20/03.jsonl', 'c');
    client.destroy();
    const db = join(mkdtempSync(join(tmpdir(), 'mlx-new-')), 'new.duckdb');
    const r = await runCli(['sync', '--streams', 'events', '--events', 's3://arch/p', '--db', db, '--json'], {
      ...env,
      ...s3.env,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toMatch(/refused the credentials/);
    const s = JSON.parse(r.stdout) as { events: { failedObjects: { key: string; code: string }[] } };
    expect(s.events.failedObjects).toEqual([
      expect.objectContaining({ key: '2026/11/20/02.jsonl', code: 'E_EVENT_OBJECT_ARCHIVED' }),
    ]);
    expect(existsSync(db)).toBe(true);
    const ids = await reading(placeOf(parseDbTarget(db)), (d) =>
      d.rows('SELECT event_id FROM analytics_events ORDER BY event_id'),
    );
    expect(ids).toEqual([{ event_id: 'a' }, { event_id: 'c' }]);
  }, 60_000);
});
