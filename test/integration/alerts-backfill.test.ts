import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRules } from '../../src/insights/alert-rules.js';
import type { Evaluation } from '../../src/insights/alert.js';
import { evaluateAlerts } from '../../src/insights/alerts.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { dispatchAlerts } from '../../src/notify/dispatch.js';
import { addDays, dayRange } from '../../src/util/day.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Issue 27 item 14. A first budget-limited sync loads the newest days of every default stream and
 * defers the older ones (getting-started calls this normal: the next nights fetch them). The
 * first `alerts` after it used to send 6 pipeline alerts, one "deferred <stream>" per stream, and
 * again every night until the backfill was done. Now: one alert per project saying the backfill is
 * in progress and how far, sent once per backfill (its id is keyed by where the backfill starts,
 * not by the night), while a day deferred inside the loaded history is still its own alert.
 */
const STREAMS = ['visitors', 'views', 'searches', 'feedback', 'assistant', 'caller_stats'];
const OLDEST = '2026-01-31';
let cleanup: () => void;
let db: Database;
let fx: AlertsFixture;

/** Every default stream loaded over [from, to): day windows, the event streams one range each. */
async function load(p: string, from: string, to: string): Promise<void> {
  await fx.visitors(p, from, to, '100');
  for (const s of ['views', 'searches', 'caller_stats']) await fx.dayWindows(p, s, from, to);
  for (const s of ['feedback', 'assistant']) await fx.window(p, s, from, to);
}

/** What a run deferred: `project:day` for visitors, `project:stream:day` for the others. */
function deferred(p: string, from: string, to: string, streams = STREAMS): string[] {
  return streams.flatMap((s) =>
    dayRange(from, to).map((d) => (s === 'visitors' ? `${p}:${d}` : `${p}:${s}:${d}`)),
  );
}

async function evaluate(p: string, day: string): Promise<Evaluation> {
  const [e] = await evaluateAlerts(duckSession(db.connection), {
    rules: defaultRules(),
    today: addDays(day, 1),
    projectId: p,
    day,
  });
  return e as Evaluation;
}

beforeAll(async () => {
  const t = tempDir('mlx-backfill-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'b.duckdb'));
  fx = new AlertsFixture(db.connection);
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('a first sync that leaves a backfill for the next nights', () => {
  it('gives one pipeline alert saying the backfill is in progress and how far, not one per stream', async () => {
    // Night 1 (the first run, 2026-03-01 to 03-02 UTC): 30 days planned, the newest 9 loaded.
    await load('b1', '2026-02-21', '2026-03-02');
    await fx.syncRun('b1', '2026-03-02', {
      status: 'incomplete',
      deferred: 21 * 6,
      deferredDays: deferred('b1', OLDEST, '2026-02-21'),
    });
    const e = await evaluate('b1', '2026-03-01');
    const pipeline = e.alerts.filter((a) => a.rule === 'pipeline');
    expect(pipeline.map((a) => a.subject)).toEqual(['backfill']);
    expect(pipeline[0]?.message).toBe(
      'backfill in progress, as planned: 9 of the 30 days from 2026-01-31 to 2026-03-01 loaded, 21 left for the next runs (visitors, views, searches, feedback, assistant, caller_stats); nothing to do (mintlify-etl status shows the progress; this alert is sent once per backfill)',
    );
    expect(pipeline[0]?.fields).toEqual({ from: OLDEST, to: '2026-03-01', days: 30, loaded: 9, left: 21 });
  });

  it('is sent once: the next night, further along, is the same alert and not sent again', async () => {
    const session = duckSession(db.connection);
    const now = () => new Date('2026-03-02T06:00:00Z');
    const first = await dispatchAlerts(session, [await evaluate('b1', '2026-03-01')], { resend: false, now });
    expect(first.sent.map((a) => a.subject)).toEqual(['backfill']);
    // Night 2: 10 more days of history and the new day.
    await load('b1', '2026-02-11', '2026-02-21');
    await load('b1', '2026-03-02', '2026-03-03');
    await fx.syncRun('b1', '2026-03-03', {
      status: 'incomplete',
      deferred: 11 * 6,
      deferredDays: deferred('b1', OLDEST, '2026-02-11'),
    });
    const night2 = await evaluate('b1', '2026-03-02');
    const backfill = night2.alerts.find((a) => a.subject === 'backfill');
    expect(backfill?.fields).toMatchObject({ days: 31, loaded: 20, left: 11 });
    expect(backfill?.id).toBe(first.sent[0]?.id);
    const second = await dispatchAlerts(session, [night2], {
      resend: false,
      now: () => new Date('2026-03-03T06:00:00Z'),
    });
    expect(second.sent.filter((a) => a.rule === 'pipeline')).toEqual([]);
    expect(second.alreadySent.map((a) => a.subject)).toEqual(['backfill']);
  });

  it('does not call the budget exhausted while the only work left is the backfill', async () => {
    await load('b2', '2026-02-21', '2026-03-02');
    for (const night of ['2026-02-28', '2026-03-01', '2026-03-02']) {
      await fx.syncRun('b2', night, {
        status: 'incomplete',
        deferred: 21,
        deferredDays: deferred('b2', OLDEST, '2026-02-21', ['visitors']),
      });
    }
    const e = await evaluate('b2', '2026-03-01');
    expect(e.alerts.filter((a) => a.rule === 'pipeline').map((a) => a.subject)).toEqual(['backfill']);
  });

  it('still alerts on a day deferred inside the loaded history, and on a stream with nothing loaded', async () => {
    await load('b3', '2026-02-21', '2026-03-02');
    await fx.syncRun('b3', '2026-03-02', {
      status: 'incomplete',
      deferred: 3,
      deferredDays: ['b3:2026-02-10', 'b3:2026-02-25', 'b3:feedback_by_page:2026-02-26'],
    });
    const e = await evaluate('b3', '2026-03-01');
    expect(e.alerts.filter((a) => a.rule === 'pipeline').map((a) => a.subject)).toEqual([
      'backfill',
      'deferred visitors',
      'deferred feedback_by_page',
    ]);
    expect(e.alerts.find((a) => a.subject === 'deferred visitors')?.fields).toMatchObject({
      days: 1,
      oldest: '2026-02-25',
    });
  });
});
