import { describe, expect, it } from 'vitest';
import { runSync, type SyncOptions } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { createLogger } from '../../src/util/log.js';
import { readRows, tempDbPath } from '../helpers/db.js';
import { Refusal, scriptedApis, type Script, type ScriptedApi } from '../helpers/scripted-api.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';

/**
 * Pages the emulator never sends, from a scripted API, at a fixed "now" (2026-03-04, a
 * Wednesday): each test is about one thing the service may do and what sync makes of it.
 */
const PROJECT = 'docs';
const KEY = 'mint_scripted_pages_key_0123456789';
const NOW = Date.parse('2026-03-04T12:00:00Z');
const api = scriptedApis(PROJECT);

function options(a: ScriptedApi, db: string, streams: string, over: Partial<SyncOptions> = {}): SyncOptions {
  return emulatorSyncOptions({ url: a.url, projectId: PROJECT, apiKey: KEY }, db, {
    streams: parseStreams(streams),
    now: () => NOW,
    ...over,
  });
}

/** A logger that keeps every line, debug included. */
function keptLines(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }) };
}

function feedbackItem(
  id: string,
  createdAt: string,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    path: '/quickstart',
    comment: `comment ${id}`,
    createdAt,
    status: 'pending',
    source: 'contextual',
    helpful: true,
    contact: null,
    ...over,
  };
}

function turn(thread: string, timestamp: string): Record<string, unknown> {
  return {
    id: thread,
    timestamp,
    query: `question at ${timestamp}`,
    response: 'an answer',
    sources: [],
    resolutionStatus: 'answered',
    queryCategory: null,
    pageUrl: null,
  };
}

const FEBRUARY = { from: '2026-02-01', to: '2026-03-01' };

describe('a last page that says hasMore:false but still carries a cursor', () => {
  it('ends the feedback sequence there: the cursor is not followed', async () => {
    const a = await api(({ endpoint, query }) => {
      if (endpoint !== 'feedback') return undefined;
      return query.get('cursor') === null
        ? { feedback: [feedbackItem('f1', '2026-02-10T10:00:00Z')], nextCursor: 'c2', hasMore: false }
        : { feedback: [feedbackItem('f2', '2026-02-11T10:00:00Z')], nextCursor: null, hasMore: false };
    });
    const db = tempDbPath();
    const s = await runSync(options(a, db, 'feedback', FEBRUARY));
    expect(s.status).toBe('succeeded');
    expect(a.count('feedback')).toBe(1);
    expect(await readRows(db, 'SELECT id FROM feedback ORDER BY id')).toEqual([{ id: 'f1' }]);
  });

  it('ends the assistant sequence there: the cursor is not followed', async () => {
    const a = await api(({ endpoint, query }) => {
      if (endpoint !== 'assistant') return undefined;
      return query.get('cursor') === null
        ? { conversations: [turn('t1', '2026-02-24T10:00:00Z')], nextCursor: '01J0000000', hasMore: false }
        : { conversations: [turn('t2', '2026-02-25T10:00:00Z')], nextCursor: null, hasMore: false };
    });
    const db = tempDbPath();
    const s = await runSync(options(a, db, 'assistant', { from: '2026-02-23', to: '2026-03-02' }));
    expect(s.status).toBe('succeeded');
    expect(a.count('assistant')).toBe(1);
    expect(await readRows(db, 'SELECT thread_id FROM assistant_turns')).toEqual([{ thread_id: 't1' }]);
  });
});

describe('a thread fetched while it is still going', () => {
  it('records the larger turn count, so the turns it already held are not paid for again', async () => {
    // The week's turns as the assistant endpoint lists them, run by run; the transcript is ahead.
    const script = { turns: 1, asked: 2 };
    const a = await api(({ endpoint }) => {
      if (endpoint === 'assistant') {
        const stamps = ['2026-02-25T10:00:00Z', '2026-02-25T10:05:00Z', '2026-02-25T10:10:00Z'];
        const conversations = stamps.slice(0, script.turns).map((t) => turn('t1', t));
        return { conversations, nextCursor: null, hasMore: false };
      }
      if (endpoint !== 'assistant/threads/t1') return undefined;
      const messages = Array.from({ length: script.asked }, (_, i) => [
        {
          id: `u${i}`,
          role: 'user',
          content: `q${i}`,
          createdAt: `2026-02-25T10:${String(i * 5).padStart(2, '0')}:00Z`,
        },
        {
          id: `a${i}`,
          role: 'assistant',
          content: `a${i}`,
          createdAt: `2026-02-25T10:${String(i * 5).padStart(2, '0')}:30Z`,
        },
      ]).flat();
      return { threadId: 't1', createdAt: '2026-02-25T10:00:00Z', messages };
    });
    const db = tempDbPath();
    const week = { from: '2026-02-23', to: '2026-03-02' };
    const threads = async (): Promise<unknown> =>
      readRows(db, 'SELECT thread_id, status, turns, messages FROM assistant_threads');

    await runSync(options(a, db, 'assistant,assistant_threads', week));
    expect(a.count('assistant/threads/t1')).toBe(1);
    expect(await threads()).toEqual([{ thread_id: 't1', status: 'loaded', turns: 2, messages: 4 }]);

    // The turn the transcript already had arrives in the turns: nothing new to read.
    script.turns = 2;
    await runSync(options(a, db, 'assistant,assistant_threads', week));
    expect(a.count('assistant/threads/t1')).toBe(1);

    // A third turn is growth: the thread is read again and records three.
    script.turns = 3;
    script.asked = 3;
    await runSync(options(a, db, 'assistant,assistant_threads', week));
    expect(a.count('assistant/threads/t1')).toBe(2);
    expect(await threads()).toEqual([{ thread_id: 't1', status: 'loaded', turns: 3, messages: 6 }]);
  });
});

