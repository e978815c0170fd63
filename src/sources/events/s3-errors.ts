import { maskUserinfo } from '../../util/url-text.js';
import {
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

const CREDENTIALS_HELP =
  'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or AWS_PROFILE naming a profile of ~/.aws/config, for a key allowed s3:ListBucket and s3:GetObject on the bucket';

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
      `${where.label}: no AWS credentials found: ${CREDENTIALS_HELP}`,
      context,
      opts,
    );
  }
  if (AUTH_NAMES.has(name) || status === 403) {
    return new EventSourceAuthError(
      `${object}: the bucket refused the credentials (${name}${status ? `, HTTP ${status}` : ''}): ${CREDENTIALS_HELP}`,
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
