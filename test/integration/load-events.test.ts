import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MintlifyClient } from '../../src/api/client.js';
import type { AssistantTurn, FeedbackItem } from '../../src/api/schemas.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { loadPreparedBatch } from '../../src/load/duckdb/window-batch.js';
import { type PreparedWindow } from '../../src/load/prepared-window.js';
import { assistant } from '../../src/streams/assistant.js';
import { feedback } from '../../src/streams/feedback.js';
import type { StreamDefinition, StreamWindow } from '../../src/streams/types.js';
import { tempDir } from '../helpers/duckdb-temp.js';
import { WindowWriter } from '../../src/pipeline/writer.js';

let cleanup: () => void;
let db: Database;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = await openDatabase(join(t.dir, 'events.duckdb'));
});
afterAll(() => {
  db.close();
  cleanup();
});
beforeEach(async () => {
  await db.connection.run('DELETE FROM feedback; DELETE FROM assistant_turns; DELETE FROM sync_windows;');
});

/** A client that serves the given rows as cursor pages of `size`, whatever the range asked. */
function fakeClient(field: 'feedback' | 'conversations', rows: readonly object[], size = 2): MintlifyClient {
  return {
    getAnalytics: (r: { query: Record<string, string> }) => {
      const at = Number(r.query['cursor'] ?? '0');
      const page = rows.slice(at, at + size);
      const more = at + size < rows.length;
      return Promise.resolve({ [field]: page, nextCursor: more ? String(at + size) : null, hasMore: more });
    },
  } as unknown as MintlifyClient;
}

async function load(
  stream: StreamDefinition,
  w: StreamWindow,
  client: MintlifyClient,
  at: string,
): Promise<void> {
  const fetched = await stream.fetch(client, w, {});
  const prepared: PreparedWindow = fetched.prepare({ runId: 'run', fetchedAt: new Date(at) });
  await loadPreparedBatch(db, [prepared]);
}

const nov: StreamWindow = {
  projectId: 'p',
  stream: 'feedback',
  day: '2026-11-01',
  dateTo: '2026-12-01',
  partial: false,
};
const week: StreamWindow = {
  projectId: 'p',
  stream: 'assistant',
  day: '2026-11-16',
  dateTo: '2026-11-23',
  partial: false,
};

function fb(id: string, createdAt: string | null, over: Partial<FeedbackItem> = {}): FeedbackItem {
  return {
    id,
    path: '/a',
    comment: 'c',
    createdAt,
    status: 'pending',
    source: 'contextual',
    helpful: true,
    contact: null,
    ...over,
  } as FeedbackItem;
}

