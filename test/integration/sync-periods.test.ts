import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ISO_WEEKS, MONTHS, type Grid } from '../../src/extract/range-plan.js';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays } from '../../src/util/day.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { emulatorSyncOptions, emulatorsPerTest } from '../helpers/sync-options.js';
import { byKey } from '../helpers/streams-truth.js';

/**
 * A fixed today, the edge of both rules: the week of Monday 2027-02-22 and the month of February
 * both ended on 03-01, so with the 3-day lookback both become final today and not a day sooner.
 */
const today = '2027-03-04';
const NOW = Date.parse(`${today}T12:00:00Z`);
const emulator = emulatorsPerTest({ seed: 9, days: 200, paths: 80, today });

function options(emu: Emulator, dbPath: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return emulatorSyncOptions(emu, dbPath, {
    streams: parseStreams('visitors_weekly,visitors_monthly'),
    now: () => NOW,
    ...over,
  });
}

const from = addDays(today, -183);

/** The complete periods from `from`'s period on that a 3-day lookback has settled by today. */
function settledPeriods(grid: Grid, first: string): [string, string][] {
  const out: [string, string][] = [];
  for (let s = grid.start(first); addDays(grid.next(s), 3) <= today; s = grid.next(s))
    out.push([s, grid.next(s)]);
  return out;
}

function siteTruth(emu: Emulator, periods: readonly [string, string][]) {
  return periods.map(([s, e]) => ({
    project_id: emu.projectId,
    period_start: s,
    ...emu.dataset.query(s, e).totals,
  }));
}

async function siteRows(db: string, table: string) {
  return readRows(
    db,
    `SELECT project_id, strftime(period_start, '%Y-%m-%d') AS period_start, human::INT AS human, ai::INT AS ai, total::INT AS total
     FROM ${table} ORDER BY period_start`,
  );
}

