import { Option, type Command } from 'commander';
import { FORMATS, type OutputFormat } from '../query/format.js';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';

/** Rows a table shows at most: far more than a person reads, and a bounded amount of memory. */
export const TABLE_MAX_ROWS = 10_000;

export interface QueryFlags {
  db?: string;
  schema?: string;
  format: OutputFormat;
  maxWidth?: number;
  /** Seconds the whole query may take on a PostgreSQL destination before it is cancelled. */
  timeout?: number;
}

export function registerQuery(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('query')
    .summary('run SQL on the database (read-only) and print the rows')
    .description(
      `Runs SQL against the DuckDB database, opened read-only: nothing can be changed, and a sync may keep loading while you read. Tables: site_daily, page_daily, site_views_daily, page_views_daily, search_daily, search_totals_daily, assistant_callers_daily, feedback_page_daily, feedback, assistant_turns, assistant_messages, assistant_threads, site_weekly, site_monthly, page_weekly, page_monthly, analytics_events, event_objects (the event stream), sync_runs, sync_windows, api_requests, agent_jobs. Views: v_site_daily, v_site_weekly, v_site_monthly, v_page_trends, v_views_daily, v_search_terms, v_page_health, v_assistant_callers_daily, v_assistant_daily, v_assistant_unanswered, v_feedback_open, v_feedback_by_page, v_coverage, v_content_gaps, v_gap_outcomes; from the event stream v_event_visitors_daily, v_event_traffic_daily, v_event_referrers_daily, v_event_sessions_daily, v_event_search_daily, v_event_assistant_daily, v_event_actions_daily, v_event_vs_api_daily and event_visitors(from_day, to_day).

--format table (the default, also when piped) aligns columns, right-aligns numbers, cuts cells past 40 characters with … and fits the terminal width (120 when not a terminal); it shows at most the first 10,000 rows and says so. csv (RFC 4180, header row), json (an array of objects) and jsonl (one object per line) never cut anything: BIGINT as JSON numbers when exact (else strings), DATE as YYYY-MM-DD, timestamps as ISO 8601, lists as arrays. Pass - as the SQL to read it from stdin.`,
    )
    .argument('[sql]', 'the SQL to run (several statements: the last one is printed), or - for stdin')
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('table'))
    .option(
      '--max-width <n>',
      'table width in characters (default: the terminal width, 120 when piped)',
      intFlag('--max-width', 20, 10_000),
    )
    .option(
      '--timeout <seconds>',
      `PostgreSQL destination: seconds the whole query may take (every statement and every batch of rows) before it is cancelled (default 300)`,
      intFlag('--timeout', 1, 86_400),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl query "SELECT * FROM v_site_daily ORDER BY day DESC LIMIT 14"
  $ mintlify-etl query "SELECT * FROM v_page_trends LIMIT 20" --format csv > trends.csv
  $ mintlify-etl query --format jsonl "SELECT day, total FROM site_daily" | jq .total

Exit codes: 0 ok, 2 bad usage, a SQL error (DuckDB's message on stderr) or no database.`,
    )
    .action((sql: string | undefined, flags: QueryFlags) =>
      run(async () => (await import('./query-action.js')).queryCommand(sql, flags)),
    );
}
