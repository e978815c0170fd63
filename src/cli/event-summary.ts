import type { EventsPlan, EventsSummary } from '../pipeline/event-sync.js';
import { escapeControl } from '../util/safe-text.js';
import { sizeText } from '../util/size-text.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** The event stream's part of sync's summary line. */
export function describeEvents(e: EventsSummary): string {
  const parts = [
    `events: ${n(e.loaded)} object(s) loaded of ${n(e.listed)} listed`,
    `${n(e.newEvents)} new event(s) of ${n(e.events)} read`,
    e.rejected > 0 ? `${n(e.rejected)} rejected line(s)` : '',
    e.unmapped > 0 ? `${n(e.unmapped)} of unmapped subdomains` : '',
    e.failed > 0
      ? `${n(e.failed)} object(s) could not be read (${failedList(e)}; the next run reads them again)`
      : '',
    e.retried > 0 ? `${n(e.retried)} earlier failure(s) read again` : '',
    e.stopReason === 'max-duration'
      ? 'stopped by --max-duration between objects (the next run reads the rest)'
      : e.stopReason === 'interrupted'
        ? 'interrupted between objects (the next run reads the rest)'
        : '',
    `${n(e.listRequests)} listing request(s) and ${n(e.getRequests)} object read(s) from ${e.source}, no API request`,
  ];
  return parts.filter((p) => p !== '').join(', ');
}

/** The failed objects by key and cause, the first few (a line must stay a line: keys are escaped). */
function failedList(e: EventsSummary): string {
  const shown = e.failedObjects.slice(0, 3).map((f) => `${escapeControl(f.key)}: ${f.cause}`);
  const more = e.failedObjects.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? `; and ${n(more)} more` : ''}`;
}

/** sync --dry-run's line for the event stream. */
export function describeEventsPlan(p: EventsPlan): string {
  return `events: ${n(p.toRead)} object(s) to read (${sizeText(p.bytes)}) of ${n(p.listed)} listed from ${p.source} (${n(p.listRequests)} listing request(s), no API request)`;
}
