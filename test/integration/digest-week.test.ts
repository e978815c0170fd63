import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastCompleteWeek, readDigest } from '../../src/insights/digest.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Issue 27 item 22 (a mutation survivor): a week's digest counts Monday to Sunday, and that only
 * shows when the days around the week are loaded too. W09 is Monday 2026-02-23 to Sunday 03-01;
 * W08 the week before. Every stream is loaded from Sunday 02-15 (the day before W08) to Monday
 * 03-02 (the day after W09), and those two edge days carry 1,000 of everything: a sum that takes
 * either in is off by 1,000.
 */
let cleanup: () => void;
let db: Database;
const P = 'docs';

beforeAll(async () => {
  const t = tempDir('mlx-digest-week-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'w.duckdb'));
  const fx = new AlertsFixture(db.connection);
  const edge = "CASE WHEN d IN (DATE '2026-02-15', DATE '2026-03-02') THEN 1000 ELSE 10 END";
  await fx.visitors(P, '2026-02-15', '2026-03-03', edge);
  await fx.run(`INSERT INTO page_daily SELECT '${P}', d::DATE, '/', ${edge}, 0, ${edge}
    FROM range(DATE '2026-02-15', DATE '2026-03-03', INTERVAL 1 DAY) AS r(d)`);
  for (const s of ['views', 'searches']) await fx.dayWindows(P, s, '2026-02-15', '2026-03-03');
  await fx.run(`INSERT INTO site_views_daily (project_id, day, human, ai, total, partial, loaded_at, run_id)
    SELECT '${P}', d::DATE, ${edge}, 0, ${edge}, false, TIMESTAMPTZ '2026-06-01', 'r'
    FROM range(DATE '2026-02-15', DATE '2026-03-03', INTERVAL 1 DAY) AS r(d)`);
  await fx.run(`INSERT INTO search_daily SELECT '${P}', d::DATE, 'oauth', ${edge}, 0.5, NULL, NULL
    FROM range(DATE '2026-02-15', DATE '2026-03-03', INTERVAL 1 DAY) AS r(d)`);
  for (const s of ['feedback', 'assistant']) await fx.window(P, s, '2026-02-15', '2026-03-03');
  for (const day of ['2026-02-22', '2026-02-23', '2026-03-01', '2026-03-02'])
    await fx.feedback(P, day, '/', 1);
  await fx.turns(P, '2026-02-22', '2026-03-03', 2, 1);
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('a week in the digest', () => {
  it('counts Monday to Sunday only, though the Sunday before and the Monday after are loaded', async () => {
    const d = await readDigest(duckSession(db.connection), P, '2026-W09');
    expect([d.weekStart, d.weekEnd]).toEqual(['2026-02-23', '2026-03-01']);
    // W09: 7 x 10; W08: 7 x 10 (Sunday 02-15 belongs to W07).
    expect(d.visitors).toEqual({ now: 70, before: 70, changePct: 0, days: 7, daysBefore: 7 });
    expect(d.views).toEqual({ now: 70, before: 70, changePct: 0, days: 7, daysBefore: 7 });
    expect(d.topSearches).toEqual([{ query: 'oauth', searches: 70, ctr: 0.5 }]);
    expect(d.moversUp).toEqual([]);
    expect(d.moversDown).toEqual([]);
    // Feedback of 02-23 and 03-01 (not 02-22 or 03-02); 2 questions a day over the 7 days.
    expect(d.feedback).toMatchObject({ received: 2, thumbsDown: 2 });
    expect(d.assistant).toEqual({ questions: 14, unanswered: 7, unansweredPct: 50 });
  });

  it('defaults to the last week whose Sunday is loaded: W09 with Monday 03-02 loaded, W08 when Sunday 03-01 is not', async () => {
    const session = duckSession(db.connection);
    expect(await lastCompleteWeek(session, P)).toBe('2026-W09');
    await db.connection.run(`DELETE FROM site_daily WHERE project_id = '${P}' AND day >= DATE '2026-03-01'`);
    expect(await lastCompleteWeek(session, P)).toBe('2026-W08');
  });
});
