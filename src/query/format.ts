/**
 * Pure formatters for query results: aligned tables for people, RFC 4180 CSV, JSON and JSON
 * lines for programs. Values arrive already converted to JSON (see values.ts), so every format
 * shows the same day, number or timestamp text.
 */

import { displayWidth, graphemes, graphemeWidth } from '../util/width.js';

import type { Column, JsonValue } from '../load/query-result.js';

export const FORMATS = ['table', 'csv', 'json', 'jsonl'] as const;
export type OutputFormat = (typeof FORMATS)[number];

/** A cell as text: what CSV writes and a table shows (before truncation). NULL is undefined. */
export function cellText(value: JsonValue): string | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------- CSV

/**
 * One CSV field, RFC 4180: quoted when it holds a comma, a double quote, CR or LF, with quotes
 * doubled. An empty string is written `""` so that it stays distinct from NULL (an empty field).
 */
export function csvField(value: JsonValue): string {
  const text = cellText(value);
  if (text === undefined) return '';
  if (text === '' || /[",\r\n]/.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

export function csvHeader(columns: readonly Column[]): string {
  return `${columns.map((c) => csvField(c.name)).join(',')}\n`;
}

export function csvRow(row: readonly JsonValue[]): string {
  return `${row.map(csvField).join(',')}\n`;
}

export function formatCsv(columns: readonly Column[], rows: readonly (readonly JsonValue[])[]): string {
  return csvHeader(columns) + rows.map(csvRow).join('');
}

// --------------------------------------------------------------------------------------- JSON

export function rowObject(columns: readonly Column[], row: readonly JsonValue[]): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  columns.forEach((c, i) => (out[c.key] = row[i] ?? null));
  return out;
}

export function jsonlRow(columns: readonly Column[], row: readonly JsonValue[]): string {
  return `${JSON.stringify(rowObject(columns, row))}\n`;
}

/** A JSON array, one object per line so that a long result stays readable and diffable. */
export function formatJson(columns: readonly Column[], rows: readonly (readonly JsonValue[])[]): string {
  if (rows.length === 0) return '[]\n';
  return `[\n${rows.map((r) => JSON.stringify(rowObject(columns, r))).join(',\n')}\n]\n`;
}

export function formatJsonl(columns: readonly Column[], rows: readonly (readonly JsonValue[])[]): string {
  return rows.map((r) => jsonlRow(columns, r)).join('');
}

// -------------------------------------------------------------------------------------- table

export { displayWidth } from '../util/width.js';

/** Cuts `text` to at most `width` terminal cells, ending in an ellipsis when it was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let w = 0;
  for (const segment of graphemes(text)) {
    const gw = graphemeWidth(segment);
    if (w + gw > width - 1) break;
    out += segment;
    w += gw;
  }
  return `${out}…`;
}

/** Control characters would break the grid: a newline shows as ↵, tabs as a space. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n|[\n\r]/g, '↵').replace(/[\t\x00-\x1f\x7f]/g, (c) => (c === '\t' ? ' ' : '?'));
}

function pad(text: string, width: number, right: boolean): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return right ? fill + text : text + fill;
}

/**
 * Free text far longer than a cell shows, cut before it is measured: measuring a cell of megabytes
 * grapheme by grapheme took minutes. 8 UTF-16 units per cell shown keep more than the cell holds
 * (an ellipsis still marks the cut when the part kept is narrower, e.g. stacked accents).
 */
function clip(text: string, keep: boolean, maxCell: number): string {
  const most = 8 * maxCell + 8;
  if (keep || text.length <= most) return text;
  // Never half a surrogate pair: a lone one would show as a replacement character.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(most - 1)) ? most - 1 : most;
  return `${text.slice(0, end)}…`;
}

export interface TableOptions {
  /** Width of the terminal (cells); the table is narrowed, then columns dropped, to fit. */
  readonly maxWidth: number;
  /** Longest cell before it is cut with an ellipsis. */
  readonly maxCellWidth?: number;
  /** Shown as NULL by default (an empty cell would look like an empty string). */
  readonly nullText?: string;
  /** The "(N rows)" line; on by default. */
  readonly footer?: boolean;
  /** The rows are the first of a larger result: the footer says so instead of counting. */
  readonly more?: boolean;
}

const GAP = '  ';
/** Columns are narrowed no further than this (a whole day, 2026-03-01, still fits). */
const MIN_COLUMN = 10;

/** Fractions in a table: four decimals are plenty to read a share or an average. */
export function tableNumber(n: number): string {
  if (Number.isInteger(n) || !Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1e-4) return String(Number(n.toFixed(4)));
  return n.toPrecision(3);
}

/**
 * An aligned text table: header, a rule, the rows (numbers right-aligned) and a "(N rows)"
 * footer. Cells longer than maxCellWidth are cut with an ellipsis; when the table is still wider
 * than maxWidth, the columns that do not fit even at their narrowest (10 cells) are left out and
 * named in a note, and the widest of the others are narrowed. Fractions are shown with four decimals at
 * most (csv and json keep every digit).
 */
export function formatTable(
  columns: readonly Column[],
  rows: readonly (readonly JsonValue[])[],
  opts: TableOptions,
): string {
  const maxCell = opts.maxCellWidth ?? 40;
  const nullText = opts.nullText ?? 'NULL';
  // A cut number or date reads as another, valid-looking one (12345 as 12…, a timestamp as its
  // day), and a cut header hides which column is which: those are kept whole, and a table too
  // wide for them leaves out whole columns instead. Only free text is cut.
  const whole = columns.map((c) => c.whole ?? c.numeric);
  const text = (v: JsonValue | undefined, keep: boolean): string =>
    typeof v === 'number' ? tableNumber(v) : oneLine(clip(cellText(v ?? null) ?? nullText, keep, maxCell));
  const cells = rows.map((r) => columns.map((_, i) => text(r[i], whole[i] ?? false)));
  const headers = columns.map((c) => oneLine(c.name));
  const widths = columns.map((_, i) => {
    const header = displayWidth(headers[i] ?? '');
    let w = header;
    for (const row of cells) w = Math.max(w, displayWidth(row[i] ?? ''));
    return whole[i] ? w : Math.max(header, Math.min(w, maxCell));
  });
  const floors = widths.map((w, i) =>
    whole[i] ? w : Math.min(w, Math.max(MIN_COLUMN, displayWidth(headers[i] ?? ''))),
  );
  const total = (ws: readonly number[]): number =>
    ws.reduce((a, b) => a + b, 0) + GAP.length * (ws.length - 1);

  // The columns that fit at their narrowest are shown; the rest are named in a note.
  let shown = columns.length;
  while (shown > 1 && total(floors.slice(0, shown)) > opts.maxWidth) shown--;
  widths.length = shown;
  // Narrow the widest column one cell at a time: the long free-text columns give way first.
  while (total(widths) > opts.maxWidth) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      const w = widths[i] ?? 0;
      if (w > (floors[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }

  const lines: string[] = [];
  const line = (texts: readonly string[]): string =>
    texts
      .slice(0, shown)
      .map((t, i) => pad(truncate(t, widths[i] ?? 0), widths[i] ?? 0, columns[i]?.numeric ?? false))
      .join(GAP)
      .trimEnd();
  lines.push(line(headers));
  lines.push(widths.map((w) => '-'.repeat(w)).join(GAP));
  for (const row of cells) lines.push(line(row));
  if (opts.more === true)
    lines.push(
      `(the first ${rows.length} rows; the result has more: add a LIMIT, or use --format csv or jsonl, which stream every row)`,
    );
  else if (opts.footer ?? true) lines.push(`(${rows.length} row${rows.length === 1 ? '' : 's'})`);
  if (shown < columns.length) {
    const hidden = columns.slice(shown).map((c) => c.name);
    lines.push(
      `(${hidden.length} more column${hidden.length === 1 ? '' : 's'} not shown: ${hidden.join(', ')}; widen with --max-width or use --format csv)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
