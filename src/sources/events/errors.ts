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

/**
 * S3 refused to read one object (AccessDenied on GetObject, HTTP 403) while it let the bucket be
 * listed: a policy or a KMS key that leaves this object out. The object's failure, not the
 * source's: the run goes on past it. Exit 4.
 */
export class EventObjectForbiddenError extends EtlError {
  readonly code = 'E_EVENT_OBJECT_FORBIDDEN';
  readonly exitCode = EXIT.windowsFailed;
}

/** The object is in an archive storage class (Glacier, Deep Archive): it must be restored to be read. Exit 4. */
export class EventObjectArchivedError extends EtlError {
  readonly code = 'E_EVENT_OBJECT_ARCHIVED';
  readonly exitCode = EXIT.windowsFailed;
}

/** The object's bytes came slower than the floor its listed size allows (see read-bounds.ts). Exit 4. */
export class EventObjectTooSlowError extends EtlError {
  readonly code = 'E_EVENT_OBJECT_SLOW';
  readonly exitCode = EXIT.windowsFailed;
  readonly retryable = true;
}
