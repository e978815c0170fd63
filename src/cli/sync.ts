import { Option, type Command } from 'commander';
import {
  DEFAULT_MAX_THREADS,
  DEFAULT_STREAMS,
  FEEDBACK_LOOKBACK_DAYS,
  STREAM_NAMES,
} from '../streams/names.js';
import { collect, intFlag, PROJECTS_FLAG, PROJECTS_HELP } from './options.js';
import { BUDGET_SCOPE_FLAG, BUDGET_SCOPE_HELP, addDbOptions } from './db-flags.js';
import type { CommandResult } from './result.js';

export interface SyncFlags {
  project?: string[];
  streams?: string;
  events?: string;
  eventsProject?: string;
  trafficClasses?: string;
  eventsSkip?: string[];
  eventsRead?: string[];
  maxPages?: string[];
  from?: string;
  to?: string;
  lookback: number;
  feedbackLookback: number;
  maxThreads: number;
  periodPages?: boolean;
  refresh?: boolean;
  db?: string;
  schema?: string;
  budgetScope?: string;
  rateLimit: string;
  maxRequests?: number;
  maxDuration: string;
  maxWait: string;
  concurrency: number;
  includeToday?: boolean;
  dryRun?: boolean;
  json?: boolean;
  apiKeyFile?: string;
  apiUrl?: string;
  verbose?: boolean;
  quiet?: boolean;
}

