import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import type { z } from 'zod';
import {
  AuthError,
  EtlError,
  InternalError,
  HttpStatusError,
  NetworkError,
  ResponseTooLargeError,
  UnreachableError,
  UsageError,
  type RequestDescription,
} from '../errors.js';
import { packageRoot } from '../paths.js';
import type { RequestBudget } from './budget.js';
import type { ApiKey } from './key.js';
import { isRetryable, withRetry, type BackoffSpec, type RetryEvent, type Sleep } from './retry.js';
import { parseRetryAfter } from './retry-after.js';
import { deadline as requestDeadline } from '../util/deadline.js';
import { redactSecrets } from '../util/secrets.js';
import {
  AgentJobSchema,
  VisitorsResponseSchema,
  parseBody,
  type AgentJob,
  type Day,
  type VisitorsPage,
} from './schemas.js';

/** The ledger's name for a request: an analytics stream's endpoint (`visitors`, `views`, ...) or an agent call. */
export type Endpoint = string;

/** One GET of an analytics endpoint, as a stream describes it. */
export interface AnalyticsRequest<T> {
  readonly endpoint: string;
  readonly projectId: string;
  /** Below /v1/analytics/{projectId}/, e.g. `views` or `assistant/caller-stats`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly schema: z.ZodType<T>;
}

/** One attempt that went out on the wire (the request ledger and progress displays use these). */
export interface RequestEvent {
  /** Epoch ms when the attempt was sent (after the budget granted it). */
  readonly at: number;
  readonly endpoint: Endpoint;
  readonly projectId: string;
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  readonly durationMs: number;
  /** Set when the attempt failed: a socket-level code (ECONNRESET, UND_ERR_*) or an error code (E_HTTP...). */
  readonly errorCode?: string;
  /**
   * False when the request never reached the server (connection refused, DNS, TLS before
   * sending): the budget took it back and it belongs in no ledger.
   */
  readonly reached: boolean;
  /** The server's clock from the response's Date header (epoch ms), when it sent a valid one. */
  readonly serverDate?: number;
}

export interface ClientRetryEvent extends RetryEvent {
  readonly endpoint: Endpoint;
}

export interface Timeouts {
  readonly connectMs: number;
  readonly headersMs: number;
  readonly bodyMs: number;
}

export interface MintlifyClientOptions {
  readonly baseUrl: string;
  readonly apiKey: ApiKey;
  readonly budget: RequestBudget;
  /** Attempts per call, the first included. Default 6. */
  readonly maxAttempts?: number;
  /** Longest single wait (budget or Retry-After) before RateLimitError. Default 10 minutes. */
  readonly maxWaitMs?: number;
  readonly backoff?: BackoffSpec;
  readonly timeouts?: Timeouts;
  /**
   * The most one attempt may take, headers and body together (default 90 s). undici's body
   * timeout is per chunk, so a server trickling a byte every 20 s would otherwise hold a
   * request (and the run's lock) for ever.
   */
  readonly requestTimeoutMs?: number;
  /** Larger response bodies are refused, unread (default 32 MiB; a page of this API is far smaller). */
  readonly maxBodyBytes?: number;
  readonly onRequest?: (e: RequestEvent) => void;
  readonly onRetry?: (e: ClientRetryEvent) => void;
  readonly sleep?: Sleep;
  readonly userAgent?: string;
  /** The run's clock (the ledger's request times, Retry-After dates); the budget's own by default. */
  readonly now?: () => number;
}

export interface VisitorsQuery {
  readonly dateFrom: Day;
  readonly dateTo: Day;
  readonly limit: number;
  readonly offset: number;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** The request budget serves lower numbers first (see RequestBudget's AcquireOptions). */
  readonly priority?: number;
}

interface Call<T> {
  readonly method: 'GET' | 'POST';
  readonly endpoint: Endpoint;
  readonly projectId: string;
  readonly path: string;
  readonly query?: string;
  readonly body?: unknown;
  readonly schema: z.ZodType<T>;
  readonly signal: AbortSignal | undefined;
  readonly priority?: number | undefined;
}

const DEFAULTS = {
  maxAttempts: 6,
  maxWaitMs: 600_000,
  backoff: { minMs: 500, maxMs: 30_000 },
  timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 },
  requestTimeoutMs: 90_000,
  maxBodyBytes: 32 * 2 ** 20,
} as const;

/**
 * Failures that happen before a byte of the request is sent: the service never saw it, so it
 * cost nothing of its budget. (A connect timeout may in rare cases hide a slow accept; counting
 * it as unsent errs toward one extra request, never toward a refused run.)
 */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

/** Attempts at a request that never reached the server (see NEVER_SENT). */
const UNREACHABLE_ATTEMPTS = 3;

/** Server messages end up in logs and terminals: keep them to a readable size. */
const MAX_SERVER_TEXT = 300;

/**
 * The Mintlify REST client: one keep-alive connection pool, every attempt through the shared
 * request budget, retries with backoff and Retry-After, and every response validated. Errors
 * describe method, path and query only; the key is read in exactly one place (the
 * Authorization header of an outgoing request) and never kept on any error or event.
 */
/** How long `close` lets requests in flight finish before it cuts them. */
const CLOSE_GRACE_MS = 500;

export class MintlifyClient {
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly opts: MintlifyClientOptions;
  private readonly userAgent: string;
  private closed = false;

