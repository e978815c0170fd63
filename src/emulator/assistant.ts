import type { Day } from './days.js';
import type { Random } from './prng.js';
import { mixSeed, mulberry32, poisson } from './prng.js';
import type { DateRange, Refused } from './query-params.js';
import { dateRange, integer, single } from './query-params.js';
import type { SignedCursors } from './signed-cursor.js';
import { answerLength, LONG_QUESTION, longText } from './long-text.js';
import { isUlid, ulidAt, ulidFromValue, ulidValue } from './ulid.js';

export const ASSISTANT_DEFAULT_LIMIT = 100;
export const ASSISTANT_MAX_LIMIT = 1000;
/** Where the docs the assistant cites live: sources and page URLs are this plus a catalogue path. */
export const DOCS_BASE_URL = 'https://docs.example.com';

export type ResponseType = 'answer' | 'clarifying_question';
export type ResolutionStatus = 'answered' | 'unanswered';

export interface AssistantSource {
  readonly title: string;
  readonly url: string;
}

/** One row of GET /assistant: one user turn; `id` is the thread's and repeats on each of its turns. */
export interface AssistantTurn {
  readonly id: string;
  /** ISO 8601, UTC, milliseconds: when the user sent the turn's message. */
  readonly timestamp: string;
  readonly query: string;
  readonly response: string;
  /** Sometimes left out, as the service does (its documented default is `answer`). */
  readonly responseType?: ResponseType;
  readonly sources: readonly AssistantSource[];
  readonly resolutionStatus: ResolutionStatus;
  readonly queryCategory: string | null;
  readonly pageUrl: string | null;
}

export interface AssistantMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly createdAt: string;
}

/** GET /assistant/threads/{threadId}. */
export interface AssistantThreadBody {
  threadId: string;
  createdAt: string;
  messages: AssistantMessage[];
}

/** A thread as generated: its turns and, per turn, how long the assistant took to answer (ms). */
export interface ThreadDraft {
  readonly id: string;
  readonly turns: readonly AssistantTurn[];
  readonly replyMs: readonly number[];
}

const CATEGORIES = ['getting-started', 'api', 'configuration', 'deployment', 'billing', 'troubleshooting'];

/** Questions the docs do not cover: they come back day after day, the first ones most often. */
export const UNANSWERED_QUESTIONS: readonly string[] = Object.freeze([
  'How do I export analytics to BigQuery?',
  'Can I self-host the docs behind our VPN?',
  'Does SSO work with Okta groups?',
  'Is there a Terraform provider?',
  'How do I get an invoice in EUR?',
  'Why is my custom domain showing a certificate error?',
]);

/** Questions that break naive code: unicode, emoji, quotes, a newline, a pasted log of 864 characters. */
export const ODD_QUESTIONS: readonly string[] = Object.freeze([
  '¿Cómo configuro el dominio? 🚀',
  'What does "fallback" mean in \'navigation\'?',
  'first line\nsecond line',
  '日本語で説明してください',
  'SELECT * FROM docs; -- why?',
  LONG_QUESTION,
]);

const TEMPLATES = [
  (t: string) => `How do I set up ${t}?`,
  (t: string) => `What is ${t}?`,
  (t: string) => `Can I use ${t} with the CLI?`,
  (t: string) => `Why does ${t} return an error?`,
];

