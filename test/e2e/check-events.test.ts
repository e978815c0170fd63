import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

/*
 * check --events: one listing request of the event stream's bucket (a real S3-protocol server) or
 * folder proves the AWS side before a nightly sync relies on it, at no API request and with no
 * object read; a wrong source gets the exit code a sync would end with.
 */

const BUCKET = 'acme-analytics';
const KEY = 'mintlify/2026-11-20T00:05:00.000Z.jsonl';
const BODY = '{"eventType":"docs.content.view","payload":{"event_id":"e1"}}\n';
const FIRST = `listed: the first object is 2026-11-20T00:05:00.000Z.jsonl (${Buffer.byteLength(BODY)} bytes)`;
let s3: S3Server;
let emu: Emulator;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  await s3.put(BUCKET, KEY, BODY);
  await s3.put(BUCKET, 'mintlify/2026-11-20T00:10:00.000Z.jsonl', '\n');
  emu = await startEmulator({ seed: 3, days: 10, paths: 20 });
});
afterAll(async () => {
  await s3?.stop();
  await emu?.close();
});

/** No API key, no project, no API URL: an events-only check needs none of them. */
const noApi = { MINTLIFY_API_KEY: '', MINTLIFY_PROJECT_ID: '', MINTLIFY_API_URL: '' };

describe('check --streams events', () => {
  it('lists the first key of the bucket in one request, reads nothing, and needs no API key', async () => {
    const db = tempDbPath();
    const r = await runCli(
      ['check', '--streams', 'events', '--events', `s3://${BUCKET}/mintlify`, '--db', db],
      { ...noApi, ...s3.env },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `ok    events  s3://${BUCKET}/mintlify/  ${FIRST}\n1 listing request, no API request\n`,
    );
    // Nothing to record: no API request was made, so no database is made for it.
    expect(existsSync(db)).toBe(false);
  });

  it('fails a prefix with no object, saying what the level above holds (a typo), and --json has the check as `events`', async () => {
    const r = await runCli(['check', '--streams', 'events', '--events', `s3://${BUCKET}/mintlfy`, '--json'], {
      ...noApi,
      ...s3.env,
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      exitCode: 2,
      events: {
        source: `s3://${BUCKET}/mintlfy/`,
        ok: false,
        detail: `no object under mintlfy/; this bucket has mintlify/: check the prefix in --events (or MINTLIFY_ETL_EVENTS)`,
        exitCode: 2,
        listRequests: 2,
      },
    });
  });

  it('fails an empty folder the same way, naming what its parent holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-events-empty-'));
    mkdirSync(join(dir, 'mirror'));
    writeFileSync(join(dir, 'mirror', '2026-11-20T00:05:00.000Z.jsonl'), '\n');
    mkdirSync(join(dir, 'mirrr'));
    const r = await runCli(['check', '--streams', 'events', '--events', join(dir, 'mirrr')], noApi);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /^FAIL {2}events {2}.*no object under mirrr\/; its parent folder has mirror\/, mirrr\//m,
    );
  });

  it('exits 2 for a bucket that does not exist, with the reason on its FAIL line', async () => {
    const r = await runCli(['check', '--streams', 'events', '--events', 's3://no-such-bucket-29/x'], {
      ...noApi,
      ...s3.env,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^FAIL {2}events {2}s3:\/\/no-such-bucket-29\/x\/ {2}.*no-such-bucket-29/m);
  });

  it('exits 4 within its bound for a store that cannot be reached, never showing the secret key', async () => {
    const r = await runCli(['check', '--streams', 'events', '--events', `s3://${BUCKET}/mintlify`], {
      ...noApi,
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1',
      AWS_ACCESS_KEY_ID: 'test-access-key',
      AWS_SECRET_ACCESS_KEY: 'test-secret-key',
    });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('http://127.0.0.1:1 could not be reached');
    expect(`${r.stdout}${r.stderr}`).not.toContain('test-secret-key');
  });

  it('checks a folder mirroring the bucket, and exits 2 for a folder that does not exist', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-events-'));
    mkdirSync(join(dir, 'stream'));
    writeFileSync(join(dir, 'stream', '2026-11-20T00:05:00.000Z.jsonl'), '\n');
    const ok = await runCli(['check', '--streams', 'events', '--events', join(dir, 'stream')], noApi);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('listed: the first object is 2026-11-20T00:05:00.000Z.jsonl (1 bytes)');
    const missing = await runCli(['check', '--streams', 'events', '--events', join(dir, 'nope')], noApi);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(/^FAIL {2}events {2}/);
  });

  it('without a source is a usage error that says how to give one', async () => {
    const r = await runCli(['check', '--streams', 'events'], { ...noApi, MINTLIFY_ETL_EVENTS: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--streams events needs the event stream: --events s3:\/\/BUCKET\/PREFIX/);
  });
});

describe('check with the API streams and MINTLIFY_ETL_EVENTS', () => {
  it('checks both: the API lines, the events line, then the budget; the source costs no API request', async () => {
    const db = tempDbPath();
    const r = await runCli(['check', '--db', db, '--streams', 'visitors,events'], {
      MINTLIFY_API_URL: emu.url,
      MINTLIFY_API_KEY: emu.apiKey,
      MINTLIFY_PROJECT_ID: emu.projectId,
      MINTLIFY_ETL_EVENTS: `s3://${BUCKET}/mintlify`,
      ...s3.env,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^ok    ${emu.projectId}  visitors  answered`));
    expect(lines[1]).toBe(`ok    events  s3://${BUCKET}/mintlify/  ${FIRST}`);
    expect(lines[2]).toMatch(/^1 request spent; budget 100\/1h: 99 left/);
    expect(await readRows(db, 'SELECT count(*)::INT AS n FROM api_requests')).toEqual([{ n: 1 }]);
  });
});

describe('sync --events against a source with no object', () => {
  it('is exit 2 on a first run, saying what the level above holds, and leaves no database', async () => {
    const db = tempDbPath();
    const r = await runCli(
      [
        'sync',
        '--streams',
        'events',
        '--events',
        `s3://${BUCKET}/mintlfy`,
        '--project',
        'proj_x',
        '--db',
        db,
      ],
      s3.env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /no object under mintlfy\/; this bucket has mintlify\/: check the prefix in --events/,
    );
    expect(existsSync(db)).toBe(false);
  });
});
