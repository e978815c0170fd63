import pRetry, { AbortError } from 'p-retry';
import { request } from 'undici';
import { EtlError, EXIT } from '../errors.js';
import { registerSecret } from '../util/secrets.js';
import { deadline } from '../util/deadline.js';

/**
 * The webhook refused the payload or could not be reached, retries included: the delivery
 * failed (exit 4), a fault outside the tool, not an internal error.
 */
export class WebhookError extends EtlError {
  readonly code = 'E_WEBHOOK';
  readonly exitCode = EXIT.deliveryFailed;
}

export interface WebhookOptions {
  /** Per attempt: connect, headers and body each. */
  readonly timeoutMs?: number;
  readonly retries?: number;
  /** First retry delay; doubles after each. */
  readonly retryDelayMs?: number;
  /** Sent as the Idempotency-Key header: the same on every retry of the same message. */
  readonly idempotencyKey?: string;
}

/**
 * A webhook URL carries its credential in its path (Slack, Teams): the whole URL, and its path,
 * become secrets of the process before anything can print them.
 */
export function registerWebhookSecret(url: string): void {
  // The whole URL only as a whole: its pieces (https://, the host) are public; its path is the secret.
  registerSecret(url, 'webhook-url-****', { pieces: false });
  try {
    const u = new URL(url);
    registerSecret(`${u.pathname}${u.search}`, '/****');
  } catch {
    // Not a URL: checked (and refused) by the caller; the raw text is registered already.
  }
}

export function checkWebhookUrl(url: string, flag: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new WebhookUsage(`${flag} is not a URL (its value is not shown: it is a secret)`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new WebhookUsage(`${flag} must be an http(s) URL`);
  }
  return u;
}

class WebhookUsage extends EtlError {
  readonly code = 'E_USAGE';
  readonly exitCode = EXIT.usage;
}

/**
 * POSTs a JSON payload; retries on 5xx, 429 (the receiver's rate limit: a wait, not a refusal)
 * and network failures (bounded attempts and time), gives up at once on another status. The error never holds the URL.
 */
export async function postJson(url: string, payload: unknown, o: WebhookOptions = {}): Promise<void> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const body = JSON.stringify(payload);
  const attempt = async (): Promise<void> => {
    let status: number;
    const limit = deadline(timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(o.idempotencyKey !== undefined ? { 'idempotency-key': o.idempotencyKey } : {}),
        },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: limit.signal,
      });
      status = res.statusCode;
      await res.body.dump();
    } catch (e) {
      throw new WebhookError(`the webhook could not be reached (${(e as Error).message})`, {}, { cause: e });
    } finally {
      limit.dispose();
    }
    if (status >= 200 && status < 300) return;
    const err = new WebhookError(`the webhook answered ${status}`, { status });
    if (status === 429 || status >= 500) throw err;
    throw new AbortError(err);
  };
  try {
    await pRetry(attempt, {
      retries: o.retries ?? 3,
      minTimeout: o.retryDelayMs ?? 1_000,
      factor: 2,
      randomize: false,
    });
  } catch (e) {
    if (e instanceof WebhookError) throw e;
    throw new WebhookError(`the webhook failed (${(e as Error).message})`, {}, { cause: e });
  }
}
