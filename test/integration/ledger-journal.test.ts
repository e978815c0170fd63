import { existsSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import {
  LedgerJournal,
  UNANSWERED_MS,
  lostRequests,
  recoverJournalReport,
} from '../../src/load/duckdb/ledger-journal.js';
import { appendLedger, readLedgerSince, startRun } from '../../src/load/runs.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

let dir: string;
let cleanup: () => void;
let db: Database;
let journal: string;

const NOW = Date.parse('2026-04-01T12:00:00.000Z');
const T0 = NOW - 10 * 60_000;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  db = await openDatabase(join(dir, 'j.duckdb'));
  journal = new LedgerJournal(db.path).path;
});
afterAll(() => {
  db.close();
  cleanup();
});
beforeEach(async () => {
  await db.connection.run('DELETE FROM api_requests; DELETE FROM sync_runs;');
});

const line = (runId: string, at: unknown): string => `${JSON.stringify({ runId, at })}\n`;

/** The same database whose connection counts the calls made on it (one per SQL statement or appender). */
function counting(target: Database): { db: Database; calls: () => number } {
  let calls = 0;
  const connection = new Proxy(target.connection, {
    get(conn, key) {
      const value: unknown = Reflect.get(conn, key, conn);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        calls++;
        return (value as (...a: unknown[]) => unknown).apply(conn, args);
      };
    },
  });
  return { db: { ...target, connection }, calls: () => calls };
}

describe('recoverJournal', () => {
  it('adds the requests a killed run journaled but never recorded, counted as answered later, and deletes the journal', async () => {
    await appendLedger(db.session, [
      { at: T0, seq: 0, endpoint: 'visitors', projectId: 'p', status: 200, durationMs: 100, runId: 'r1' },
    ]);
    writeFileSync(
      journal,
      line('r1', T0) + line('r1', T0 + 1_000) + line('r1', T0 + 2_000) + '{"runId":"r1","a',
    );
    const report = await recoverJournalReport(db.session, journal, { now: NOW });
    expect(report).toEqual({ added: 2, skipped: 0, skippedMessage: undefined });
    expect(await readLedgerSince(db.session, 0)).toEqual([
      T0 + 100,
      T0 + 1_000 + UNANSWERED_MS,
      T0 + 2_000 + UNANSWERED_MS,
    ]);
    expect(existsSync(journal)).toBe(false);
  });

  it('skips and reports lines with a time no request can have (future, before 2000, beyond int64) or that are not entries, and still deletes the journal', async () => {
    writeFileSync(
      journal,
      [
        line('r1', T0),
        line('r1', 1e20),
        line('r1', NOW + 60 * 60_000),
        line('r1', NOW + 60_000),
        line('r1', -1e20),
        line('r1', Date.parse('1999-12-31T23:59:59.999Z')),
        '{"at": 5}\n',
        'not json\n',
        '\n',
        line('r1', T0 + 1),
      ].join(''),
    );
    const report = await recoverJournalReport(db.session, journal, { now: NOW });
    expect(report.added).toBe(3);
    expect(report.skipped).toBe(6);
    expect(report.skippedMessage).toBe(
      `6 line(s) of ${journal} skipped: 2 dated in the future (after 2026-04-01T12:05:00.000Z), ` +
        '2 dated before 2000, 2 not a journal entry (first at line 2)',
    );
    expect(existsSync(journal)).toBe(false);
    expect(await readLedgerSince(db.session, 0)).toEqual(
      [T0, T0 + 1, NOW + 60_000].map((t) => t + UNANSWERED_MS),
    );
  });

  it('recovers past a time beyond the int64 range (which failed every sync before) and removes the journal', async () => {
    writeFileSync(journal, line('r1', T0) + line('r1', 1e20));
    expect((await recoverJournalReport(db.session, journal)).added).toBe(1);
    expect(existsSync(journal)).toBe(false);
  });

  it('takes back the grants of requests that never reached the server, one for one', async () => {
    const refund = (at: number): string => `${JSON.stringify({ runId: 'r1', at, refund: true })}\n`;
    writeFileSync(journal, line('r1', T0) + line('r1', T0 + 5) + refund(T0 + 5) + line('r1', T0 + 5));
    const report = await recoverJournalReport(db.session, journal, { now: NOW });
    expect(report.added).toBe(2);
    expect(await readLedgerSince(db.session, 0)).toEqual([T0, T0 + 5].map((t) => t + UNANSWERED_MS));
  });

  it('issues the same number of SQL statements for one run or hundreds', async () => {
    const statements = async (runs: number): Promise<number> => {
      await db.connection.run('DELETE FROM api_requests; DELETE FROM sync_runs;');
      const lines: string[] = [];
      for (let r = 0; r < runs; r++) {
        await startRun(db.session, {
          runId: `run-${r}`,
          projectIds: ['p'],
          dateFrom: null,
          dateTo: null,
          windowsPlanned: 0,
          plannedDays: [],
          startedAt: new Date(T0),
        });
        for (let i = 0; i < 3; i++) lines.push(line(`run-${r}`, T0 + r * 10 + i));
      }
      writeFileSync(journal, lines.join(''));
      const { db: spied, calls } = counting(db);
      const report = await recoverJournalReport(spied.session, journal, { now: NOW });
      expect(report.added).toBe(runs * 3);
      return calls();
    };
    const one = await statements(1);
    expect(await statements(300)).toBe(one);
    const requests = await queryRows(db.connection, 'SELECT DISTINCT requests FROM sync_runs');
    expect(requests).toEqual([{ requests: 3 }]);
  });

  it('recovers 60,000 lines of one run with as many statements as one line needs', async () => {
    // Correct at size, and no statement per line or per run: the time it takes is a benchmark's
    // business (npm run bench), not a test's on a shared machine.
    const lines = (n: number) => Array.from({ length: n }, (_, i) => line('big', T0 + (i % 1_000))).join('');
    writeFileSync(journal, lines(1));
    const small = counting(db);
    expect((await recoverJournalReport(small.db.session, journal, { now: NOW })).added).toBe(1);
    await db.connection.run(`DELETE FROM api_requests`);
    writeFileSync(journal, lines(60_000));
    const big = counting(db);
    expect((await recoverJournalReport(big.db.session, journal, { now: NOW })).added).toBe(60_000);
    expect(big.calls()).toBe(small.calls());
    expect(
      await queryRows(db.connection, `SELECT count(*) AS n FROM api_requests WHERE run_id = 'big'`),
    ).toEqual([{ n: 60_000 }]);
  });
});

