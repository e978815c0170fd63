import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRules, type AlertRules } from '../../src/insights/alert-rules.js';
import type { Evaluation } from '../../src/insights/alert.js';
import { evaluateAlerts } from '../../src/insights/alerts.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { AlertsFixture } from '../helpers/alerts-fixture.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * D = 2026-03-02, a Monday; the 8 weeks before start on Monday 2026-01-05. Each project is one
 * situation, built to fire a rule or not.
 */
const D = '2026-03-02';
const START = '2026-01-05';
const AFTER = '2026-03-03';
const TODAY = '2026-03-03';
let cleanup: () => void;
let db: Database;
let fx: AlertsFixture;

async function evaluate(
  projectId: string,
  o: { day?: string | undefined; today?: string; rules?: AlertRules } = {},
): Promise<Evaluation> {
  const [e] = await evaluateAlerts(duckSession(db.connection), {
    rules: o.rules ?? defaultRules(),
    today: o.today ?? TODAY,
    projectId,
    // { day: undefined }: the newest complete day, as without --day.
    ...('day' in o ? (o.day === undefined ? {} : { day: o.day }) : { day: D }),
  });
  return e as Evaluation;
}

function subjects(e: Evaluation, rule: string): string[] {
  return e.alerts.filter((a) => a.rule === rule).map((a) => a.subject);
}