/** A page's title from its path: the last segment, words capitalised. */
export function pageTitle(path: string): string {
  const last =
    path
      .split('/')
      .filter((s) => s !== '')
      .at(-1) ?? 'Home';
  return last
    .split('-')
    .map((w) => (w === '' ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join(' ');
}

export interface AssistantDayInput {
  readonly day: Day;
  /** Catalogue paths, most popular first. */
  readonly paths: readonly string[];
  /** Share of the day that has passed: 1, or less for the current day. */
  readonly fraction: number;
  /** No thread on the empty edge day. */
  readonly empty: boolean;
  /** Threads must end before midnight (the next day is the empty day). */
  readonly noCrossing: boolean;
}

const MS_DAY = 86_400_000;
const WEEKLY = [0.5, 1.0, 1.1, 1.05, 1.0, 0.9, 0.55];

/** A popular catalogue path: the head of the catalogue most often. */
function popularPath(paths: readonly string[], u: number): string {
  return paths[Math.floor(u * u * Math.min(paths.length, 80))] ?? '/';
}

function makeTurn(
  random: Random,
  paths: readonly string[],
  id: string,
  at: number,
  pageUrl: string | null,
): AssistantTurn {
  // Ten draws per turn whatever it becomes.
  const [kind, which, topic, shape, omit, nSources, s1, s2, s3, category] = Array.from({ length: 10 }, () =>
    random(),
  ) as [number, number, number, number, number, number, number, number, number, number];
  const path = popularPath(paths, topic);
  const title = pageTitle(path);
  const queryCategory =
    category < 0.25 ? null : (CATEGORIES[Math.floor(category * CATEGORIES.length)] ?? null);
  const timestamp = new Date(at).toISOString();
  if (kind < 0.18) {
    // Skewed towards the first questions, so one of them is clearly the most frequent.
    const query = UNANSWERED_QUESTIONS[Math.floor(which * which * UNANSWERED_QUESTIONS.length)] ?? '';
    // As long as a real assistant's: it says what it found nearby (s1 is free on this branch).
    const response = longText(
      'I could not find information about that in the documentation.',
      answerLength(s1),
    );
    const base = { id, timestamp, query, response, sources: [], resolutionStatus: 'unanswered' as const };
    return omit < 0.4
      ? { ...base, queryCategory, pageUrl }
      : { ...base, responseType: 'answer', queryCategory, pageUrl };
  }
  const query =
    kind > 0.95
      ? (ODD_QUESTIONS[Math.floor(which * ODD_QUESTIONS.length)] ?? '')
      : (TEMPLATES[Math.floor(which * TEMPLATES.length)] ?? TEMPLATES[0]!)(title.toLowerCase());
  const clarifying = shape < 0.1;
  const sourceCount = clarifying ? Math.floor(nSources * 2) : 1 + Math.floor(nSources * 3);
  const sourcePaths = [path, popularPath(paths, s1), popularPath(paths, s2)].slice(0, sourceCount);
  const sources = [...new Set(sourcePaths)].map((p) => ({
    title: pageTitle(p),
    url: `${DOCS_BASE_URL}${p}`,
  }));
  const response = clarifying
    ? `Do you mean ${title} or ${pageTitle(popularPath(paths, s3))}?`
    : longText(
        `See "${title}": it explains this step by step.\n\n1. Open ${path}\n2. Follow the guide.`,
        answerLength(s3),
      );
  const base = { id, timestamp, query, response, sources, resolutionStatus: 'answered' as const };
  if (clarifying) return { ...base, responseType: 'clarifying_question', queryCategory, pageUrl };
  return omit < 0.4
    ? { ...base, queryCategory, pageUrl }
    : { ...base, responseType: 'answer', queryCategory, pageUrl };
}

/**
 * The threads that start on one day: a few to a couple of dozen threads of 1-5 turns (a few
 * to ~60 turns), turns 20 s to 5 min apart, each answered 2-9 s later. Every full day but the
 * one before the empty day has a thread that starts a minute or so before midnight and ends
 * on the next day. The thread id is a ULID whose time part is the first turn.
 */
export function generateAssistantDay(input: AssistantDayInput, random: Random): ThreadDraft[] {
  if (input.empty) return [];
  const dayStart = Date.parse(`${input.day}T00:00:00Z`);
  const weekday = new Date(dayStart).getUTCDay();
  const threads = Math.min(24, 2 + poisson(random, 9 * (WEEKLY[weekday] ?? 1) * input.fraction));
  const crossing = input.fraction === 1 && !input.noCrossing;
  // Threads last at most 5 turns x 5 min: the span keeps them inside the day unless they cross on purpose.
  const span = input.fraction * MS_DAY - 30 * 60_000;
  const out: ThreadDraft[] = [];
  for (let t = 0; t < threads; t++) {
    const crosses = crossing && t === threads - 1;
    const turnCount = crosses ? 3 + Math.floor(random() * 3) : 1 + Math.floor(random() * random() * 5);
    const start = crosses
      ? dayStart + MS_DAY - 20_000 - Math.floor(random() * 80_000)
      : dayStart + Math.floor(random() * span);
    const pageUrl = random() < 0.25 ? null : `${DOCS_BASE_URL}${popularPath(input.paths, random())}`;
    const id = ulidAt(start, random);
    const turns: AssistantTurn[] = [];
    const replyMs: number[] = [];
    let at = start;
    for (let k = 0; k < turnCount; k++) {
      if (k > 0)
        at += crosses ? 60_000 + Math.floor(random() * 120_000) : 20_000 + Math.floor(random() * 280_000);
      turns.push(makeTurn(random, input.paths, id, at, pageUrl));
      replyMs.push(2_000 + Math.floor(random() * 7_000));
    }
    out.push({ id, turns, replyMs });
  }
  return out;
}

/** A turn added after the fact (a test hook): its content from its own (seed, thread, turn) stream. */
export function appendedTurn(
  seed: number,
  paths: readonly string[],
  thread: ThreadDraft,
  at: number,
): { turn: AssistantTurn; replyMs: number } {
  const random = mulberry32(
    mixSeed(seed, Number(ulidValue(thread.id)! & 0xffffffffn), thread.turns.length, 0xadd),
  );
  const pageUrl = thread.turns[0]?.pageUrl ?? null;
  return {
    turn: makeTurn(random, paths, thread.id, at, pageUrl),
    replyMs: 2_000 + Math.floor(random() * 7_000),
  };
}

/** The canonical order of turns (the truth's): thread id, then timestamp. */
export function compareTurns(a: AssistantTurn, b: AssistantTurn): number {
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;
}

export function copyTurn(t: AssistantTurn): AssistantTurn {
  return { ...t, sources: t.sources.map((s) => ({ ...s })) };
}

/** The thread body: per turn the user's message, then the assistant's a few seconds later. */
export function threadBody(thread: ThreadDraft): AssistantThreadBody {
  const messages: AssistantMessage[] = [];
  thread.turns.forEach((turn, k) => {
    const at = Date.parse(turn.timestamp);
    const n = String(k).padStart(2, '0');
    messages.push({
      id: `msg_${thread.id}_${n}u`,
      role: 'user',
      content: turn.query,
      createdAt: turn.timestamp,
    });
    messages.push({
      id: `msg_${thread.id}_${n}a`,
      role: 'assistant',
      content: turn.response,
      createdAt: new Date(at + (thread.replyMs[k] ?? 2_000)).toISOString(),
    });
  });
  return { threadId: thread.id, createdAt: thread.turns[0]?.timestamp ?? '', messages };
}

/**
 * The ULID cursor of GET /assistant. The service orders nothing, so the emulator shuffles a
 * range's rows: the first request of a sequence picks a shuffle (a counter mixed with the
 * seed), and every cursor of that sequence carries it, so its pages share one order while two
 * sequences see two orders. The 128 bits of a cursor: a 48-bit keyed check (the time part),
 * the 32-bit shuffle, the 32-bit offset and 16 more check bits; the check binds the range, so
 * a ULID the emulator did not mint for this query fails it. The limit may change between
 * pages. A turn appended (test hook) while a sequence is under way changes the shuffle of the
 * range, so that sequence may repeat or miss rows: append between syncs, not during one.
 */
export class AssistantCursors {
  private sequences = 0;

  constructor(
    private readonly seed: number,
    private readonly signer: SignedCursors,
  ) {}

  /** The shuffle of a new sequence. */
  nextShuffle(): number {
    this.sequences++;
    return mixSeed(this.seed, this.sequences, 0x5bf1);
  }

  encode(range: DateRange, shuffle: number, offset: number): string {
    const check = this.check(range, shuffle, offset);
    const value =
      ((check >> 16n) << 80n) |
      (BigInt(shuffle >>> 0) << 48n) |
      (BigInt(offset >>> 0) << 16n) |
      (check & 0xffffn);
    return ulidFromValue(value);
  }

  decode(cursor: string, range: DateRange): { shuffle: number; offset: number } | { problem: string } {
    const value = ulidValue(cursor);
    if (value === undefined) return { problem: `cursor must be a ULID, got "${cursor}"` };
    const shuffle = Number((value >> 48n) & 0xffffffffn);
    const offset = Number((value >> 16n) & 0xffffffffn);
    const check = ((value >> 80n) << 16n) | (value & 0xffffn);
    if (check !== this.check(range, shuffle, offset)) {
      return { problem: 'cursor is not a cursor this service issued for this dateFrom and dateTo' };
    }
    return { shuffle, offset };
  }

  private check(range: DateRange, shuffle: number, offset: number): bigint {
    const digest = this.signer.digest(`${range.dateFrom}|${range.dateTo}|${shuffle}|${offset}`);
    return digest.readBigUInt64BE(0);
  }
}

export interface AssistantQuery extends DateRange {
  limit: number;
  /** From the cursor; a new sequence when undefined. */
  position: { shuffle: number; offset: number } | undefined;
}

export interface AssistantBody {
  conversations: AssistantTurn[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** limit 1..1000 (default 100), dates as every analytics endpoint, and a ULID cursor minted for the same range. */
export function parseAssistantQuery(
  params: URLSearchParams,
  today: Day,
  cursors: AssistantCursors,
): { ok: true; query: AssistantQuery } | Refused {
  const details: string[] = [];
  const limit = integer(single(params, 'limit', details), 'limit', 1, ASSISTANT_MAX_LIMIT, details);
  const cursor = single(params, 'cursor', details);
  if (cursor !== undefined && !isUlid(cursor)) {
    details.push(`cursor must be a ULID (26 characters of Crockford base32), got "${cursor}"`);
  }
  const range = dateRange(params, today, details);
  if (!range) return { ok: false, details };
  const query = { ...range, limit: limit ?? ASSISTANT_DEFAULT_LIMIT, position: undefined };
  if (cursor === undefined) return { ok: true, query };
  const decoded = cursors.decode(cursor, range);
  if ('problem' in decoded) return { ok: false, error: 'Invalid cursor', details: [decoded.problem] };
  return { ok: true, query: { ...query, position: decoded } };
}

/** Fisher-Yates with its own stream: the same shuffle gives the same order for the same rows. */
export function shuffled<T>(rows: readonly T[], shuffle: number): T[] {
  const out = [...rows];
  const random = mulberry32(shuffle);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** One page of the range's turns (`turns` in the canonical order) in the sequence's shuffled order. */
export function assistantPage(
  turns: readonly AssistantTurn[],
  q: AssistantQuery,
  cursors: AssistantCursors,
): AssistantBody {
  const { shuffle, offset } = q.position ?? { shuffle: cursors.nextShuffle(), offset: 0 };
  const end = offset + q.limit;
  const rows = shuffled(turns, shuffle).slice(offset, end).map(copyTurn);
  const hasMore = end < turns.length;
  return { conversations: rows, nextCursor: hasMore ? cursors.encode(q, shuffle, end) : null, hasMore };
}

/** The thread id of GET /assistant/threads/{threadId}: a ULID, else the problem. */
export function checkThreadId(threadId: string): Refused | undefined {
  return isUlid(threadId)
    ? undefined
    : {
        ok: false,
        error: 'Invalid thread ID',
        details: [`threadId must be a ULID (26 characters of Crockford base32), got "${threadId}"`],
      };
}

/** A turn the docs answer since a fix: answered, citing the page written for it. */
export function answeredAfterFix(turn: AssistantTurn): AssistantTurn {
  const slug = turn.query
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const url = `https://docs.example.com/guides/${slug}`;
  return {
    ...copyTurn(turn),
    resolutionStatus: 'answered',
    responseType: 'answer',
    response: `Yes: the guide "${turn.query}" walks through it step by step.`,
    sources: [{ title: turn.query, url }],
  };
}
