import type { Logger } from '../../src/util/log.js';

/** A silent logger that keeps the warnings a run gives, for a test to read. */
export function warningsLogger(): { readonly logger: Logger; readonly warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => void warnings.push(m),
    error: () => undefined,
    warnOnce: (_k, m) => void warnings.push(m),
  };
  return { logger, warnings };
}
