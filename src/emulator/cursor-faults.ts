import type { Answer } from './responses.js';

/**
 * A cursor sequence that never ends, the way a broken server pages: `repeat` sends back the
 * cursor it was given (with the first page's rows again); `empty` answers every page after the
 * first with no rows and a fresh cursor. Only on the endpoint named, so the other streams of a
 * run stay healthy.
 */
export type CursorFaultKind = 'repeat' | 'empty';

export interface CursorFault {
  readonly endpoint: 'searches' | 'feedback' | 'assistant';
  readonly kind: CursorFaultKind;
}

const ROWS: Record<CursorFault['endpoint'], string> = {
  searches: 'searches',
  feedback: 'feedback',
  assistant: 'conversations',
};

/** The cursor the fault hands out: never one the real cursor codecs would accept. */
const PREFIX = 'fault-';

/**
 * The query the real handler should answer (the cursor dropped: every faulty page is built from
 * the first one), or undefined when the fault does not apply to this request.
 */
export function cursorFaultParams(
  fault: CursorFault | undefined,
  kind: string,
  params: URLSearchParams,
): URLSearchParams | undefined {
  if (fault === undefined || fault.endpoint !== kind) return undefined;
  const first = new URLSearchParams(params);
  first.delete('cursor');
  return first;
}

/** Rewrites the first page's answer into the faulty page for the cursor that was sent. */
export function cursorFaultAnswer(fault: CursorFault, sent: string | null, real: Answer): Answer {
  if (real.status !== 200) return real;
  const body = JSON.parse(real.body) as Record<string, unknown>;
  const n = sent?.startsWith(PREFIX) ? Number(sent.slice(PREFIX.length)) : 0;
  if (fault.kind === 'repeat') {
    body['nextCursor'] = sent ?? `${PREFIX}0`;
  } else {
    if (sent !== null) body[ROWS[fault.endpoint]] = [];
    body['nextCursor'] = `${PREFIX}${n + 1}`;
  }
  if ('hasMore' in body) body['hasMore'] = true;
  return { ...real, body: JSON.stringify(body) };
}
