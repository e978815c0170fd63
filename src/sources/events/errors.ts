import { EXIT, EtlError } from '../../errors.js';

/**
 * The event source's failures. Messages name the source by its label (`s3://bucket/prefix/`,
 * `file:///path/`) and the object's key, never a credential or a signed URL.
 */

/** An object's bytes cannot be read as what they claim (a gzip stream cut short or corrupt). */
export class EventObjectDamagedError extends EtlError {
  readonly code = 'E_EVENT_OBJECT_DAMAGED';
  readonly exitCode = EXIT.windowsFailed;
}

/** No credentials, or the bucket refused them (AccessDenied, InvalidAccessKeyId, ...). Exit 3. */
export class EventSourceAuthError extends EtlError {
  readonly code = 'E_EVENTS_AUTH';
  readonly exitCode = EXIT.auth;
}

/** The source does not exist or is not what it must be (no such bucket, not a folder). Exit 2. */
export class EventSourceUsageError extends EtlError {
  readonly code = 'E_EVENTS_SOURCE';
  readonly exitCode = EXIT.usage;
}

/**
 * The store could not be reached or timed out (the SDK's own bounded retries included), or it
 * answered 5xx. Retryable: a later run may get through. Exit 4, as for an unreachable API.
 */
export class EventSourceUnreachableError extends EtlError {
  readonly code = 'E_EVENTS_UNREACHABLE';
  readonly exitCode = EXIT.windowsFailed;
  readonly retryable = true;
}

/** An object listed a moment ago is gone (deleted or moved under the run). Exit 4. */
export class EventObjectGoneError extends EtlError {
  readonly code = 'E_EVENT_OBJECT_GONE';
  readonly exitCode = EXIT.windowsFailed;
  readonly retryable = true;
}

/** Any other failure of the store (an answer the source does not expect). Exit 4. */
export class EventSourceFailedError extends EtlError {
  readonly code = 'E_EVENTS_S3';
  readonly exitCode = EXIT.windowsFailed;
}