  constructor(opts: MintlifyClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new UsageError(`API URL "${opts.baseUrl}" is not a URL (e.g. https://api.mintlify.com)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(
        `API URL "${opts.baseUrl}" must start with https:// (or http:// for a local emulator)`,
      );
    }
    this.opts = opts;
    this.prefix = url.pathname.replace(/\/+$/, '');
    const t = opts.timeouts ?? DEFAULTS.timeouts;
    this.pool = new Pool(url.origin, {
      connectTimeout: t.connectMs,
      headersTimeout: t.headersMs,
      bodyTimeout: t.bodyMs,
    });
    this.userAgent = opts.userAgent ?? `mintlify-etl/${packageVersion()}`;
  }

  /** One page of unique visitors for [dateFrom, dateTo). */
  getVisitors(projectId: string, q: VisitorsQuery, o: CallOptions = {}): Promise<VisitorsPage> {
    const query = new URLSearchParams({
      dateFrom: q.dateFrom,
      dateTo: q.dateTo,
      limit: String(q.limit),
      offset: String(q.offset),
    }).toString();
    return this.call({
      method: 'GET',
      endpoint: 'visitors',
      projectId,
      path: `/v1/analytics/${encodeURIComponent(projectId)}/visitors`,
      query,
      schema: VisitorsResponseSchema,
      signal: o.signal,
      priority: o.priority,
    });
  }

  /** One page of any analytics endpoint: the streams describe their requests with this. */
  getAnalytics<T>(r: AnalyticsRequest<T>, o: CallOptions = {}): Promise<T> {
    return this.call({
      method: 'GET',
      endpoint: r.endpoint,
      projectId: r.projectId,
      path: `/v1/analytics/${encodeURIComponent(r.projectId)}/${r.path}`,
      query: new URLSearchParams({ ...r.query }).toString(),
      schema: r.schema,
      signal: o.signal,
      priority: o.priority,
    });
  }

  /** Starts an agent job (201). Not retried after a 5xx or a reset: it may have been created. */
  createAgentJob(projectId: string, prompt: string, o: CallOptions = {}): Promise<AgentJob> {
    return this.call({
      method: 'POST',
      endpoint: 'agent.create',
      projectId,
      path: `/v2/agent/${encodeURIComponent(projectId)}/job`,
      body: { prompt },
      schema: AgentJobSchema,
      signal: o.signal,
    });
  }

  /** The job's current state; an unknown id is an HttpStatusError with status 404. */
  getAgentJob(projectId: string, jobId: string, o: CallOptions = {}): Promise<AgentJob> {
    return this.call({
      method: 'GET',
      endpoint: 'agent.get',
      projectId,
      path: `/v2/agent/${encodeURIComponent(projectId)}/job/${encodeURIComponent(jobId)}`,
      schema: AgentJobSchema,
      signal: o.signal,
    });
  }

