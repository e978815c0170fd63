import { EXIT } from '../errors.js';

/**
 * The environment the tool reads, printed by the top-level --help. A test compares it with the variables
 * read in src, so a new one cannot go undocumented.
 */
export const ENVIRONMENT: Readonly<Record<string, string>> = {
  MINTLIFY_API_KEY: 'admin API key (mint_...); or --api-key-file PATH',
  MINTLIFY_PROJECT_ID: 'project id(s), comma-separated',
  MINTLIFY_API_URL: 'API base URL (default https://api.mintlify.com)',
  MINTLIFY_ETL_DB:
    'a DuckDB file (default data/analytics.duckdb) or postgresql://USER@HOST:5432/DATABASE; or --db',
  MINTLIFY_ETL_SCHEMA: 'PostgreSQL: the schema of the tables and views (default mintlify); or --schema',
  MINTLIFY_ETL_BUDGET_SCOPE:
    "sync, check, status: whose budget requests count against (default: the key's fingerprint); or --budget-scope",
  MINTLIFY_ETL_STREAMS: 'streams for sync and check when --streams is not given, comma-separated',
  MINTLIFY_ETL_EVENTS:
    'sync: the Enterprise event stream, s3://BUCKET/PREFIX or a folder mirroring it; or --events',
  MINTLIFY_ETL_TRAFFIC_CLASSES:
    'sync, reclassify: the user agent lists of the traffic classes (default config/traffic-classes.json)',
  AWS_ENDPOINT_URL_S3:
    'sync --events, export --to s3://…: an S3-compatible store (path-style); AWS_* credentials as the AWS SDK reads them',
  AWS_ENDPOINT_URL:
    'sync --events, export --to s3://…: the same, for every AWS service (AWS_ENDPOINT_URL_S3 wins)',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED:
    "the AWS SDK's Node 20 warning; the tool sets it to true unless set",
  MINTLIFY_ETL_DEBUG: 'set to 1: an internal error prints its stack, a failure its cause',
  MINTLIFY_ETL_NOW:
    'for tests only: an ISO 8601 instant the clock of sync, status, report and check starts at',
  MINTLIFY_ETL_PG_DEAD_CLIENT_MS:
    'PostgreSQL: how soon (ms, default 120000) the server frees the locks of a run whose machine died',
  MINTLIFY_ETL_PG_LOCK_TIMEOUT_MS:
    "PostgreSQL: how long (ms, default 30000) a run waits for another session's lock on a table before it stops (exit 5)",
  MINTLIFY_ETL_WEBHOOK_URL:
    'alerts and digest: the webhook to POST to (a secret: never shown); or --webhook URL',
  PGPASSWORD: 'PostgreSQL: the password when the --db URL has none (else ~/.pgpass); never shown',
  PGHOST: 'PostgreSQL: the host when the --db URL has none (default localhost)',
  PGPORT: 'PostgreSQL: the port when the --db URL has none (default 5432)',
  PGUSER: 'PostgreSQL: the user when the --db URL has none (default $USER)',
  PGDATABASE: 'PostgreSQL: the database when the --db URL has none (default: the user name)',
  USER: 'PostgreSQL: the user when neither the --db URL nor PGUSER names one',
  NO_COLOR: 'set (not empty): no colour in the terminal report',
  TERM: 'dumb: no colour in the terminal report',
  CI: 'set: no progress bar, even on a terminal',
  PATH: 'demo prints `mintlify-etl ...` when that name on PATH is this install, else node with its path',
  COLUMNS: 'width of the terminal report when stdout is not a terminal (default 100)',
};

/** What each exit code means; keyed by EXIT so that a new code cannot be left out (typecheck). */
const EXIT_MEANING: Readonly<Record<keyof typeof EXIT, string>> = {
  ok: 'done (or deferred by the budget, said in the summary)',
  internal: 'internal error',
  usage: 'bad usage or configuration, an unknown project or a wrong API URL (nothing written)',
  auth: 'key refused (401) or not allowed (403)',
  windowsFailed: 'some days failed after retries (the rest loaded), or the API could not be reached',
  deliveryFailed: 'alerts, digest: the webhook did not take the message, retries included',
  dbInUse: 'database in use by another run',
  interrupted: 'interrupted by Ctrl-C or SIGTERM (finished days were kept)',
  alertsFired: 'alerts: at least one alert was sent by this run',
  budgetSpent: 'check: the request budget is spent, nothing was checked (the WAIT lines say when it frees)',
};

function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `  ${k.padEnd(width)}${v}`).join('\n');
}

/** The text after the top-level --help: every variable and every exit code. */
export function helpReference(): string {
  // Two names may share a code (4: windows failed, delivery failed): one line per code.
  const byCode = new Map<number, string[]>();
  for (const k of Object.keys(EXIT_MEANING) as (keyof typeof EXIT)[])
    byCode.set(EXIT[k], [...(byCode.get(EXIT[k]) ?? []), EXIT_MEANING[k]]);
  const codes = [...byCode]
    .sort((a, b) => a[0] - b[0])
    .map(([code, meanings]) => [String(code), meanings.join('; ')] as const);
  return `
Environment:
${table(Object.entries(ENVIRONMENT))}

Exit codes:
${table(codes)}`;
}
