/**
 * What a command remembers for the rest of its process (the secrets it registered, the files it
 * found whole, the views it applied) belongs to that one run. The CLI starts every run by
 * forgetting it, so that a second run in the same process (the tests run the CLI in their own
 * process) starts as a fresh process would: a file replaced in between is checked again, a
 * secret of the last run masks nothing in the next.
 */
const resets: (() => void)[] = [];

/** Registers how a module forgets its per-run memory. Called once, when the module loads. */
export function onRunStart(reset: () => void): void {
  resets.push(reset);
}

/** Forgets every module's per-run memory: the first thing a command run does. */
export function startRun(): void {
  for (const reset of resets) reset();
}
