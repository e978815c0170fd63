import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows, type Row } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * The effect of a fix, hand-computed. Job j1 was created on 2026-02-15 and first seen completed
 * on 2026-02-16 with a pull request: before = [02-01, 02-15), after = [02-17, 03-03) (14 days
 * each). Every stream is loaded for [02-01, 03-03), fetched on 03-10.
 */
let cleanup: () => void;
let db: Database;
const P = 'o1';

async function run(sql: string): Promise<void> {
  await db.connection.run(sql);
}

/** Every day of [from, to) as a SELECT of d (DATE). */
function days(from: string, to: string): string {
  return `SELECT CAST(d AS DATE) AS d FROM range(DATE '${from}', DATE '${to}', INTERVAL 1 DAY) AS r(d)`;
}

async function job(id: string, status: string, created: string, completed: string | null): Promise<void> {
  await run(`INSERT INTO agent_jobs (project_id, job_id, status, pr_link, created_at, last_seen_at, completed_at)
    VALUES ('${P}', '${id}', '${status}', ${status === 'completed' ? `'https://github.com/acme/docs/pull/1'` : 'NULL'},
      TIMESTAMPTZ '${created}', TIMESTAMPTZ '2026-03-10', ${completed === null ? 'NULL' : `TIMESTAMPTZ '${completed}'`})`);
}

async function link(jobId: string, gap: string, kind: string, key: string): Promise<void> {
  await run(`INSERT INTO agent_job_gaps VALUES ('${P}', '${jobId}', '${gap}', '${kind}', '${key}', '${key}',
    TIMESTAMPTZ '2026-02-15 10:00:00+00')`);
}

beforeAll(async () => {
  const t = tempDir('mlx-outcomes-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'o.duckdb'));
  for (const stream of ['searches', 'views']) {
    await run(`INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
        attempts, fetched_at, run_id) SELECT '${P}', '${stream}', d, d + 1, 'loaded', 1, 1, false, 1,
        TIMESTAMPTZ '2026-03-10', 'r' FROM (${days('2026-02-01', '2026-03-03')})`);
  }
  await run(`INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
      attempts, fetched_at, run_id) VALUES
      ('${P}', 'assistant', DATE '2026-01-26', DATE '2026-03-09', 'loaded', 1, 1, false, 1, TIMESTAMPTZ '2026-03-10', 'r'),
      ('${P}', 'feedback', DATE '2026-02-01', DATE '2026-03-01', 'loaded', 1, 1, false, 1, TIMESTAMPTZ '2026-03-10', 'r'),
      ('${P}', 'feedback', DATE '2026-03-01', DATE '2026-03-03', 'loaded', 1, 1, false, 1, TIMESTAMPTZ '2026-03-10', 'r')`);
  // The question: asked unanswered once a day before the fix, on 2 of the 14 days after.
  await run(`INSERT INTO assistant_turns SELECT '${P}', 't' || d, d + INTERVAL 9 HOUR,
      CASE WHEN day(d) % 2 = 0 THEN 'How do I log in?' ELSE 'how do i LOG-IN' END, 'Sorry.', 'answer', 'unanswered',
      NULL, NULL, [], TIMESTAMPTZ '2026-03-10', 'r', DATE '2026-01-26'
    FROM (${days('2026-02-01', '2026-02-15')} UNION ALL SELECT DATE '2026-02-20' UNION ALL SELECT DATE '2026-02-25')`);
  // The search term: 10 searches a day, never clicked before; half clicked after.
  await run(`INSERT INTO search_daily SELECT '${P}', d, 'Webhooks', 10, CASE WHEN d < DATE '2026-02-15' THEN 0 ELSE 0.5 END,
      NULL, NULL FROM (${days('2026-02-01', '2026-03-03')})`);
  // The flagged page: one thumbs-down a day throughout; the losing page: 20 human views a day, then 10.
  await run(`INSERT INTO feedback (project_id, id, path, source, status, helpful, created_at, first_seen_at, last_seen_at,
      run_id, window_start) SELECT '${P}', 'f' || d, '/p', 'contextual', 'pending', false, d + INTERVAL 12 HOUR,
      TIMESTAMPTZ '2026-03-10', TIMESTAMPTZ '2026-03-10', 'r', DATE '2026-02-01' FROM (${days('2026-02-01', '2026-03-03')})`);
  await run(`INSERT INTO page_views_daily SELECT '${P}', d, '/l', CASE WHEN d < DATE '2026-02-15' THEN 20 ELSE 10 END, 0, 0
    FROM (${days('2026-02-01', '2026-03-03')})`);
  await job('j1', 'completed', '2026-02-15 10:00:00+00', '2026-02-16 09:00:00+00');
  for (const [gap, kind, key] of [
    ['gap_u', 'unanswered', 'how do i log in'],
    ['gap_s', 'search', 'webhooks'],
    ['gap_f', 'flagged', '/p'],
    ['gap_l', 'losing', '/l'],
  ] as const)
    await link('j1', gap, kind, key);
  // Not measured: a job still running; measured but too early: a job completed on the last day.
  await job('j2', 'active', '2026-02-20 10:00:00+00', null);
  await link('j2', 'gap_u', 'unanswered', 'how do i log in');
  await job('j3', 'completed', '2026-03-01 10:00:00+00', '2026-03-02 08:00:00+00');
  await link('j3', 'gap_s', 'search', 'webhooks');
});

afterAll(() => {
  db?.close();
  cleanup?.();
});

async function outcomes(): Promise<Row[]> {
  return queryRows(
    db.connection,
    `SELECT job_id, gap_id, days_before, days_after, round(measure_before, 4) AS before,
       round(measure_after, 4) AS after, verdict FROM v_gap_outcomes WHERE project_id = '${P}'`,
  );
}

describe('v_gap_outcomes', () => {
  it('measures each gap of a completed fix before the job and after it completed', async () => {
    const rows = await outcomes();
    expect(rows.filter((r) => r['job_id'] === 'j1')).toEqual([
      {
        job_id: 'j1',
        gap_id: 'gap_f',
        days_before: 14,
        days_after: 14,
        before: 1,
        after: 1,
        verdict: 'same',
      },
      {
        job_id: 'j1',
        gap_id: 'gap_l',
        days_before: 14,
        days_after: 14,
        before: 20,
        after: 10,
        verdict: 'worse',
      },
      {
        job_id: 'j1',
        gap_id: 'gap_s',
        days_before: 14,
        days_after: 14,
        before: 1,
        after: 0.5,
        verdict: 'improved',
      },
      {
        job_id: 'j1',
        gap_id: 'gap_u',
        days_before: 14,
        days_after: 14,
        before: 1,
        after: 0.1429,
        verdict: 'improved',
      },
    ]);
  });

  it('leaves out a job still running, and says a fix completed too recently has too little data', async () => {
    const rows = await outcomes();
    expect(rows.map((r) => r['job_id'])).not.toContain('j2');
    expect(rows.find((r) => r['job_id'] === 'j3')).toMatchObject({
      days_after: 0,
      verdict: 'too little data',
    });
  });
});
