import { plural } from './format.js';
import { emptyReason, type ProjectReport, type ReportData } from './model.js';
import { eventTables } from './event-tables.js';
import { gapTables } from './gap-tables.js';
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
  if (data.projects.length === 0) {
    const [head = '', ...rest] = emptyReason(data).split(':');
    return `${paint(head, 'title')}:${rest.join(':')}\n`;
  }
  return `${data.projects.map((p) => renderProject(p, paint, width)).join('\n\n')}\n`;
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
  ];
  for (const table of tables) {
    lines.push('', ...renderTable(table, paint, width));
  }
  return lines.join('\n');
}

const INDENT = '  ';
const GAP = '  ';

/**
 * Aligned columns: widths come from the plain text and colour is added after padding, so escape
 * codes never shift a column. A path column takes whatever width the other columns leave.
 */
function renderTable(t: Table, paint: Paint, width: number): string[] {
  const out = [paint(t.title, 'heading')];
  if (t.rows.length === 0) {
    out.push(paint(`${INDENT}${t.empty ?? 'nothing to show'}`, 'muted'));
    return out;
  }
  const all = [t.head, ...t.rows].map((row) => row.map((c) => ({ ...c, text: inert(c.text) })));
  const cols = Math.max(...all.map((r) => r.length));
  const widths: number[] = Array.from({ length: cols }, (_, i) =>
    Math.max(...all.map((r) => (r[i] ? displayWidth(r[i].text) : 0))),
  );
  const pathCol = t.rows[0]?.findIndex((c) => c.path === true) ?? -1;
  const freeCol = t.rows[0]?.findIndex((c) => c.free === true) ?? -1;
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
  for (const row of all) {
    const cells = row.map((cell: Cell, i) => {
      const w = widths[i] ?? 0;
      const text = cell.path
        ? truncateMiddle(cell.text, w)
        : cell.free
          ? truncateEnd(cell.text, w)
          : cell.text;
      const last = i === row.length - 1;
      const padded = cell.right ? padStartTo(text, w) : last ? text : padEndTo(text, w);
      return paint(padded, cell.tone);
    });
    out.push((INDENT + cells.join(GAP)).trimEnd());
  }
  for (const note of t.notes) {
    const lines = t.wrapNotes ? wrapWords(note, width - INDENT.length) : [note];
    for (const line of lines) out.push(paint(`${INDENT}${line}`, 'muted'));
  }
  return out;
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
