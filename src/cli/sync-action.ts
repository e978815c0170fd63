import { randomUUID } from 'node:crypto';
import { loadApiKey, type ApiKey } from '../api/key.js';
import { EXIT, isEtlError } from '../errors.js';
import { runSync, type SyncSummary } from '../pipeline/sync.js';
import { streamByName, windowsAreNotDays, type StreamDefinition } from '../streams/index.js';
import { UsageError } from '../errors.js';
import { parseDay } from '../util/day.js';
import { formatDuration, parseDuration, parseRateLimit, type RateLimitSpec } from '../util/duration.js';
import { createLogger, type Logger } from '../util/log.js';
import { safeText } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import { createProgress } from './progress-bar.js';
import { createEventProgress } from './event-progress-bar.js';
import { DEFAULT_DB, apiUrl, isLoopbackUrl, projectIds } from './options.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import { resolveBudgetScope } from '../api/budget-scope.js';
import type { CommandResult } from './result.js';
import { syncSelection } from './event-flags.js';
import { describeEvents, describeEventsPlan } from './event-summary.js';
import type { SyncFlags } from './sync.js';

/*
 * What `mintlify-etl sync` does. Its flags and help are sync.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function syncCommand(flags: SyncFlags): Promise<CommandResult> {
  // Every check that can fail on input happens before the lock or the database file exists.
  const projects = projectIds(flags.project);
  const { streams, events } = withObjectRequests(syncSelection(flags), flags);
  checkStreamFlags(flags, streams);
  const from = flags.from !== undefined ? parseDay(flags.from, '--from') : undefined;
  const to = flags.to !== undefined ? parseDay(flags.to, '--to') : undefined;
  const rateLimit = parseRateLimit(flags.rateLimit);
  const maxDurationMs = parseDuration(flags.maxDuration, '--max-duration');
  const maxWaitMs = parseDuration(flags.maxWait, '--max-wait');
  const url = apiUrl(flags.apiUrl);
  const target = dbTargetOf(flags);
  const place = placeOf(target);
  const firstUse = place.firstUse({
    source: flags.db === undefined ? 'MINTLIFY_ETL_DB' : '--db',
    defaultPath: DEFAULT_DB,
  });
  const now = clockFromEnv();
  const json = flags.json === true;
  const progress = json ? undefined : createProgress();
  const eventProgress = json || events === undefined ? undefined : createEventProgress();
  const runId = randomUUID();
  const logOptions = {
    ...(process.stderr.isTTY ? {} : { stamp: { runId } }),
    // On a terminal a log line would land in the middle of the bar and be drawn over.
    beforeWrite: () => {
      progress?.suspend?.();
      eventProgress?.suspend();
    },
    afterWrite: () => {
      progress?.resume?.();
      eventProgress?.resume();
    },
  };
  const logger = createLogger({
    level: flags.verbose ? 'debug' : flags.quiet ? 'warn' : 'info',
    ...logOptions,
  });
  let apiKey: ApiKey | undefined;
  // The event stream alone spends no request: it needs no key.
  const needsKey = streams.length > 0 && !flags.dryRun;
  if (needsKey || flags.apiKeyFile !== undefined || process.env['MINTLIFY_API_KEY']) {
    apiKey = await loadApiKey({ apiKeyFile: flags.apiKeyFile, warn: (m) => logger.warn(m) });
  }
  warnAboveServiceLimit(rateLimit, url, logger);
  // --quiet keeps the summary: a cron log with nothing in it cannot tell a quiet night from no run.
  const summaryLog = createLogger(logOptions);

  // First Ctrl-C (or SIGTERM from systemd): stop starting days, load what is fetched, record
  // the rest as deferred. A second one quits at once; the transactions keep the data whole.
  const interrupt = new AbortController();
  const onSignal = (name: string) => (): void => {
    // The bar goes first: its line cleared and the cursor shown, so the warning (or the shell
    // prompt after a second Ctrl-C) starts on a clean line.
    progress?.stop();
    eventProgress?.stop();
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    logger.warn(
      `${name}: stopping after the days already fetched; the next run continues (${name} again to quit now)`,
    );
    interrupt.abort();
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);

  let summary: SyncSummary;
  try {
    summary = await runSync({
      signal: interrupt.signal,
      projects,
      streams,
      events,
      maxPages: parseMaxPages(flags.maxPages ?? [], streams),
      from,
      to,
      lookback: flags.lookback,
      feedbackLookback: flags.feedbackLookback,
      maxThreads: flags.maxThreads,
      periodPages: flags.periodPages === true,
      refresh: flags.refresh === true,
      runId,
      place,
      budgetScope: resolveBudgetScope({ name: flags.budgetScope, apiKey }),
      rateLimit,
      maxRequests: flags.maxRequests,
      maxDurationMs,
      maxWaitMs,
      concurrency: flags.concurrency,
      includeToday: flags.includeToday === true,
      dryRun: flags.dryRun === true,
      apiUrl: url,
      apiKey,
      logger,
      ...(progress ? { progress } : {}),
      eventProgress,
      ...(now ? { now } : {}),
    });
  } catch (e) {
    if (isEtlError(e) && refusedFirstRun(e.exitCode)) await firstUse.dropIfEmpty();
    throw e;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  const nothingReached = !firstUse.existed && reachedNothing(summary);
  if (refusedFirstRun(summary.exitCode) || nothingReached) await firstUse.dropIfEmpty();
  if (nothingReached && !firstUse.created()) summary = { ...summary, status: 'failed' };
  // A new file is worth saying: a typo in --db or MINTLIFY_ETL_DB would otherwise go unseen in cron.
  const created = summary.status !== 'dry-run' && firstUse.created();
  if (summary.status === 'dry-run') {
    // The plan is the command's output, not a log: it goes to stdout, where a user can page or save it.
    if (!json) process.stdout.write(`${safeText(describe(summary))}\n`);
  } else if (nothingReached && !created && summary.unreachable !== undefined) {
    const u = summary.unreachable;
    summaryLog.info(
      `sync failed: the API at ${u.apiUrl} cannot be reached (${u.reason}): nothing was loaded and no database was created; check --api-url / MINTLIFY_API_URL and that the server is up`,
    );
  } else {
    summaryLog.info(describe(summary, created));
  }
  return { exitCode: summary.exitCode, ...(json ? { json: summary } : {}) };
}

/** --events-skip / --events-read name objects of the event stream: refused without one. */
function withObjectRequests(
  sel: ReturnType<typeof syncSelection>,
  flags: SyncFlags,
): ReturnType<typeof syncSelection> {
  const skip = flags.eventsSkip ?? [];
  const read = flags.eventsRead ?? [];
  if (skip.length === 0 && read.length === 0) return sel;
  if (sel.events === undefined)
    throw new UsageError(
      `${skip.length > 0 ? '--events-skip' : '--events-read'} names an object of the event stream, and this run loads none: give --events too`,
    );
  const both = skip.filter((k) => read.includes(k));
  if (both.length > 0)
    throw new UsageError(`--events-skip and --events-read both name ${both[0] ?? ''}: give one of them`);
  return { ...sel, events: { ...sel.events, skipObjects: skip, readObjects: read } };
}