describe('search terms are grouped case-insensitively by the service', () => {
  it('takes "Auth" then "auth" on two pages of one day for moved data and reads the day again', async () => {
    let pass = 0;
    const a = await api(({ endpoint, query }) => {
      if (endpoint !== 'searches') return undefined;
      const first = query.get('cursor') === null;
      if (first) pass++;
      const row = (searchQuery: string, hits: number) => ({
        searchQuery,
        hits,
        ctr: 0.5,
        topClickedPage: null,
        lastSearchedAt: '2026-03-02T10:00:00Z',
      });
      // First pass: the snapshot moved between the pages and "auth" shows up again in another case.
      const second = pass === 1 ? row('auth', 3) : row('login', 3);
      return first
        ? { searches: [row('Auth', 5)], totalSearches: 8, nextCursor: 'p2' }
        : { searches: [second], totalSearches: 8, nextCursor: null };
    });
    const db = tempDbPath();
    const s = await runSync(options(a, db, 'searches', { from: '2026-03-02', to: '2026-03-03' }));
    expect(s.status).toBe('succeeded');
    expect(a.count('searches')).toBe(4);
    expect(await readRows(db, 'SELECT query, hits::INT AS hits FROM search_daily ORDER BY query')).toEqual([
      { query: 'Auth', hits: 5 },
      { query: 'login', hits: 3 },
    ]);
    expect(await readRows(db, "SELECT attempts FROM sync_windows WHERE stream = 'searches'")).toEqual([
      { attempts: 2 },
    ]);
  });
});

describe('moved feedback data', () => {
  it("fails the window with a message that never holds a reader's email, in logs, summary or database", async () => {
    const email = 'reader.private@example.com';
    const a = await api(({ endpoint, query }) => {
      if (endpoint !== 'feedback') return undefined;
      // The same id on both pages with other content: the data moved under the cursor, every pass.
      return query.get('cursor') === null
        ? {
            feedback: [feedbackItem('f1', '2026-02-10T10:00:00Z', { contact: email })],
            nextCursor: 'c2',
            hasMore: true,
          }
        : {
            feedback: [feedbackItem('f1', '2026-02-10T10:00:00Z', { contact: email, status: 'resolved' })],
            nextCursor: null,
            hasMore: false,
          };
    });
    const db = tempDbPath();
    const { lines, logger } = keptLines();
    const s = await runSync(options(a, db, 'feedback', { ...FEBRUARY, logger }));
    expect(s.windows.failed).toBe(1);
    expect(s.failures[0]?.message).toMatch(/the data changed while paging/);
    expect(s.failures[0]?.message).toContain('f1');
    const stored = await readRows<{ text: string }>(
      db,
      `SELECT coalesce(error, '') AS text FROM sync_windows UNION ALL SELECT coalesce(error, '') FROM sync_runs`,
    );
    const everything = [JSON.stringify(s), ...lines, ...stored.map((r) => r.text)].join('\n');
    expect(everything).toContain('the data changed while paging');
    expect(everything).not.toContain(email);
    expect(everything).not.toContain('reader.private');
  });
});

describe('events whose time lies outside the window they were fetched for', () => {
  it('are loaded as sent and reported as event_outside_window, the window half-open', async () => {
    const a = await api(({ endpoint }) => {
      if (endpoint !== 'feedback') return undefined;
      const feedback = [
        feedbackItem('first-instant', '2026-02-01T00:00:00Z'),
        feedbackItem('last-instant', '2026-02-28T23:59:59.999Z'),
        feedbackItem('at-the-end', '2026-03-01T00:00:00Z'),
        feedbackItem('before', '2026-01-31T23:59:59Z'),
      ];
      return { feedback, nextCursor: null, hasMore: false };
    });
    const db = tempDbPath();
    const { lines, logger } = keptLines();
    const s = await runSync(options(a, db, 'feedback', { ...FEBRUARY, logger }));
    expect(s.status).toBe('succeeded');
    expect(s.warnings.byKind).toEqual({ event_outside_window: 1 });
    expect(lines.join('')).toContain('2 feedback row(s) with a time outside [2026-02-01, 2026-03-01)');
    expect(await readRows(db, 'SELECT count(*)::INT AS n FROM feedback')).toEqual([{ n: 4 }]);
    const runs = await readRows<{ warnings: number }>(db, 'SELECT warnings FROM sync_runs');
    expect(runs).toEqual([{ warnings: 1 }]);
  });
});

