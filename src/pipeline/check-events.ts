import { EXIT, isEtlError } from '../errors.js';
import { escapeControl } from '../util/safe-text.js';
import { emptySourceHint } from '../sources/events/empty-source.js';
import { openEventSource, type EventObject, type EventSource } from '../sources/events/index.js';
import { sizeText } from '../util/size-text.js';
import { maskUserinfo } from '../util/url-text.js';

/** What `check` found of the event source. */
export interface EventSourceCheck {
  /** The source's label (`s3://bucket/prefix/`, `file:///path/`), or as given when it could not be opened. */
  readonly source: string;
  readonly ok: boolean;
  /** The first object listed, or why the listing failed (never a credential). */
  readonly detail: string;
  readonly exitCode: number;
  /** Listing requests made (S3: one ListObjectsV2 page of one key). */
  readonly listRequests: number;
}

/** S3: two attempts, and bounds a person waiting on `check` accepts (the sync's are longer). */
const CHECK_SOURCE = { maxKeys: 1, maxAttempts: 2, connectionTimeoutMs: 5_000, requestTimeoutMs: 20_000 };

/**
 * Lists the first key of the event source, to prove its credentials, bucket, prefix and region
 * (or the folder) before a nightly sync relies on them: one listing request, no object read, no
 * API request. A failure is a result with the exit code a sync would end with (2 no such source, 3
 * credentials refused, 4 unreachable), not an exception.
 */
export async function checkEventSource(spec: string): Promise<EventSourceCheck> {
  let source: EventSource;
  try {
    source = await openEventSource(spec, CHECK_SOURCE);
  } catch (e) {
    return failed(maskUserinfo(spec), e, 0);
  }
  try {
    let first: EventObject | undefined;
    for await (const o of source.list()) {
      first = o;
      break;
    }
    if (first === undefined) {
      const hint = await emptySourceHint(spec, CHECK_SOURCE);
      return {
        source: source.label,
        ok: false,
        detail: `${hint.text}: check the prefix in --events (or MINTLIFY_ETL_EVENTS)`,
        exitCode: EXIT.usage,
        listRequests: source.stats.listRequests + hint.listRequests,
      };
    }
    const detail = `listed: the first object is ${escapeControl(first.key)} (${sizeText(first.size)})`;
    return {
      source: source.label,
      ok: true,
      detail,
      exitCode: EXIT.ok,
      listRequests: source.stats.listRequests,
    };
  } catch (e) {
    return failed(source.label, e, source.stats.listRequests);
  } finally {
    source.close();
  }
}

function failed(source: string, e: unknown, listRequests: number): EventSourceCheck {
  const exitCode = isEtlError(e) && e.exitCode !== EXIT.ok ? e.exitCode : EXIT.internal;
  if (exitCode === EXIT.internal) throw e;
  return { source, ok: false, detail: (e as Error).message, exitCode, listRequests };
}
