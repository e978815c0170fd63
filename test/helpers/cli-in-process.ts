import { Readable } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CliResult } from './cli.js';

/**
 * The built CLI run in this test's own process: what a run prints and stores, without paying a
 * process start (about a second of module loading each) for every command a test runs.
 *
 * A run sees only the environment it is given (plus PATH), an empty stdin unless given one, and
 * writes into buffers instead of this process's stdout and stderr, as a spawned CLI would. Its
 * modules' per-run memory is forgotten when it starts (src/util/run-state.ts), so nothing of one
 * run reaches the next. Runs never overlap (they share process.env and the standard streams): a
 * second one waits for the first. A test that needs two at once, kills one or sends it a signal
 * uses runCliProcess.
 */

type RunMain = (argv: readonly string[]) => Promise<number>;

const RUN_JS = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'run.js');

let runMain: RunMain | undefined;
/** The run under way: a second waits for it (runs share process.env and the standard streams). */
let queue: Promise<unknown> = Promise.resolve();

/**
 * The built modules, which vitest leaves to Node's own loader (server.deps.external in
 * vitest.config.ts): the CLI's modules load as the installed command loads them.
 */
async function loadRunMain(): Promise<RunMain> {
  runMain ??= ((await import(pathToFileURL(RUN_JS).href)) as { runMain: RunMain }).runMain;
  return runMain;
}

interface Capture {
  text: string;
}

/** Replaces a stream's write with one that appends to `capture`; returns the way back. */
function captureWrites(stream: NodeJS.WriteStream, capture: Capture): () => void {
  const own = Object.getOwnPropertyDescriptor(stream, 'write');
  const write = (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const done = typeof encoding === 'function' ? encoding : cb;
    capture.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (typeof done === 'function') process.nextTick(() => (done as () => void)());
    return true;
  };
  Object.defineProperty(stream, 'write', { configurable: true, writable: true, value: write });
  return () => {
    if (own) Object.defineProperty(stream, 'write', own);
    else Reflect.deleteProperty(stream, 'write');
  };
}

/**
 * Removes the listeners a run left on an emitter: a process ends with its run, and so do they
 * (left, they would pile up over runs into a MaxListenersExceededWarning on the next run's stderr).
 */
function keepListeners(emitter: NodeJS.EventEmitter): () => void {
  const before = new Map(emitter.eventNames().map((name) => [name, new Set(emitter.listeners(name))]));
  return () => {
    for (const name of emitter.eventNames()) {
      const kept = before.get(name);
      for (const listener of emitter.listeners(name))
        if (!kept?.has(listener)) emitter.removeListener(name, listener as (...args: unknown[]) => void);
    }
  };
}

/** process.stdin as the run sees it: the given text, or at once the end of an empty input. */
function replaceStdin(input: string | undefined): () => void {
  const descriptor = Object.getOwnPropertyDescriptor(process, 'stdin');
  const stream = Readable.from(input === undefined ? [] : [Buffer.from(input)]);
  Object.defineProperty(process, 'stdin', { configurable: true, get: () => stream });
  return () => {
    if (descriptor) Object.defineProperty(process, 'stdin', descriptor);
  };
}

export interface InProcessOptions {
  cwd?: string;
  /** What the run reads on stdin; none (an empty input) if not given. */
  stdin?: string;
}

/**
 * Runs `mintlify-etl ARGS` in this process with only `env` (plus PATH, CI=1 and this test's
 * clock as MINTLIFY_ETL_NOW, as runCliProcess gives a process) and returns what a process would.
 */
export async function runCliInProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  opts: InProcessOptions = {},
): Promise<CliResult> {
  const main = await loadRunMain();
  const turn = queue.then(() => runAlone(main, args, env, opts));
  queue = turn.catch(() => undefined);
  return turn;
}

async function runAlone(
  main: RunMain,
  args: readonly string[],
  env: Record<string, string>,
  opts: InProcessOptions,
): Promise<CliResult> {
  const saved = { env: process.env, cwd: process.cwd(), noDeprecation: process.noDeprecation === true };
  const stdout: Capture = { text: '' };
  const stderr: Capture = { text: '' };
  const restoreOut = captureWrites(process.stdout, stdout);
  const restoreErr = captureWrites(process.stderr, stderr);
  const restoreIn = replaceStdin(opts.stdin);
  const listeners = [process.stdout, process.stderr].map(keepListeners);
  process.env = {
    PATH: saved.env['PATH'] ?? '',
    CI: '1',
    MINTLIFY_ETL_NOW: new Date().toISOString(),
    ...env,
  };
  try {
    if (opts.cwd !== undefined) process.chdir(opts.cwd);
    const code = await main(args);
    return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
  } finally {
    process.env = saved.env;
    process.noDeprecation = saved.noDeprecation;
    process.chdir(saved.cwd);
    for (const restore of listeners) restore();
    restoreIn();
    restoreErr();
    restoreOut();
  }
}
