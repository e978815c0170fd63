import { duckDestination } from '../../src/load/duckdb/place.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { formatStatus } from '../../src/pipeline/status-format.js';
import { gatherStatus, sortStreams } from '../../src/pipeline/status.js';
import { dayRange } from '../../src/util/day.js';
import { parseRateLimit } from '../../src/util/duration.js';

const NOW = Date.parse('2026-04-01T13:53:00Z');
const MIN = 60_000;
let db: Database;

/** A database as a few weeks of nightly syncs leave it: gaps, a partial day, a failure, a deferral. */
async function buildFixture(file: string): Promise<void> {
  const w = await openDatabase(file);
  const run = (sql: string, params?: (string | number | null)[]): Promise<unknown> =>
    w.connection.run(sql, params);
  try {
    const loaded = dayRange('2026-03-20', '2026-04-01').filter(
      (d) => d !== '2026-03-23' && d !== '2026-03-25',
    );
    for (const day of loaded) {
      await run(
        `INSERT INTO site_daily VALUES ('docs-a', $1::DATE, 10, 5, 12, $2::BOOLEAN, TIMESTAMPTZ '2026-03-31 02:00:00+00', 'r4')`,
        [day, day === '2026-03-31' ? 'true' : 'false'],
      );
      const fetched = day === '2026-03-30' ? '2026-04-01 12:00:00+00' : '2026-03-31 02:00:00+00';
      await run(
        `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, api_totals_total, attempts, fetched_at, run_id, error) VALUES ('docs-a', 'visitors', $1::DATE, $1::DATE + 1, 'loaded', 1, 3, 12, 1, $2::TIMESTAMPTZ, 'r4', NULL)`,
        [day, fetched],
      );
    }
    await run(
      `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, api_totals_total, attempts, fetched_at, run_id, error) VALUES ('docs-a', 'visitors', DATE '2026-03-23', DATE '2026-03-24', 'failed', 0, 0, NULL, 6, TIMESTAMPTZ '2026-03-31 02:00:00+00', 'r4', 'HTTP 500')`,
    );
    // feedback_by_page: four days loaded, one of them cut short by --max-pages.
    for (const day of dayRange('2026-03-27', '2026-03-31')) {
      await run(
        `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated, api_totals_total, attempts, fetched_at, run_id, error) VALUES ('docs-a', 'feedback_by_page', $1::DATE, $1::DATE + 1, 'loaded', 1, 100, $2::BOOLEAN, NULL, 1, TIMESTAMPTZ '2026-03-31 02:00:00+00', 'r4', NULL)`,
        [day, day === '2026-03-28' ? 'true' : 'false'],
      );
    }
    const runs: [string, string, string, string | null, string, string | null, string][] = [
      ['r1', 'docs-a', '2026-03-27 02:00:00+00', '2026-03-27 02:01:00+00', 'succeeded', null, '[]'],
      ['r2', 'docs-a', '2026-03-28 02:00:00+00', '2026-03-28 02:01:30+00', 'succeeded', null, '[]'],
      [
        'r3',
        'docs-a',
        '2026-03-29 02:00:00+00',
        '2026-03-29 02:00:02+00',
        'failed',
        'the API key was refused (401)',
        '[]',
      ],
      ['r4', 'docs-a', '2026-03-31 02:00:00+00', '2026-03-31 02:03:05+00', 'succeeded', null, '[]'],
      [
        'r5',
        'docs-a,docs-b',
        '2026-04-01 10:00:00+00',
        '2026-04-01 10:20:00+00',
        'incomplete',
        null,
        "['docs-a:2026-03-25', 'docs-a:2026-03-30', 'docs-b:2026-03-29', 'docs-a:feedback_by_page:2026-03-26', 'docs-a:caller_stats:2026-03-31']",
      ],
      ['r6', 'docs-a', '2026-04-01 13:50:00+00', null, 'running', null, '[]'],
    ];
    for (const [i, [id, projects, started, finished, status, error, deferred]] of runs.entries()) {
      await run(
        `INSERT INTO sync_runs (run_id, project_ids, started_at, finished_at, status, windows_planned, windows_loaded,
           windows_failed, windows_deferred, requests, retries, rows_loaded, warnings, error, deferred_days)
         VALUES ($1, string_split($2, ','), $3::TIMESTAMPTZ, $4::TIMESTAMPTZ, $5, 4, $6, 0, $7, $8, 0, 30, 0, $9, ${deferred}::VARCHAR[])`,
        [id, projects, started, finished, status, i, id === 'r5' ? 3 : 0, 10 + i, error],
      );
    }
    // assistant threads of docs-b: T1 fetched with 1 turn and grown to 2 since, T2 gone, T3 never fetched.
    for (const [thread, ts] of [
      ['T1', '2026-03-30 10:00:00+00'],
      ['T1', '2026-03-31 10:00:00+00'],
      ['T2', '2026-03-30 11:00:00+00'],
      ['T3', '2026-03-30 12:00:00+00'],
    ] as const) {
      await run(
        `INSERT INTO assistant_turns VALUES ('docs-b', $1, $2::TIMESTAMPTZ, 'q', 'r', 'answer', 'answered', NULL, NULL, [], now(), 'r5', DATE '2026-03-30')`,
        [thread, ts],
      );
    }
    await run(
      `INSERT INTO assistant_threads VALUES ('docs-b', 'T1', 'loaded', NULL, 1, 2, now(), 'r5'), ('docs-b', 'T2', 'gone', NULL, 1, 0, now(), 'r5')`,
    );
    // 37 requests in the last hour (13:03 to 13:39), 5 older ones that no longer count.
    for (let i = 0; i < 37; i++) {
      await run(
        `INSERT INTO api_requests (requested_at, seq, endpoint, project_id, status, duration_ms, run_id) VALUES (epoch_ms($1::BIGINT)::TIMESTAMPTZ, $2, 'visitors', 'docs-a', 200, 0, 'r6')`,
        [NOW - 50 * MIN + i * MIN, i],
      );
    }
    for (let i = 0; i < 5; i++) {
      await run(
        `INSERT INTO api_requests (requested_at, seq, endpoint, project_id, status, duration_ms, run_id) VALUES (epoch_ms($1::BIGINT)::TIMESTAMPTZ, $2, 'visitors', 'docs-a', 200, 0, 'r5')`,
        [NOW - 120 * MIN + i * MIN, 100 + i],
      );
    }
  } finally {
    w.close();
  }
}

