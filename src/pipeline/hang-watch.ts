import type { RequestEvent } from '../api/client.js';

/** Attempts in a row without response headers, on a run that has had no response at all, before it stops. */
export const HUNG_BEFORE_ANY_ANSWER = 2;
/** The same once the server has answered in this run: a slow spell is more likely, so more patience. */
export const HUNG_AFTER_ANSWERS = 4;

/** The client's marks for an attempt that got no response headers in time (see MintlifyClient.attempt). */
const NO_HEADERS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'E_NO_RESPONSE']);

/**
 * Tells a server that accepts connections and never answers from a slow one. Without it every
 * window paid six full timeouts (3 min 15 s) and a run never ended. Only attempts that got no
 * response headers count: a body that stalls after the headers came from a server that answers,
 * and its retries are worth their time.
 */
export class HangWatch {
  #answered = false;
  #silentInARow = 0;

  /** One attempt that reached the server ended; true when the server should now be called hung. */
  observe(e: Pick<RequestEvent, 'status' | 'errorCode'>): boolean {
    if (e.status !== null) {
      this.#answered = true;
      this.#silentInARow = 0;
      return false;
    }
    if (e.errorCode === undefined || !NO_HEADERS.has(e.errorCode)) return false;
    this.#silentInARow++;
    return this.#silentInARow >= (this.#answered ? HUNG_AFTER_ANSWERS : HUNG_BEFORE_ANY_ANSWER);
  }

  get silentInARow(): number {
    return this.#silentInARow;
  }
}