/**
 * A refused key, an unknown project or a wrong URL on a first run should leave no database
 * behind when nothing useful was written (exit 2 promises nothing written); once any day loaded
 * (another project's key scope may differ), it stays.
 */
function refusedFirstRun(exitCode: number): boolean {
  return exitCode === EXIT.usage || exitCode === EXIT.auth;
}

/** The API could not be reached and nothing loaded (of the event stream neither): a first run then leaves nothing. */
function reachedNothing(s: SyncSummary): boolean {
  return s.unreachable !== undefined && s.windows.loaded === 0 && (s.events?.loaded ?? 0) === 0;
}

/** `--max-pages searches=2` (repeatable) into a cap per stream; the stream must be one the run syncs. */
function parseMaxPages(values: readonly string[], streams: readonly StreamDefinition[]): Map<string, number> {
  const caps = new Map<string, number>();
  for (const v of values) {
    const m = /^([a-z_]+)=([1-9]\d{0,5})$/.exec(v.trim());
    if (!m) {
      throw new UsageError(
        `--max-pages "${v}" must be STREAM=N with N from 1 to 999999, e.g. --max-pages searches=2`,
        {
          value: v,
        },
      );
    }
    const name = m[1] as string;
    streamByName(name);
    if (!streams.some((s) => s.name === name)) {
      throw new UsageError(
        `--max-pages ${name}=…: ${name} is not in --streams (${streams.map((s) => s.name).join(',')})`,
      );
    }
    if (caps.has(name)) {
      throw new UsageError(`--max-pages ${name} is given twice: give one cap per stream`, { stream: name });
    }
    if (name === 'assistant_threads') {
      throw new UsageError(
        '--max-pages assistant_threads: a thread is one request with no pages; --max-threads caps how many are fetched',
      );
    }
    caps.set(name, Number(m[2]));
  }
  return caps;
}

