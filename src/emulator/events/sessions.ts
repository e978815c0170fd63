import { mixSeed, mulberry32, poisson, randomInt, type Random } from '../prng.js';
import type { EventModel } from './model.js';
import type { People, Person } from './people.js';
import { uuidFrom } from './people.js';
import { longText, pick, REFERRERS, SEARCH_TERMS, skewedIndex } from './wild.js';

/** Event names beyond the funnels, some the docs list and some no list knows (they load too). */
const OTHER_EVENTS = [
  'docs.code_block.copy',
  'docs.api_playground.request',
  'docs.context_menu.copy_page',
  'docs.context_menu.install_mcp_server',
  'docs.context_menu.copy_mcp_link',
  'docs.context_menu.open_chatgpt',
  'docs.context_menu.open_claude',
  'docs.feedback.thumbs_up',
  'docs.feedback.thumbs_down',
  'docs.accordion.open',
  'docs.tabs.click',
  'docs.footer.powered_by_click',
  'docs.header.cta_click',
  'docs.experimental.widget_open',
  'acme.custom.signup_intent',
] as const;

const OFFSETS = [120, 330, -330, -300, 60, 545, -480, 840];

/** What one slice's sessions need: its draws, the people, the paths, and where its time ends. */
interface SliceContext {
  readonly random: Random;
  readonly people: People;
  readonly paths: readonly string[];
  readonly startMicros: number;
  readonly endMicros: number;
  /** The day's number among the stream's days: forces a 30,000-character answer every fourth day. */
  readonly dayIndex: number;
  readonly out: EventModel[];
  longAnswerDue: boolean;
}

/** One visit: its person, session, clock and current page. */
interface Visit {
  readonly ctx: SliceContext;
  readonly person: Person;
  readonly sessionId: string | null;
  micros: number;
  path: string;
}

const DOCS_ORIGIN = 'https://docs.acme.dev';

/** Which part of which day: an object's time slice. */
export interface Slice {
  readonly dayNum: number;
  /** The day's number among the stream's days: a 30,000-character answer is due every fourth day. */
  readonly dayIndex: number;
  /** This slice's number among the day's `of` equal slices. */
  readonly index: number;
  readonly of: number;
}

/**
 * The events of one time slice of a UTC day (one object's worth), sorted by time; sessions end with
 * the slice. A pure function of (seed, slice, people, paths, scale): each slice has its own PRNG,
 * so a huge stream is made one object at a time and a slice does not depend on the others.
 */
export function sliceEvents(
  seed: number,
  slice: Slice,
  people: People,
  paths: readonly string[],
  scale: number,
): EventModel[] {
  const random = mulberry32(mixSeed(seed, slice.dayNum, slice.index, slice.of, 0xe7e7));
  const dayStart = slice.dayNum * 86_400_000;
  const ctx: SliceContext = {
    random,
    people,
    paths,
    startMicros: (dayStart + Math.round((slice.index * 86_400_000) / slice.of)) * 1000,
    endMicros: (dayStart + Math.round(((slice.index + 1) * 86_400_000) / slice.of)) * 1000,
    dayIndex: slice.dayIndex,
    out: [],
    longAnswerDue: slice.dayIndex % 4 === 0 && slice.index === 0,
  };
  const weekend = (slice.dayNum + 4) % 7 >= 5;
  const share = scale / slice.of;
  for (let i = poisson(random, (weekend ? 14 : 26) * share); i > 0; i--) humanVisit(ctx);
  for (let i = poisson(random, 7 * share); i > 0; i--) agentVisit(ctx);
  for (let i = poisson(random, 9 * share); i > 0; i--) crawl(ctx);
  return ctx.out.sort((a, b) => a.micros - b.micros);
}

function startVisit(ctx: SliceContext, person: Person, withSession: boolean): Visit {
  const span = ctx.endMicros - ctx.startMicros;
  return {
    ctx,
    person,
    sessionId: withSession ? uuidFrom(ctx.random) : null,
    micros: ctx.startMicros + Math.floor(ctx.random() * span),
    path: ctx.paths[skewedIndex(ctx.random, ctx.paths.length)]!,
  };
}

