import { describe, expect, it } from 'vitest';
import type { AssistantTurn, Dataset, FeedbackItem } from '../../src/emulator/index.js';
import {
  addDays,
  buildDataset,
  DOCS_BASE_URL,
  FEEDBACK_STATUSES,
  ODD_COMMENTS,
  TODAY_FRACTION,
  ulidTime,
  UNANSWERED_QUESTIONS,
} from '../../src/emulator/index.js';
import {
  AssistantThreadResponseSchema,
  AssistantTurnSchema,
  feedbackShape,
  ISO_MS_RE,
  ULID_RE,
} from '../helpers/event-schemas.js';

const TODAY = '2025-03-15';
const OPTS = { seed: 7, days: 60, paths: 300, today: TODAY };
const data = buildDataset(OPTS);
const FIRST = data.days[0]!;
const END = addDays(TODAY, 1);

function allDays(d: Dataset): string[] {
  return [...d.days, d.today];
}

function next(day: string): string {
  return addDays(day, 1);
}

const dated = (items: FeedbackItem[]) => items.filter((f) => f.createdAt !== null);

/** By-page counts of items: thumbsUp, thumbsDown, code, total per path. */
function countByPath(items: FeedbackItem[]) {
  const out = new Map<string, { thumbsUp: number; thumbsDown: number; code: number; total: number }>();
  for (const f of items) {
    const row = out.get(f.path) ?? { thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
    if (f.source === 'contextual') {
      if (f.helpful) row.thumbsUp++;
      else row.thumbsDown++;
    }
    if (f.source === 'code_snippet') row.code++;
    row.total++;
    out.set(f.path, row);
  }
  return out;
}

function byPageMap(
  rows: { path: string; thumbsUp: number; thumbsDown: number; code: number; total: number }[],
) {
  return new Map(
    rows.map((r) => [
      r.path,
      { thumbsUp: r.thumbsUp, thumbsDown: r.thumbsDown, code: r.code, total: r.total },
    ]),
  );
}

describe('feedback items ground truth', () => {
  it('has one item per entry GET /feedback/by-page counts, per path and kind, on every day', () => {
    for (const day of allDays(data)) {
      const items = dated(data.feedbackEvents(day, next(day)));
      expect(countByPath(items)).toEqual(byPageMap(data.feedbackPages(day, next(day))));
    }
  });

  it('agrees with by-page under the source and status filters too', () => {
    const [from, to] = [data.days[10]!, data.days[20]!];
    for (const filter of [
      { source: 'contextual' as const },
      { status: ['pending' as const, 'resolved' as const] },
      { source: 'code_snippet' as const, status: ['dismissed' as const] },
    ]) {
      const items = dated(data.feedbackEvents(from, to, filter));
      expect(countByPath(items)).toEqual(byPageMap(data.feedbackPages(from, to, filter)));
    }
  });

  it('gives every item a unique id and a createdAt inside its day, ISO 8601 with milliseconds', () => {
    const ids = new Set<string>();
    for (const day of allDays(data)) {
      const fraction = day === TODAY ? TODAY_FRACTION : 1;
      const start = Date.parse(`${day}T00:00:00Z`);
      for (const f of dated(data.feedbackEvents(day, next(day)))) {
        expect(ids.has(f.id)).toBe(false);
        ids.add(f.id);
        expect(f.createdAt).toMatch(ISO_MS_RE);
        const at = Date.parse(f.createdAt!);
        expect(at >= start && at < start + 86_400_000 * fraction).toBe(true);
      }
    }
    for (const f of data.feedbackUndated()) expect(ids.has(f.id)).toBe(false);
    expect(ids.size).toBeGreaterThan(500);
  });

  it('serves each item in exactly one of the three OpenAPI shapes, the one of its source', () => {
    const items = data.feedbackEvents(FIRST, END);
    const shapeOf = { contextual: 0, code_snippet: 1, agent: 2, thumbs_only: 2 } as const;
    for (const f of items) expect(feedbackShape(f)).toBe(shapeOf[f.source]);
    expect(new Set(items.map((f) => f.source))).toEqual(
      new Set(['contextual', 'code_snippet', 'agent', 'thumbs_only']),
    );
  });

  it('has odd comments (empty, newlines, unicode, quotes), null comments, and contacts sometimes', () => {
    const items = data.feedbackEvents(FIRST, END);
    const comments = new Set(items.map((f) => f.comment));
    expect(comments.has(null)).toBe(true);
    for (const odd of ODD_COMMENTS) expect(comments.has(odd)).toBe(true);
    expect([...comments].some((c) => c?.includes('\n'))).toBe(true);
    const contextual = items.flatMap((f) => (f.source === 'contextual' ? [f] : []));
    const contacts = contextual.map((f) => f.contact);
    expect(contacts.some((c) => c === null)).toBe(true);
    expect(
      contacts.filter((c): c is string => c !== null).every((c) => /^reader\d+@example\.com$/.test(c)),
    ).toBe(true);
    expect(contacts.some((c) => c !== null)).toBe(true);
    expect(contextual.some((f) => f.helpful) && contextual.some((f) => !f.helpful)).toBe(true);
  });

  it('orders by createdAt descending, ties by id, the undated items last in every range', () => {
    const undated = data.feedbackUndated();
    expect(undated.length).toBeGreaterThanOrEqual(3);
    expect(undated.length).toBeLessThanOrEqual(5);
    expect(undated.every((f) => f.createdAt === null)).toBe(true);
    for (const [from, to] of [
      [data.days[5]!, data.days[12]!],
      [data.streamEdgeDays.empty, next(data.streamEdgeDays.empty)],
      ['2020-01-01', '2020-01-02'],
    ] as const) {
      const items = data.feedbackEvents(from, to);
      expect(items.slice(-undated.length)).toEqual(undated);
      const keys = dated(items).map((f) => [f.createdAt!, f.id] as const);
      const sorted = [...keys].sort((a, b) =>
        a[0] !== b[0] ? (a[0] < b[0] ? 1 : -1) : a[1] < b[1] ? -1 : 1,
      );
      expect(keys).toEqual(sorted);
    }
    expect(dated(data.feedbackEvents(data.streamEdgeDays.empty, next(data.streamEdgeDays.empty)))).toEqual(
      [],
    );
  });

  it('hands out copies: editing what the truth returned changes nothing', () => {
    const day = data.days[30]!;
    const first = data.feedbackEvents(day, next(day));
    (first[0] as { status: string }).status = 'edited';
    expect(data.feedbackEvents(day, next(day))[0]!.status).not.toBe('edited');
  });

  it('is the same for two datasets of one seed, and a day does not depend on which days were built first', () => {
    const a = buildDataset(OPTS);
    const b = buildDataset(OPTS);
    const day = data.days[40]!;
    const late = a.feedbackEvents(day, next(day));
    b.feedbackEvents(FIRST, END);
    expect(b.feedbackEvents(day, next(day))).toEqual(late);
    expect(a.assistantTurns(day, next(day))).toEqual(b.assistantTurns(day, next(day)));
  });
});

describe('feedback status changes (test hooks)', () => {
  it('shows a new status in the items, the status filter and the by-page counts', () => {
    const d = buildDataset(OPTS);
    const [from, to] = [d.days[20]!, d.days[23]!];
    const before = d.feedbackPages(from, to, { status: ['resolved'] });
    const ids = d.triageFeedback({ dateFrom: from, dateTo: to, count: 5 });
    expect(ids).toHaveLength(5);
    const items = d.feedbackEvents(from, to);
    for (const id of ids) expect(items.find((f) => f.id === id)?.status).toBe('resolved');
    const resolved = d.feedbackEvents(from, to, { status: ['resolved'] }).map((f) => f.id);
    expect(resolved).toEqual(expect.arrayContaining(ids));
    const after = d.feedbackPages(from, to, { status: ['resolved'] });
    const total = (rows: typeof before) => rows.reduce((s, r) => s + r.total, 0);
    expect(total(after)).toBe(total(before) + 5);
    expect(countByPath(dated(d.feedbackEvents(from, to, { status: ['resolved'] })))).toEqual(
      byPageMap(after),
    );
    // The unfiltered counts per path do not move: only statuses changed.
    expect(d.feedbackPages(from, to)).toEqual(data.feedbackPages(from, to));
  });

  it('triages deterministically: the same ids on two datasets of one seed, none twice', () => {
    const a = buildDataset(OPTS);
    const b = buildDataset(OPTS);
    const opts = { dateFrom: a.days[10]!, dateTo: a.days[12]!, count: 3, to: 'dismissed' as const };
    const first = a.triageFeedback(opts);
    expect(b.triageFeedback(opts)).toEqual(first);
    const second = a.triageFeedback(opts);
    expect(second.some((id) => first.includes(id))).toBe(false);
  });

  it('changes undated items too, and refuses an id it does not hold', () => {
    const d = buildDataset(OPTS);
    const [u] = d.feedbackUndated();
    d.setFeedbackStatus([u!.id], 'dismissed');
    expect(d.feedbackUndated()[0]!.status).toBe('dismissed');
    expect(
      d.feedbackEvents('2020-01-01', '2020-01-02', { status: ['dismissed'] }).map((f) => f.id),
    ).toContain(u!.id);
    expect(() => d.setFeedbackStatus(['fb_nope'], 'resolved')).toThrow(RangeError);
    expect(() => d.setFeedbackStatus(['fb_20250101_9999'], 'resolved')).toThrow(RangeError);
  });

  it('leaves the statuses alone elsewhere: another dataset of the seed still has the generated ones', () => {
    const d = buildDataset(OPTS);
    const day = d.days[15]!;
    d.triageFeedback({ dateFrom: day, dateTo: next(day), count: 100, to: 'in_progress' });
    expect(
      d
        .feedbackEvents(day, next(day))
        .filter((f) => f.createdAt !== null)
        .every((f) => f.status === 'in_progress'),
    ).toBe(true);
    expect(data.feedbackEvents(day, next(day)).some((f) => f.status !== 'in_progress')).toBe(true);
    expect(FEEDBACK_STATUSES).toContain('in_progress');
  });
});

/** Turns grouped by thread, in timestamp order. */
function threads(turns: AssistantTurn[]): Map<string, AssistantTurn[]> {
  const out = new Map<string, AssistantTurn[]>();
  for (const t of turns) out.set(t.id, [...(out.get(t.id) ?? []), t]);
  return out;
}

describe('assistant ground truth', () => {
  const all = data.assistantTurns(FIRST, END);

  it('serves turns in the OpenAPI shape, ordered by thread id then timestamp', () => {
    for (const t of all) AssistantTurnSchema.parse(t);
    const sorted = [...all].sort((a, b) =>
      a.id !== b.id ? (a.id < b.id ? -1 : 1) : a.timestamp < b.timestamp ? -1 : 1,
    );
    expect(all).toEqual(sorted);
  });

  it('has a few to about 60 turns a day, none on the empty day', () => {
    for (const day of data.days) {
      const n = data.assistantTurns(day, next(day)).length;
      if (day === data.streamEdgeDays.empty) expect(n).toBe(0);
      else expect(n >= 2 && n <= 60).toBe(true);
    }
  });

  it('keys threads by a ULID of the first turn, 1-5 turns strictly increasing in time', () => {
    for (const [id, turns] of threads(all)) {
      expect(id).toMatch(ULID_RE);
      const thread = data.assistantThread(id)!;
      expect(ulidTime(id)).toBe(Date.parse(thread.createdAt));
      expect(turns.length >= 1 && turns.length <= 5).toBe(true);
      const times = turns.map((t) => Date.parse(t.timestamp));
      expect(times.every((t, i) => i === 0 || t > times[i - 1]!)).toBe(true);
      expect(turns.every((t) => ISO_MS_RE.test(t.timestamp))).toBe(true);
    }
  });

  it('has threads that cross midnight: their turns fall in two days, each day serving its own', () => {
    const crossing = [...threads(all)].filter(
      ([, turns]) => turns[0]!.timestamp.slice(0, 10) !== turns.at(-1)!.timestamp.slice(0, 10),
    );
    expect(crossing.length).toBeGreaterThan(10);
    const [id, turns] = crossing[0]!;
    const firstDay = turns[0]!.timestamp.slice(0, 10);
    const onFirst = data.assistantTurns(firstDay, next(firstDay)).filter((t) => t.id === id);
    const onNext = data.assistantTurns(next(firstDay), addDays(firstDay, 2)).filter((t) => t.id === id);
    expect([...onFirst, ...onNext]).toEqual(turns);
    expect(onFirst.length > 0 && onNext.length > 0).toBe(true);
    expect(data.assistantThreadIds(next(firstDay), addDays(firstDay, 2))).toContain(id);
  });

  it('leaves responseType out sometimes, uses both types, and cites 0-3 docs pages of the catalogue', () => {
    expect(all.some((t) => !('responseType' in t))).toBe(true);
    expect(all.some((t) => t.responseType === 'answer')).toBe(true);
    expect(all.some((t) => t.responseType === 'clarifying_question')).toBe(true);
    const paths = new Set(data.paths);
    for (const t of all) {
      expect(t.sources.length).toBeLessThanOrEqual(3);
      for (const s of t.sources) {
        expect(s.url.startsWith(DOCS_BASE_URL)).toBe(true);
        expect(paths.has(s.url.slice(DOCS_BASE_URL.length))).toBe(true);
      }
      if (t.pageUrl !== null) expect(t.pageUrl.startsWith(`${DOCS_BASE_URL}/`)).toBe(true);
    }
    expect(all.some((t) => t.sources.length === 0) && all.some((t) => t.sources.length === 3)).toBe(true);
    expect(all.some((t) => t.pageUrl === null) && all.some((t) => t.queryCategory === null)).toBe(true);
  });

  it('repeats unanswered questions across days, so one is the most frequent', () => {
    const unanswered = all.filter((t) => t.resolutionStatus === 'unanswered');
    expect(unanswered.length).toBeGreaterThan(50);
    expect(unanswered.every((t) => UNANSWERED_QUESTIONS.includes(t.query))).toBe(true);
    const counts = new Map<string, Set<string>>();
    for (const t of unanswered)
      counts.set(t.query, (counts.get(t.query) ?? new Set()).add(t.timestamp.slice(0, 10)));
    const top = UNANSWERED_QUESTIONS[0]!;
    expect(counts.get(top)!.size).toBeGreaterThan(10);
  });

  it('builds thread bodies from the turns: a user message then an assistant message a few seconds later', () => {
    for (const [id, turns] of [...threads(all)].slice(0, 200)) {
      const body = AssistantThreadResponseSchema.parse(data.assistantThread(id));
      expect(body.threadId).toBe(id);
      expect(body.createdAt).toBe(turns[0]!.timestamp);
      expect(body.messages).toHaveLength(turns.length * 2);
      turns.forEach((t, k) => {
        const [user, answer] = [body.messages[2 * k]!, body.messages[2 * k + 1]!];
        expect(user).toMatchObject({ role: 'user', content: t.query, createdAt: t.timestamp });
        expect(answer).toMatchObject({ role: 'assistant', content: t.response });
        const delay = Date.parse(answer.createdAt) - Date.parse(t.timestamp);
        expect(delay >= 2_000 && delay < 10_000).toBe(true);
      });
      expect(new Set(body.messages.map((m) => m.id)).size).toBe(body.messages.length);
    }
    expect(data.assistantThread('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeUndefined();
  });

  it('lists the threads of a range: every id with a turn in it', () => {
    const [from, to] = [data.days[30]!, data.days[33]!];
    expect(data.assistantThreadIds(from, to)).toEqual(
      [...threads(data.assistantTurns(from, to)).keys()].sort(),
    );
  });
});

describe('assistant turn appends (test hook)', () => {
  it('grows a thread: the new turn is in the range of its time, in the thread body and its ids', () => {
    const d = buildDataset(OPTS);
    const day = d.days[20]!;
    const [turn] = d.assistantTurns(day, next(day));
    const before = d.assistantThread(turn!.id)!;
    const at = `${TODAY}T01:00:00.000Z`;
    const added = d.appendAssistantTurn(turn!.id, at);
    expect(added).toMatchObject({ id: turn!.id, timestamp: at });
    const after = d.assistantThread(turn!.id)!;
    expect(after.messages).toHaveLength(before.messages.length + 2);
    expect(after.messages.at(-2)).toMatchObject({ role: 'user', content: added.query, createdAt: at });
    expect(d.assistantTurns(TODAY, END)).toContainEqual(added);
    expect(d.assistantThreadIds(TODAY, END)).toContain(turn!.id);
    expect(d.assistantTurns(day, next(day))).toEqual(data.assistantTurns(day, next(day)));
  });

  it('refuses an unknown thread and a time before the last message or after now', () => {
    const d = buildDataset(OPTS);
    const day = d.days[20]!;
    const [turn] = d.assistantTurns(day, next(day));
    expect(() => d.appendAssistantTurn('01ARZ3NDEKTSV4RRFFQ69G5FAV', `${TODAY}T01:00:00Z`)).toThrow(
      RangeError,
    );
    expect(() => d.appendAssistantTurn(turn!.id, `${day}T00:00:00Z`)).toThrow(RangeError);
    expect(() => d.appendAssistantTurn(turn!.id, `${TODAY}T23:00:00Z`)).toThrow(RangeError);
  });
});
