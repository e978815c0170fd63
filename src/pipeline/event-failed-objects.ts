import {
  clearObjectFailures,
  readObjectFailures,
  recordObjectFailure,
  recordObjectSkipped,
  type ObjectFailures,
} from '../load/event-failures.js';
import type { SqlSession } from '../load/session.js';
import type { EventSource } from '../sources/events/event-source.js';
import type { EventObject } from '../sources/events/types.js';
import type { Logger } from '../util/log.js';
import { escapeControl } from '../util/safe-text.js';

/** An object this run could not read, as the summary and --json name it. */
export interface FailedObject {
  readonly key: string;
  readonly code: string;
  readonly cause: string;
  /** Failed reads at this ETag, this run's included. */
  readonly attempts: number;
}

/** What a user asked of the failure ledger on the command line. */
export interface FailureRequests {
  /** --events-skip: keys to record as skipped on purpose (not read until their ETag changes). */
  readonly skip?: readonly string[] | undefined;
  /** --events-read: keys to read in this run, whatever their row says. */
  readonly read?: readonly string[] | undefined;
}

/**
 * The failure ledger as one run of one source uses it: which listed objects to leave alone
 * (skipped on purpose at this ETag), which recorded failures to read again by key after the
 * listing, and each outcome written back.
 */
export class FailedObjects {
  readonly failed: FailedObject[] = [];
  /** Keys met in this run (listed or read again), so none is read twice. */
  readonly #seen = new Set<string>();
  readonly #read: Set<string>;

  private constructor(
    private readonly session: SqlSession,
    private readonly source: EventSource,
    private readonly projects: readonly string[],
    private readonly runId: string,
    private readonly now: () => number,
    private rows: ObjectFailures,
    read: readonly string[],
  ) {
    this.#read = new Set(read);
  }

  static async open(
    session: SqlSession,
    source: EventSource,
    run: { projects: readonly string[]; runId: string; now: () => number; logger: Logger },
    requests: FailureRequests,
  ): Promise<FailedObjects> {
    const rows = await readObjectFailures(session, source.label, run.projects);
    const f = new FailedObjects(session, source, run.projects, run.runId, run.now, rows, requests.read ?? []);
    for (const key of requests.skip ?? []) await f.#skip(key, run.logger);
    return f;
  }

  async #skip(key: string, logger: Logger): Promise<void> {
    const obj = await this.source.stat(key);
    if (obj === undefined) {
      logger.warn(
        `--events-skip ${escapeControl(key)}: no such object in ${this.source.label}; nothing skipped (give the key as status lists it)`,
      );
      return;
    }
    await recordObjectSkipped(this.session, this.#write(obj, this.projects), this.rows.get(key));
    this.rows = await readObjectFailures(this.session, this.source.label, this.projects);
    this.#read.delete(key);
    logger.info(
      `events: ${escapeControl(key)} is skipped on purpose: no run reads it until its ETag changes or --events-read names it`,
    );
  }

  /** The projects that want a listed object, less those that skipped it at this ETag. */
  wanting(obj: EventObject, wanting: readonly string[]): readonly string[] {
    this.#seen.add(obj.key);
    if (this.#read.has(obj.key)) return wanting;
    const rows = this.rows.get(obj.key);
    if (rows === undefined) return wanting;
    return wanting.filter((p) => {
      const r = rows.get(p);
      return r === undefined || r.status !== 'skipped' || r.etag !== obj.etag;
    });
  }

  /**
   * Keys to look up by key, that the listing did not give: recorded failures (read again), skipped
   * objects (read again only when their ETag changed) and --events-read keys.
   */
  toRetry(): string[] {
    const keys = new Set<string>([...this.#read, ...this.rows.keys()]);
    return [...keys].filter((k) => !this.#seen.has(k)).sort();
  }

  /** The object as its last failure saw it (its key alone when it has no row: --events-read). */
  known(key: string): EventObject {
    const r = [...(this.rows.get(key)?.values() ?? [])][0];
    return { key, size: r?.size ?? 0, etag: r?.etag ?? null };
  }

  /** Whether the ledger holds a row of this key (a success must clear it). */
  has(key: string): boolean {
    return this.rows.has(key);
  }

  async loaded(key: string, projects: readonly string[]): Promise<void> {
    if (!this.rows.has(key)) return;
    await clearObjectFailures(this.session, this.source.label, key, projects);
    this.rows.delete(key);
  }

  /** The object is gone from the source: nothing left to read, the rows go. */
  async gone(key: string): Promise<void> {
    await clearObjectFailures(this.session, this.source.label, key, this.projects);
    this.rows.delete(key);
  }

  async failedToRead(obj: EventObject, projects: readonly string[], e: unknown): Promise<FailedObject> {
    const code = (e as { code?: unknown }).code;
    const failure = {
      code: typeof code === 'string' && code.startsWith('E_') ? code : 'E_EVENT_OBJECT_LOAD',
      cause: causeOf(e, this.source.label, obj.key),
    };
    const attempts = await recordObjectFailure(
      this.session,
      this.#write(obj, projects),
      failure,
      this.rows.get(obj.key),
    );
    const f = { key: obj.key, ...failure, attempts };
    this.failed.push(f);
    return f;
  }

  #write(obj: EventObject, projects: readonly string[]) {
    return {
      source: this.source.label,
      key: obj.key,
      etag: obj.etag,
      size: obj.size,
      projects,
      runId: this.runId,
      at: this.now(),
    };
  }
}

/** The failure's first line, without the source and key a message may start with (stored beside it). */
function causeOf(e: unknown, label: string, key: string): string {
  const text = e instanceof Error ? e.message : String(e);
  const prefix = `${label}${key}`;
  const rest = text.startsWith(prefix) ? text.slice(prefix.length).replace(/^(:\s*|\s+)/, '') : text;
  return (rest.split('\n', 1)[0] ?? '') || 'failed';
}
