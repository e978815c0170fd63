import { UsageError } from '../errors.js';

/**
 * For tests only: MINTLIFY_ETL_NOW=ISO-8601 makes the run start at that instant (and tick from
 * there), so a test of the CLI means the same thing on every day of the year. Read here only;
 * undefined when it is not set, and the system clock rules.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): (() => number) | undefined {
  const raw = env['MINTLIFY_ETL_NOW'];
  if (raw === undefined || raw === '') return undefined;
  const start = Date.parse(raw);
  if (!Number.isFinite(start) || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) {
    throw new UsageError(
      `MINTLIFY_ETL_NOW must be an ISO 8601 instant (for tests only), got ${JSON.stringify(raw)}`,
      {
        value: raw,
      },
    );
  }
  const offset = start - Date.now();
  return () => Date.now() + offset;
}