describe('loading a feedback range', () => {
  it('leaves exactly the range rows the API sent: new in, changed updated, gone deleted', async () => {
    await load(
      feedback,
      nov,
      fakeClient('feedback', [
        fb('a', '2026-11-03T10:00:00.000Z'),
        fb('b', '2026-11-04T10:00:00.000Z'),
        fb('old', '2026-10-30T10:00:00.000Z'),
      ]),
      '2026-11-20T00:00:00Z',
    );
    await load(
      feedback,
      nov,
      fakeClient('feedback', [
        fb('a', '2026-11-03T10:00:00.000Z', { status: 'resolved' }),
        fb('c', '2026-11-05T00:00:00.000Z'),
      ]),
      '2026-11-21T00:00:00Z',
    );
    const rows = await queryRows(
      db.connection,
      'SELECT id, status, first_seen_at, last_seen_at FROM feedback ORDER BY id',
    );
    // `old` came in the November window (its time says October): November owned it, and no
    // longer serves it.
    expect(rows.map((r) => [r['id'], r['status']])).toEqual([
      ['a', 'resolved'],
      ['c', 'pending'],
    ]);
    const a = rows[0] as Record<string, unknown>;
    expect(a['first_seen_at']).toBe('2026-11-20T00:00:00.000Z');
    expect(a['last_seen_at']).toBe('2026-11-21T00:00:00.000Z');
  });

  it('gives the same rows whatever order two windows load in, a row outside its window included', async () => {
    const oct = { ...nov, day: '2026-10-01', dateTo: '2026-11-01' };
    // The October window serves x, whose time is in November; the November window does not.
    const octRows = [fb('x', '2026-11-03T10:00:00.000Z'), fb('o', '2026-10-03T10:00:00.000Z')];
    const novRows = [fb('n', '2026-11-04T10:00:00.000Z')];
    const results: unknown[] = [];
    for (const order of [
      [oct, nov],
      [nov, oct],
    ]) {
      await db.connection.run('DELETE FROM feedback');
      for (const w of order)
        await load(
          feedback,
          w,
          fakeClient('feedback', w === oct ? octRows : novRows),
          '2026-11-20T00:00:00Z',
        );
      results.push(await queryRows(db.connection, 'SELECT id FROM feedback ORDER BY id'));
    }
    expect(results[0]).toEqual([{ id: 'n' }, { id: 'o' }, { id: 'x' }]);
    expect(results[1]).toEqual(results[0]);
  });

  it('deletes only rows before the end of what it re-read: a read of part of a loaded month keeps the rest', async () => {
    await load(
      feedback,
      nov,
      fakeClient('feedback', [
        fb('a', '2026-11-03T10:00:00.000Z'),
        fb('gone', '2026-11-05T10:00:00.000Z'),
        fb('late', '2026-11-20T10:00:00.000Z'),
      ]),
      '2026-12-05T00:00:00Z',
    );
    const firstDays = { ...nov, dateTo: '2026-11-10' };
    await load(
      feedback,
      firstDays,
      fakeClient('feedback', [fb('a', '2026-11-03T10:00:00.000Z', { status: 'resolved' })]),
      '2026-12-06T00:00:00Z',
    );
    expect(await queryRows(db.connection, 'SELECT id, status FROM feedback ORDER BY id')).toEqual([
      { id: 'a', status: 'resolved' },
      { id: 'late', status: 'pending' },
    ]);
  });

  it('keeps a row stamped exactly at the end of a narrower re-load (its end is exclusive), and deletes one a microsecond before', async () => {
    await load(
      feedback,
      nov,
      fakeClient('feedback', [
        fb('before', '2026-11-09T23:59:59.999999Z'),
        fb('edge', '2026-11-10T00:00:00.000Z'),
      ]),
      '2026-12-05T00:00:00Z',
    );
    await load(
      feedback,
      { ...nov, dateTo: '2026-11-10' },
      fakeClient('feedback', []),
      '2026-12-06T00:00:00Z',
    );
    expect(await queryRows(db.connection, 'SELECT id FROM feedback ORDER BY id')).toEqual([{ id: 'edge' }]);
  });

  it('keeps rows with no time (upserted by key, never deleted by a range) and stores one row for each', async () => {
    const oct = { ...nov, day: '2026-10-01', dateTo: '2026-11-01' };
    await load(feedback, oct, fakeClient('feedback', [fb('u', null)]), '2026-11-20T00:00:00Z');
    await load(
      feedback,
      nov,
      fakeClient('feedback', [fb('u', null, { status: 'dismissed' })]),
      '2026-11-21T00:00:00Z',
    );
    await load(feedback, oct, fakeClient('feedback', []), '2026-11-22T00:00:00Z');
    const rows = await queryRows(db.connection, 'SELECT id, status FROM feedback');
    expect(rows).toEqual([{ id: 'u', status: 'dismissed' }]);
  });

  it('stores each source shape in one table, the other shapes NULL', async () => {
    await load(
      feedback,
      nov,
      fakeClient('feedback', [
        fb('ctx', '2026-11-03T10:00:00.000Z', { contact: 'reader@example.com', helpful: false }),
        {
          id: 'code',
          path: '/b',
          comment: null,
          createdAt: '2026-11-03T11:00:00.000Z',
          status: 'in_progress',
          source: 'code_snippet',
          code: 'npm i',
          filename: null,
          lang: 'bash',
        },
        {
          id: 'th',
          path: '/c',
          comment: null,
          createdAt: '2026-11-03T12:00:00.000Z',
          status: 'pending',
          source: 'thumbs_only',
        },
      ]),
      '2026-11-20T00:00:00Z',
    );
    const rows = await queryRows(
      db.connection,
      'SELECT id, source, helpful, contact, code, filename, lang FROM feedback ORDER BY id',
    );
    expect(rows).toEqual([
      {
        id: 'code',
        source: 'code_snippet',
        helpful: null,
        contact: null,
        code: 'npm i',
        filename: null,
        lang: 'bash',
      },
      {
        id: 'ctx',
        source: 'contextual',
        helpful: false,
        contact: 'reader@example.com',
        code: null,
        filename: null,
        lang: null,
      },
      {
        id: 'th',
        source: 'thumbs_only',
        helpful: null,
        contact: null,
        code: null,
        filename: null,
        lang: null,
      },
    ]);
  });

  it('records the range in sync_windows with its start and end', async () => {
    await load(
      feedback,
      nov,
      fakeClient('feedback', [fb('a', '2026-11-03T10:00:00.000Z')]),
      '2026-11-20T00:00:00Z',
    );
    const rows = await queryRows(
      db.connection,
      "SELECT stream, window_start, window_end, rows, pages FROM sync_windows WHERE stream = 'feedback'",
    );
    expect(rows).toEqual([
      { stream: 'feedback', window_start: '2026-11-01', window_end: '2026-12-01', rows: 1, pages: 1 },
    ]);
  });
});

