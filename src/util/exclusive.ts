// A connection runs one transaction at a time: an awaited statement from another caller landing
// between a BEGIN and its COMMIT would join that transaction (and vanish with its ROLLBACK).
const queues = new WeakMap<object, Promise<unknown>>();

/** Runs `fn` when every earlier `exclusive` call on the same connection has settled. */
export function exclusive<T>(connection: object, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(connection) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  queues.set(
    connection,
    next.then(
      () => undefined,
      () => undefined,
    ),
  );
  return next;
}
