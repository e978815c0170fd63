import { plural } from './format.js';
import {
  emptyReason,
  eventOnlyNote,
  hasReport,
  type EventOnlyReport,
  type ProjectReport,
  type ReportData,
} from './model.js';
import { eventTables } from './event-tables.js';
import { eventStreamTables } from './event-stream-tables.js';
import { gapTables } from './gap-tables.js';
import { fitColumns, GAP, type ColumnFit } from './fit-columns.js';
import { streamTables } from './stream-tables.js';
import { projectTables, type Cell, type Table, type Tone } from './tables.js';
import { displayWidth, inert, padEndTo, padStartTo, truncateEnd, truncateMiddle } from './text.js';

export { sparkline } from './sparkline.js';

/** Colour only for a terminal, and never when NO_COLOR is set to anything (https://no-color.org). */
export function shouldColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['TERM'] === 'dumb') return false;
  return stream.isTTY === true;
}

/**
 * The width to lay the report out for: the terminal's, else COLUMNS (what a shell exports, and
 * how a pipe into `less` or a test asks for a width), else 100.
 */
export function terminalColumns(
  stream: { columns?: number | undefined },
  env: NodeJS.ProcessEnv = process.env,
): number {
  if (stream.columns !== undefined && stream.columns > 0) return stream.columns;
  const fromEnv = Number(env['COLUMNS']);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 100;
}

type Style = Tone | 'title' | 'heading';
const SGR: Record<Style, [string, string]> = {
  title: ['\x1b[1m', '\x1b[22m'],
  heading: ['\x1b[1;4m', '\x1b[22;24m'],
  strong: ['\x1b[1m', '\x1b[22m'],
  muted: ['\x1b[2m', '\x1b[22m'],
  flat: ['\x1b[2m', '\x1b[22m'],
  up: ['\x1b[32m', '\x1b[39m'],
  down: ['\x1b[31m', '\x1b[39m'],
  total: ['\x1b[36m', '\x1b[39m'],
  human: ['\x1b[34m', '\x1b[39m'],
  ai: ['\x1b[35m', '\x1b[39m'],
};

type Paint = (text: string, style: Style | undefined) => string;

function painter(color: boolean): Paint {
  return (text, style) => {
    if (!color || style === undefined || text === '') return text;
    const [on, off] = SGR[style];
    return `${on}${text}${off}`;
  };
}

export interface TerminalOptions {
  /** Emit ANSI colours (decide with shouldColor). */
  readonly color: boolean;
  /** Terminal width in columns; paths and sparklines shrink to fit. Default 100, at least 60. */
  readonly width?: number;
}

/** The whole report as text for a terminal. Pure: the same data gives the same string. */
export function renderTerminal(data: ReportData, opts: TerminalOptions): string {
  const paint = painter(opts.color);
  const width = Math.max(60, opts.width ?? 100);
  if (!hasReport(data)) {
    const [head = '', ...rest] = emptyReason(data).split(':');
    return `${paint(head, 'title')}:${rest.join(':')}\n`;
  }
  const parts = [
    ...data.projects.map((p) => renderProject(p, paint, width)),
    ...(data.eventOnly ?? []).map((e) => renderEventOnly(e, paint, width)),
  ];
  return `${parts.join('\n\n')}\n`;
}

/** A project with only the event stream loaded: its section, and what the rest of the report needs. */
function renderEventOnly(e: EventOnlyReport, paint: Paint, width: number): string {
  const lines = [
    paint(`Mintlify event stream · project ${inert(e.projectId)}`, 'title'),
    paint(eventOnlyNote(e), 'muted'),
  ];
  for (const table of eventStreamTables(e.eventStream)) lines.push('', ...renderTable(table, paint, width));
  return lines.join('\n');
}

function renderProject(p: ProjectReport, paint: Paint, width: number): string {
  const w = p.window;
  const c = p.coverage;
  const notLoaded = w.days - w.daysLoaded;
  const span = `${w.from} to ${w.to}, ${plural(w.days, 'day')}${notLoaded > 0 ? ` (${notLoaded} not loaded)` : ''}`;
  const held =
    `database holds ${c.firstDay} to ${c.lastDay}: ${plural(c.daysLoaded, 'day')}` +
    (c.missingDays > 0 ? `, ${c.missingDays} missing` : '') +
    (c.partialDays > 0 ? `, ${c.partialDays} partial` : '');
  const oneLine = `${span} · ${held}`;
  const lines = [
    paint(`Mintlify visitors · project ${inert(p.projectId)}`, 'title'),
    ...(displayWidth(oneLine) <= width ? [oneLine] : [span, held]).map((l) => paint(l, 'muted')),
  ];
  // What the fixed columns of the site table take; the sparkline gets the rest.
  const sparkWidth = Math.max(8, Math.min(w.days, width - 66));
  const tables = [
    ...projectTables(p, { sparkWidth }),
    ...streamTables(p, { sparkWidth }),
    ...eventTables(p, { sparkWidth }),
    ...gapTables(p),
    ...eventStreamTables(p.eventStream),
  ];
  for (const table of tables) {
    lines.push('', ...renderTable(table, paint, width));
  }
  return lines.join('\n');
}

