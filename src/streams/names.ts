/*
 * The streams' names and defaults, apart from the streams themselves: the flags' help text shows
 * them, and loading every stream module (zod, the fetchers) is for a command that runs.
 * test/unit/stream-names.test.ts keeps STREAM_NAMES equal to STREAMS (src/streams/index.ts).
 */

/** Every stream this version knows, in the order a run lists them. */
export const STREAM_NAMES: readonly string[] = [
  'visitors',
  'views',
  'searches',
  'feedback',
  'assistant',
  'caller_stats',
  'feedback_by_page',
  'assistant_threads',
  'visitors_weekly',
  'visitors_monthly',
];

/**
 * What a run syncs when --streams / MINTLIFY_ETL_STREAMS does not say. feedback_by_page (capped at
 * 100 pages a day, and derived from `feedback` by a view for free), assistant_threads (a request
 * per thread) and the period grains are opt-in.
 */
export const DEFAULT_STREAMS: readonly string[] = [
  'visitors',
  'views',
  'searches',
  'feedback',
  'assistant',
  'caller_stats',
];

/**
 * Days a feedback window is re-read after it ends. Triage moves a status from pending to
 * resolved without any timestamp the API could filter on, so the only way to see it is to read
 * the range again; teams triage within days to weeks, and a month of a docs site's feedback is a
 * page or two, so 30 days keeps statuses current for about 2 requests a run.
 */
export const FEEDBACK_LOOKBACK_DAYS = 30;

/**
 * Threads fetched per project and run unless --max-threads says otherwise: each costs a request
 * of the hour's 100 that every analytics endpoint shares, so a nightly run spends at most a tenth
 * of the hour on transcripts and the backlog drains over nights (raise it for a backfill).
 */
export const DEFAULT_MAX_THREADS = 10;
