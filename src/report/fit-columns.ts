import { displayWidth } from '../util/width.js';
import type { Cell } from './tables.js';

/** Columns between cells. */
export const GAP = '  ';

/** Narrowest a shortened path, comment or sparkline gets before columns are left out instead. */
const MIN_SHRUNK = 8;

/** How a table's columns fit a width: each column's width, the header split, the columns left out. */
export interface ColumnFit {
  readonly widths: readonly number[];
  /** Columns left out that say something no other column says (minor ones repeat another). */
  readonly lost: number;
  /** Column indexes shown, in order. */
  readonly shown: readonly number[];
  /** A header split over two lines per column ([text] when it fits on one). */
  readonly head: readonly (readonly string[])[];
}

interface Column {
  readonly head: string;
  readonly data: number;
  readonly shrinkable: boolean;
  readonly spark: boolean;
  readonly minor: boolean;
}

/** A header at a space into two lines, the longer as short as it can be; whole when it has none. */
export function splitHeader(text: string): string[] {
  let best: string[] = [text];
  let bestWidth = displayWidth(text);
  for (let i = text.indexOf(' '); i >= 0; i = text.indexOf(' ', i + 1)) {
    const parts = [text.slice(0, i), text.slice(i + 1)];
    const w = Math.max(...parts.map(displayWidth));
    if (w < bestWidth) [best, bestWidth] = [parts, w];
  }
  return best;
}

function describe(head: readonly Cell[], rows: readonly (readonly Cell[])[]): Column[] {
  const cols = Math.max(head.length, ...rows.map((r) => r.length));
  return Array.from({ length: cols }, (_, i) => {
    const first = rows[0]?.[i];
    return {
      head: head[i]?.text ?? '',
      data: Math.max(0, ...rows.map((r) => (r[i] ? displayWidth(r[i].text) : 0))),
      shrinkable: first?.path === true || first?.free === true,
      spark: first?.spark === true,
      minor: first?.minor === true,
    };
  });
}

/**
 * Fits a table into `room` columns the way a reader loses least: first a header over two lines,
 * then shorter paths, comments and sparklines (down to MIN_SHRUNK), then the columns that repeat
 * another (minor), and last the right-most columns. `widths` start as the layout wanted at any
 * width (paths already sized to the room); numbers are never cut.
 */
export function fitColumns(
  head: readonly Cell[],
  rows: readonly (readonly Cell[])[],
  widths: readonly number[],
  room: number,
): ColumnFit {
  const columns = describe(head, rows);
  const w = [...widths];
  let shown = columns.map((_, i) => i);
  let heads: string[][] = columns.map((c) => [c.head]);
  const total = (): number =>
    shown.reduce((s, i) => s + (w[i] ?? 0), 0) + GAP.length * Math.max(0, shown.length - 1);
  if (total() <= room) return { widths: w, shown, head: heads, lost: 0 };

  heads = columns.map((c) => (displayWidth(c.head) > c.data ? splitHeader(c.head) : [c.head]));
  columns.forEach((c, i) => {
    const headWidth = Math.max(...(heads[i] ?? []).map(displayWidth));
    w[i] = c.shrinkable || c.spark ? (w[i] ?? 0) : Math.max(c.data, headWidth);
  });
  // The room a split header freed goes back to a shortened path or comment first.
  for (const i of shown.filter((j) => columns[j]?.shrinkable)) {
    const spare = room - total();
    if (spare > 0) w[i] = Math.min(columns[i]?.data ?? 0, (w[i] ?? 0) + spare);
  }
  for (const kind of ['shrinkable', 'spark'] as const) {
    for (const i of shown.filter((j) => columns[j]?.[kind])) {
      const over = total() - room;
      if (over > 0) w[i] = Math.max(Math.min(MIN_SHRUNK, w[i] ?? 0), (w[i] ?? 0) - over);
    }
  }
  if (total() > room) shown = shown.filter((i) => !columns[i]?.minor);
  let lost = 0;
  for (; total() > room && shown.length > 2; lost++) shown = shown.slice(0, -1);
  return { widths: w, shown, head: heads, lost };
}
