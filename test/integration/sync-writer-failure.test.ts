import { addDays } from '../../src/util/day.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateApiKey } from '../../src/api/key.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { silentLogger } from '../../src/util/log.js';
import { visitors } from '../../src/streams/visitors.js';
import { readRows, tempDbPath } from '../helpers/db.js';

const KEY = 'mint_sync_writer_failure_key_0123';
const PROJECT = 'docs';
/** The failing day comes first, so neither the gap fill nor the lookback of a later run covers it. */
const BAD_DAY = '2026-03-01';
/** "Now" is 2026-03-04: the first run covers every finished day, and the next one has no new day. */
const NOW = Date.parse('2026-03-04T12:00:00Z');

let servers: Server[] = [];

afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

/**
 * A scripted API: every day answers one page, except BAD_DAY whose two paths differ only in a
 * lone UTF-16 surrogate. That answer passes the schemas and the pager, and is refused by the
 * writer (UTF-8 cannot tell the two paths apart), so the day fails in the load, not in the fetch.
 */
async function api(): Promise<string> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== `/v1/analytics/${PROJECT}/visitors`) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `project ${PROJECT} not found` }));
      return;
    }
    const visitors =
      url.searchParams.get('dateFrom') === BAD_DAY
        ? [
            { path: '/a\ud800', human: 1, ai: 0, total: 1 },
            { path: '/a\ufffd', human: 1, ai: 0, total: 1 },
          ]
        : [{ path: '/a', human: 2, ai: 0, total: 2 }];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ totals: { human: 2, ai: 0, total: 2 }, visitors, hasMore: false }));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function options(apiUrl: string, dbPath: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return {
    projects: [PROJECT],
    lookback: 0,
    dbPath,
    rateLimit: parseRateLimit('100000/1h'),
    maxWaitMs: 60_000,
    concurrency: 2,
    includeToday: false,
    dryRun: false,
    apiUrl,
    apiKey: validateApiKey(KEY, 'test key'),
    logger: silentLogger,
    streams: [visitors],
    now: () => NOW,
    backoff: { minMs: 5, maxMs: 50 },
    idleCloseMs: 50,
    ...over,
  };
}

describe('a day that fails in the writer', () => {
  it('is planned again by the next incremental run, though no gap or lookback would reach it', async () => {
    const apiUrl = await api();
    const db = tempDbPath();
    const first = await runSync(options(apiUrl, db, { from: BAD_DAY, to: '2026-03-04' }));
    expect(first.status).toBe('incomplete');
    expect(first.windows).toMatchObject({ planned: 3, loaded: 2, failed: 1 });
    expect(first.failures.map((f) => [f.projectId, f.day])).toEqual([[PROJECT, BAD_DAY]]);
    expect(first.failures[0]?.message).toMatch(/^load failed/);
    // The load failed: none of the day's rows are in the database, and its window is recorded
    // failed, as a window whose fetch failed is (status shows it failed, not deferred).
    expect(await readRows(db, `SELECT window_start AS day, status FROM sync_windows ORDER BY day`)).toEqual([
      { day: BAD_DAY, status: 'failed' },
      { day: '2026-03-02', status: 'loaded' },
      { day: '2026-03-03', status: 'loaded' },
    ]);

    const next = await runSync(options(apiUrl, db, { dryRun: true }));
    expect(next.plan?.days).toEqual([
      {
        projectId: PROJECT,
        stream: 'visitors',
        day: BAD_DAY,
        dateTo: addDays(BAD_DAY, 1),
        reason: 'deferred',
        partial: false,
      },
    ]);
  });
});