/** Adds one event at the visit's clock, then moves the clock on; false once the day is over. */
function emit(
  v: Visit,
  name: string,
  extra: { path?: string; referrer?: string | null; properties?: unknown } = {},
): boolean {
  const { ctx } = v;
  const r = ctx.random;
  if (v.micros >= ctx.endMicros) return false;
  const digits = r() < 0.6 ? 3 : r() < 0.75 ? 6 : 0;
  const micros =
    digits === 6 ? v.micros : digits === 3 ? v.micros - (v.micros % 1000) : v.micros - (v.micros % 1_000_000);
  const envelopeOmitted = r() < 0.03;
  const payloadOmitted = !envelopeOmitted && r() < 0.03;
  const neither = r() < 0.002;
  ctx.out.push({
    eventId: dayTagged(uuidFrom(r), ctx.startMicros),
    envelopeType: envelopeOmitted || neither ? null : name,
    payloadEvent: payloadOmitted || neither ? null : name,
    subdomain: v.person.subdomain,
    userId: v.person.userId,
    anonId: v.person.anonId,
    sessionId: v.sessionId,
    micros,
    offsetMinutes: r() < 0.15 ? pick(r, OFFSETS) : 0,
    fractionDigits: digits,
    path: extra.path ?? v.path,
    referrer: extra.referrer === undefined ? null : extra.referrer,
    userAgent: v.person.userAgent,
    ip: v.person.ip,
    properties: extra.properties,
    payloadAsString: r() < 0.15,
    propertiesAsString: extra.properties !== undefined && r() < 0.15,
  });
  v.micros += randomInt(r, 2, 150) * 1_000_000 + Math.floor(r() * 1_000_000);
  return true;
}

/**
 * The id with its first four hex digits the UTC day's number: ids come from 32-bit PRNG streams,
 * and at millions of events two slices of different days drew the same id, which the real stream
 * never does (a repeated event_id is the same event, on the same day: the loader's check of stored
 * keys reads only an object's days). No extra draw: the stream's events stay the same.
 */
function dayTagged(uuid: string, micros: number): string {
  const day = Math.floor(micros / 86_400_000_000) & 0xffff;
  return `${day.toString(16).padStart(4, '0')}${uuid.slice(4)}`;
}

function pageProperties(r: Random, path: string): unknown {
  const u = r();
  if (u < 0.3) return undefined;
  if (u < 0.4) return {};
  return {
    title: path.split('/').pop() || 'Home',
    scroll_depth: Math.round(r() * 100) / 100,
    locale: pick(r, ['en', 'ja', 'ar', 'es']),
  };
}

function pageView(v: Visit, path: string, referrer: string | null): boolean {
  v.path = path;
  return emit(v, 'docs.content.view', { path, referrer, properties: pageProperties(v.ctx.random, path) });
}

function nextPath(v: Visit): string {
  return v.ctx.paths[skewedIndex(v.ctx.random, v.ctx.paths.length)]!;
}

/** A reader: several pages, with searches, the assistant, the context menu and feedback between. */
function humanVisit(ctx: SliceContext): void {
  const r = ctx.random;
  // Readers come back, but not all of them daily: a period's uniques are fewer than the days' sum.
  const who = ctx.people.humans[Math.floor(ctx.people.humans.length * r() ** 1.5)]!;
  const v = startVisit(ctx, who, r() > 0.05);
  if (!pageView(v, v.path, pick(r, REFERRERS))) return;
  for (let pages = randomInt(r, 0, 7); pages > 0; pages--) {
    const from = `${DOCS_ORIGIN}${v.path}`;
    const u = r();
    let ok = true;
    if (u < 0.25) ok = search(v, from);
    else if (u < 0.37) ok = assistant(v);
    else if (u < 0.5) ok = sideAction(v);
    else if (u < 0.58)
      ok = emit(v, 'docs.navitem.click', {
        properties: { label: nextPath(v).split('/').pop(), href: nextPath(v) },
      });
    if (!ok || !pageView(v, nextPath(v), from)) return;
  }
}

