import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixPrompt } from '../../src/insights/fix-prompt.js';
import { readGaps, type Gap } from '../../src/insights/gaps.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import type { SqlSession } from '../../src/load/session.js';
import { maskEmails } from '../../src/util/personal-data.js';
import { tempDbPath } from '../helpers/db.js';
import { EMAIL_CASES, NOT_EMAILS } from '../helpers/email-forms.js';
import { copyTable } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * One masking rule for readers' e-mail addresses (src/util/personal-data.ts): the views'
 * redact_emails on DuckDB and on PostgreSQL give what maskEmails gives, for every form; and an
 * address in the assistant's answer is [email] in the gap's excerpt and the fix prompt on both.
 */

const P = 'mask';
/** The addresses the assistant's answer holds: every form of the issue. */
const ANSWER_ADDRESSES = EMAIL_CASES.map(([text]) => text).filter((t) => t !== 'already [email] masked');
const ANSWER = `Ask support: ${ANSWER_ADDRESSES.join(' · ')}`;
/** Bits of the addresses that must never show once masked. */
const LEAKS = [
  'bücher',
  '例え',
  'john smith',
  'corp.io',
  'dave',
  'alice',
  'carol',
  'JOHN.DOE',
  'jane+tag',
  'bob.smith',
];

const runIf = hasPostgres();

async function seed(db: Database): Promise<void> {
  const run = (sql: string): Promise<unknown> => db.connection.run(sql);
  await run(`INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
      api_totals_total, attempts, fetched_at, run_id, error)
    SELECT '${P}', 'assistant', d::DATE, d::DATE + 1, 'loaded', 1, 1, false, NULL, 1, TIMESTAMPTZ '2026-03-05', 'r', NULL
    FROM range(DATE '2026-02-01', DATE '2026-03-01', INTERVAL 1 DAY) AS r(d)`);
  const answer = ANSWER.replaceAll("'", "''");
  for (const [i, ts] of ['2026-02-20 09:00:00+00', '2026-02-21 09:00:00+00'].entries()) {
    await run(`INSERT INTO assistant_turns VALUES ('${P}', 't${i}', TIMESTAMPTZ '${ts}',
      'Where do I send my invoice, write to me at dave&#64;example.com?', '${answer}', 'answer', 'unanswered',
      'billing', NULL, [], TIMESTAMPTZ '2026-03-05', 'r', DATE '2026-02-01')`);
  }
  await run(
    `INSERT INTO search_totals_daily (project_id, day, total_searches, terms) VALUES ('${P}', DATE '2026-02-20', 9, 3)`,
  );
  await run(`INSERT INTO search_daily VALUES ('${P}', DATE '2026-02-20', 'JOHN.DOE@EXAMPLE.COM', 5, 0, NULL, NULL),
    ('${P}', DATE '2026-02-20', 'jane+tag@x.co', 3, 0, NULL, NULL), ('${P}', DATE '2026-02-20', 'sso', 1, 1, NULL, NULL)`);
  await run(`INSERT INTO feedback (project_id, id, path, source, status, comment, helpful, contact, created_at,
      first_seen_at, last_seen_at, run_id, window_start)
    VALUES ('${P}', 'f1', '/p', 'contextual', 'pending', 'mail alice＠example.com', false, 'ann@example.com',
      TIMESTAMPTZ '2026-02-20 10:00:00+00', TIMESTAMPTZ '2026-03-05', TIMESTAMPTZ '2026-03-05', 'r', DATE '2026-02-01')`);
}

/** The views that show readers' text, as plain rows in a stable order. */
const TEXT_VIEWS = [
  'SELECT query, hits_28d FROM v_search_terms ORDER BY rank',
  'SELECT id, comment FROM v_feedback_open ORDER BY id',
  'SELECT question_key, query, times_asked FROM v_assistant_unanswered ORDER BY rank',
];

describe.skipIf(!runIf)("readers' e-mail addresses on DuckDB and on PostgreSQL", () => {
  let server: PostgresServer | undefined;
  let client: pg.Client;
  let db: Database | undefined;
  let duck: SqlSession;
  let post: SqlSession;

  beforeAll(async () => {
    server = await startPostgres();
    db = await openDatabase(tempDbPath());
    await seed(db);
    client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    await migratePostgres(client, { schema: 'mask' });
    for (const t of ['sync_windows', 'assistant_turns', 'search_totals_daily', 'search_daily', 'feedback'])
      await copyTable(db.connection, client, t);
    duck = duckSession(db.connection);
    post = pgSession(client);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await server?.stop();
  });

  async function redacted(s: SqlSession, texts: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const t of texts) {
      const rows = await s.rows('SELECT redact_emails($1::VARCHAR) AS m', [t]);
      out.push(String(rows[0]?.['m']));
    }
    return out;
  }

  it('are masked by the views as by maskEmails, every form, on both destinations', async () => {
    const texts = [...EMAIL_CASES.map(([t]) => t), ...NOT_EMAILS];
    const want = [...EMAIL_CASES.map(([, m]) => m), ...NOT_EMAILS];
    expect(texts.map(maskEmails)).toEqual(want);
    expect(await redacted(duck, texts)).toEqual(want);
    expect(await redacted(post, texts)).toEqual(want);
  });

  it("show as [email] in every view of readers' text, the same rows on both destinations", async () => {
    const rows = { duck: [] as unknown[], post: [] as unknown[] };
    for (const sql of TEXT_VIEWS) {
      rows.duck.push(await duck.rows(sql));
      rows.post.push(await post.rows(sql));
    }
    expect(rows.post).toEqual(rows.duck);
    expect(rows.duck).toEqual([
      [
        { query: '[email]', hits_28d: 8 },
        { query: 'sso', hits_28d: 1 },
      ],
      [{ id: 'f1', comment: 'mail [email]' }],
      [
        {
          question_key: 'where do i send my invoice write to me at email',
          query: 'Where do I send my invoice, write to me at [email]?',
          times_asked: 2,
        },
      ],
    ]);
  });

  it("show as [email] in the assistant's answer, in the gap excerpt and the fix prompt, on both destinations", async () => {
    const read = (s: SqlSession): Promise<Gap[]> => readGaps(s, { days: 14, projectId: P });
    const gaps = { duck: await read(duck), post: await read(post) };
    expect(gaps.post).toEqual(gaps.duck);
    for (const found of [gaps.duck, gaps.post]) {
      const g = found.find((x) => x.kind === 'unanswered');
      expect(g?.answerExcerpt).toMatch(
        /^Ask support: write to \[email\] please · \[email\] · ask \[email\] now · login as \[email\] fails/,
      );
      expect(g?.subject).toBe('Where do I send my invoice, write to me at [email]?');
      const prompt = buildFixPrompt(found);
      expect(prompt).toContain('[email]');
      for (const text of [JSON.stringify(found), prompt]) {
        for (const leak of LEAKS) expect(text).not.toContain(leak);
      }
    }
  });
});
