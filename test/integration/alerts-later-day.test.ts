import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAlert, type Alert } from '../../src/insights/alert.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { dispatchAlerts } from '../../src/notify/dispatch.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Issue 27 item 22 (a mutation survivor): the day is part of an alert's identity. The same term
 * searched without a click on Monday and again on Tuesday is two alerts: Tuesday's is new and sent,
 * not swallowed as "already sent" by Monday's.
 */
let cleanup: () => void;
let db: Database;

function zeroClick(day: string): Alert {
  return makeAlert({
    projectId: 'docs',
    day,
    rule: 'search',
    subject: 'oauth',
    message: `"oauth" searched 8 times on ${day}, none clicked`,
    fields: { term: 'oauth', searches: 8 },
  });
}

beforeAll(async () => {
  const t = tempDir('mlx-later-day-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'l.duckdb'));
});

afterAll(() => {
  db.close();
  cleanup();
});

describe('alerts on a later day', () => {
  it('an alert on the same project, rule and subject on a later day is new and sent', async () => {
    const session = duckSession(db.connection);
    const monday = zeroClick('2026-03-02');
    const tuesday = zeroClick('2026-03-03');
    expect(tuesday.id).not.toBe(monday.id);
    const first = await dispatchAlerts(
      session,
      [{ projectId: 'docs', day: monday.day, alerts: [monday], notes: [] }],
      {
        resend: false,
        now: () => new Date('2026-03-03T06:00:00Z'),
      },
    );
    expect(first.sent).toEqual([monday]);
    const next = await dispatchAlerts(
      session,
      [{ projectId: 'docs', day: tuesday.day, alerts: [tuesday], notes: [] }],
      { resend: false, now: () => new Date('2026-03-04T06:00:00Z') },
    );
    expect(next.sent).toEqual([tuesday]);
    expect(next.alreadySent).toEqual([]);
    // The same day again is not new.
    const again = await dispatchAlerts(
      session,
      [{ projectId: 'docs', day: tuesday.day, alerts: [tuesday], notes: [] }],
      { resend: false, now: () => new Date('2026-03-04T07:00:00Z') },
    );
    expect(again.sent).toEqual([]);
    expect(again.alreadySent).toEqual([tuesday]);
  });
});
