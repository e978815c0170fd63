import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGaps } from '../../src/insights/gaps.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * What `sync --from 2026-01-01 --to 2026-02-16` of the default streams leaves: views and searches
 * a window a day up to 02-16 (exclusive), assistant in ranges ending 02-16, and feedback in whole
 * months, the last [02-01, 03-01) loaded whole though --to was 02-16. Every window fetched long
 * after it ended. A question was left unanswered four times, from 01-20 to 01-23.
 */
let cleanup: () => void;
let db: Database;
const P = 'w1';

const WINDOWS = `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
    api_totals_total, attempts, fetched_at, run_id, error)`;
const LOADED = `'loaded', 1, 1, false, NULL, 1, TIMESTAMPTZ '2026-11-20', 'r', NULL`;

beforeAll(async () => {
  const t = tempDir('mlx-gaps-end-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'g.duckdb'));
  const run = (sql: string): Promise<unknown> => db.connection.run(sql);
  await run(`${WINDOWS}
    SELECT '${P}', s, d::DATE, d::DATE + 1, ${LOADED}
    FROM range(DATE '2026-01-01', DATE '2026-02-16', INTERVAL 1 DAY) AS r(d), (VALUES ('views'), ('searches')) AS t(s)`);
  await run(`${WINDOWS} VALUES
    ('${P}', 'assistant', DATE '2026-01-01', DATE '2026-02-01', ${LOADED}),
    ('${P}', 'assistant', DATE '2026-02-01', DATE '2026-02-16', ${LOADED}),
    ('${P}', 'feedback', DATE '2026-01-01', DATE '2026-02-01', ${LOADED}),
    ('${P}', 'feedback', DATE '2026-02-01', DATE '2026-03-01', ${LOADED})`);
  for (const day of ['2026-01-20', '2026-01-21', '2026-01-22', '2026-01-23'])
    await run(`INSERT INTO assistant_turns VALUES ('${P}', 't-${day}', TIMESTAMPTZ '${day} 09:00:00+00',
      'How do I rotate my API key?', 'I could not find that.', 'answer', 'unanswered', 'auth', NULL, [],
      TIMESTAMPTZ '2026-11-20', 'r', DATE '2026-01-01')`);
});

afterAll(() => {
  db?.close();
  cleanup?.();
});

describe("the gaps' window when one stream loads whole months", () => {
  it("ends where the daily streams' loaded days end, not at the end of feedback's month window", async () => {
    const gaps = await readGaps(duckSession(db.connection), { days: 28, projectId: P });
    const unanswered = gaps.filter((g) => g.kind === 'unanswered');
    expect(unanswered).toHaveLength(1);
    expect(unanswered[0]).toMatchObject({
      subject: 'How do I rotate my API key?',
      currentCount: 4,
      windowStart: '2026-01-19',
      windowEnd: '2026-02-16',
    });
  });

  it('ignores a stream last loaded more than a window before the others: it holds nothing of the window', async () => {
    await db.connection.run(
      `${WINDOWS} VALUES ('${P}', 'searches', DATE '2025-06-01', DATE '2025-06-02', ${LOADED})`,
    );
    await db.connection.run(`DELETE FROM sync_windows WHERE project_id = '${P}' AND stream = 'searches'
      AND window_start >= DATE '2026-01-01'`);
    const gaps = await readGaps(duckSession(db.connection), { days: 28, projectId: P });
    expect(gaps.find((g) => g.kind === 'unanswered')?.windowEnd).toBe('2026-02-16');
  });
});
