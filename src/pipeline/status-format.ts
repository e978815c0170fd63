import { formatTable } from '../query/format.js';
import { type Column, type JsonValue } from '../load/query-result.js';
import { formatDuration } from '../util/duration.js';
import { untrusted } from '../util/safe-text.js';
import { windowsAreNotDays } from '../streams/index.js';
import { escapeControl } from '../util/safe-text.js';
import type {
  BudgetStatus,
  FailingObjectStatus,
  ProjectStatus,
  StatusReport,
  StreamStatus,
} from './status.js';

/** Days listed in full up to this many; longer lists show the first ones and a count. */
const MAX_LISTED_DAYS = 10;

export function listDays(days: readonly string[], max = MAX_LISTED_DAYS): string {
  if (days.length <= max) return days.join(', ');
  return `${days.slice(0, max).join(', ')}, … (+${days.length - max} more)`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** '14:05 UTC', or '2026-04-02 14:05 UTC' when it is not the same UTC day as `now`. */
export function clockUtc(iso: string, now: string): string {
  const day = iso.slice(0, 10);
  const time = iso.slice(11, 16);
  return day === now.slice(0, 10) ? `${time} UTC` : `${day} ${time} UTC`;
}

/** Short waits: 40s, 12m, 1h 05m (rounded up, so "in 1m" never means "already"). */
export function shortWait(ms: number): string {
  if (ms < 60_000) return `${Math.max(1, Math.ceil(ms / 1_000))}s`;
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** 'the last hour', 'the last 10 minutes', 'the last 4s'. */
export function windowText(ms: number): string {
  if (ms === 3_600_000) return 'the last hour';
  if (ms % 3_600_000 === 0) return `the last ${ms / 3_600_000} hours`;
  if (ms === 60_000) return 'the last minute';
  if (ms % 60_000 === 0) return `the last ${ms / 60_000} minutes`;
  return `the last ${formatDuration(ms)}`;
}

export function describeBudget(b: BudgetStatus, now: string): string {
  if (b.overLimit) return describeOverLimit(b, now);
  const head = `budget: ${b.spent}/${b.limit} spent in ${windowText(b.windowMs)}`;
  if (b.remaining === 0 || b.nextSlotInMs > 0) {
    return `${head}; next slot frees at ${clockUtc(b.nextSlotAt, now)} (in ${shortWait(b.nextSlotInMs)})`;
  }
  if (b.oldestFreesAt === null) return `${head}, all ${b.limit} free`;
  const inMs = Date.parse(b.oldestFreesAt) - Date.parse(now);
  return `${head}, ${b.remaining} free now; the oldest frees at ${clockUtc(b.oldestFreesAt, now)} (in ${shortWait(inMs)})`;
}

/**
 * More requests than the limit status judges by: earlier runs had a larger --rate-limit, so a
 * `951/100 spent` would read as a broken budget. Say which limit it is and that the runs did not use it.
 */
function describeOverLimit(b: BudgetStatus, now: string): string {
  const limit =
    b.limitSource === 'default' ? `the ${b.rateLimit} default` : `the --rate-limit ${b.rateLimit}`;
  return `budget: ${b.spent} requests in ${windowText(b.windowMs)}, over ${limit}: runs with a larger --rate-limit spent them (pass it to status to judge by it); under ${b.rateLimit} the next slot frees at ${clockUtc(b.nextSlotAt, now)} (in ${shortWait(b.nextSlotInMs)})`;
}

const RUN_COLUMNS: Column[] = [
  { name: 'started', key: 'started', numeric: false },
  { name: 'status', key: 'status', numeric: false },
  { name: 'loaded', key: 'loaded', numeric: true },
  { name: 'failed', key: 'failed', numeric: true },
  { name: 'deferred', key: 'deferred', numeric: true },
  { name: 'requests', key: 'requests', numeric: true },
  { name: 'duration', key: 'duration', numeric: true },
  { name: 'error', key: 'error', numeric: false },
];

/** An event-stream run's objects and the events they added (src/load/event-objects.ts eventsByRun). */
const EVENTS_COLUMN: Column = { name: 'events', key: 'events', numeric: true };

/** What a stream's window is called in the day lists: a day, or a window (a range listed by its start). */
function unitOf(s: StreamStatus): string {
  return windowsAreNotDays(s.stream) ? 'window' : 'day';
}

function describeCoverage(s: StreamStatus): string {
  const c = s.coverage;
  if (c === null) return 'nothing loaded yet';
  const missing =
    c.daysMissing === 0 ? 'no gaps' : `${plural(c.daysMissing, 'day')} missing: ${listDays(c.missingDays)}`;
  return `${c.firstDay} to ${c.lastDay}: ${plural(c.daysLoaded, 'day')} loaded, ${missing}`;
}

/** The day lists of a stream, each with what the next sync does about it. */
const DAY_LISTS: readonly { label: string; text: (s: StreamStatus) => string | undefined }[] = [
  { label: 'coverage', text: describeCoverage },
  {
    label: 'partial',
    text: (s) =>
      s.partialDays.length > 0 ? `${listDays(s.partialDays)} (fetched again by the next sync)` : undefined,
  },
  {
    label: 'truncated',
    text: (s) =>
      s.truncatedDays.length > 0
        ? `${plural(s.truncatedDays.length, unitOf(s))} cut short (--max-pages, or an endpoint that cannot page further): ${listDays(s.truncatedDays)}`
        : undefined,
  },
  {
    label: 'failed',
    text: (s) =>
      s.failedDays.length > 0
        ? `${plural(s.failedDays.length, unitOf(s))}: ${listDays(s.failedDays)} (retried by the next sync)`
        : undefined,
  },
  {
    label: 'deferred',
    text: (s) =>
      s.deferredDays.length > 0
        ? `${plural(s.deferredDays.length, unitOf(s))} pending: ${listDays(s.deferredDays)}`
        : undefined,
  },
];

/**
 * One line per stream and kind of day, grouped by kind: every stream's coverage first (visitors
 * first), then the partial, truncated, failed and deferred days of the streams that have some.
 * The label is printed once per group and the stream names are padded alike, so the days line up.
 */
function describeStreams(streams: readonly StreamStatus[]): string[] {
  if (streams.length === 0) return ['  coverage  nothing loaded yet'];
  const nameWidth = Math.max(...streams.map((s) => s.stream.length));
  const lines: string[] = [];
  for (const { label, text } of DAY_LISTS) {
    let first = true;
    for (const s of streams) {
      const t = text(s);
      if (t === undefined) continue;
      lines.push(`  ${(first ? label : '').padEnd(9)} ${s.stream.padEnd(nameWidth)}  ${t}`);
      first = false;
    }
  }
  return lines;
}

/** Objects that failed (retried by every sync) or were skipped on purpose: one line each, keys escaped. */
function describeFailing(objects: readonly FailingObjectStatus[]): string[] {
  return objects.map((f, i) => {
    const label = (i === 0 ? 'failing' : '').padEnd(9);
    const when = f.lastFailedAt.slice(0, 16).replace('T', ' ');
    const what =
      f.status === 'skipped'
        ? 'skipped on purpose (--events-read KEY reads it again)'
        : `${plural(f.attempts, 'attempt')}, last ${when} (every sync retries it; --events-skip KEY skips it)`;
    return `  ${label} ${escapeControl(f.key)}: ${f.cause}; ${what}`;
  });
}

function describeProject(p: ProjectStatus, maxWidth: number): string[] {
  const lines = [`project ${p.projectId}`, ...describeStreams(p.streams)];
  const t = p.threads;
  if (t !== null) {
    const gone = t.gone > 0 ? ` (${plural(t.gone, 'thread')} gone from the service)` : '';
    const waiting =
      t.waiting > 0 ? `${t.waiting} waiting (new or grown; --max-threads a run)` : 'none waiting';
    lines.push(`  threads   assistant_threads: ${t.fetched} fetched${gone}, ${waiting}`);
  }
  const e = p.events;
  if (e !== null) {
    const days = e.firstDay !== null ? ` from ${e.firstDay} to ${e.lastDay}` : '';
    const rejected = e.rejectedLines > 0 ? `, ${plural(e.rejectedLines, 'rejected line')}` : '';
    lines.push(
      `  events    ${plural(e.events, 'event')}${days} from ${plural(e.objects, 'object')}${rejected}; newest ${e.newestKey === null ? '?' : escapeControl(e.newestKey)}, loaded ${(e.lastLoadedAt ?? '').slice(0, 16).replace('T', ' ')}`,
    );
    lines.push(...describeFailing(e.failingObjects));
  }
  if (p.runs.length === 0) {
    lines.push('  runs      none yet');
    return lines;
  }
  lines.push(p.runs.length === 1 ? '  last run:' : `  last ${p.runs.length} runs:`);
  // The event stream's column only where a run loaded objects: an API-only history reads as before.
  const withEvents = p.runs.some((r) => r.events !== undefined);
  const rows: JsonValue[][] = p.runs.map((r) => [
    `${r.startedAt.slice(0, 10)} ${r.startedAt.slice(11, 16)}`,
    r.status,
    r.windows.loaded,
    r.windows.failed,
    r.windows.deferred,
    r.requests,
    ...(withEvents
      ? [
          r.events === undefined
            ? ''
            : `${r.events.objects} obj, ${r.events.newEvents.toLocaleString('en-US')} new`,
        ]
      : []),
    r.durationMs === null ? '' : formatDuration(r.durationMs),
    r.error ?? '',
  ]);
  const columns = withEvents
    ? [...RUN_COLUMNS.slice(0, 6), EVENTS_COLUMN, ...RUN_COLUMNS.slice(6)]
    : RUN_COLUMNS;
  const table = formatTable(columns, rows, { maxWidth: Math.max(40, maxWidth - 4), footer: false });
  for (const line of table.trimEnd().split('\n')) lines.push(`    ${line}`);
  return lines;
}

/** The event stream's events that no mapping named, per subdomain: waiting for a mapping. */
function describeUnmapped(rows: NonNullable<StatusReport['unmappedEvents']>): string[] {
  const lines = [
    'unmapped events (no --events-project mapping named their subdomain: not stored; map it and the next sync reads those objects again):',
  ];
  for (const r of rows)
    lines.push(
      `  ${untrusted(r.subdomain)}: ${plural(r.events, 'event')} in ${plural(r.objects, 'object')} of ${untrusted(r.source)}`,
    );
  return lines;
}

/** The status for a terminal: the budget first (it is shared by every project), then each project. */
export function formatStatus(s: StatusReport, opts: { maxWidth?: number } = {}): string {
  const maxWidth = opts.maxWidth ?? 120;
  const lines = [`database: ${s.db} (as of ${s.now.slice(0, 10)} ${s.now.slice(11, 16)} UTC)`];
  lines.push(describeBudget(s.budget, s.now) + ` [--rate-limit ${s.budget.rateLimit}]`);
  if (s.projects.length === 0) {
    lines.push('', 'no project has been synced yet: run `mintlify-etl sync`');
  }
  for (const p of s.projects) lines.push('', ...describeProject(p, maxWidth));
  if (s.unmappedEvents !== undefined) lines.push('', ...describeUnmapped(s.unmappedEvents));
  return `${lines.join('\n')}\n`;
}