describe('a cursor the service refuses (400)', () => {
  /** Feedback in two pages; the cursor of the first is refused `refusals` times. */
  function forgetfulFeedback(refusals: number): Script {
    let refused = 0;
    return ({ endpoint, query }) => {
      if (endpoint !== 'feedback') return undefined;
      if (query.get('cursor') === null)
        return { feedback: [feedbackItem('f1', '2026-02-10T10:00:00Z')], nextCursor: 'c1', hasMore: true };
      if (refused++ < refusals) return new Refusal(400, 'Invalid cursor');
      return { feedback: [feedbackItem('f2', '2026-02-11T10:00:00Z')], nextCursor: null, hasMore: false };
    };
  }

  it('restarts a feedback window from its first page once, and loads it whole', async () => {
    const a = await api(forgetfulFeedback(1));
    const db = tempDbPath();
    const s = await runSync(options(a, db, 'feedback', FEBRUARY));
    expect(s.status).toBe('succeeded');
    expect(a.calls.map((c) => c.query.get('cursor'))).toEqual([null, 'c1', null, 'c1']);
    expect(await readRows(db, 'SELECT id FROM feedback ORDER BY id')).toEqual([{ id: 'f1' }, { id: 'f2' }]);
    expect(await readRows(db, 'SELECT attempts, truncated FROM sync_windows')).toEqual([
      { attempts: 1, truncated: false },
    ]);
  });

  it('fails the window at the second refusal, loading nothing of it', async () => {
    const a = await api(forgetfulFeedback(2));
    const db = tempDbPath();
    const s = await runSync(options(a, db, 'feedback', FEBRUARY));
    expect(s.windows).toMatchObject({ planned: 1, loaded: 0, failed: 1 });
    expect(s.exitCode).toBe(4);
    expect(a.calls.map((c) => c.query.get('cursor'))).toEqual([null, 'c1', null, 'c1']);
    expect(await readRows(db, 'SELECT count(*)::INT AS n FROM feedback')).toEqual([{ n: 0 }]);
  });

  it('restarts a searches day from its first page once', async () => {
    let refused = 0;
    const a = await api(({ endpoint, query }) => {
      if (endpoint !== 'searches') return undefined;
      const row = (searchQuery: string) => ({
        searchQuery,
        hits: 2,
        ctr: 0,
        topClickedPage: null,
        lastSearchedAt: '2026-03-02T10:00:00Z',
      });
      if (query.get('cursor') === null)
        return { searches: [row('install')], totalSearches: 4, nextCursor: 'p2' };
      if (refused++ < 1) return new Refusal(400, 'Invalid cursor');
      return { searches: [row('deploy')], totalSearches: 4, nextCursor: null };
    });
    const db = tempDbPath();
    const s = await runSync(options(a, db, 'searches', { from: '2026-03-02', to: '2026-03-03' }));
    expect(s.status).toBe('succeeded');
    expect(a.count('searches')).toBe(4);
    expect(await readRows(db, 'SELECT query FROM search_daily ORDER BY query')).toEqual([
      { query: 'deploy' },
      { query: 'install' },
    ]);
  });
});

describe('a transcript with fewer user messages than the turns loaded for its thread', () => {
  it('is loaded as sent and reported as thread_turns_mismatch', async () => {
    const a = await api(({ endpoint }) => {
      if (endpoint === 'assistant') {
        const conversations = [turn('t1', '2026-02-25T10:00:00Z'), turn('t1', '2026-02-25T10:05:00Z')];
        return { conversations, nextCursor: null, hasMore: false };
      }
      if (endpoint !== 'assistant/threads/t1') return undefined;
      const messages = [{ id: 'u0', role: 'user', content: 'q', createdAt: '2026-02-25T10:00:00Z' }];
      return { threadId: 't1', createdAt: '2026-02-25T10:00:00Z', messages };
    });
    const db = tempDbPath();
    const { lines, logger } = keptLines();
    const s = await runSync(
      options(a, db, 'assistant,assistant_threads', { from: '2026-02-23', to: '2026-03-02', logger }),
    );
    expect(s.status).toBe('succeeded');
    expect(s.warnings.byKind).toEqual({ thread_turns_mismatch: 1 });
    expect(lines.join('')).toContain('thread t1: 1 user message(s), 2 turn(s)');
    expect(await readRows(db, 'SELECT count(*)::INT AS n FROM assistant_messages')).toEqual([{ n: 1 }]);
  });
});