/** Queries typed one by one, then a result clicked (and its page viewed) or the search closed. */
function search(v: Visit, from: string): boolean {
  const r = v.ctx.random;
  const term = pick(r, SEARCH_TERMS);
  const typed = randomInt(r, 1, 3);
  for (let i = 1; i <= typed; i++) {
    const query = term.slice(0, Math.max(1, Math.ceil((term.length * i) / typed)));
    if (!emit(v, 'docs.search.query', { properties: { query, results: randomInt(r, 0, 20) } })) return false;
  }
  if (r() < 0.6) {
    const target = nextPath(v);
    if (
      !emit(v, 'docs.search.result_click', {
        properties: { query: term, result_path: target, position: randomInt(r, 1, 10) },
      })
    )
      return false;
    return pageView(v, target, from);
  }
  return emit(v, 'docs.search.close', { properties: { query: term } });
}

/** enter -> completed (most) -> a source clicked (some). */
function assistant(v: Visit): boolean {
  const r = v.ctx.random;
  const query = pick(r, SEARCH_TERMS);
  if (!emit(v, 'docs.assistant.enter', { properties: { entry: pick(r, ['button', 'search', 'shortcut']) } }))
    return false;
  if (r() >= 0.75) return true;
  const long = v.ctx.longAnswerDue || r() < 0.01;
  v.ctx.longAnswerDue = false;
  // Real answers run ~2 KB (300-4,000 characters here); a long one is 30,000, asked by a question
  // of as many (a pasted log or file), odd unicode in both. The draws are those of the shorter
  // answers of before, so the stream's events (and every count a test pins) stay the same.
  const response = long
    ? longText(30_000, v.ctx.dayIndex)
    : longText(randomInt(r, 300, 4_000), randomInt(r, 0, 99));
  const question = long ? `${query}\n${longText(30_000 - query.length - 1, v.ctx.dayIndex + 3)}` : query;
  const sources = [nextPath(v), nextPath(v)];
  if (!emit(v, 'docs.assistant.completed', { properties: { query: question, response, sources } }))
    return false;
  if (r() >= 0.45) return true;
  return emit(v, 'docs.assistant.source_click', { properties: { source_path: sources[0] } });
}

/** Copying code, the playground, the context menu (a page as Markdown is an md view), feedback. */
function sideAction(v: Visit): boolean {
  const r = v.ctx.random;
  if (r() < 0.2)
    return emit(v, 'docs.content.md.view', { path: `${v.path}.md`, properties: { via: 'context_menu' } });
  const name = pick(r, OTHER_EVENTS);
  const properties =
    name === 'docs.code_block.copy'
      ? { language: pick(r, ['bash', 'python', 'typescript', null]), code: 'npm i mintlify\n' }
      : name === 'docs.api_playground.request'
        ? {
            method: pick(r, ['GET', 'POST', 'DELETE']),
            endpoint: '/v1/users/{id}',
            status: pick(r, [200, 201, 400, 401, 500]),
          }
        : name === 'docs.context_menu.install_mcp_server'
          ? { client: pick(r, ['cursor', 'vscode', 'claude-desktop', 'windsurf']) }
          : r() < 0.5
            ? undefined
            : { n: randomInt(r, 0, 9) };
  return emit(v, name, { properties });
}

/** An AI answer engine or coding agent fetching pages, mostly as Markdown. */
function agentVisit(ctx: SliceContext): void {
  const r = ctx.random;
  const v = startVisit(ctx, ctx.people.agents[skewedIndex(r, ctx.people.agents.length)]!, false);
  for (let n = randomInt(r, 1, 5); n > 0; n--) {
    const path = nextPath(v);
    const ok =
      r() < 0.7
        ? emit(v, 'docs.content.md.view', { path: `${path}.md`, referrer: null })
        : pageView(v, path, null);
    if (!ok) return;
  }
}

/** A crawler walking pages without a session. */
function crawl(ctx: SliceContext): void {
  const r = ctx.random;
  const v = startVisit(ctx, ctx.people.crawlers[Math.floor(r() * ctx.people.crawlers.length)]!, false);
  for (let n = randomInt(r, 1, 8); n > 0; n--) if (!pageView(v, nextPath(v), null)) return;
}
