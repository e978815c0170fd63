import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentJobStore, nextUtcDayMs, parsePrompt, questionsFixedBy } from './agent.js';
import { AssistantCursors } from './assistant.js';
import type { AnalyticsKind } from './analytics.js';
import { ANALYTICS_KINDS, prepareAnalytics, refusal } from './analytics.js';
import type { Dataset } from './data.js';
import { buildDataset, DEFAULT_PROJECT_ID } from './data.js';
import type { Day } from './days.js';
import { cursorFaultAnswer, cursorFaultParams, type CursorFault } from './cursor-faults.js';
import type { FaultKind } from './faults.js';
import { FaultInjector, isFailingFault } from './faults.js';
import { BodyTooLargeError, pause, readBody, serviceDate } from './http.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import type { Answer } from './responses.js';
import { faultAnswer, json, writeAnswer, writeTruncated } from './responses.js';
import type { Route } from './routes.js';
import { matchRoute } from './routes.js';
import { SearchCursors } from './search-cursor.js';
import type { ServedEdits } from './served-edits.js';
import { SignedCursors } from './signed-cursor.js';
import type { StreamHooks } from './streams.js';

export const DEFAULT_API_KEY = 'mint_emulator_demo_key';
/** The request log keeps this many most recent entries, so a long-running demo does not grow without bound. */
export const MAX_LOG_ENTRIES = 50_000;

export interface EmulatorOptions {
  host?: string | undefined;
  port?: number | undefined;
  seed?: number | undefined;
  days?: number | undefined;
  paths?: number | undefined;
  today?: Day | undefined;
  projectId?: string | undefined;
  apiKey?: string | undefined;
  /** Chance per attempt of an injected fault, in [0, 1]. */
  faults?: number | undefined;
  /** Default seed + 1. */
  faultSeed?: number | undefined;
  /** Which faults to inject (default every kind). */
  faultKinds?: readonly FaultKind[] | undefined;
  latencyMs?: number | undefined;
  /** One endpoint whose cursor never advances (tests of the pager's guards). */
  cursorFault?: CursorFault | undefined;
  /**
   * `N/DURATION`, e.g. `100/1h`: the analytics limit (per organization at the service; the
   * emulator serves one). Only authorized analytics requests count. No limit when omitted.
   */
  rateLimit?: string | undefined;
  /** `N/DURATION` for agent job creates and messages, per project (the service: 100/1h). None when omitted. */
  agentRateLimit?: string | undefined;
  hasMoreOnFullPages?: boolean | undefined;
  /** Rewrites served rows (tests of values the dataset never holds); see ServedEdits. */
  servedEdits?: ServedEdits | undefined;
  pollsToFinish?: number | undefined;
  /**
   * The agent jobs' clock (createdAt, archivedAt, completion). Default Date.now. The demo sets it
   * days back, so a fix completes in the past and its effect is in the data already.
   */
  agentClock?: (() => number) | undefined;
  retryAfterSeconds?: number | undefined;
  slowMs?: number | undefined;
}

export interface RequestLogEntry {
  /** Arrival, epoch ms. */
  readonly at: number;
  readonly method: string;
  /** Path as sent (still percent-encoded). */
  readonly path: string;
  /** Query string as sent, without `?`. */
  readonly query: string;
  /** Status answered; 0 when the connection was reset before the body was complete. */
  readonly status: number;
}

export interface EmulatorStats {
  /** Every request that arrived. */
  requests: number;
  /** Answers by status; a reset connection counts under 0. */
  byStatus: Record<number, number>;
  /** Failing faults injected (injected 429s, 500, 502, 503, resets); not slow answers, not real rate limiting. */
  faults: number;
  /** Injected faults by kind, slow answers included. */
  faultsByKind: Partial<Record<FaultKind, number>>;
  /** Correct answers delayed by an injected slow fault. */
  slow: number;
  /** 429s from the sliding-window limit (no Retry-After). */
  rateLimited: number;
  log: RequestLogEntry[];
}

export interface Emulator extends StreamHooks {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly projectId: string;
  readonly apiKey: string;
  readonly dataset: Dataset;
  /** Live counters: the same object for the emulator's whole life (resetStats clears it in place). */
  readonly stats: EmulatorStats;
  resetStats(): void;
  /** Stops listening and drops every open connection, keep-alive ones included. */
  close(): Promise<void>;
}