/** The service's own budget: 100 analytics requests an hour per organization (DESIGN.md). */
const SERVICE_REQUESTS_PER_HOUR = 100;

/**
 * A --rate-limit above the service's makes the service refuse requests with 429 (each one spent
 * and retried): accepted, since Mintlify may have raised an organization's limit, but said. The
 * emulator on this machine has whatever limit it was started with, so it is not warned about.
 */
function warnAboveServiceLimit(spec: RateLimitSpec, url: string, logger: Logger): void {
  const perHour = (spec.limit * 3_600_000) / spec.windowMs;
  if (perHour <= SERVICE_REQUESTS_PER_HOUR || isLoopbackUrl(url)) return;
  logger.warn(
    `--rate-limit ${spec.text} is more than the service's ${SERVICE_REQUESTS_PER_HOUR} requests an hour: past it the service answers 429 and the run waits; keep 100/1h unless Mintlify raised your organization's limit`,
  );
}

/** Flags that only act on streams not in --streams do nothing: say so instead of ignoring them. */
function checkStreamFlags(flags: SyncFlags, streams: readonly StreamDefinition[]): void {
  const has = (name: string): boolean => streams.some((s) => s.name === name);
  if (flags.periodPages === true && !has('visitors_weekly') && !has('visitors_monthly')) {
    throw new UsageError(
      `--period-pages acts on visitors_weekly and visitors_monthly, and neither is in --streams (${streams.map((s) => s.name).join(',')}): add one, e.g. --streams visitors_weekly`,
    );
  }
}

/** One day stream's windows are days; other windows are windows (a day, a range, a thread). */
function unit(s: SyncSummary): string {
  return s.streams.length === 1 && !windowsAreNotDays(s.streams[0] ?? '') ? 'day(s)' : 'window(s)';
}

