import type { EventsPlan, EventsSummary } from '../pipeline/event-sync.js';
import { sizeText } from '../util/size-text.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** The event stream's part of sync's summary line. */
export function describeEvents(e: EventsSummary): string {
  const parts = [
    `events: ${n(e.loaded)} object(s) loaded of ${n(e.listed)} listed`,
    `${n(e.newEvents)} new event(s) of ${n(e.events)} read`,
    e.rejected > 0 ? `${n(e.rejected)} rejected line(s)` : '',
    e.unmapped > 0 ? `${n(e.unmapped)} of unmapped subdomains` : '',
    e.failed > 0 ? `${n(e.failed)} object(s) failed (the next run reads them again)` : '',
    `${n(e.listRequests)} listing request(s) and ${n(e.getRequests)} object read(s) from ${e.source}, no API request`,
  ];
  return parts.filter((p) => p !== '').join(', ');
}

/** sync --dry-run's line for the event stream. */
export function describeEventsPlan(p: EventsPlan): string {
  return `events: ${n(p.toRead)} object(s) to read (${sizeText(p.bytes)}) of ${n(p.listed)} listed from ${p.source} (${n(p.listRequests)} listing request(s), no API request)`;
}
