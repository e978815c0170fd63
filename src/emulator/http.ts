import type { IncomingMessage } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/** A request body larger than this is refused; prompts are small. */
export const MAX_BODY_BYTES = 1_048_576;

export class BodyTooLargeError extends Error {}

/**
 * Reads the whole body (every request's body is drained, so keep-alive connections stay
 * usable after an early error answer). Bodies over MAX_BODY_BYTES are dropped, not buffered.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`request body over ${MAX_BODY_BYTES} bytes`);
  return Buffer.concat(chunks);
}

/** Waits `ms`; resolves false instead of waiting when the emulator is closing. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted;
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Retry-After as an HTTP date `seconds` from now, rounded up to the next whole second. */
export function retryAfterDate(seconds: number, now: number = Date.now()): string {
  return new Date(Math.ceil((now + seconds * 1_000) / 1_000) * 1_000).toUTCString();
}

/**
 * The HTTP Date header of an emulator whose data ends on `today`: the wall clock moved to that
 * day (time of day kept), so a client that checks its clock against the service's (sync does)
 * sees the emulator's own date, as it would see the real service's. Without `today`, the clock.
 */
export function serviceDate(today: string | undefined, now: number = Date.now()): string {
  if (today === undefined) return new Date(now).toUTCString();
  const dayMs = 86_400_000;
  const shift = Date.parse(`${today}T00:00:00Z`) - Math.floor(now / dayMs) * dayMs;
  return new Date(now + shift).toUTCString();
}