function turn(thread: string, ts: string, over: Partial<AssistantTurn> = {}): AssistantTurn {
  return {
    id: thread,
    timestamp: ts,
    query: 'how?',
    response: 'so.',
    sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }],
    resolutionStatus: 'answered',
    queryCategory: null,
    pageUrl: null,
    ...over,
  };
}

describe('loading an assistant range', () => {
  it('keeps a turn stamped exactly at the end of a narrower re-load of its week', async () => {
    await load(
      assistant,
      week,
      fakeClient('conversations', [
        turn('T1', '2026-11-19T23:59:59.999Z'),
        turn('T2', '2026-11-20T00:00:00.000Z'),
      ]),
      '2026-11-23T00:00:00Z',
    );
    await load(
      assistant,
      { ...week, dateTo: '2026-11-20' },
      fakeClient('conversations', []),
      '2026-11-24T00:00:00Z',
    );
    expect(await queryRows(db.connection, 'SELECT thread_id FROM assistant_turns')).toEqual([
      { thread_id: 'T2' },
    ]);
  });

  it('keys turns by thread and time (the id repeats), defaults the response type, and keeps sources as a list of structs', async () => {
    await load(
      assistant,
      week,
      fakeClient('conversations', [
        turn('T1', '2026-11-17T10:00:00.000Z'),
        turn('T1', '2026-11-17T10:05:00.000Z', { responseType: 'clarifying_question', sources: [] }),
        turn('T2', '2026-11-18T00:00:00.000Z', { resolutionStatus: 'unanswered' }),
      ]),
      '2026-11-23T00:00:00Z',
    );
    const rows = await queryRows(
      db.connection,
      'SELECT thread_id, ts, response_type, resolution_status, len(sources) AS n, sources[1].url AS url FROM assistant_turns ORDER BY thread_id, ts',
    );
    expect(rows).toEqual([
      {
        thread_id: 'T1',
        ts: '2026-11-17T10:00:00.000Z',
        response_type: 'answer',
        resolution_status: 'answered',
        n: 1,
        url: 'https://docs.example.com/guide',
      },
      {
        thread_id: 'T1',
        ts: '2026-11-17T10:05:00.000Z',
        response_type: 'clarifying_question',
        resolution_status: 'answered',
        n: 0,
        url: null,
      },
      {
        thread_id: 'T2',
        ts: '2026-11-18T00:00:00.000Z',
        response_type: 'answer',
        resolution_status: 'unanswered',
        n: 1,
        url: 'https://docs.example.com/guide',
      },
    ]);
  });

  it('fetches the range again when a turn appears twice in one sequence (the data moved), and loads it once', async () => {
    let calls = 0;
    const rows = [turn('T1', '2026-11-17T10:00:00.000Z'), turn('T2', '2026-11-17T11:00:00.000Z')];
    const client = {
      getAnalytics: (r: { query: Record<string, string> }) => {
        calls++;
        const first = r.query['cursor'] === undefined;
        // The first sequence shows T1 on both pages, changed in between; the next one is consistent.
        const moved = { ...rows[0], response: 'edited' };
        const page = first ? [rows[0]] : calls === 2 ? [moved] : [rows[1]];
        return Promise.resolve({ conversations: page, nextCursor: first ? 'next' : null, hasMore: first });
      },
    } as unknown as MintlifyClient;
    const fetched = await assistant.fetch(client, week, {});
    expect(fetched.attempts).toBe(2);
    expect(fetched.rows).toBe(2);
  });
});

