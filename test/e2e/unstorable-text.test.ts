import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type ServedEdits } from '../../src/emulator/index.js';
import { addDays, dayRange, todayUtc } from '../../src/util/day.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { comparePages, readData, readRows, tempDbPath, type PageDbRow } from '../helpers/db.js';
import {
  feedbackRows,
  feedbackTruth,
  messageRows,
  messagesTruth,
  turnRows,
  turnsTruth,
} from '../helpers/events-truth.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import {
  pgData,
  pgFeedbackRows,
  pgMessageRows,
  pgRangeStarts,
  pgRows,
  pgStreamTables,
  pgTurnRows,
} from '../helpers/postgres-rows.js';
import { byKey, sorted, tables, truth } from '../helpers/streams-truth.js';
import { expectedRows } from '../helpers/truth.js';

/*
 * Issue 27, item 3: a reader's text holding U+0000 (PostgreSQL text cannot store it) or an
 * unpaired UTF-16 surrogate (DuckDB's JSON reader refuses it) failed its window on every run. The
 * emulator serves such text in every text field readers fill (feedback comments and paths,
 * assistant questions, answers, sources and page URLs, thread messages, search terms and clicked
 * pages, page paths); the CLI syncs it into DuckDB and into PostgreSQL as real processes. Every
 * window loads, both destinations hold the ground truth with each such character as U+FFFD (a
 * paired surrogate kept), the same rows on both, and the reader's text is never in the output.
 */

/** A reader's words: never to be printed, logged or stored in an error column. */
const MARK = 'MARK-reader-words-7f3a';
// NUL; a high surrogate alone; a low one alone; a pair (an emoji, kept); a low before a high.
const DIRTY = `\u0000 ${MARK} \ud83d \ude00 😀 \udfff\ud800`;
const CLEAN = `\ufffd ${MARK} \ufffd \ufffd 😀 \ufffd\ufffd`;
const dirty = (s: string): string => `${s}${DIRTY}`;
const clean = (s: string): string => `${s}${CLEAN}`;
const maybe = <T extends string | null>(f: (s: string) => string, s: T): T => (s === null ? null : f(s)) as T;

function edits(f: (s: string) => string): ServedEdits {
  return {
    feedback: (x) => ({ ...x, path: f(x.path), comment: maybe(f, x.comment) }),
    assistant: (t) => ({
      ...t,
      query: f(t.query),
      response: f(t.response),
      pageUrl: maybe(f, t.pageUrl),
      sources: t.sources.map((s) => ({ ...s, title: f(s.title), url: f(s.url) })),
    }),
    thread: (b) => ({ ...b, messages: b.messages.map((m) => ({ ...m, content: f(m.content) })) }),
    searches: (r) => ({ ...r, searchQuery: f(r.searchQuery), topClickedPage: maybe(f, r.topClickedPage) }),
    pages: (r) => ({ ...r, path: f(r.path) }),
  };
}

const STREAMS = 'visitors,views,searches,feedback,assistant,assistant_threads';

/** Every loaded table's data columns, in the shapes both destinations' readers give. */
interface Loaded {
  pages: PageDbRow[];
  pageViews: unknown[];
  terms: unknown[];
  feedback: unknown[];
  turns: unknown[];
  messages: unknown[];
}

const fix = (r: Record<string, unknown>, k: string): Record<string, unknown> => ({
  ...r,
  [k]: maybe(clean, r[k] as string | null),
});

/** The emulator's ground truth with the served edit applied and U+FFFD in place of each unstorable character. */
function expected(
  emu: Emulator,
  days: readonly string[],
  starts: Map<string, string>,
  today: string,
): Loaded {
  const ds = emu.dataset;
  const t = truth(ds, emu.projectId, days);
  const threads = [
    ...new Set(turnsTruth(ds, emu.projectId, starts.get('assistant') ?? '', today).map((r) => r.thread_id)),
  ];
  return {
    pages: expectedRows(ds, days)
      .pages.map((p) => ({ ...p, path: clean(p.path) }))
      .sort(comparePages),
    pageViews: t.pageViews.map((r) => fix(r, 'path')).sort(byKey('day', 'path')),
    terms: t.terms.map((r) => fix(fix(r, 'query'), 'top_clicked_path')).sort(byKey('day', 'query')),
    feedback: feedbackTruth(ds, emu.projectId, starts.get('feedback') ?? '', today).map((r) =>
      fix(fix(r, 'path'), 'comment'),
    ),
    turns: turnsTruth(ds, emu.projectId, starts.get('assistant') ?? '', today).map((r) => ({
      ...fix(fix(fix(r, 'query'), 'response'), 'page_url'),
      sources: r.sources.map((s) => ({ title: clean(s.title), url: clean(s.url) })),
    })),
    messages: messagesTruth(ds, emu.projectId, threads).map((r) => fix(r, 'content')),
  };
}

async function duckLoaded(db: string): Promise<Loaded> {
  const t = sorted(await tables(db));
  return {
    pages: (await readData(db)).pages,
    pageViews: t.pageViews,
    terms: t.terms,
    feedback: await feedbackRows(db),
    turns: await turnRows(db),
    messages: await messageRows(db),
  };
}

async function pgLoaded(url: string, schema: string): Promise<Loaded> {
  const t = await pgStreamTables(url, schema);
  return {
    pages: (await pgData(url, schema)).pages,
    pageViews: t.pageViews,
    terms: t.terms,
    feedback: (await pgFeedbackRows(url, schema)).sort(byKey('id')),
    turns: await pgTurnRows(url, schema),
    messages: await pgMessageRows(url, schema),
  };
}