beforeAll(async () => {
  const t = tempDir('mlx-alerts-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'a.duckdb'));
  fx = new AlertsFixture(db.connection);
  // A weekly rhythm: 100 on weekdays with a little noise, 30 at weekends.
  const rhythm = 'CASE WHEN dow >= 6 THEN 30 ELSE 100 + (dayofyear(d) % 5) - 2 END';
  // t-drop: Monday D has 40 visitors; page /b, 30 a day, has none.
  await fx.visitors('t-drop', START, D, rhythm);
  await fx.siteDay('t-drop', D, 40);
  await fx.dayWindows('t-drop', 'visitors', D, AFTER);
  await fx.pageDays('t-drop', '/a', START, AFTER, 30);
  await fx.pageDays('t-drop', '/b', START, D, 30);
  // t-steady: the same rhythm through D; evaluated on Monday D and on Sunday 03-01 (30).
  await fx.visitors('t-steady', START, AFTER, rhythm);
  // t-young: two weeks of history only, then a collapse.
  await fx.visitors('t-young', '2026-02-16', D, '100');
  await fx.siteDay('t-young', D, 5);
  await fx.dayWindows('t-young', 'visitors', D, AFTER);
  // t-partial: D was fetched while it was still going on (a low count that means nothing).
  await fx.visitors('t-partial', START, D, rhythm);
  await fx.siteDay('t-partial', D, 12, true);
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('traffic: the same weekday against its median and MAD of the weeks before', () => {
  it('alerts on a Monday far below the usual Mondays, with the size of the move', async () => {
    const e = await evaluate('t-drop');
    const site = e.alerts.find((a) => a.subject === 'visitors');
    expect(site?.fields['value']).toBe(40);
    expect(site?.fields['weeks']).toBe(8);
    expect(site?.fields['changePct']).toBeLessThan(-55);
    expect(site?.message).toMatch(/human visitors 40 on Monday 2026-03-02: \d+(\.\d)?% below the usual/);
  });

  it('alerts on a top page with no visitors that day (a missing row is 0 on a loaded day), not on a steady one', async () => {
    const e = await evaluate('t-drop');
    expect(subjects(e, 'traffic')).toContain('/b');
    expect(subjects(e, 'traffic')).not.toContain('/a');
  });

  it('stays quiet on an ordinary Monday and on an ordinary Sunday, though a Sunday is a third of a Monday', async () => {
    expect((await evaluate('t-steady')).alerts).toEqual([]);
    expect((await evaluate('t-steady', { day: '2026-03-01' })).alerts).toEqual([]);
  });

  it('says once that there is not enough history, and does not alert', async () => {
    const e = await evaluate('t-young');
    expect(subjects(e, 'traffic')).toEqual([]);
    expect(e.notes.filter((n) => n.startsWith('traffic:'))).toEqual([
      'traffic: not enough history (2 complete Mondays in the 8 weeks before 2026-03-02, 4 needed): no traffic alert yet',
    ]);
  });

  it('does not alert from a partial day, and by default evaluates the newest complete day instead', async () => {
    const partial = await evaluate('t-partial');
    expect(subjects(partial, 'traffic')).toEqual([]);
    expect(partial.notes).toContain(
      'traffic: 2026-03-02 is missing or partial in visitors: no traffic alert from it',
    );
    const newest = await evaluate('t-partial', { day: undefined });
    expect(newest.day).toBe('2026-03-01');
    expect(subjects(newest, 'traffic')).toEqual([]);
  });

  it('does not alert from a missing day', async () => {
    const e = await evaluate('t-steady', { day: '2026-03-04' });
    expect(subjects(e, 'traffic')).toEqual([]);
    expect(e.notes).toContain(
      'traffic: 2026-03-04 is missing or partial in visitors: no traffic alert from it',
    );
  });

  it('keeps the id of an alert from run to run', async () => {
    const a = await evaluate('t-drop');
    const b = await evaluate('t-drop');
    expect(a.alerts.map((x) => x.id)).toEqual(b.alerts.map((x) => x.id));
    expect(new Set(a.alerts.map((x) => x.id)).size).toBe(a.alerts.length);
  });

  it('is off when the rules say so', async () => {
    const rules = defaultRules();
    rules.traffic.enabled = false;
    expect(subjects(await evaluate('t-drop', { rules }), 'traffic')).toEqual([]);
  });
});

describe('search: a new term searched N+ times without a click', () => {
  beforeAll(async () => {
    await fx.dayWindows('s1', 'searches', '2026-02-20', AFTER);
    await fx.search('s1', D, 'oauth', 8, 0);
    await fx.search('s1', D, 'sso', 8, 0);
    await fx.search('s1', '2026-02-27', 'SSO', 6, 0);
    await fx.search('s1', D, 'billing', 9, 0.3);
    await fx.search('s1', D, 'rare', 2, 0);
    // The 7 days before D are 02-23..03-01: zero-click on 02-23 is "before", on 02-22 it is not.
    await fx.search('s1', '2026-02-23', 'Webhooks', 6, 0);
    await fx.search('s1', D, 'webhooks', 8, 0);
    await fx.search('s1', '2026-02-22', 'import', 6, 0);
    await fx.search('s1', D, 'import', 8, 0);
    await fx.dayWindows('s-young', 'searches', D, AFTER);
    await fx.search('s-young', D, 'oauth', 8, 0);
  });

  it('alerts on a zero-click term new this week, not on one already zero-click last week, a clicked or a rare one', async () => {
    const e = await evaluate('s1');
    // import was zero-click 8 days before (outside the 7), webhooks exactly 7 days before (inside).
    expect(subjects(e, 'search')).toEqual(['import', 'oauth']);
    expect(e.alerts[1]?.message).toBe(
      'new search term without a click: "oauth" searched 8 times on 2026-03-02, none clicked (not such a term in the 7 days before)',
    );
  });

  it('waits for a week of search history', async () => {
    const e = await evaluate('s-young');
    expect(subjects(e, 'search')).toEqual([]);
    expect(e.notes).toContain(
      'search: not enough history (0 of the 7 days before 2026-03-02 loaded in searches, 7 needed): no search alert yet',
    );
  });

  it('does not read a search day fetched before it ended', async () => {
    await fx.window('s-part', 'searches', '2026-02-20', D);
    await fx.window('s-part', 'searches', D, AFTER, 'loaded', '2026-03-02 12:00:00+00');
    await fx.search('s-part', D, 'oauth', 8, 0);
    const e = await evaluate('s-part');
    expect(subjects(e, 'search')).toEqual([]);
    expect(e.notes).toContain('search: 2026-03-02 is partial in searches: no search alert from it');
  });
});

describe('feedback: thumbs-down or comments well above the page usual rate', () => {
  beforeAll(async () => {
    await fx.window('f1', 'feedback', '2026-01-01', '2026-02-01');
    await fx.window('f1', 'feedback', '2026-02-01', '2026-03-01');
    await fx.window('f1', 'feedback', '2026-03-01', '2026-04-01');
    await fx.feedback('f1', D, '/burst', 3);
    await fx.feedback('f1', D, '/burst', 1, { up: true, comment: 'the example is wrong' });
    await fx.feedback('f1', D, '/burst', 2, { up: true });
    await fx.feedback('f1', '2026-02-10', '/burst', 1);
    for (const day of ['2026-02-03', '2026-02-05', '2026-02-09', '2026-02-12', '2026-02-16', '2026-02-19'])
      await fx.feedback('f1', day, '/noisy', 10);
    await fx.feedback('f1', D, '/noisy', 5);
    await fx.feedback('f1', D, '/calm', 2);
  });

  it('alerts on a page with a burst, counting comments, not thumbs-up; not on a page that is always like that or a small count', async () => {
    const e = await evaluate('f1');
    expect(subjects(e, 'feedback')).toEqual(['/burst']);
    expect(e.alerts[0]?.fields).toMatchObject({ count: 4, thumbsDown: 3, comments: 1 });
  });

  it('does not alert from a feedback month fetched before the day ended', async () => {
    await fx.window('f-part', 'feedback', '2026-02-01', '2026-03-01');
    await fx.window('f-part', 'feedback', '2026-03-01', '2026-04-01', 'loaded', '2026-03-02 18:00:00+00');
    await fx.feedback('f-part', D, '/burst', 5);
    const e = await evaluate('f-part');
    expect(subjects(e, 'feedback')).toEqual([]);
    expect(e.notes).toContain('feedback: 2026-03-02 is partial in feedback: no feedback alert from it');
  });
});

describe('assistant: the unanswered share well above its usual level', () => {
  beforeAll(async () => {
    for (const p of ['as1', 'as2', 'as-young']) await fx.window(p, 'assistant', '2026-01-26', '2026-03-09');
    await fx.turns('as1', '2026-02-02', D, 10, 1);
    await fx.turns('as1', D, AFTER, 20, 8, 'where is the SAML setup');
    await fx.turns('as2', '2026-02-02', D, 10, 1);
    await fx.turns('as2', D, AFTER, 20, 3);
    await fx.turns('as-young', '2026-02-27', AFTER, 20, 10);
  });

  it('alerts with the top unanswered questions when the share jumps', async () => {
    const e = await evaluate('as1');
    expect(subjects(e, 'assistant')).toEqual(['unanswered share']);
    expect(e.alerts[0]?.message).toBe(
      'assistant left 40% of 20 questions unanswered on 2026-03-02, usually 10% (median of 28 days); top unanswered: "where is the SAML setup" (8)',
    );
  });

  it('stays quiet within the usual level plus the margin', async () => {
    expect(subjects(await evaluate('as2'), 'assistant')).toEqual([]);
  });

  it('waits for enough days with questions', async () => {
    const e = await evaluate('as-young');
    expect(subjects(e, 'assistant')).toEqual([]);
    expect(e.notes.some((n) => n.startsWith('assistant: not enough history (3 days'))).toBe(true);
  });
});

describe('pipeline health', () => {
  beforeAll(async () => {
    await fx.visitors('p1', '2026-02-20', AFTER, '100');
    for (const night of ['2026-02-28', '2026-03-01', '2026-03-02'])
      await fx.syncRun('p1', night, { status: 'incomplete', deferred: 40 });
    await fx.syncRun('p1', '2026-03-03', {
      status: 'incomplete',
      deferred: 12,
      deferredDays: ['p1:2026-02-25', 'p1:views:2026-02-26', 'p1:views:2026-02-27', 'p1:2026-03-02'],
    });
    await fx.window('p1', 'searches', '2026-02-27', '2026-02-28', 'failed');
    await fx.window('p1', 'views', D, AFTER, 'failed');
    await fx.visitors('p2', '2026-02-20', AFTER, '100');
    await fx.syncRun('p2', '2026-03-01', { status: 'incomplete', deferred: 40 });
    await fx.syncRun('p2', '2026-03-02', { status: 'succeeded' });
    await fx.syncRun('p2', '2026-03-03', {
      status: 'failed',
      error: 'GET /v1/analytics/p2/visitors: the API key was refused (401): check MINTLIFY_API_KEY',
    });
  });

  it('alerts on the budget exhausted three nights running, failing and deferred streams', async () => {
    const e = await evaluate('p1');
    expect(subjects(e, 'pipeline')).toEqual([
      'budget',
      'failing searches',
      'deferred visitors',
      'deferred views',
    ]);
    const deferred = e.alerts.find((a) => a.subject === 'deferred views');
    expect(deferred?.fields).toMatchObject({ days: 2, oldest: '2026-02-26' });
  });

  it('alerts on a refused key without assuming how long keys last, and not on a budget that ran out once', async () => {
    const e = await evaluate('p2');
    expect(subjects(e, 'pipeline')).toEqual(['auth']);
    expect(e.alerts[0]?.message).toContain(
      "refused with 401. Mintlify's API keys expire after 7, 30, 60 or 90 days, or never, as chosen when the key was created",
    );
    expect(e.alerts[0]?.message).not.toContain('by default');
  });

  it('alerts when the loaded data falls more than N days behind the clock', async () => {
    expect(subjects(await evaluate('p2', { day: undefined, today: '2026-03-05' }), 'pipeline')).toEqual([
      'auth',
    ]);
    const late = await evaluate('p2', { day: undefined, today: '2026-03-09' });
    expect(late.alerts.find((a) => a.subject === 'behind')?.fields).toEqual({ lastDay: D, daysBehind: 6 });
  });
});
