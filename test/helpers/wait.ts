import { setTimeout as delay } from 'node:timers/promises';

export interface WaitForOptions {
  /** What is awaited, for the failure message. */
  readonly what: string;
  /** Polling interval (default 10 ms). */
  readonly intervalMs?: number;
  /** Overall bound: a hang guard, not a timing claim (default 30 s). */
  readonly timeoutMs?: number;
  /** Checked before every poll: a reason to give up at once (e.g. the process already exited). */
  readonly abortIf?: () => string | undefined;
}

/**
 * Polls `condition` until it returns a value other than undefined/false and returns that value.
 * Waits for the event itself, never for a fixed time; the overall bound only stops a hang.
 */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  opts: WaitForOptions,
): Promise<T> {
  const interval = opts.intervalMs ?? 10;
  const deadline = performance.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    const reason = opts.abortIf?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${opts.what}: ${reason}`);
    if (performance.now() > deadline) {
      throw new Error(`gave up waiting for ${opts.what} after ${opts.timeoutMs ?? 30_000} ms`);
    }
    await delay(interval);
  }
}

/** Waits until Date.now() has reached `epochMs` (a moment the logic under test defines). */
export async function untilEpoch(epochMs: number): Promise<void> {
  await waitFor(() => Date.now() >= epochMs, {
    what: `the clock to reach ${new Date(epochMs).toISOString()}`,
    intervalMs: 5,
    timeoutMs: Math.max(0, epochMs - Date.now()) + 30_000,
  });
}