/** No piece of the reader's text in what the run printed. */
function expectNoReaderText(r: CliResult): void {
  for (const out of [r.stdout, r.stderr]) {
    expect(out).not.toContain(MARK);
    expect(out).not.toMatch(/reader-words/);
  }
}

describe('text no destination can store (U+0000, unpaired surrogates)', () => {
  const today = todayUtc();
  const from = addDays(today, -10);
  const days = dayRange(from, today);
  let emu: Emulator;
  let server: PostgresServer | undefined;
  const db = tempDbPath();
  let duckRun: CliResult;

  const env = (): Record<string, string> => ({
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    MINTLIFY_ETL_STREAMS: STREAMS,
  });
  const RUN = [
    '--from',
    from,
    '--concurrency',
    '4',
    '--rate-limit',
    '100000/1h',
    '--max-threads',
    '1000',
    '--json',
  ];

  beforeAll(async () => {
    emu = await startEmulator({ seed: 27, days: 20, paths: 30, latencyMs: 1, servedEdits: edits(dirty) });
    duckRun = await runCli(['sync', '--db', db, ...RUN], env());
  }, 180_000);
  afterAll(async () => {
    await emu?.close();
    await server?.stop();
  });

  it('loads every window into DuckDB, each such character stored as U+FFFD, equal to the truth, and prints none of the text', async () => {
    expect(duckRun.code, duckRun.stderr).toBe(0);
    expectNoReaderText(duckRun);
    const windows = await readRows<{ status: string; error: string | null }>(
      db,
      'SELECT status, error FROM sync_windows',
    );
    expect(windows.length).toBeGreaterThan(days.length);
    expect(windows.filter((w) => w.status !== 'loaded')).toEqual([]);
    const runs = await readRows<{ error: string | null }>(db, 'SELECT error FROM sync_runs');
    expect(runs).toEqual([{ error: null }]);
    const starts = new Map(
      (
        await readRows<{ stream: string; start: string }>(
          db,
          "SELECT stream, strftime(min(window_start), '%Y-%m-%d') AS start FROM sync_windows GROUP BY stream",
        )
      ).map((r) => [r.stream, r.start]),
    );
    const got = await duckLoaded(db);
    const want = expected(emu, days, starts, today);
    for (const k of Object.keys(want) as (keyof Loaded)[]) {
      expect(got[k].length, k).toBeGreaterThan(0);
      expect(got[k], k).toEqual(want[k]);
    }
  }, 60_000);

  it('names a window that fails without the reader text that made it fail, in the output and the database', async () => {
    // Every term of a day becomes one of two spellings of the same words: the service groups terms
    // case-insensitively, so each pass sees a term twice and the day fails as moved data.
    const twice = await startEmulator({
      seed: 28,
      days: 5,
      paths: 10,
      latencyMs: 1,
      servedEdits: {
        searches: (r) => ({
          ...r,
          searchQuery: r.searchQuery.length % 2 === 0 ? `Secret ${MARK}` : `secret ${MARK.toLowerCase()}`,
        }),
      },
    });
    try {
      const out = tempDbPath();
      const r = await runCli(
        ['sync', '--db', out, '--from', addDays(today, -2), '--rate-limit', '100000/1h'],
        {
          ...env(),
          MINTLIFY_API_URL: twice.url,
          MINTLIFY_API_KEY: twice.apiKey,
          MINTLIFY_PROJECT_ID: twice.projectId,
          MINTLIFY_ETL_STREAMS: 'searches',
        },
      );
      expect(r.code, r.stderr).toBe(4);
      for (const text of [r.stdout, r.stderr]) expect(text.toLowerCase()).not.toContain(MARK.toLowerCase());
      expect(r.stderr).toMatch(/searches .*a term appeared twice/);
      const errors = await readRows<{ error: string | null }>(
        out,
        "SELECT error FROM sync_windows WHERE status = 'failed' UNION ALL SELECT error FROM sync_runs",
      );
      expect(errors.filter((e) => e.error !== null).length).toBeGreaterThan(1);
      for (const e of errors) expect((e.error ?? '').toLowerCase()).not.toContain(MARK.toLowerCase());
    } finally {
      await twice.close();
    }
  }, 60_000);

  it.skipIf(!hasPostgres())(
    'loads the same rows into PostgreSQL as into DuckDB, equal to the truth, and prints none of the text',
    async () => {
      server = await startPostgres();
      const r = await runCli(['sync', '--db', server.url, '--schema', 'odd_text', ...RUN], env());
      expect(r.code, r.stderr).toBe(0);
      expectNoReaderText(r);
      const bad = await pgRows(
        server.url,
        'odd_text',
        `SELECT stream, window_start::text, status, error FROM sync_windows WHERE status <> 'loaded' OR error IS NOT NULL
         UNION ALL SELECT 'run', NULL, status, error FROM sync_runs WHERE error IS NOT NULL`,
      );
      expect(bad).toEqual([]);
      const got = await pgLoaded(server.url, 'odd_text');
      const starts = await pgRangeStarts(server.url, 'odd_text');
      const want = expected(emu, days, starts, today);
      const duck = await duckLoaded(db);
      for (const k of Object.keys(want) as (keyof Loaded)[]) {
        expect(got[k], k).toEqual(want[k]);
        expect(got[k], `${k}: PostgreSQL and DuckDB`).toEqual(duck[k]);
      }
    },
    180_000,
  );
});
