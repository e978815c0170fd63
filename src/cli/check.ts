import type { Command } from 'commander';

import { collect, PROJECTS_FLAG, PROJECTS_HELP } from './options.js';
import type { CommandResult } from './result.js';
import {
  BUDGET_SCOPE_FLAG,
  BUDGET_SCOPE_HELP,
  DB_FLAG,
  SCHEMA_FLAG,
  SCHEMA_HELP,
  dbHelp,
} from './db-flags.js';

export interface CheckFlags {
  project?: string[];
  streams?: string;
  db?: string;
  schema?: string;
  budgetScope?: string;
  rateLimit: string;
  apiKeyFile?: string;
  apiUrl?: string;
  events?: string;
  json?: boolean;
}

export function registerCheck(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('check')
    .summary('one real request per project and stream: are the URL, the key and the project right?')
    .description(
      `Sends one request per project and stream (yesterday's first page) to check the API URL, the key, the project id and each endpoint before a nightly job relies on them, and prints the request budget left. Each request costs one of the organization's 100 an hour; they are recorded in the database's request ledger (created if there is none yet), so the next sync counts them. With --events (or MINTLIFY_ETL_EVENTS), it also lists the first key of the event stream's bucket or folder: the AWS credentials, bucket, prefix and region, at no API request (--streams events checks only that, without an API key).`,
    )
    .option(PROJECTS_FLAG, PROJECTS_HELP, collect)
    .option(
      '--streams <list>',
      'streams to check, comma-separated (env MINTLIFY_ETL_STREAMS; default: the sync default)',
    )
    .option(DB_FLAG, dbHelp('the database whose request ledger counts the budget'))
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option(BUDGET_SCOPE_FLAG, BUDGET_SCOPE_HELP)
    .option('--rate-limit <N/DURATION>', 'the budget to report against', '100/1h')
    .option('--api-key-file <path>', 'read the admin API key from this file instead of MINTLIFY_API_KEY')
    .option('--api-url <url>', 'API base URL (env MINTLIFY_API_URL; default https://api.mintlify.com)')
    .option(
      '--events <s3://BUCKET/PREFIX|FOLDER>',
      "Enterprise: also list the first key of the analytics event stream's bucket or folder (env MINTLIFY_ETL_EVENTS); no object read, no API request",
    )
    .option('--json', 'print one JSON object on stdout')
    .addHelpText(
      'after',
      `
Example:
  $ mintlify-etl check
  ok    acme  visitors      answered: yesterday 250+ row(s) on the first page
  ok    acme  views         answered: yesterday 250+ row(s) on the first page
  ok    acme  searches      answered: yesterday 100+ row(s) on the first page
  ok    acme  caller_stats  answered: yesterday 1 row(s) on the first page
  4 requests spent; budget 100/1h: 60 left by this database's ledger

  $ mintlify-etl check --streams events --events s3://acme-analytics/mintlify
  ok    events  s3://acme-analytics/mintlify/  listed: the first object is 2026-11-01T00:05:00.000Z.jsonl (1.2 MiB)
  1 listing request, no API request

Without a database, check creates it (--db) to record its requests, so that the first sync
counts them against the budget.

Exit codes: 0 every project answered (and the event source listed), 2 unknown project or wrong URL
(or no such bucket or folder), 3 key refused (or the bucket refused the AWS credentials), 4 the API
(or the store) could not be reached, 5 a sync holds the database, 7 the request budget is spent
(by the ledger, or the API answered 429): nothing was checked, "WAIT" lines say when it frees.`,
    )
    .action((flags: CheckFlags) => run(async () => (await import('./check-action.js')).checkCommand(flags)));
}