function emptyStats(): EmulatorStats {
  return { requests: 0, byStatus: {}, faults: 0, faultsByKind: {}, slow: 0, rateLimited: 0, log: [] };
}

function isAnalytics(kind: string): kind is AnalyticsKind {
  return (ANALYTICS_KINDS as readonly string[]).includes(kind);
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The emulated Mintlify API on node:http. Each request is checked in the order route,
 * authorization, project, parameters, then counted by its rate limit (analytics, or agent
 * creates and messages per project); only a request that passes every check can meet an
 * injected fault, then gets its answer.
 */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const seed = opts.seed ?? 1;
  const projectId = opts.projectId ?? DEFAULT_PROJECT_ID;
  const apiKey = opts.apiKey ?? DEFAULT_API_KEY;
  const latencyMs = opts.latencyMs ?? 0;
  const slowMs = opts.slowMs ?? 300;
  const retryAfterSeconds = opts.retryAfterSeconds ?? 1;
  const hasMoreOnFullPages = opts.hasMoreOnFullPages ?? false;
  const pollsToFinish = opts.pollsToFinish ?? 3;
  if (!Number.isSafeInteger(pollsToFinish) || pollsToFinish < 0) {
    throw new RangeError(`pollsToFinish must be an integer >= 0, got ${pollsToFinish}`);
  }
  for (const [name, value] of [
    ['latencyMs', latencyMs],
    ['slowMs', slowMs],
    ['retryAfterSeconds', retryAfterSeconds],
  ] as const) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`${name} must be a number >= 0, got ${value}`);
    }
  }
  const dataset = buildDataset({
    seed,
    days: opts.days ?? 90,
    paths: opts.paths ?? 300,
    projectId,
    ...(opts.today !== undefined ? { today: opts.today } : {}),
  });
  const limiter = opts.rateLimit !== undefined ? new SlidingWindowLimiter(opts.rateLimit) : undefined;
  const agentLimiters = new Map<string, SlidingWindowLimiter>();
  const agentLimiter = (projectId: string): SlidingWindowLimiter | undefined => {
    if (opts.agentRateLimit === undefined) return undefined;
    let l = agentLimiters.get(projectId);
    if (!l) agentLimiters.set(projectId, (l = new SlidingWindowLimiter(opts.agentRateLimit)));
    return l;
  };
  const analytics = {
    dataset,
    cursors: new SearchCursors(seed, projectId),
    feedbackCursors: new SignedCursors('feedback', seed, projectId),
    assistantCursors: new AssistantCursors(seed, new SignedCursors('assistant', seed, projectId)),
    hasMoreOnFullPages,
    edits: opts.servedEdits ?? {},
  };
  const faults = new FaultInjector({
    probability: opts.faults ?? 0,
    seed: opts.faultSeed ?? seed + 1,
    ...(opts.faultKinds ? { kinds: opts.faultKinds } : {}),
  });
  // A job that completes with a pull request fixes the emulator's unanswered questions its prompt
  // quotes: from the next UTC day on they are answered (see Streams.fixQuestion).
  const jobs = new AgentJobStore(pollsToFinish, opts.agentClock ?? Date.now, (prompt, at) => {
    for (const question of questionsFixedBy(prompt)) dataset.fixQuestion(question, nextUtcDayMs(at));
  });
  const stats = emptyStats();
  const closing = new AbortController();

  const record = (entry: Omit<RequestLogEntry, 'status'>, status: number): void => {
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    stats.log.push({ ...entry, status });
    if (stats.log.length > MAX_LOG_ENTRIES) stats.log.splice(0, stats.log.length - MAX_LOG_ENTRIES);
  };

  /** Authorization, project and parameters, in that order; an Answer when the request is refused. */
  const check = (req: IncomingMessage, route: Route, params: URLSearchParams, body: Buffer) => {
    const auth = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!auth)
      return {
        refusal: json(401, {
          error: 'Missing or malformed Authorization header: use Bearer <admin API key>',
        }),
      };
    if (auth[1] !== apiKey) return { refusal: json(401, { error: 'Invalid API key' }) };
    if (route.projectId !== projectId)
      return { refusal: json(404, { error: `Project ${route.projectId} not found` }) };
    if (isAnalytics(route.kind)) {
      const threadId = route.kind === 'assistant-thread' ? route.threadId : '';
      const faulty = cursorFaultParams(opts.cursorFault, route.kind, params);
      const prepared = prepareAnalytics(route.kind, faulty ?? params, analytics, threadId);
      if (!prepared.ok) return { refusal: refusal(prepared) };
      const fault = opts.cursorFault;
      if (faulty === undefined || fault === undefined) return { respond: prepared.respond };
      return { respond: () => cursorFaultAnswer(fault, params.get('cursor'), prepared.respond()) };
    }
    if (route.kind === 'create' || route.kind === 'message') {
      const prompt = parsePrompt(body);
      if (!prompt.ok) return { refusal: json(400, { error: prompt.error }) };
      return { prompt: prompt.prompt };
    }
    return {};
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = Date.now();
    stats.requests++;
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const entry = {
      at,
      method: req.method ?? 'GET',
      path: q < 0 ? rawUrl : rawUrl.slice(0, q),
      query: q < 0 ? '' : rawUrl.slice(q + 1),
    };
    const answer = (a: Answer): void => {
      record(entry, a.status);
      writeAnswer(res, a);
    };

    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (e) {
      if (e instanceof BodyTooLargeError) answer(json(413, { error: e.message }));
      return;
    }
    if (!(await pause(latencyMs, closing.signal))) return;
    const match = matchRoute(entry.method, entry.path);
    if (!match) return answer(json(404, { error: `No route for ${entry.method} ${entry.path}` }));
    if ('allow' in match) {
      return answer(json(405, { error: `Method ${entry.method} not allowed here` }, { allow: match.allow }));
    }
    const { route } = match;
    const checked = check(req, route, new URLSearchParams(entry.query), body);
    if (checked.refusal) return answer(checked.refusal);
    // A limit belongs to an organization or a project, so it counts requests the key and the
    // route let through: a typo'd URL or a bad key does not use up the budget. Every analytics
    // operation draws on one budget, agent jobs on another, as at the service; polling a job is not limited.
    const bucket = isAnalytics(route.kind)
      ? limiter
      : route.kind === 'create' || route.kind === 'message'
        ? agentLimiter(route.projectId)
        : undefined;
    if (bucket && !bucket.hit(at)) {
      stats.rateLimited++;
      return answer(json(429, { error: 'Rate limit exceeded' }));
    }

    const fault = faults.next(`${entry.method} ${rawUrl}`);
    if (fault) stats.faultsByKind[fault] = (stats.faultsByKind[fault] ?? 0) + 1;
    if (isFailingFault(fault)) stats.faults++;
    const injected = fault ? faultAnswer(fault, retryAfterSeconds) : undefined;
    if (injected) return answer(injected);
    if (fault === 'slow') {
      stats.slow++;
      if (!(await pause(slowMs, closing.signal))) return;
    }

    let result: Answer;
    if (checked.respond) {
      result = checked.respond();
    } else if (route.kind === 'create' && checked.prompt !== undefined) {
      result = json(201, jobs.create(route.projectId, checked.prompt));
    } else {
      const job =
        route.kind === 'message' && checked.prompt !== undefined
          ? jobs.message(route.projectId, route.jobId, checked.prompt)
          : route.kind === 'get'
            ? jobs.poll(route.projectId, route.jobId)
            : undefined;
      result = job ? json(200, job) : json(404, { error: 'Job not found' });
    }
    if (fault === 'connection-reset') {
      // The work is done (a job may now exist) but the client never learns it: that is the point.
      record(entry, 0);
      writeTruncated(res, result);
      return;
    }
    answer(result);
  };

  const server = createServer((req, res) => {
    res.on('error', () => undefined);
    // Every answer carries the emulator's own date, as the service's carry its clock.
    res.setHeader('date', serviceDate(opts.today));
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        const message = e instanceof Error ? e.message : String(e);
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: `emulator bug: ${message}` }));
      }
    });
  });

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${displayHost(host)}:${port}`,
    host,
    port,
    projectId,
    apiKey,
    dataset,
    stats,
    resetStats() {
      Object.assign(stats, emptyStats());
    },
    setFeedbackStatus: dataset.setFeedbackStatus,
    triageFeedback: dataset.triageFeedback,
    appendAssistantTurn: dataset.appendAssistantTurn,
    fixQuestion: dataset.fixQuestion,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** The line the CLI prints on start: where the emulator listens and the credentials it accepts. */
export function emulatorBanner(e: Pick<Emulator, 'url' | 'projectId' | 'apiKey'>): string {
  return `mintlify emulator on ${e.url} project=${e.projectId} key=${e.apiKey}`;
}
