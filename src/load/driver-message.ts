/**
 * What a database driver said about a failed load, without the values it quoted. DuckDB's JSON
 * reader appends the whole text it was parsing ("... Input: "[{"comment":..."), and both drivers
 * quote a value they could not convert (`Could not convert string '...'`, `invalid input syntax for
 * type bigint: "..."`): a reader's comment or question would reach the log, stderr, the --json
 * summary and sync_windows.error. The message is kept for what it says about the failure; every
 * quoted span is shown as `…`, but the name of a database object a message quotes.
 */

/** DuckDB's "Input:" (the JSON text it was reading) and anything after it. */
const INPUT = /\s*\bInput:[\s\S]*$/;

/** `relation "feedback"`, `constraint "x_pkey"`: names of objects, never row text. */
const NAMED =
  /^(?:relation|column|constraint|table|view|schema|function|index|encoding|type|role|database)$/i;
const IDENT = /^[a-z_][a-z0-9_$.]{0,127}$/i;

/**
 * `message`'s first line up to the first quoted value, which is shown as `…`: a value may hold
 * quotes itself (V8's JSON.parse quotes `"[{"query":"..."`), so where it ends cannot be told, and
 * nothing after it is kept. A quoted name of a database object (`relation "feedback"`) stays.
 */
export function withoutQuotedValues(message: string): string {
  const line = (message.split('\n', 1)[0] ?? '').replace(INPUT, '').trim();
  let out = '';
  for (let i = 0; i < line.length;) {
    const q = line[i] as string;
    if (q !== '"' && q !== "'") {
      out += q;
      i++;
      continue;
    }
    const end = line.indexOf(q, i + 1);
    const inner = end < 0 ? '' : line.slice(i + 1, end);
    const word = /(\w+)\s*$/.exec(out)?.[1] ?? '';
    if (end < 0 || !NAMED.test(word) || !IDENT.test(inner)) return `${out}${q}…${q}`;
    out += `${q}${inner}${q}`;
    i = end + 1;
  }
  return out;
}