describe('a range window cut short by --max-pages', () => {
  it('upserts what it fetched and deletes nothing it did not reach', async () => {
    const all = [
      fb('a', '2026-11-03T10:00:00.000Z'),
      fb('b', '2026-11-04T10:00:00.000Z'),
      fb('c', '2026-11-05T10:00:00.000Z'),
    ];
    await load(feedback, nov, fakeClient('feedback', all), '2026-11-20T00:00:00Z');
    const capped = await feedback.fetch(
      fakeClient(
        'feedback',
        [fb('c', '2026-11-05T10:00:00.000Z', { status: 'resolved' }), ...all.slice(0, 2)],
        1,
      ),
      nov,
      { maxPages: 1 },
    );
    expect(capped.truncated).toBe(true);
    await loadPreparedBatch(db, [
      capped.prepare({ runId: 'r', fetchedAt: new Date('2026-11-21T00:00:00Z') }),
    ]);
    const rows = await queryRows(db.connection, 'SELECT id, status FROM feedback ORDER BY id');
    expect(rows).toEqual([
      { id: 'a', status: 'pending' },
      { id: 'b', status: 'pending' },
      { id: 'c', status: 'resolved' },
    ]);
  });
});

describe('a busy assistant week', () => {
  it("loads 6,000 turns with long answers through the writer's memory limit", async () => {
    const dir = tempDir();
    const path = join(dir.dir, 'busy.duckdb');
    try {
      const n = 6_000;
      const base = Date.parse('2026-11-16T00:00:00Z');
      const answer = 'x'.repeat(1_500);
      const rows = Array.from({ length: n }, (_, i) =>
        turn(`T${i % 2_000}`, new Date(base + i * 5_000).toISOString(), {
          response: `${answer}${i}`,
          sources: [{ title: 't', url: `https://docs.example.com/p${i}` }],
        }),
      );
      const fetched = await assistant.fetch(fakeClient('conversations', rows, 1_000), week, {});
      (await openDatabase(path)).close();
      const writer = new WindowWriter(path, { drainLedger: () => [] });
      try {
        await writer.loadPrepared(() =>
          fetched.prepare({ runId: 'r', fetchedAt: new Date('2026-11-24T00:00:00Z') }),
        );
      } finally {
        await writer.close();
      }
      const check = await openDatabase(path);
      try {
        expect(await queryRows(check.connection, 'SELECT count(*)::INT AS n FROM assistant_turns')).toEqual([
          { n: n },
        ]);
      } finally {
        check.close();
      }
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});

describe('a sequence that says hasMore but gives no cursor', () => {
  it('is loaded as truncated: what came is upserted, nothing else deleted, never settled', async () => {
    const all = [fb('a', '2026-11-03T10:00:00.000Z'), fb('b', '2026-11-04T10:00:00.000Z')];
    await load(feedback, nov, fakeClient('feedback', all), '2026-11-20T00:00:00Z');
    const glitch = {
      getAnalytics: () => Promise.resolve({ feedback: [all[0]], nextCursor: null, hasMore: true }),
    } as unknown as MintlifyClient;
    const fetched = await feedback.fetch(glitch, nov, {});
    expect(fetched.truncated).toBe(true);
    await loadPreparedBatch(db, [
      fetched.prepare({ runId: 'r', fetchedAt: new Date('2027-01-15T00:00:00Z') }),
    ]);
    expect(await queryRows(db.connection, 'SELECT id FROM feedback ORDER BY id')).toEqual([
      { id: 'a' },
      { id: 'b' },
    ]);
    expect(
      await queryRows(db.connection, "SELECT truncated FROM sync_windows WHERE stream = 'feedback'"),
    ).toEqual([{ truncated: true }]);
  });
});

describe('a row the API sends twice', () => {
  it('is kept once with a warning when identical, and only a changed repeat counts as moved data', async () => {
    const t = turn('T1', '2026-11-17T10:00:00.000Z');
    const fetched = await assistant.fetch(
      fakeClient('conversations', [t, turn('T2', '2026-11-17T11:00:00.000Z'), t]),
      week,
      {},
    );
    expect(fetched.attempts).toBe(1);
    expect(fetched.rows).toBe(2);
    expect(fetched.warnings.map((w) => w.kind)).toEqual(['event_repeated']);
  });

  it('keeps two turns of a thread microseconds apart as two turns', async () => {
    await load(
      assistant,
      week,
      fakeClient('conversations', [
        turn('T1', '2026-11-17T10:00:00.000123Z'),
        turn('T1', '2026-11-17T10:00:00.000456Z', { query: 'again' }),
      ]),
      '2026-11-24T00:00:00Z',
    );
    expect(
      await queryRows(db.connection, "SELECT count(*)::INT AS n FROM assistant_turns WHERE thread_id = 'T1'"),
    ).toEqual([{ n: 2 }]);
  });
});
