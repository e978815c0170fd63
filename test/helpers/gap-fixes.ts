import type { DuckDBConnection } from '@duckdb/node-api';
import { addDays } from '../../src/util/day.js';

/** The job every project's outcome rows come from, and the one still running. */
export const DONE_JOB = 'job-done';
export const OPEN_JOB = 'job-open';

/**
 * Evidence for gaps the emulator does not write, in every project of the file, so that both
 * destinations must agree on them too: a page flagged every second day of the last 50 (thumbs-down,
 * comments holding an e-mail address, a dismissed one, times a microsecond before midnight UTC);
 * and an unanswered question asked in German in three spellings (case beyond ASCII, punctuation,
 * a vertical tab) and one holding an e-mail address, with two categories asked equally often, two
 * turns at the same instant, and pages behind a query string or a newline.
 */
export async function insertGapEvidence(conn: DuckDBConnection, today: string): Promise<void> {
  const from = addDays(today, -50);
  const days = `SELECT CAST(d AS DATE) AS d, CAST(datediff('day', DATE '${from}', d) AS INTEGER) AS i
    FROM range(DATE '${from}', DATE '${today}', INTERVAL 1 DAY) AS r(d)`;
  const projects = 'SELECT DISTINCT project_id FROM sync_windows';
  await conn.run(`INSERT INTO feedback (project_id, id, path, source, status, comment, helpful, contact, created_at,
      first_seen_at, last_seen_at, run_id, window_start)
    SELECT p.project_id, 'flag-' || d.i, '/guides/flagged', CASE WHEN d.i % 6 = 4 THEN 'code_snippet' ELSE 'contextual' END,
      CASE WHEN d.i % 10 = 2 THEN 'dismissed' ELSE 'pending' END,
      CASE d.i % 6 WHEN 0 THEN 'Wrong port, write to ann.lee+docs@mail.example.co.uk' WHEN 4 THEN 'Fails on Ünïcode paths'
        WHEN 2 THEN '   ' END,
      CASE WHEN d.i % 6 = 4 THEN NULL ELSE false END, 'ann.lee@example.com',
      CAST(d.d + 1 AS TIMESTAMPTZ) - INTERVAL 1 MICROSECOND, TIMESTAMPTZ '${today} 00:00:00+00',
      TIMESTAMPTZ '${today} 00:00:00+00', 'evidence', d.d
    FROM (${projects}) AS p, (${days}) AS d WHERE d.i % 2 = 0`);
  await conn.run(`INSERT INTO assistant_turns
    SELECT p.project_id, 'evidence-' || d.i || '-' || q.n, CAST(d.d AS TIMESTAMPTZ) + INTERVAL 23 HOUR + INTERVAL 59 MINUTE,
      q.query, CASE q.n WHEN 1 THEN 'Zweite Antwort' ELSE 'Erste Antwort, siehe ' || chr(10) || '/sso' END,
      CASE WHEN q.n = 2 THEN 'clarifying_question' ELSE 'answer' END, CASE WHEN q.n = 2 THEN 'answered' ELSE 'unanswered' END,
      CASE WHEN (d.i + q.n) % 2 = 0 THEN 'sso' ELSE 'auth' END,
      CASE q.n WHEN 0 THEN 'https://docs.example.com/sso/setup?tab=okta' WHEN 1 THEN 'https://docs.example.com/sso/setup'
        WHEN 2 THEN 'https://docs.example.com/sso/x' || chr(10) || 'y?z' END,
      [], TIMESTAMPTZ '${today} 00:00:00+00', 'evidence', d.d
    FROM (${projects}) AS p, (${days}) AS d,
      (VALUES (0, 'Wie ÄNDERE ich die SSO-Einstellungen?'), (1, 'wie ändere ich die sso einstellungen'),
        (2, 'Wie ändere ich die SSO' || chr(11) || 'Einstellungen!'), (3, 'Why can''t bob.smith@corp.example.org log in?'))
        AS q(n, query)
    WHERE d.i % 3 <> 0`);
}

/**
 * Agent fixes for the gaps content_gaps finds in a DuckDB file, so that v_gap_outcomes and the fix
 * columns of v_content_gaps have rows in every project: a completed job with a pull request,
 * created `daysAgo` days before `today` at 23:30:00.123456 UTC and first seen completed the next
 * day at 00:15 UTC (both near midnight: a day read in another zone than UTC would move), linked to
 * the top gap of each kind of the 28 days before it (of today's view for a kind found only later); and an active job for the top gap of today's
 * view, created after the first (the latest job is the one v_content_gaps shows).
 */
export async function insertGapFixes(conn: DuckDBConnection, today: string, daysAgo = 30): Promise<void> {
  const day = addDays(today, -daysAgo);
  const created = `${day} 23:30:00.123456+00`;
  const completed = `${addDays(day, 1)} 00:15:00+00`;
  const job = (id: string, status: string, createdAt: string, prLink: string, completedAt: string): string =>
    `INSERT INTO agent_jobs (project_id, job_id, status, prompt, repository, pr_link, created_at, last_seen_at,
       completed_at)
     SELECT DISTINCT project_id, '${id}', '${status}', 'Fix the docs', 'acme/docs', ${prLink},
       TIMESTAMPTZ '${createdAt}', TIMESTAMPTZ '${today} 00:00:00+00', ${completedAt}
     FROM agent_job_gaps WHERE job_id = '${id}'`;
  // A kind found only later (a page losing readers) is fixed too: its measure still has a before.
  await conn.run(`INSERT INTO agent_job_gaps
    SELECT project_id, '${DONE_JOB}', gap_id, kind, subject_key, subject, TIMESTAMPTZ '${created}'
    FROM (SELECT * FROM content_gaps(28, DATE '${day}') UNION ALL SELECT * FROM v_content_gaps)
    QUALIFY row_number() OVER (PARTITION BY project_id, kind ORDER BY window_end, rank) = 1`);
  await conn.run(
    job(
      DONE_JOB,
      'completed',
      created,
      "'https://github.com/acme/docs/pull/7'",
      `TIMESTAMPTZ '${completed}'`,
    ),
  );
  const later = `${addDays(today, -2)} 12:00:00+00`;
  await conn.run(`INSERT INTO agent_job_gaps
    SELECT project_id, '${OPEN_JOB}', gap_id, kind, subject_key, subject, TIMESTAMPTZ '${later}'
    FROM v_content_gaps WHERE rank = 1`);
  await conn.run(job(OPEN_JOB, 'active', later, 'NULL', 'NULL'));
}