let lockFile: string;
beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'mintlify-etl-status-')), 'analytics.duckdb');
  await buildFixture(file);
  // r6 is running: its sync (this process stands in for it) holds the lock.
  lockFile = `${file}.lock`;
  writeFileSync(
    lockFile,
    JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), hostname: hostname() }),
  );
  db = await openDatabase(file, { readOnly: true });
});
afterAll(() => db.close());

describe('gatherStatus', () => {
  it('reports coverage with the missing days, partial and failed days per project', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    expect(s.projects.map((p) => p.projectId)).toEqual(['docs-a', 'docs-b']);
    const a = s.projects[0];
    expect(a?.coverage).toMatchObject({
      firstDay: '2026-03-20',
      lastDay: '2026-03-31',
      daysLoaded: 10,
      daysMissing: 2,
      missingDays: ['2026-03-23', '2026-03-25'],
    });
    expect(a?.partialDays).toEqual(['2026-03-31']);
    expect(a?.failedDays).toEqual(['2026-03-23']);
  });

  it('lists deferred days not loaded since the run that deferred them', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    // 2026-03-30 was deferred by r5 but loaded after r5 started.
    expect(s.projects[0]?.deferredDays).toEqual(['2026-03-25']);
    expect(s.projects[1]).toMatchObject({
      projectId: 'docs-b',
      coverage: null,
      deferredDays: ['2026-03-29'],
    });
  });

  it('shows the last 5 runs of each project, newest first, with their outcome and duration', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    const runs = s.projects[0]?.runs ?? [];
    expect(runs.map((r) => [r.runId, r.status, r.durationMs])).toEqual([
      ['r6', 'running', 3 * MIN],
      ['r5', 'incomplete', 20 * MIN],
      ['r4', 'succeeded', 185_000],
      ['r3', 'failed', 2_000],
      ['r2', 'succeeded', 90_000],
    ]);
    expect(runs[1]).toMatchObject({
      windows: { planned: 4, loaded: 4, failed: 0, deferred: 3 },
      requests: 14,
    });
    expect(runs[3]?.error).toBe('the API key was refused (401)');
    expect(s.projects[1]?.runs.map((r) => r.runId)).toEqual(['r5']);
  });

  it('counts the requests of the current window and says when the oldest frees up', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    expect(s.budget).toEqual({
      rateLimit: '100/1h',
      limitSource: 'flag',
      overLimit: false,
      limit: 100,
      windowMs: 3_600_000,
      spent: 37,
      remaining: 63,
      nextSlotAt: '2026-04-01T13:53:00.000Z',
      nextSlotInMs: 0,
      oldestFreesAt: '2026-04-01T14:03:00.000Z',
    });
  });

  it('with a spent budget says when the next slot frees up', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('10/1h'), now: NOW });
    // 37 in the window, 10 allowed: the 28th oldest (13:30) must age out first.
    expect(s.budget).toMatchObject({ spent: 37, remaining: 0, nextSlotAt: '2026-04-01T14:30:00.000Z' });
    expect(s.budget.nextSlotInMs).toBe(37 * MIN);
    // 37 over a limit of 10 is not "37/10 spent": the runs that spent them had a larger limit.
    expect(s.budget.overLimit).toBe(true);
    expect(formatStatus(s)).toContain(
      'budget: 37 requests in the last hour, over the --rate-limit 10/1h: runs with a larger --rate-limit spent them (pass it to status to judge by it); under 10/1h the next slot frees at 14:30 UTC (in 37m)',
    );
  });
});