function describe(s: SyncSummary, created = false): string {
  if (s.status === 'dry-run' && s.plan && s.plan.streams.length === 0 && s.eventsPlan !== undefined)
    return `dry run: ${describeEventsPlan(s.eventsPlan)}`;
  if (s.status === 'dry-run' && s.plan) {
    const byReason = new Map<string, number>();
    for (const d of s.plan.days) byReason.set(d.reason, (byReason.get(d.reason) ?? 0) + 1);
    const reasons = [...byReason].map(([r, n]) => `${n} ${r}`).join(', ');
    const days = s.plan.days.length;
    const est = `${s.plan.pagesPerDayFromHistory ? '' : 'about '}${s.plan.estimatedRequests}`;
    const skipped = s.plan.skipped.length;
    const lines = [
      `dry run: ${days} ${unit(s)} to fetch${days ? ` from ${s.dateFrom} to before ${s.dateTo} (${reasons})` : ''}`,
      ...(skipped > 0
        ? [
            `skipped: ${skipped} loaded ${s.plan.skipped.some((x) => windowsAreNotDays(x.stream)) ? 'window(s)' : 'day(s)'} already settled (fetched ${s.plan.skipped.length === 1 ? 'it' : 'each'} --lookback days or more after it ended; --refresh fetches them again)`,
          ]
        : []),
      `estimated requests: ${est}${s.plan.pagesPerDayFromHistory ? ' (from past pages per window)' : ' (typical sizes of a busy site; no history yet)'}`,
      `budget ${s.budget.rateLimit}: ${s.budget.spentBefore} spent in the current window; ETA about ${formatDuration(s.plan.etaMs)}`,
    ];
    if (s.plan.streams.length > 1 || s.plan.streams[0]?.stream !== 'visitors') {
      const width = Math.max(...s.plan.streams.map((x) => x.stream.length));
      for (const x of s.plan.streams)
        lines.push(
          `  ${x.stream.padEnd(width)}  ${x.windows} ${windowsAreNotDays(x.stream) ? 'window(s)' : 'day(s)'}, ${x.fromHistory ? '' : 'about '}${x.estimatedRequests} request(s)`,
        );
    }
    const dates = [
      ...new Set(
        s.plan.days.filter((d) => !windowsAreNotDays(d.stream)).map((d) => `${d.day}${d.partial ? '*' : ''}`),
      ),
    ].sort();
    if (dates.length > 0 && dates.length <= 40) lines.push(`days: ${dates.join(' ')}`);
    const ranges = s.plan.days
      .filter((d) => windowsAreNotDays(d.stream))
      .map((d) => `${d.stream} ${d.item ?? `[${d.day}, ${d.dateTo})`}${d.partial ? '*' : ''}`)
      .sort();
    if (ranges.length > 0 && ranges.length <= 40) lines.push(`ranges: ${ranges.join(', ')}`);
    if (s.eventsPlan !== undefined) lines.push(describeEventsPlan(s.eventsPlan));
    return lines.join('\n');
  }
  const w = s.windows;
  if (s.events !== undefined && s.streams.length === 1)
    return `sync ${s.status}: ${describeEvents(s.events)}, in ${formatDuration(s.durationMs)} -> ${created ? `created a new database at ${s.db}` : s.db}`;
  const parts = [
    `sync ${s.status}: ${s.error && (s.exitCode === EXIT.usage || s.stopReason === 'unreachable' || s.stopReason === 'unresponsive' || s.stopReason === 'lock-lost' || s.stopReason === 'disk-full' || s.stopReason === 'destination-ended') ? `${s.error}; ` : ''}${w.loaded}/${w.planned} ${unit(s)} loaded`,
    w.failed ? `${w.failed} failed` : '',
    w.deferred
      ? s.serviceRefused !== undefined
        ? `${w.deferred} deferred (the service refused with 429; ${s.serviceRefused.advice}; the next run continues)`
        : `${w.deferred} deferred (${s.stopReason ?? 'stopped'}; the next run continues)`
      : '',
    s.clockAhead !== undefined
      ? `${s.clockAhead.leftOut} left out (after the service's date, ${s.clockAhead.service}: this machine's clock is ahead)`
      : '',
    w.dropped
      ? `${w.dropped} dropped (unknown project${s.unknownProjects.length === 1 ? '' : 's'} ${s.unknownProjects.join(', ')})`
      : '',
    `${s.requests} request(s), ${s.retries} retr${s.retries === 1 ? 'y' : 'ies'}, ${s.rows} page row(s)`,
    s.warnings.total ? `${s.warnings.total} data-quality warning(s)` : '',
    s.events !== undefined ? describeEvents(s.events) : '',
    `in ${formatDuration(s.durationMs)} -> ${created ? `created a new database at ${s.db}` : s.db}`,
  ];
  return parts.filter((x) => x !== '').join(', ');
}
