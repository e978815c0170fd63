import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import {
  csvHeader,
  csvRow,
  formatTable,
  FORMATS,
  jsonlRow,
  rowObject,
  type OutputFormat,
} from '../query/format.js';
import { type JsonValue } from '../load/query-result.js';
import { type QueryStream } from '../load/query-result.js';
import { intFlag } from './options.js';
import { createOutput, OutputClosed, type Output } from './output.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp, dbTargetOf, placeOf } from './destination-flags.js';

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
    .action((sql: string | undefined, flags: QueryFlags) => run(() => queryCommand(sql, flags)));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function queryCommand(sqlArg: string | undefined, flags: QueryFlags): Promise<CommandResult> {
  // Optional for commander so that a missing SQL gets the one line with its fix, not commander's two.
  if (sqlArg === undefined)
    throw new UsageError(
      'query needs the SQL to run: mintlify-etl query "SELECT * FROM v_site_daily LIMIT 5" (or - to read it from stdin)',
    );
  const sql = sqlArg === '-' ? await readStdin() : sqlArg;
  if (sql.trim() === '') throw new UsageError('query: the SQL is empty');
  const out = createOutput(process.stdout);
  const timeoutMs = flags.timeout !== undefined ? flags.timeout * 1000 : undefined;
  try {
    await placeOf(dbTargetOf(flags)).runUserQuery(sql, { timeoutMs }, (stream) =>
      printRows(stream, flags, out),
    );
  } catch (e) {
    if (!(e instanceof OutputClosed)) throw e;
  }
  return { exitCode: 0 };
}

/** Prints a query's rows in --format (also the tests' way to print either destination's result). */
export async function printRows(
  stream: QueryStream,
  flags: QueryFlags,
  out: Output,
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = process.stdout,
): Promise<void> {
  const { columns, batches } = stream;
  switch (flags.format) {
    case 'table': {
      // Column widths need every row shown, so a table holds its rows in memory: at most
      // TABLE_MAX_ROWS of them (5M rows took 1.5 GB and 2 minutes), with a footer that says so.
      const rows: JsonValue[][] = [];
      let more = false;
      for await (const batch of batches) {
        for (const r of batch) {
          if (rows.length === TABLE_MAX_ROWS) more = true;
          else rows.push(r);
        }
        if (more) break;
      }
      const maxWidth = flags.maxWidth ?? (stdout.isTTY === true ? stdout.columns : undefined) ?? 120;
      await out.write(formatTable(columns, rows, { maxWidth, more }));
      return;
    }
    case 'csv':
      await out.write(csvHeader(columns));
      for await (const batch of batches) await out.write(batch.map(csvRow).join(''));
      return;
    case 'jsonl':
      for await (const batch of batches) await out.write(batch.map((r) => jsonlRow(columns, r)).join(''));
      return;
    case 'json': {
      let first = true;
      for await (const batch of batches) {
        const text = batch.map((r) => JSON.stringify(rowObject(columns, r))).join(',\n');
        if (text === '') continue;
        await out.write(`${first ? '[\n' : ',\n'}${text}`);
        first = false;
      }
      await out.write(first ? '[]\n' : '\n]\n');
      return;
    }
  }
}