describe('assistant threads in status', () => {
  it('counts threads fetched, gone, and waiting (never fetched, or grown since)', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    expect(s.projects.find((p) => p.projectId === 'docs-b')?.threads).toEqual({
      fetched: 1,
      gone: 1,
      waiting: 2,
    });
    expect(s.projects.find((p) => p.projectId === 'docs-a')?.threads).toBeNull();
    expect(formatStatus(s)).toContain(
      'threads   assistant_threads: 1 fetched (1 thread gone from the service), 2 waiting (new or grown; --max-threads a run)',
    );
  });
});

describe('formatStatus', () => {
  it('prints the budget, the coverage, the gaps and a table of the last runs', async () => {
    const text = formatStatus(
      await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW }),
    );
    const lines = text.split('\n');
    expect(lines[1]).toBe(
      'budget: 37/100 spent in the last hour, 63 free now; the oldest frees at 14:03 UTC (in 10m) [--rate-limit 100/1h]',
    );
    expect(text).toContain(
      'project docs-a\n  coverage  visitors          2026-03-20 to 2026-03-31: 10 days loaded, 2 days missing: 2026-03-23, 2026-03-25\n',
    );
    expect(text).toContain('  partial   visitors          2026-03-31 (fetched again by the next sync)\n');
    expect(text).toContain('  failed    visitors          1 day: 2026-03-23 (retried by the next sync)\n');
    expect(text).toContain('  deferred  visitors          1 day pending: 2026-03-25\n');
    expect(text).toContain('project docs-b\n  coverage  visitors  nothing loaded yet\n');
    const runLines = lines.filter((l) => /^ {4}\d{4}-/.test(l));
    // r6's row says 15 requests, but the ledger holds 37 under its id: the ledger is the truth.
    expect(runLines[0]).toMatch(/^ {4}2026-04-01 13:50 {2}running\s+5\s+0\s+0\s+37\s+3m 00s$/);
    expect(runLines[3]).toMatch(/failed .* the API key was refused \(401\)$/);
  });

  it('abbreviates a long list of missing days', () => {
    const days = dayRange('2026-01-01', '2026-01-16');
    const text = formatStatus({
      db: 'x.duckdb',
      now: '2026-04-01T13:53:00.000Z',
      budget: {
        rateLimit: '100/1h',
        limitSource: 'default',
        overLimit: false,
        limit: 100,
        windowMs: 3_600_000,
        spent: 0,
        remaining: 100,
        nextSlotAt: '2026-04-01T13:53:00.000Z',
        nextSlotInMs: 0,
        oldestFreesAt: null,
      },
      projects: [
        {
          projectId: 'p',
          coverage: {
            firstDay: '2025-12-31',
            lastDay: '2026-01-20',
            daysLoaded: 6,
            daysMissing: 15,
            missingDays: days,
            lastLoadedAt: null,
          },
          partialDays: [],
          failedDays: [],
          deferredDays: [],
          threads: null,
          events: null,
          streams: [
            {
              stream: 'visitors',
              coverage: {
                firstDay: '2025-12-31',
                lastDay: '2026-01-20',
                daysLoaded: 6,
                daysMissing: 15,
                missingDays: days,
                lastLoadedAt: null,
              },
              partialDays: [],
              truncatedDays: [],
              failedDays: [],
              deferredDays: [],
            },
          ],
          runs: [],
        },
      ],
    });
    expect(text).toContain(
      '15 days missing: 2026-01-01, 2026-01-02, 2026-01-03, 2026-01-04, 2026-01-05, 2026-01-06, 2026-01-07, 2026-01-08, 2026-01-09, 2026-01-10, … (+5 more)',
    );
    expect(text).toContain('budget: 0/100 spent in the last hour, all 100 free');
    expect(text).toContain('  runs      none yet');
  });
});