  /** A follow-up prompt for an existing job. */
  sendAgentMessage(projectId: string, jobId: string, prompt: string, o: CallOptions = {}): Promise<AgentJob> {
    return this.call({
      method: 'POST',
      endpoint: 'agent.message',
      projectId,
      path: `/v2/agent/${encodeURIComponent(projectId)}/job/${encodeURIComponent(jobId)}/message`,
      body: { prompt },
      schema: AgentJobSchema,
      signal: o.signal,
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A graceful close waits for every request in flight, and a server that trickles its body
    // never ends one: after a moment what is left is cut, so no command outlives its own bound.
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_GRACE_MS);
    });
    await Promise.race([this.pool.close(), grace]);
    clearTimeout(timer);
    await this.pool.destroy();
  }

  private call<T>(c: Call<T>): Promise<T> {
    // A repeated POST after a 5xx or a dropped connection could start a second job; a 429 means
    // the server refused it before doing anything, so only that one is safe to send again.
    const retryable =
      c.method === 'GET'
        ? isRetryable
        : (e: unknown) => isRetryable(e) && e instanceof HttpStatusError && e.status === 429;
    return withRetry(() => this.attempt(c), {
      maxAttempts: this.opts.maxAttempts ?? DEFAULTS.maxAttempts,
      backoff: this.opts.backoff ?? DEFAULTS.backoff,
      maxWaitMs: this.maxWaitMs(),
      retryable,
      // A refused connection or an unknown host rarely heals within seconds: three tries (about
      // 1.5 s) tell a blip from a dead endpoint without holding the run for half a minute.
      attemptsFor: (e) => (e instanceof UnreachableError ? UNREACHABLE_ATTEMPTS : undefined),
      ...(this.opts.sleep ? { sleep: this.opts.sleep } : {}),
      ...(c.signal ? { signal: c.signal } : {}),
      onRetry: (e) => this.opts.onRetry?.({ ...e, endpoint: c.endpoint }),
    });
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private maxWaitMs(): number {
    return this.opts.maxWaitMs ?? DEFAULTS.maxWaitMs;
  }

  private async attempt<T>(c: Call<T>): Promise<T> {
    const grantedAt = await this.opts.budget.acquire({
      maxWaitMs: this.maxWaitMs(),
      ...(c.signal ? { signal: c.signal } : {}),
      ...(c.priority !== undefined ? { priority: c.priority } : {}),
    });
    const request: RequestDescription = {
      method: c.method,
      path: this.prefix + c.path,
      ...(c.query ? { query: c.query } : {}),
    };
    const at = this.now();
    const started = performance.now();
    const limit = requestDeadline(this.opts.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs, c.signal);
    const signal = limit.signal;
    let status: number | null = null;
    let errorCode: string | undefined;
    let reached = true;
    let serverDate: number | undefined;
    try {
      const res = await this.pool.request({
        method: c.method,
        path: c.query ? `${request.path}?${c.query}` : request.path,
        headers: this.headers(c.body !== undefined),
        ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}),
        signal,
      });
      status = res.statusCode;
      serverDate = dateHeader(res.headers);
      if (status < 200 || status > 299) {
        // The status alone decides what happens next; a body cut short only loses the message.
        const text = await this.readBody(res, request).catch(() => '');
        throw this.statusError(status, res.headers, text, request);
      }
      const text = await this.readBody(res, request);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        errorCode = 'E_NOT_JSON';
        throw new NetworkError(
          request,
          `HTTP ${status} with a body that is not JSON (${text.length} bytes; cut short?)`,
        );
      }
      return parseBody(c.schema, json, request);
    } catch (err) {
      const failure = this.toFailure(err, request, c.signal, limit.expired);
      reached = !(failure instanceof UnreachableError);
      // The overall deadline fired before any header arrived: a server that does not answer.
      if (limit.expired && !c.signal?.aborted && status === null) errorCode ??= 'E_NO_RESPONSE';
      errorCode ??= socketCode(err) ?? (failure instanceof EtlError ? failure.code : undefined);
      throw failure;
    } finally {
      limit.dispose();
      if (reached) this.opts.budget.complete(grantedAt);
      else this.opts.budget.refund(grantedAt);
      this.opts.onRequest?.({
        at,
        endpoint: c.endpoint,
        projectId: c.projectId,
        status,
        durationMs: Math.round(performance.now() - started),
        reached,
        ...(errorCode !== undefined ? { errorCode } : {}),
        ...(serverDate !== undefined ? { serverDate } : {}),
      });
    }
  }

  /** The body as text, refused unread past the size cap (a 200 MB body took 1.8 GB of memory). */
  private async readBody(res: Dispatcher.ResponseData, request: RequestDescription): Promise<string> {
    const limit = this.opts.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
    const declared = Number(res.headers['content-length']);
    const tooLarge = (): ResponseTooLargeError => {
      res.body.destroy();
      return new ResponseTooLargeError(request, limit);
    };
    if (Number.isFinite(declared) && declared > limit) throw tooLarge();
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      bytes += b.length;
      if (bytes > limit) throw tooLarge();
      chunks.push(b);
    }
    return Buffer.concat(chunks, bytes).toString('utf8');
  }

  private headers(hasBody: boolean): Record<string, string> {
    return {
      authorization: `Bearer ${this.opts.apiKey.reveal()}`,
      accept: 'application/json',
      'user-agent': this.userAgent,
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
    };
  }

  private statusError(
    status: number,
    headers: IncomingHttpHeaders,
    text: string,
    request: RequestDescription,
  ): HttpStatusError {
    const server = serverMessage(text);
    if (status === 401 || status === 403) return new AuthError(status, request, server);
    const header = headers['retry-after'];
    const retryAfterMs =
      status === 429 || status === 503
        ? // An HTTP date is the server's wall clock: the wait is measured on ours, then kept on the run's.
          parseRetryAfter(Array.isArray(header) ? header[0] : header, Date.now())
        : undefined;
    if (status === 429) {
      // The server's limit is shared by every request of the run: hold them all, not just this one.
      if (retryAfterMs !== undefined) this.opts.budget.pauseUntil(this.now() + retryAfterMs);
      else this.opts.budget.pauseForServerLimit();
    }
    return new HttpStatusError(status, request, { ...server, retryAfterMs });
  }

  /**
   * Turns whatever the request threw into one of our errors. Socket-level failures become a
   * retryable NetworkError whose cause is a plain copy (name, code, message) of undici's error:
   * those objects carry socket details and may change shape between versions, and errors end up
   * in logs, so we keep only what we know is harmless.
   */
  private toFailure(
    err: unknown,
    request: RequestDescription,
    signal: AbortSignal | undefined,
    expired: boolean,
  ): unknown {
    if (err instanceof EtlError) return err;
    if (signal?.aborted) return signal.reason;
    const t = this.opts.timeouts ?? DEFAULTS.timeouts;
    if (expired) {
      const ms = this.opts.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
      return new NetworkError(request, `no complete response within ${ms} ms (headers and body)`, {
        cause: new Error('request deadline'),
      });
    }
    const code = socketCode(err);
    if (code === undefined) return err;
    const message = redactSecrets(err instanceof Error ? err.message : String(err));
    const cause = Object.assign(new Error(message), {
      name: err instanceof Error ? err.name : 'Error',
      code,
    });
    if (code === 'UND_ERR_INVALID_ARG') {
      // The request could not even be built (e.g. a header value HTTP cannot carry): the same
      // request would fail the same way on every retry, and nothing was sent.
      return new InternalError(
        `${request.method} ${request.path}: the request could not be sent: ${message}`,
        {
          path: request.path,
        },
        { cause },
      );
    }
    const reason = `${networkReason(code, t)} (${code})`;
    if (NEVER_SENT.has(code)) return new UnreachableError(request, this.opts.baseUrl, reason, { cause });
    return new NetworkError(request, reason, { cause });
  }
}

function socketCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && !(err instanceof EtlError) ? code : undefined;
}

function networkReason(code: string, t: Timeouts): string {
  switch (code) {
    case 'ECONNREFUSED':
      // Said without advice: every message that shows it says what to check (--api-url, the server).
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed by the other side';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection within ${t.connectMs} ms`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no response within ${t.headersMs} ms`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the response body stalled for more than ${t.bodyMs} ms`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the API host name does not resolve';
    default:
      return 'network failure';
  }
}

/**
 * `{error, details:[{message}]}` or `{error}` when the body is JSON; nothing for HTML or garbage.
 * Redacted after JSON decoding: a key echoed as `\u006d\u0069...` is only a key once decoded.
 */
function serverMessage(text: string): { error?: string; details?: string[] } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null) return {};
  const { error, details } = body as { error?: unknown; details?: unknown };
  const out: { error?: string; details?: string[] } = {};
  if (typeof error === 'string' && error.trim() !== '') out.error = clip(error);
  if (Array.isArray(details)) {
    const messages = details
      .map((d: unknown) => (typeof d === 'object' && d !== null ? (d as { message?: unknown }).message : d))
      .filter((m): m is string => typeof m === 'string' && m.trim() !== '')
      .map(clip);
    if (messages.length > 0) out.details = messages;
  }
  return out;
}

function clip(text: string): string {
  const s = redactSecrets(text);
  return s.length > MAX_SERVER_TEXT ? `${s.slice(0, MAX_SERVER_TEXT)}…` : s;
}

let version: string | undefined;

function packageVersion(): string {
  if (version === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
        version?: unknown;
      };
      version = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}

/** The response's Date header (RFC 9110: an origin server with a clock sends one) as epoch ms. */
function dateHeader(headers: IncomingHttpHeaders): number | undefined {
  const raw = headers['date'];
  const ms = Date.parse((Array.isArray(raw) ? raw[0] : raw) ?? '');
  return Number.isFinite(ms) ? ms : undefined;
}
