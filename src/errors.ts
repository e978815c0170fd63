import { redactSecrets } from './util/secrets.js';

/**
 * Every failure the tool reports is one of these classes. `code` is stable (scripts and tests
 * match on it), `exitCode` is the documented process exit code, and `context` carries the
 * facts that explain the failure. No error ever carries the API key: messages are built from
 * method, path and redacted query only.
 */
export type ErrorContext = Readonly<Record<string, unknown>>;

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  windowsFailed: 4,
  /** `alerts`, `digest`: the webhook refused the message or could not be reached, retries included. */
  deliveryFailed: 4,
  dbInUse: 5,
  /** `alerts`: at least one alert was sent by this run (not an error: cron and CI act on it). */
  alertsFired: 6,
  /** `check`: the request budget is spent, so nothing could be checked (not a failure of the API). */
  budgetSpent: 7,
  /** Stopped by SIGINT/SIGTERM (128 + 2, the shell's convention); finished days were kept. */
  interrupted: 130,
} as const;

export abstract class EtlError extends Error {
  abstract readonly code: string;
  abstract readonly exitCode: number;
  readonly context: ErrorContext;

  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.context = context;
  }

  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, context: this.context };
  }
}

/** Bad flags, environment or input: nothing was written. Exit 2. */
export class UsageError extends EtlError {
  readonly code = 'E_USAGE';
  readonly exitCode = EXIT.usage;
}

/** An unexpected failure of the tool itself. Exit 1. */
export class InternalError extends EtlError {
  readonly code = 'E_INTERNAL';
  readonly exitCode = EXIT.internal;
}

export interface RequestDescription {
  /** HTTP method. */
  readonly method: string;
  /** URL path, e.g. /v1/analytics/proj/visitors. */
  readonly path: string;
  /** Query string without anything secret (the API never takes secrets in the query). */
  readonly query?: string;
}

/** Redacted: an API URL may carry a secret in its path (a proxy that takes the key there). */
function describe(req: RequestDescription): string {
  return redactSecrets(`${req.method} ${req.path}${req.query ? `?${req.query}` : ''}`);
}

/** The server answered with a non-success status. Retryable for 408, 429 and 5xx. */
export class HttpStatusError extends EtlError {
  readonly code: string = 'E_HTTP';
  readonly exitCode: number = EXIT.internal;
  readonly status: number;
  readonly request: RequestDescription;
  readonly serverError: string | undefined;
  readonly serverDetails: readonly string[];
  /** Milliseconds the server asked us to wait (Retry-After), if it gave a usable hint. */
  readonly retryAfterMs: number | undefined;

  constructor(
    status: number,
    request: RequestDescription,
    server: {
      error?: string | undefined;
      details?: readonly string[] | undefined;
      retryAfterMs?: number | undefined;
    } = {},
    message?: string,
    options?: { cause?: unknown },
  ) {
    const detail = server.details && server.details.length > 0 ? ` (${server.details.join('; ')})` : '';
    super(
      message ??
        `${describe(request)} answered HTTP ${status}${server.error ? `: ${server.error}` : ''}${detail}`,
      { status, ...request, serverError: server.error, serverDetails: server.details },
      options,
    );
    this.status = status;
    this.request = request;
    this.serverError = server.error;
    this.serverDetails = server.details ?? [];
    this.retryAfterMs = server.retryAfterMs;
  }
}

/** 401 or 403: the key was refused. Exit 3. */
export class AuthError extends HttpStatusError {
  override readonly code = 'E_AUTH';
  override readonly exitCode = EXIT.auth;

  constructor(
    status: number,
    request: RequestDescription,
    server: { error?: string | undefined; details?: readonly string[] | undefined } = {},
  ) {
    const hint =
      status === 401
        ? 'the API key was refused (401): check MINTLIFY_API_KEY (or --api-key-file) holds a current admin key from the dashboard API keys page'
        : "the API key is not allowed to do this (403): it lacks the scope for this endpoint, or this machine's IP address is not on the key's allow-list";
    super(
      status,
      request,
      server,
      `${describe(request)}: ${hint}${server.error ? ` (server said: ${server.error})` : ''}`,
    );
  }
}

/**
 * Connection refused/reset, DNS failure, or a connect/headers/body timeout. Retryable. Exit 4 when
 * it ends a command, as for sync: the API could not be reached, which is no fault of the tool.
 */
export class NetworkError extends EtlError {
  readonly code: string = 'E_NETWORK';
  readonly exitCode: number = EXIT.windowsFailed;
  readonly request: RequestDescription;

  constructor(request: RequestDescription, reason: string, options?: { cause?: unknown }) {
    super(`${describe(request)} failed: ${reason}`, { ...request, reason }, options);
    this.request = request;
  }
}

/**
 * The request never reached the server: the connection was refused, the host name does not
 * resolve, or TLS failed before anything was sent. The service counted nothing, so the budget
 * takes the request back; a run stops at the first window that cannot get through.
 */
