import type { AssistantThreadBody, AssistantTurn } from './assistant.js';
import type { FeedbackItem } from './feedback-events.js';
import type { SearchRow } from './searches.js';

/**
 * Edits applied to the rows a page serves, after paging was decided: a test makes the service
 * send what it never generates (a 5 MB comment, a year-1 timestamp) and compares the database
 * with the ground truth under the same edit. Cursors and ordering stay those of the dataset.
 */
export interface ServedEdits {
  readonly feedback?: (item: FeedbackItem) => FeedbackItem;
  readonly assistant?: (turn: AssistantTurn) => AssistantTurn;
  readonly searches?: (row: SearchRow) => SearchRow;
  readonly thread?: (body: AssistantThreadBody) => AssistantThreadBody;
  /** A page row of visitors and views (its path, say); the totals stay the dataset's. */
  readonly pages?: (row: PageCountRow) => PageCountRow;
}

/** A page row as visitors and views serve it. */
export interface PageCountRow {
  readonly path: string;
  readonly human: number;
  readonly ai: number;
  readonly total: number;
}

/** `body[field]` with `edit` applied to each row, or the body as it was when there is no edit. */
export function editRows<B extends object, R>(body: B, field: keyof B, edit: ((row: R) => R) | undefined): B {
  if (edit === undefined) return body;
  return { ...body, [field]: (body[field] as readonly R[]).map(edit) };
}