describe('status per stream', () => {
  it('lists every stream with loaded, failed or deferred days, visitors first, each with its own days', async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    const streams = s.projects[0]?.streams ?? [];
    expect(streams.map((x) => x.stream)).toEqual(['visitors', 'caller_stats', 'feedback_by_page']);
    expect(streams[0]).toMatchObject({
      coverage: { firstDay: '2026-03-20', lastDay: '2026-03-31', daysLoaded: 10, daysMissing: 2 },
      partialDays: ['2026-03-31'],
      truncatedDays: [],
      failedDays: ['2026-03-23'],
      deferredDays: ['2026-03-25'],
    });
    // caller_stats has only a day a run deferred: it is listed, with nothing loaded.
    expect(streams[1]).toEqual({
      stream: 'caller_stats',
      coverage: null,
      partialDays: [],
      truncatedDays: [],
      failedDays: [],
      deferredDays: ['2026-03-31'],
    });
    expect(streams[2]).toMatchObject({
      stream: 'feedback_by_page',
      coverage: {
        firstDay: '2026-03-27',
        lastDay: '2026-03-30',
        daysLoaded: 4,
        daysMissing: 0,
        missingDays: [],
      },
      partialDays: [],
      truncatedDays: ['2026-03-28'],
      failedDays: [],
      deferredDays: ['2026-03-26'],
    });
    expect(s.projects[1]?.streams.map((x) => [x.stream, x.coverage, x.deferredDays])).toEqual([
      ['visitors', null, ['2026-03-29']],
    ]);
  });

  it("keeps the project's top-level coverage, partial, failed and deferred days as the visitors stream's", async () => {
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    for (const p of s.projects) {
      const visitors = p.streams.find((x) => x.stream === 'visitors');
      expect(p.coverage).toEqual(visitors?.coverage);
      expect(p.partialDays).toEqual(visitors?.partialDays);
      expect(p.failedDays).toEqual(visitors?.failedDays);
      expect(p.deferredDays).toEqual(visitors?.deferredDays);
    }
    // Another stream's deferred or truncated day never shows up in the visitors fields.
    expect(s.projects[0]?.deferredDays).toEqual(['2026-03-25']);
  });

  it('prints one coverage line per stream, then each kind of day per stream, names aligned', async () => {
    const text = formatStatus(
      await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW }),
    );
    const block = text.slice(text.indexOf('project docs-a'), text.indexOf('  last 5 runs:'));
    expect(block.split('\n')).toEqual([
      'project docs-a',
      '  coverage  visitors          2026-03-20 to 2026-03-31: 10 days loaded, 2 days missing: 2026-03-23, 2026-03-25',
      '            caller_stats      nothing loaded yet',
      '            feedback_by_page  2026-03-27 to 2026-03-30: 4 days loaded, no gaps',
      '  partial   visitors          2026-03-31 (fetched again by the next sync)',
      '  truncated feedback_by_page  1 day cut short (--max-pages, or an endpoint that cannot page further): 2026-03-28',
      '  failed    visitors          1 day: 2026-03-23 (retried by the next sync)',
      '  deferred  visitors          1 day pending: 2026-03-25',
      '            caller_stats      1 day pending: 2026-03-31',
      '            feedback_by_page  1 day pending: 2026-03-26',
      '',
    ]);
  });

  it('orders streams visitors first, then as the registry lists them, then unknown ones by name', () => {
    expect(sortStreams(['zeta', 'alpha', 'visitors', 'alpha'])).toEqual(['visitors', 'alpha', 'zeta']);
  });
});

describe('a run whose process died', () => {
  it('is shown as failed (killed?), not as still running, once no live sync holds the lock', async () => {
    rmSync(lockFile);
    const s = await gatherStatus(duckDestination(db), { rateLimit: parseRateLimit('100/1h'), now: NOW });
    expect(s.projects[0]?.runs[0]).toMatchObject({
      runId: 'r6',
      status: 'failed',
      error: 'process ended without finishing (killed?)',
    });
  });
});