describe('true weekly and monthly unique visitors', () => {
  it('load six months of complete, settled weeks and months equal to the truth, one request a period', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { from }));
    expect(s.status).toBe('succeeded');
    const weeks = settledPeriods(ISO_WEEKS, from);
    const months = settledPeriods(MONTHS, from);
    expect(await siteRows(db, 'site_weekly')).toEqual(siteTruth(emu, weeks));
    expect(await siteRows(db, 'site_monthly')).toEqual(siteTruth(emu, months));
    expect(s.requests).toBe(weeks.length + months.length);
    expect(emu.stats.log.every((e) => e.query.includes('limit=1&'))).toBe(true);
    expect(await readRows(db, 'SELECT count(*)::INT AS n FROM page_weekly')).toEqual([{ n: 0 }]);

    // Settled periods are never paid for twice.
    const again = await runSync(options(emu, db));
    expect(again.requests).toBe(0);
  });

  it('load the same truth through faults, every extra request a retry of an injected fault', async () => {
    const emu = await emulator({
      faults: 0.3,
      faultKinds: ['server-error', 'bad-gateway', 'unavailable', 'connection-reset', 'slow'],
      // A slow answer is one that comes late, not how late: 20 ms, not the default 300.
      slowMs: 20,
    });
    const db = tempDbPath();
    const s = await runSync(options(emu, db, { from }));
    expect(s.status).toBe('succeeded');
    const weeks = settledPeriods(ISO_WEEKS, from);
    const months = settledPeriods(MONTHS, from);
    expect(await siteRows(db, 'site_weekly')).toEqual(siteTruth(emu, weeks));
    expect(await siteRows(db, 'site_monthly')).toEqual(siteTruth(emu, months));
    expect(s.requests - (weeks.length + months.length)).toBe(emu.stats.faults);
  }, 60_000);

  it('with --period-pages, load every page of each period (ceil(paths/250) requests a period)', async () => {
    const emu = await emulator({ paths: 600 });
    const db = tempDbPath();
    const start = addDays(today, -40);
    const s = await runSync(
      options(emu, db, { from: start, periodPages: true, streams: parseStreams('visitors_weekly') }),
    );
    expect(s.status).toBe('succeeded');
    const weeks = settledPeriods(ISO_WEEKS, start);
    const want = weeks
      .flatMap(([ws, we]) =>
        emu.dataset.query(ws, we).rows.map((r) => ({ project_id: emu.projectId, period_start: ws, ...r })),
      )
      .sort(byKey('period_start', 'path'));
    const got = await readRows<Record<string, unknown>>(
      db,
      `SELECT project_id, strftime(period_start, '%Y-%m-%d') AS period_start, path, human::INT AS human, ai::INT AS ai, total::INT AS total FROM page_weekly`,
    );
    expect(got.sort(byKey('period_start', 'path'))).toEqual(want);
    const cost = weeks.reduce(
      (n, [ws, we]) => n + Math.max(1, Math.ceil(emu.dataset.query(ws, we).rows.length / 250)),
      0,
    );
    expect(s.requests).toBe(cost);
  });

  it('with --period-pages and --max-pages, load the pages asked for and record the period truncated', async () => {
    const emu = await emulator({ paths: 600 });
    const db = tempDbPath();
    const [week] = settledPeriods(ISO_WEEKS, addDays(today, -20));
    const [ws, we] = week ?? ['', ''];
    expect(emu.dataset.query(ws, we).rows.length).toBeGreaterThan(250);
    const s = await runSync(
      options(emu, db, {
        from: ws,
        to: we,
        periodPages: true,
        maxPages: new Map([['visitors_weekly', 1]]),
        streams: parseStreams('visitors_weekly'),
      }),
    );
    expect(s.requests).toBe(1);
    expect(
      await readRows(db, "SELECT truncated, rows FROM sync_windows WHERE stream = 'visitors_weekly'"),
    ).toEqual([{ truncated: true, rows: 250 }]);
    // The site's figure is the API's whole one, whatever the page cap.
    expect(await siteRows(db, 'site_weekly')).toEqual(siteTruth(emu, [[ws, we]]));
  });

  it('with --period-pages, fetch again once the periods loaded without their pages, and then never', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const start = addDays(today, -40);
    const streams = parseStreams('visitors_weekly');
    await runSync(options(emu, db, { from: start, streams }));
    const weeks = settledPeriods(ISO_WEEKS, start);
    const withPages = await runSync(options(emu, db, { streams, periodPages: true }));
    expect(withPages.requests).toBe(weeks.length);
    expect(await readRows(db, 'SELECT count(DISTINCT period_start)::INT AS n FROM page_weekly')).toEqual([
      { n: weeks.length },
    ]);
    expect((await runSync(options(emu, db, { streams, periodPages: true }))).requests).toBe(0);
  });

  it('fetch the running week only with --include-today, flagged partial', async () => {
    const emu = await emulator();
    const db = tempDbPath();
    const monday = ISO_WEEKS.start(today);
    await runSync(
      options(emu, db, { from: monday, includeToday: true, streams: parseStreams('visitors_weekly') }),
    );
    expect(
      await readRows(db, "SELECT strftime(period_start, '%Y-%m-%d') AS s, partial FROM site_weekly"),
    ).toEqual([{ s: monday, partial: true }]);
  });

  it('show a week below its visitor-days in v_site_weekly, each figure labelled for what it is', async () => {
    const emu = await emulator({ days: 30 });
    const db = tempDbPath();
    const [week] = settledPeriods(ISO_WEEKS, addDays(today, -20));
    const [ws, we] = week ?? ['', ''];
    await runSync(options(emu, db, { from: ws, to: we, streams: parseStreams('visitors,visitors_weekly') }));
    const rows = await readRows<Record<string, unknown>>(
      db,
      `SELECT total::INT AS total, total_visitor_days::INT AS visitor_days, uniques_source, days::INT AS days
       FROM v_site_weekly WHERE week_start = '${ws}'`,
    );
    expect(rows).toHaveLength(1);
    const row = rows[0] ?? {};
    expect(row['days']).toBe(7);
    expect(row['uniques_source']).toBe('period');
    expect(row['total']).toBe(emu.dataset.query(ws, we).totals.total);
    expect(Number(row['total'])).toBeLessThan(Number(row['visitor_days']));
  });
});
