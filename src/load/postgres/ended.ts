import { EtlError, EXIT } from '../../errors.js';

/**
 * The server ended one of the run's connections mid-run: a DBA's pg_terminate_backend, a server
 * restart or crash, a network that dropped it. Not the tool's fault and nothing to configure: what
 * was committed stays, the rest is retried by the next run. Exit 4, as when the API cannot be
 * reached mid-run.
 */
export class ConnectionEndedError extends EtlError {
  readonly code = 'E_DESTINATION_ENDED';
  readonly exitCode = EXIT.windowsFailed;
  /** Every later write would fail the same way: the pipeline stops the run at the first (sync-run.ts). */
  readonly stopsTheRun = true;
}

const ENDED_CODES = new Set(['57P01', '57P02', '57P05', 'ECONNRESET', 'EPIPE']);
const ENDED_TEXT =
  /Client has encountered a connection error|Connection terminated|terminating connection|server closed the connection/i;

/** Whether the error says the connection is gone (not that a statement failed on a live one). */
export function isConnectionEnded(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | undefined;
  const code = err?.code ?? '';
  return ENDED_CODES.has(code) || code.startsWith('08') || ENDED_TEXT.test(String(err?.message ?? ''));
}

/** The error as the user should read it: one line with what to do, when the connection is gone. */
export function endedOr(e: unknown, label: string): unknown {
  if (e instanceof EtlError || !isConnectionEnded(e)) return e;
  return new ConnectionEndedError(
    `the PostgreSQL server ended this run's connection to ${label} (an administrator ended it, e.g. with pg_terminate_backend, or the server restarted or the network dropped it): what was loaded before is kept; run the sync again, and if it happens every run, ask the server's administrator what ends it`,
    { pgCode: (e as { code?: string }).code ?? null },
    { cause: e },
  );
}