const INDENT = '  ';

/**
 * Aligned columns: widths come from the plain text and colour is added after padding, so escape
 * codes never shift a column. A path column takes whatever width the other columns leave; when
 * even that is too wide, fitColumns decides what gives way, so that no row wraps mid-cell.
 */
function renderTable(t: Table, paint: Paint, width: number): string[] {
  const out = [paint(t.title, 'heading')];
  if (t.rows.length === 0) {
    out.push(paint(`${INDENT}${t.empty ?? 'nothing to show'}`, 'muted'));
    return out;
  }
  const inertRow = (row: readonly Cell[]): Cell[] => row.map((c) => ({ ...c, text: inert(c.text) }));
  const headRow = inertRow(t.head);
  const rows = t.rows.map(inertRow);
  const fit = fitColumns(headRow, rows, layoutWidths([headRow, ...rows], width), width - INDENT.length);
  const lines = Math.max(...fit.head.map((h) => h.length));
  for (let line = 0; line < lines; line++) {
    // A split header's first line sits above the second, which is level with the other headers.
    const headLine = headRow.map((c, i) => {
      const parts = fit.head[i] ?? [c.text];
      return { ...c, text: parts[line - (lines - parts.length)] ?? '' };
    });
    out.push(renderRow(headLine, fit, paint));
  }
  for (const row of rows) out.push(renderRow(row, fit, paint));
  const notes =
    fit.lost > 0 ? [...t.notes, `${plural(fit.lost, 'column')} left out at this width.`] : t.notes;
  for (const note of notes) {
    for (const line of wrapWords(note, width - INDENT.length)) out.push(paint(`${INDENT}${line}`, 'muted'));
  }
  return out;
}

/** Each column as wide as its widest cell, the path or comment column sized to the room left. */
function layoutWidths(all: readonly (readonly Cell[])[], width: number): number[] {
  const cols = Math.max(...all.map((r) => r.length));
  const widths: number[] = Array.from({ length: cols }, (_, i) =>
    Math.max(...all.map((r) => (r[i] ? displayWidth(r[i].text) : 0))),
  );
  const body = all[1] ?? [];
  const pathCol = body.findIndex((c) => c.path === true);
  const freeCol = body.findIndex((c) => c.free === true);
  const flexible = [pathCol, freeCol].filter((i) => i >= 0);
  if (flexible.length > 0) {
    const others = widths.reduce((s, w, i) => (flexible.includes(i) ? s : s + w), 0);
    let room = width - INDENT.length - others - GAP.length * (cols - 1);
    if (pathCol >= 0 && freeCol >= 0) {
      // A path and a comment share the room: the path at most 40% of it, the comment the rest.
      widths[pathCol] = Math.min(widths[pathCol] ?? 0, Math.max(12, Math.floor(room * 0.4)));
      room -= widths[pathCol] ?? 0;
      widths[freeCol] = Math.min(widths[freeCol] ?? 0, Math.max(12, room));
    } else {
      const col = flexible[0] ?? 0;
      widths[col] = Math.min(widths[col] ?? 0, Math.max(16, room));
    }
  }
  return widths;
}

/** One line of a table: the shown cells cut to their width (a sparkline keeps its latest days). */
function renderRow(row: readonly Cell[], fit: ColumnFit, paint: Paint): string {
  const shown = fit.shown.filter((i) => i < row.length);
  const cells = shown.map((i, k) => {
    const cell = row[i] as Cell;
    const w = fit.widths[i] ?? 0;
    const text = cell.path
      ? truncateMiddle(cell.text, w)
      : cell.spark
        ? [...cell.text].slice(-w).join('')
        : displayWidth(cell.text) > w
          ? truncateEnd(cell.text, w)
          : cell.text;
    const last = k === shown.length - 1;
    const padded = cell.right ? padStartTo(text, w) : last ? text : padEndTo(text, w);
    return paint(padded, cell.tone);
  });
  return (INDENT + cells.join(GAP)).trimEnd();
}

/** Splits text at spaces into lines of at most `width` columns (a longer word gets its own line). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of inert(text).split(' ')) {
    if (line !== '' && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