export function registerSync(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  const cmd = program
    .command('sync')
    .summary(
      'load docs analytics (visitors, views, searches, ...) into DuckDB or PostgreSQL, incremental by default',
    )
    .description(
      [
        'Loads the analytics of each stream (--streams) into the database: a DuckDB file, or a schema of a PostgreSQL database (--db postgresql://...). Day streams (visitors, views, searches, caller_stats, feedback_by_page) fetch one window per UTC day; event streams fetch ranges of days as one cursor sequence (feedback: calendar months, re-read for --feedback-lookback days so triage statuses stay current; assistant: ISO weeks; --from/--to choose which months and weeks are read, and each is read whole, up to yesterday while it runs, so a narrower range never drops rows loaded outside it); assistant_threads fetches one request per new or grown thread (at most --max-threads); visitors_weekly / visitors_monthly fetch the true unique visitors of each complete ISO week / month. Each stream is planned on its own; all share one request budget, newest days first.',
        '',
        'With no --from, the run is incremental: from the day after the last loaded day minus --lookback days (skipping those already fetched --lookback days after they ended), plus every day missing inside the loaded range, every day an earlier run deferred, failed or did not get to before it was killed; on an empty database, the last 30 days. --to defaults to today (UTC) and is exclusive, so the current, partial day is only loaded with --include-today.',
        '',
        'Every request passes through one request budget (--rate-limit; the service allows 100/1h per organization) recorded in the database, so the next run knows what is already spent. A day starts only when the budget and the bounds leave room for all its pages. A run bounded by --max-requests, --max-duration or --max-wait stops cleanly; the next run picks up the rest without being told.',
      ].join('\n'),
    )
    .option(PROJECTS_FLAG, PROJECTS_HELP, collect)
    .option(
      '--streams <list>',
      `streams to sync, comma-separated (env MINTLIFY_ETL_STREAMS; default ${DEFAULT_STREAMS.join(',')}, plus events with --events; known: ${STREAM_NAMES.join(', ')}, events)`,
    )
    .option(
      '--events <s3://BUCKET/PREFIX|FOLDER>',
      "Enterprise: also load Mintlify's analytics event stream from its S3 bucket (AWS_* credentials, AWS_ENDPOINT_URL_S3 for an S3-compatible store) or a folder mirroring it; no API request (env MINTLIFY_ETL_EVENTS; --streams events loads only it; docs/events.md)",
    )
    .option(
      '--events-project <SUBDOMAIN=PROJECT,...>',
      "which project each docs subdomain's events load into, when the run has several projects",
    )
    .option(
      '--events-skip <KEY>',
      'record the event object KEY (its key as status lists it) as skipped on purpose: no run reads it until its ETag changes or --events-read names it (repeatable)',
      collect,
    )
    .option(
      '--events-read <KEY>',
      'read the event object KEY in this run, whether it failed or was skipped before (repeatable)',
      collect,
    )
    .option(
      '--traffic-classes <file>',
      'the user agent lists that classify events (env MINTLIFY_ETL_TRAFFIC_CLASSES; default the packaged config/traffic-classes.json)',
    )
    .option(
      '--max-pages <STREAM=N>',
      'at most N pages per window of STREAM (repeatable); a capped window is loaded and recorded truncated, never complete',
      collect,
    )
    .option('--from <YYYY-MM-DD>', 'first day to load (inclusive, UTC); omit for incremental')
    .option('--to <YYYY-MM-DD>', 'day to stop before (exclusive, UTC); default today')
    .option(
      '--lookback <days>',
      'incremental: re-fetch this many recent loaded days for late data',
      intFlag('--lookback', 0, 366),
      3,
    )
    .option(
      '--feedback-lookback <days>',
      'feedback: re-read windows this many days after they end, so statuses changed by triage (which carry no timestamp) stay current',
      intFlag('--feedback-lookback', 0, 366),
      FEEDBACK_LOOKBACK_DAYS,
    )
    .option(
      '--max-threads <n>',
      'assistant_threads: threads fetched per project and run, newest first (one request each; the rest waits for the next run)',
      intFlag('--max-threads', 0, 100_000),
      DEFAULT_MAX_THREADS,
    )
    .option(
      '--period-pages',
      "visitors_weekly / visitors_monthly: also fetch every page's unique visitors of the period (ceil(paths/250) requests a period instead of 1)",
    )
    .option(
      '--refresh',
      'fetch windows again even when settled (loaded >= --lookback days after they ended), every loaded feedback month and every assistant thread too; the service has re-classified traffic before',
    );
  addDbOptions(cmd, 'where to load');
  cmd.option(BUDGET_SCOPE_FLAG, BUDGET_SCOPE_HELP);
  cmd
    .option('--rate-limit <N/DURATION>', 'request budget shared by all projects of the run', '100/1h')
    .option(
      '--max-requests <n>',
      'stop after this many requests (the rest is deferred)',
      intFlag('--max-requests', 1),
    )
    .option(
      '--max-duration <duration>',
      'stop after this long, loading what is fetched and deferring the rest (a run past the hour only waits for the next hour of budget; 50m ends before an hourly schedule or a one-hour CI job does)',
      '50m',
    )
    .option(
      '--max-wait <duration>',
      'longest single wait for the budget or a Retry-After before deferring',
      '10m',
    )
    .option('--concurrency <n>', 'days fetched in parallel', intFlag('--concurrency', 1, 32), 4)
    .option('--include-today', 'also load today (UTC), flagged partial and re-fetched by the next run')
    .option(
      '--dry-run',
      'print the plan on stdout (days and why, days skipped as settled, estimated requests, ETA) and touch nothing',
    )
    .option('--json', 'print one JSON summary on stdout')
    .option('--api-key-file <path>', 'read the admin API key from this file instead of MINTLIFY_API_KEY')
    .option('--api-url <url>', 'API base URL (env MINTLIFY_API_URL; default https://api.mintlify.com)')
    .addOption(new Option('-v, --verbose', 'log every retry').conflicts('quiet'))
    .addOption(
      new Option('-q, --quiet', 'log warnings, errors and the one summary line only').conflicts('verbose'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ export MINTLIFY_API_KEY=mint_...  MINTLIFY_PROJECT_ID=...
  $ mintlify-etl sync                                   # nightly, incremental
  $ mintlify-etl sync --from 2026-01-01 --dry-run       # what would a backfill cost?
  $ mintlify-etl sync --from 2026-01-01 --max-duration 50m --json

Exit codes: 0 done (or deferred by the budget), 1 internal error, 2 bad usage or configuration
(also an unknown project or a wrong API URL), 3 key refused, 4 some days failed after retries
(the rest loaded), the API could not be reached, or a server that accepts connections but does not
answer (two requests without a response on a run with no answer yet: the run stops and defers the
rest), 5 database in use, 130 interrupted.`,
    )
    .action((flags: SyncFlags) => run(async () => (await import('./sync-action.js')).syncCommand(flags)));
}
