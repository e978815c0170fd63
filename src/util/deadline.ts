/**
 * A signal that aborts after `ms`, or when `parent` aborts, held by strong references until
 * disposed. Node's `AbortSignal.timeout` inside `AbortSignal.any` can be garbage-collected before
 * it fires (the composite holds its sources weakly): `agent wait --timeout 2s` then waited for
 * ever on a trickling server, one run in three. A plain timer cannot be collected.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True once the time ran out (not when the parent aborted). */
  readonly expired: boolean;
  /** Clears the timer and the parent's listener; call it when the guarded work ends. */
  dispose(): void;
}

export function deadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParent = (): void => controller.abort(parent?.reason);
  const timer = setTimeout(
    () => {
      expired = true;
      controller.abort(new DOMException(`deadline of ${ms} ms passed`, 'TimeoutError'));
    },
    Math.max(0, ms),
  );
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}
