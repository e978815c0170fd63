/** Raised when the reader of stdout went away (`| head`): the command stops quietly. */
export class OutputClosed extends Error {
  constructor() {
    super('stdout was closed by its reader');
    this.name = 'OutputClosed';
  }
}

export interface Output {
  /** Resolves once the stream can take more (back-pressure); rejects with OutputClosed on EPIPE. */
  write(text: string): Promise<void>;
}

/** Writes to a stream with back-pressure, so that a million-row CSV does not pile up in memory. */
export function createOutput(stream: NodeJS.WritableStream = process.stdout): Output {
  const state: { closed?: OutputClosed } = {};
  // A function, not a read of state.closed: the type narrowing would not see the error handler run.
  const check = (): void => {
    if (state.closed) throw state.closed;
  };
  const onError = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') state.closed = new OutputClosed();
    else throw e;
  };
  // Never removed: a late EPIPE (main's final flush) must not become an uncaught exception.
  stream.on('error', onError);
  return {
    async write(text: string): Promise<void> {
      check();
      if (text === '') return;
      if (stream.write(text)) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          stream.off('drain', done);
          stream.off('error', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('error', done);
        stream.on('close', done);
      });
      check();
    },
  };
}
