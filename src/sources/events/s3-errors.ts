import { maskUserinfo } from '../../util/url-text.js';
import {
  EventObjectArchivedError,
  EventObjectForbiddenError,
  EventObjectGoneError,
  EventSourceAuthError,
  EventSourceUnreachableError,
  EventSourceUsageError,
  EventSourceFailedError,
} from './errors.js';

/**
 * An AWS SDK failure as one of the source's errors. The message is built here from the error's
 * name, HTTP status and network code: never the SDK's own text, which may quote a request (a
 * signed URL, a header); the SDK error stays as `cause` for a debugger.
 */
export interface S3Where {
  readonly label: string;
  readonly endpoint: string | undefined;
  /** The key being read, when reading one. */
  readonly key?: string;
  /** The S3 actions the command needs, for the credentials' help (default: the event source's). */
  readonly needs?: string;
}

const AUTH_NAMES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'AllAccessDisabled',
  'AccountProblem',
]);
/**
 * Names that say the credentials themselves are wrong, whatever is read with them: a failure of
 * the whole source even on one object. AccessDenied (and a bare 403) on one object while the
 * listing was allowed is that object's failure instead.
 */
const CREDENTIAL_NAMES = new Set([...AUTH_NAMES].filter((n) => n !== 'AccessDenied'));
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'TimeoutError',
  'RequestTimeout',
]);

function credentialsHelp(where: S3Where): string {
  const needs = where.needs ?? 's3:ListBucket and s3:GetObject';
  return `set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or AWS_PROFILE naming a profile of ~/.aws/config, for a key allowed ${needs} on the bucket`;
}

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  message?: string;
}

export function s3Error(e: unknown, where: S3Where): unknown {
  const err = (e ?? {}) as SdkError;
  const name = err.name ?? 'Error';
  if (name === 'AbortError') return e;
  const status = err.$metadata?.httpStatusCode;
  const code = err.code ?? name;
  const object = where.key === undefined ? where.label : `${where.label}${where.key}`;
  const context = { source: where.label, key: where.key, error: name, status };
  const opts = { cause: e };
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(err.message ?? '')) {
    return new EventSourceAuthError(
      `${where.label}: no AWS credentials found: ${credentialsHelp(where)}`,
      context,
      opts,
    );
  }
  const objectFailure = objectError(err, name, status, where, context, opts);
  if (objectFailure !== undefined) return objectFailure;
  if (AUTH_NAMES.has(name) || status === 403) {
    return new EventSourceAuthError(
      `${object}: the bucket refused the credentials (${name}${status ? `, HTTP ${status}` : ''}): ${credentialsHelp(where)}`,
      context,
      opts,
    );
  }
  if (name === 'NoSuchBucket') {
    return new EventSourceUsageError(
      `${where.label}: no such bucket (check the bucket name and AWS_REGION)`,
      context,
      opts,
    );
  }
  if (
    where.key !== undefined &&
    (name === 'NoSuchKey' || name === 'PreconditionFailed' || status === 404 || status === 412)
  ) {
    return new EventObjectGoneError(
      `${object} is gone or changed since it was listed (${name})`,
      context,
      opts,
    );
  }
  if (NETWORK_CODES.has(code) || NETWORK_CODES.has(name) || (status !== undefined && status >= 500)) {
    const at = where.endpoint === undefined ? 'S3' : `the S3 endpoint ${maskUserinfo(where.endpoint)}`;
    return new EventSourceUnreachableError(
      `${object}: ${at} could not be reached or did not answer in time (${status ? `HTTP ${status}` : code}), retries included`,
      context,
      opts,
    );
  }
  return new EventSourceFailedError(
    `${object}: S3 failed (${name}${status ? `, HTTP ${status}` : ''})`,
    context,
    opts,
  );
}

/**
 * A failure of one object (read by key) that says nothing of the others: archived
 * (InvalidObjectState) or refused (AccessDenied, a HEAD's bare 403).
 */
function objectError(
  err: SdkError & { StorageClass?: string },
  name: string,
  status: number | undefined,
  where: S3Where,
  context: Record<string, unknown>,
  opts: { cause: unknown },
): Error | undefined {
  if (where.key === undefined) return undefined;
  const object = `${where.label}${where.key}`;
  if (name === 'InvalidObjectState') {
    const cls = err.StorageClass === undefined ? '' : ` ${err.StorageClass}`;
    return new EventObjectArchivedError(
      `${object} is archived (InvalidObjectState: storage class${cls}): restore it (aws s3api restore-object) for the next run to read it, or skip it (sync --events-skip KEY)`,
      context,
      opts,
    );
  }
  if (!CREDENTIAL_NAMES.has(name) && (name === 'AccessDenied' || status === 403)) {
    return new EventObjectForbiddenError(
      `${object}: reading this object was refused (${name}${status ? `, HTTP ${status}` : ''}) while listing the bucket was allowed: a bucket policy or the object's KMS key leaves it out of s3:GetObject (or kms:Decrypt) for these credentials`,
      context,
      opts,
    );
  }
  return undefined;
}
