import { UsageError } from '../errors.js';
import { csvHeader, csvRow, formatTable, jsonlRow, rowObject } from '../query/format.js';
import { type JsonValue } from '../load/query-result.js';
import { type QueryStream } from '../load/query-result.js';
import { createOutput, OutputClosed, type Output } from './output.js';
import type { CommandResult } from './result.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import type { QueryFlags } from './query.js';
import { TABLE_MAX_ROWS } from './query.js';

/*
 * What `mintlify-etl query` does. Its flags and help are query.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function queryCommand(sqlArg: string | undefined, flags: QueryFlags): Promise<CommandResult> {
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
