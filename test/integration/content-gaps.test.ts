import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGaps, type Gap } from '../../src/insights/gaps.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { tempDir } from '../helpers/duckdb-temp.js';

/*
 * Hand-computed content gaps. Project g1, window 14 days before 2026-03-01: W = [02-15, 03-01),
 * P = [02-01, 02-15). Every views day of February is loaded, fetched on 03-05 (complete), so the
 * default end is 03-01 too.
 */
let cleanup: () => void;
let db: Database;
const P = 'g1';
const EMAIL = 'reader@example.com';

async function run(sql: string): Promise<void> {
  await db.connection.run(sql);
}

function q(v: string | null): string {
  return v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`;
}

async function turn(ts: string, query: string, opts: { status?: string; type?: string; page?: string } = {}) {
  await run(`INSERT INTO assistant_turns VALUES ('${P}', 't-${ts}', TIMESTAMPTZ '${ts}', ${q(query)},
    'I could not find that.', '${opts.type ?? 'answer'}', '${opts.status ?? 'unanswered'}', 'auth',
    ${q(opts.page ?? null)}, [], TIMESTAMPTZ '2026-03-05', 'r', DATE '2026-02-01')`);
}

async function search(day: string, query: string, hits: number, ctr: number, top: string | null = null) {
  await run(
    `INSERT INTO search_daily VALUES ('${P}', DATE '${day}', ${q(query)}, ${hits}, ${ctr}, ${q(top)}, NULL)`,
  );
}

let fb = 0;
async function feedback(
  day: string,
  path: string,
  f: { source: string; helpful?: boolean; comment?: string; status?: string; contact?: string },
) {
  fb++;
  await run(`INSERT INTO feedback (project_id, id, path, source, status, comment, helpful, contact, created_at,
      first_seen_at, last_seen_at, run_id, window_start)
    VALUES ('${P}', 'f${fb}', ${q(path)}, '${f.source}', '${f.status ?? 'pending'}', ${q(f.comment ?? null)},
      ${f.helpful === undefined ? 'NULL' : String(f.helpful)}, ${q(f.contact ?? null)},
      TIMESTAMPTZ '${day} 10:00:00+00', TIMESTAMPTZ '2026-03-05', TIMESTAMPTZ '2026-03-05', 'r', DATE '2026-02-01')`);
}

function gapId(kind: string, key: string): string {
  return `gap_${createHash('md5').update(`${P}|${kind}|${key}`).digest('hex').slice(0, 12)}`;
}

beforeAll(async () => {
  const t = tempDir('mlx-gaps-');
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'g.duckdb'));
  // Views: /l falls from 20 to 10 human views a day (280 -> 140), /s stays at 20.
  await run(`INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
      api_totals_total, attempts, fetched_at, run_id, error)
    SELECT '${P}', 'views', d::DATE, d::DATE + 1, 'loaded', 1, 2, false, NULL, 1, TIMESTAMPTZ '2026-03-05', 'r', NULL
    FROM range(DATE '2026-02-01', DATE '2026-03-01', INTERVAL 1 DAY) AS r(d)`);
  // The other streams hold February whole too (a trend needs both windows loaded): searches a
  // window a day, assistant and feedback one range each, as they load.
  await run(`INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
      api_totals_total, attempts, fetched_at, run_id, error)
    SELECT '${P}', 'searches', d::DATE, d::DATE + 1, 'loaded', 1, 2, false, NULL, 1, TIMESTAMPTZ '2026-03-05', 'r', NULL
    FROM range(DATE '2026-02-01', DATE '2026-03-01', INTERVAL 1 DAY) AS r(d)
    UNION ALL
    SELECT '${P}', s, DATE '2026-02-01', DATE '2026-03-01', 'loaded', 1, 2, false, NULL, 1, TIMESTAMPTZ '2026-03-05', 'r', NULL
    FROM (VALUES ('assistant'), ('feedback')) AS t(s)`);
  await run(`INSERT INTO page_views_daily
    SELECT '${P}', d::DATE, '/l', CASE WHEN d < DATE '2026-02-15' THEN 20 ELSE 10 END, 0, 0
    FROM range(DATE '2026-02-01', DATE '2026-03-01', INTERVAL 1 DAY) AS r(d)
    UNION ALL
    SELECT '${P}', d::DATE, '/s', 20, 0, 0 FROM range(DATE '2026-02-01', DATE '2026-03-01', INTERVAL 1 DAY) AS r(d)`);
  // One question written four ways in W (4), once in P; one asked once; one answered five times.
  await turn('2026-02-16 09:00:00+00', 'How do I log in?', {
    page: 'https://docs.x.com/auth/login?ref=1#top',
  });
  await turn('2026-02-17 09:00:00+00', 'How do I log in?', { page: 'https://docs.x.com/auth/login' });
  await turn('2026-02-18 09:00:00+00', 'how do i   LOG IN', {
    type: 'clarifying_question',
    status: 'answered',
  });
  await turn('2026-02-19 09:00:00+00', 'How do I log-in??');
  await turn('2026-02-03 09:00:00+00', 'How do I log in');
  await turn('2026-02-20 09:00:00+00', 'Pricing?');
  for (let i = 0; i < 5; i++)
    await turn(`2026-02-2${i} 12:00:00+00`, 'Answered question', { status: 'answered' });
  // Searches: "webhooks" 12 searches at 3.3% CTR in W, none before; "install" clicked; "sso" too rare.
  await search('2026-02-20', 'Webhooks', 8, 0, '/webhooks');
  await search('2026-02-21', 'webhooks', 4, 0.1);
  await search('2026-02-20', 'install', 50, 0.5);
  await search('2026-02-20', 'sso', 9, 0);
  // Feedback on /p: 3 flags in W (2 thumbs-down, 1 code comment), 3 in P; not counted: dismissed, thumbs-up.
  await feedback('2026-02-16', '/p', {
    source: 'contextual',
    helpful: false,
    comment: 'Wrong port',
    contact: EMAIL,
  });
  await feedback('2026-02-17', '/p', { source: 'contextual', helpful: false });
  await feedback('2026-02-18', '/p', {
    source: 'code_snippet',
    comment: 'code fails, mail bob.smith@corp.example.org',
    status: 'in_progress',
  });
  await feedback('2026-02-19', '/p', {
    source: 'contextual',
    helpful: false,
    status: 'dismissed',
    comment: 'spam',
  });
  await feedback('2026-02-19', '/p', { source: 'contextual', helpful: true, comment: 'Great' });
  for (const day of ['2026-02-02', '2026-02-03', '2026-02-04'])
    await feedback(day, '/p', { source: 'contextual', helpful: false, status: 'resolved' });
});

afterAll(() => {
  db?.close();
  cleanup?.();
});

function byKind(gaps: readonly Gap[], kind: string): Gap {
  const g = gaps.find((x) => x.kind === kind);
  if (g === undefined) throw new Error(`no ${kind} gap in ${JSON.stringify(gaps)}`);
  return g;
}

describe('content gaps', () => {
  it('groups a question written in other case, punctuation and spacing into one gap, with its evidence', async () => {
    const g = byKind(await readGaps(duckSession(db.connection), { days: 14 }), 'unanswered');
    expect(g).toMatchObject({
      gapId: gapId('unanswered', 'how do i log in'),
      subject: 'How do I log in?',
      subjectKey: 'how do i log in',
      windowStart: '2026-02-15',
      windowEnd: '2026-03-01',
      currentCount: 4,
      previousCount: 1,
      trend: 'worse',
      score: 5,
      category: 'auth',
      answerExcerpt: 'I could not find that.',
      pages: ['/auth/login'],
    });
    expect(g.examples).toEqual(['How do I log in?', 'How do I log-in??', 'how do i   LOG IN']);
  });

  it('finds a term searched enough with almost no clicks, its spellings together, new when not searched before', async () => {
    const g = byKind(await readGaps(duckSession(db.connection), { days: 14 }), 'search');
    expect(g).toMatchObject({
      subject: 'Webhooks',
      currentCount: 12,
      previousCount: 0,
      trend: 'new',
      pages: ['/webhooks'],
    });
    expect(g.rate).toBeCloseTo(0.4 / 12, 9);
    // (8 x 1 + 4 x 0.9) searches without a click x 0.5, x 1.5 for new
    expect(g.score).toBe(8.7);
  });

  it('flags a page by its thumbs-down and comments not dismissed, and never shows a reader email', async () => {
    const gaps = await readGaps(duckSession(db.connection), { days: 14 });
    const g = byKind(gaps, 'flagged');
    expect(g).toMatchObject({
      subject: '/p',
      currentCount: 3,
      previousCount: 3,
      trend: 'same',
      score: 3,
      pages: ['/p'],
    });
    expect(g.examples).toEqual(['code fails, mail [email]', 'Wrong port']);
    const view = await queryRows(db.connection, 'SELECT * FROM content_gaps(14, NULL)');
    for (const text of [JSON.stringify(gaps), JSON.stringify(view)]) {
      expect(text).not.toContain(EMAIL);
      expect(text).not.toContain('bob.smith');
    }
  });

  it('finds a page losing human readers beyond its usual weekly change, and not a steady one', async () => {
    const gaps = await readGaps(duckSession(db.connection), { days: 14 });
    const g = byKind(gaps, 'losing');
    expect(g).toMatchObject({
      subject: '/l',
      currentCount: 140,
      previousCount: 280,
      trend: 'worse',
      rate: 0.5,
    });
    expect(g.score).toBe(17.5);
    expect(gaps.filter((x) => x.kind === 'losing').map((x) => x.subject)).toEqual(['/l']);
  });

  it('ranks across kinds by score, and leaves out what is below each threshold', async () => {
    const gaps = await readGaps(duckSession(db.connection), { days: 14 });
    expect(gaps.map((g) => [g.rank, g.kind, g.subject])).toEqual([
      [1, 'losing', '/l'],
      [2, 'search', 'Webhooks'],
      [3, 'unanswered', 'How do I log in?'],
      [4, 'flagged', '/p'],
    ]);
  });

  it('keeps a gap id across windows, and ends a window at --to, not at the last loaded day', async () => {
    const later = await readGaps(duckSession(db.connection), { days: 14 });
    const earlier = await readGaps(duckSession(db.connection), { days: 7, to: '2026-02-22' });
    const key = (gs: readonly Gap[]) => gs.find((g) => g.kind === 'unanswered')?.gapId;
    expect(key(earlier)).toBe(key(later));
    expect(earlier[0]).toMatchObject({ windowStart: '2026-02-15', windowEnd: '2026-02-22' });
  });

  it('gives the view v_content_gaps the 28 days ending at the last complete loaded day', async () => {
    const view = await queryRows(db.connection, 'SELECT * FROM v_content_gaps');
    const macro = await queryRows(
      db.connection,
      'SELECT * FROM content_gaps(28, NULL) ORDER BY project_id, rank',
    );
    expect(view).toEqual(macro);
    expect(view[0]).toMatchObject({ window_start: '2026-02-01', window_end: '2026-03-01' });
  });
});
