/** The event stream's reading side: where objects come from, their lines, and what a line holds. */
export { openEventSource } from './event-source.js';
export type { EventSource, EventSourceOptions, EventSourceStats } from './event-source.js';
export { readLines } from './object-lines.js';
export type { LineBatch, LineReader, LineReaderOptions } from './object-lines.js';
export { parseEventLine, referrerHost } from './parse-line.js';
export type { LineResult } from './parse-line.js';
export { compareKeys, DEFAULT_LOOKBACK_MS, keyTime, listStart } from './list-start.js';
export {
  asciiLower,
  classify,
  defaultTrafficClassesFile,
  loadTrafficClasses,
  trafficClassSql,
} from './traffic-class.js';
export type { BotClass, TrafficLists } from './traffic-class.js';
export {
  EventObjectDamagedError,
  EventObjectGoneError,
  EventSourceAuthError,
  EventSourceFailedError,
  EventSourceUnreachableError,
  EventSourceUsageError,
} from './errors.js';
export type { EventObject, RejectReason } from './types.js';