describe('budget scopes in the journal', () => {
  it("recovers a killed run's requests under the scope its lines name; lines without one count for every scope", async () => {
    const j = new LedgerJournal(db.path, { budgetScope: 'acme' });
    j.open();
    j.record('r1', T0);
    j.record('r1', T0 + 1_000);
    // A line of a journal written before scopes.
    writeFileSync(journal, line('r0', T0 + 2_000), { flag: 'a' });
    expect(
      (await lostRequests(db.session, journal, { now: NOW, budgetScope: 'acme' })).map((r) => r.at),
    ).toEqual([T0, T0 + 1_000, T0 + 2_000]);
    expect(
      (await lostRequests(db.session, journal, { now: NOW, budgetScope: 'other' })).map((r) => r.at),
    ).toEqual([T0 + 2_000]);
    await recoverJournalReport(db.session, journal, { now: NOW });
    expect(await readLedgerSince(db.session, 0, { budgetScope: 'other' })).toEqual([
      T0 + 2_000 + UNANSWERED_MS,
    ]);
    expect(await readLedgerSince(db.session, 0, { budgetScope: 'acme' })).toHaveLength(3);
    expect(
      await queryRows(db.connection, 'SELECT run_id, budget_scope FROM api_requests ORDER BY requested_at'),
    ).toEqual([
      { run_id: 'r1', budget_scope: 'acme' },
      { run_id: 'r1', budget_scope: 'acme' },
      { run_id: 'r0', budget_scope: null },
    ]);
    j.remove();
  });
});

describe('LedgerJournal', () => {
  it('sits beside the real database file, so a run through a symlinked name leaves it where the next run looks', () => {
    const alias = join(dir, 'alias.duckdb');
    symlinkSync(db.path, alias);
    expect(new LedgerJournal(alias).path).toBe(new LedgerJournal(db.path).path);
    expect(new LedgerJournal(alias).path).toBe(`${realpathSync(db.path)}.requests.jsonl`);
  });
});

describe('lostRequests (dry run: reads only)', () => {
  it('leaves out lines dated in the future and keeps the journal', async () => {
    writeFileSync(journal, line('r1', T0) + line('r1', 1e20));
    const rows = await lostRequests(db.session, journal, { now: NOW });
    expect(rows.map((r) => r.at)).toEqual([T0]);
    expect(existsSync(journal)).toBe(true);
  });
});
