import { UsageError } from '../errors.js';
import { closestName } from '../util/did-you-mean.js';
import type { StreamDefinition } from './types.js';
import { assistant } from './assistant.js';
import { assistantThreads } from './assistant-threads.js';
import { callerStats } from './caller-stats.js';
import { feedback } from './feedback.js';
import { visitorsMonthly, visitorsWeekly } from './visitors-periods.js';
import { feedbackByPage } from './feedback-by-page.js';
import { searches } from './searches.js';
import { views } from './views.js';
import { visitors } from './visitors.js';

export type {
  StreamDefinition,
  LatePlanOptions,
  StreamFetched,
  StreamFetchOptions,
  StreamWindow,
} from './types.js';

/** Every stream this version knows, in the order a run lists them. */
export const STREAMS: readonly StreamDefinition[] = [
  visitors,
  views,
  searches,
  feedback,
  assistant,
  callerStats,
  feedbackByPage,
  assistantThreads,
  visitorsWeekly,
  visitorsMonthly,
];

export { DEFAULT_STREAMS } from './names.js';

/**
 * Every analytics endpoint shares the service's one budget, whether this run syncs it or not:
 * the ledger's requests of all of them count.
 */
export const ANALYTICS_ENDPOINTS: readonly string[] = [...new Set(STREAMS.map((s) => s.endpoint))];

/**
 * Whether a stream's windows are something other than single days: ranges of days (feedback,
 * assistant, the period grains) or records (assistant threads). Messages count them as windows.
 */
export function windowsAreNotDays(name: string): boolean {
  const s = STREAMS.find((x) => x.name === name);
  return s?.plan !== undefined || s?.planAfterLoads !== undefined;
}

export function streamByName(name: string): StreamDefinition {
  const s = STREAMS.find((x) => x.name === name);
  if (!s) {
    // `events`, the S3 event stream, is no API stream but a name --streams takes (src/cli/event-flags.ts).
    const all = [...STREAMS.map((x) => x.name), 'events'];
    const near = closestName(name, all);
    const hint = near === undefined ? '' : `did you mean ${near}? The streams`;
    throw new UsageError(`unknown stream "${name}": ${hint || 'the streams'} are ${all.join(', ')}`, {
      stream: name,
    });
  }
  return s;
}

/** --streams LIST (comma-separated, repeatable names collapse) into known streams, in STREAMS order. */
export function parseStreams(list: string): StreamDefinition[] {
  const names = new Set(
    list
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== ''),
  );
  if (names.size === 0) throw new UsageError('--streams is empty: give at least one stream, e.g. visitors');
  for (const n of names) streamByName(n);
  return STREAMS.filter((s) => names.has(s.name));
}
