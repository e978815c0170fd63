import type { RequestBudget } from '../api/budget.js';
import { estimateRun } from './estimate.js';

/**
 * Wall time left for a run that still has `requestsLeft` requests to send: --dry-run's
 * budget-aware estimate, from what the budget holds at `now`. The bar's own estimate (windows done
 * per second) swung from 1 s to 54 min under a short budget, because windows finish in bursts
 * each time the budget frees.
 */
export function remainingEta(
  requestsLeft: number,
  budget: Pick<RequestBudget, 'spec' | 'spentInWindow'>,
  now: number,
  perRequestMs: number,
): number {
  if (requestsLeft <= 0) return 0;
  return estimateRun(requestsLeft, budget.spec, budget.spentInWindow(now), perRequestMs).etaMs;
}
