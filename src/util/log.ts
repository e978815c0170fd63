import { safeLine } from './safe-text.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  /** Logs a warning only the first time its kind is seen (data-quality findings). */
  warnOnce(kind: string, msg: string): void;
}

export interface LoggerOptions {
  readonly level?: LogLevel;
  /** Where lines go; stderr by default so that stdout stays for --json and data. */
  readonly write?: (line: string) => void;
  /** Called before each line so that a progress bar can clear itself first. */
  readonly beforeWrite?: () => void;
  readonly afterWrite?: () => void;
  /**
   * Prefix every line with an ISO timestamp and this run id: a cron log collects many nights'
   * lines in one file, and each must say when and from which run (sync_runs.run_id) it came.
   * Set by the CLI when stderr is not a terminal.
   */
  readonly stamp?: { runId: string; now?: () => number };
}

/**
 * Logs to stderr, one line per message, made safe on the way out (safe-text.ts): secrets
 * redacted, control characters escaped so a value cannot split or forge a line, long values cut.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = ORDER[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  const seen = new Set<string>();
  const emit = (level: LogLevel, msg: string): void => {
    if (ORDER[level] < min) return;
    const stamp = opts.stamp
      ? `${new Date((opts.stamp.now ?? Date.now)()).toISOString()} run=${opts.stamp.runId} `
      : '';
    const prefix = level === 'info' ? '' : `${level}: `;
    opts.beforeWrite?.();
    write(`${stamp}${prefix}${safeLine(msg)}\n`);
    opts.afterWrite?.();
  };
  return {
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
    warnOnce(kind, m) {
      if (seen.has(kind)) return;
      seen.add(kind);
      emit('warn', m);
    },
  };
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  warnOnce: () => {},
};