export class UnreachableError extends NetworkError {
  override readonly code = 'E_UNREACHABLE';
  /** The API base URL as configured (no secrets: URLs with credentials are refused up front). */
  readonly baseUrl: string;
  /** The reason in words, without the socket's code: `connection refused`. */
  readonly shortReason: string;

  constructor(request: RequestDescription, baseUrl: string, reason: string, options?: { cause?: unknown }) {
    super(request, reason, options);
    this.baseUrl = baseUrl;
    this.shortReason = reason.replace(/ \([A-Z_]+\)$/, '');
  }
}

/** A response body larger than the client accepts: it was not read any further. Not retried. */
export class ResponseTooLargeError extends EtlError {
  readonly code = 'E_TOO_LARGE';
  readonly exitCode = EXIT.internal;
  readonly request: RequestDescription;

  constructor(request: RequestDescription, limitBytes: number) {
    super(
      `${describe(request)} sent a response body over the ${limitBytes >= 2 ** 20 ? `${Math.round(limitBytes / 2 ** 20)} MiB` : `${Math.round(limitBytes / 1024)} KiB`} limit; it was not read further (a page of this API is far smaller: a proxy or a server fault?)`,
      { ...request, limitBytes },
    );
    this.request = request;
  }
}

/** A response body did not match its schema. Terminal for the window it belongs to. */
export class ValidationError extends EtlError {
  readonly code = 'E_VALIDATION';
  readonly exitCode = EXIT.internal;
  readonly request: RequestDescription;
  readonly issues: readonly string[];

  constructor(request: RequestDescription, issues: readonly string[], options?: { cause?: unknown }) {
    super(
      `${describe(request)} returned a body that does not match the API schema: ${issues.join('; ')}`,
      {
        ...request,
        issues,
      },
      options,
    );
    this.request = request;
    this.issues = issues;
  }
}

/**
 * The budget (ours or the server's) would make us wait longer than the caller allows.
 * The pipeline turns this into deferred windows rather than a failure.
 */
export class RateLimitError extends EtlError {
  readonly code = 'E_RATE_LIMIT';
  readonly exitCode = EXIT.ok;
  readonly waitMs: number;

  constructor(message: string, waitMs: number, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, { ...context, waitMs }, options);
    this.waitMs = waitMs;
  }
}

/** The pages of one window disagree (totals changed, a path repeated with other counts). */
export class DataShiftError extends EtlError {
  readonly code = 'E_DATA_SHIFT';
  readonly exitCode = EXIT.windowsFailed;
}

/** A value the API sent could not be stored even with the memory raised for it: its window fails. Exit 4. */
export class ValueTooLargeError extends EtlError {
  readonly code = 'E_VALUE_TOO_LARGE';
  readonly exitCode = EXIT.windowsFailed;
}

/**
 * A cursor sequence that does not move: the server sent back a cursor it had already given in
 * this window, kept answering pages with nothing new, or ran past the pages its own totals allow.
 * Fails its window (exit 4) after a few requests instead of paging until a 10,000-page backstop.
 */
export class StuckCursorError extends EtlError {
  readonly code = 'E_STUCK_CURSOR';
  readonly exitCode = EXIT.windowsFailed;
}

/**
 * The disk under the database refused a write for want of space: the machine's state, not a
 * window's fault. The run stops, keeps what it committed and defers the rest. Exit 4.
 */
export class DiskFullError extends EtlError {
  readonly code = 'E_DISK_FULL';
  readonly exitCode = EXIT.windowsFailed;
  readonly stopsTheRun = true;
}

/**
 * Another session holds a table the run must write (a DBA's LOCK TABLE, a long ALTER) past the
 * session's lock bound: every later load would wait the same, so the run stops, keeps what it
 * committed and leaves the rest for the next run. Exit 5, like a database in use.
 */
export class TableLockedError extends EtlError {
  readonly code = 'E_TABLE_LOCKED';
  readonly exitCode = EXIT.dbInUse;
  readonly stopsTheRun = true;
}

/** Another process holds the database. Exit 5. */
export class DatabaseInUseError extends EtlError {
  readonly code = 'E_DB_IN_USE';
  readonly exitCode = EXIT.dbInUse;
}

/**
 * The database file is damaged (cut short, unreadable blocks): refused before anything is written
 * to it, with what to do (restore a backup or move it aside). Exit 2, like every input to fix.
 */
export class DatabaseDamagedError extends EtlError {
  readonly code = 'E_DB_DAMAGED';
  readonly exitCode = EXIT.usage;
}

/**
 * A PostgreSQL destination that cannot be reached, refuses the login, or lacks a right the tool
 * needs (create the schema, write its tables): named by host, port, database and user, never the
 * password. Exit 2, like every configuration to fix; nothing was fetched from the API.
 */
export class DestinationError extends EtlError {
  readonly code = 'E_DESTINATION';
  readonly exitCode = EXIT.usage;
}

/** A SQL statement given by the user failed (query command). Exit 2. */
export class SqlError extends EtlError {
  readonly code = 'E_SQL';
  readonly exitCode = EXIT.usage;
}

export function isEtlError(e: unknown): e is EtlError {
  return e instanceof EtlError;
}
