import { UsageError } from '../errors.js';
import { parseEventProjectMap } from '../pipeline/event-projects.js';
import type { EventSyncSettings } from '../pipeline/event-sync.js';
import { DEFAULT_STREAMS, parseStreams, type StreamDefinition } from '../streams/index.js';

export interface EventFlags {
  streams?: string;
  events?: string;
  eventsProject?: string;
  trafficClasses?: string;
}

export const EVENTS_STREAM = 'events';

const nonEmpty = (v: string | undefined): string | undefined =>
  v !== undefined && v.trim() !== '' ? v.trim() : undefined;

/**
 * The API streams and the event stream a sync loads. `events` in --streams names the event stream;
 * --events (or MINTLIFY_ETL_EVENTS) says where it is. Without --streams, a given source is loaded
 * beside the default API streams. A --streams that leaves `events` out loads none, and says so only
 * when --events was typed on this command line (a source set in the environment stays for cron).
 */
export function syncSelection(
  flags: EventFlags,
  env: NodeJS.ProcessEnv = process.env,
): { streams: StreamDefinition[]; events: EventSyncSettings | undefined } {
  const raw = flags.streams ?? nonEmpty(env['MINTLIFY_ETL_STREAMS']);
  const named = raw?.split(',').map((s) => s.trim()) ?? [];
  const wantsEvents = raw === undefined || named.includes(EVENTS_STREAM);
  const api = named.filter((s) => s !== EVENTS_STREAM && s !== '');
  // A list from the environment is parsed as the environment's, so its errors say where to fix it.
  const fromEnv = flags.streams === undefined;
  const streams =
    raw === undefined
      ? selectedStreams(undefined, env)
      : api.length === 0
        ? []
        : fromEnv
          ? selectedStreams(undefined, { MINTLIFY_ETL_STREAMS: api.join(',') })
          : selectedStreams(api.join(','), {});
  const source = nonEmpty(flags.events) ?? nonEmpty(env['MINTLIFY_ETL_EVENTS']);
  if (named.includes(EVENTS_STREAM) && source === undefined) {
    throw new UsageError(
      '--streams events needs the event stream: --events s3://BUCKET/PREFIX (or a folder mirroring the bucket), or MINTLIFY_ETL_EVENTS',
    );
  }
  if (!wantsEvents && nonEmpty(flags.events) !== undefined) {
    throw new UsageError(
      `--events is given but --streams (${raw ?? ''}) leaves out events: add it, e.g. --streams ${[...api, EVENTS_STREAM].join(',')}`,
    );
  }
  const load = wantsEvents && source !== undefined;
  if (!load && flags.eventsProject !== undefined)
    throw new UsageError(
      '--events-project maps the event stream, and this run loads none: give --events too',
    );
  if (!load) return { streams, events: undefined };
  const classes = nonEmpty(flags.trafficClasses) ?? nonEmpty(env['MINTLIFY_ETL_TRAFFIC_CLASSES']);
  return {
    streams,
    events: {
      source,
      ...(flags.eventsProject !== undefined
        ? { projectBySubdomain: parseEventProjectMap(flags.eventsProject) }
        : {}),
      ...(classes !== undefined ? { trafficClassesFile: classes } : {}),
    },
  };
}

/** --streams, else MINTLIFY_ETL_STREAMS (an empty variable counts as unset), else the default streams. */
function selectedStreams(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): StreamDefinition[] {
  const fromEnv = env['MINTLIFY_ETL_STREAMS'];
  if (flag === undefined && fromEnv !== undefined && fromEnv.trim() !== '') {
    try {
      return parseStreams(fromEnv);
    } catch (e) {
      // The list came from the environment: the user must know where to fix it.
      if (e instanceof UsageError)
        throw new UsageError(`MINTLIFY_ETL_STREAMS: ${e.message}`, e.context, { cause: e });
      throw e;
    }
  }
  return parseStreams(flag ?? DEFAULT_STREAMS.join(','));
}
