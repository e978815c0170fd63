import { parseCallerStatsQuery } from './caller-stats.js';
import type { Dataset } from './data.js';
import { feedbackPage, feedbackRows, parseFeedbackQuery } from './feedback-by-page.js';
import type { Refused } from './query-params.js';
import type { Answer } from './responses.js';
import { json } from './responses.js';
import type { SearchCursors } from './search-cursor.js';
import { parseSearchesQuery, searchesPage } from './searches.js';
import { parseViewsQuery, viewsPage } from './views.js';
import { parseVisitorsQuery, visitorsPage } from './visitors.js';

/** The analytics operations the emulator serves: all share one rate limit, as at the service. */
export const ANALYTICS_KINDS = ['visitors', 'views', 'searches', 'caller-stats', 'feedback-by-page'] as const;
export type AnalyticsKind = (typeof ANALYTICS_KINDS)[number];

export interface AnalyticsContext {
  dataset: Dataset;
  cursors: SearchCursors;
  hasMoreOnFullPages: boolean;
}

/** A request whose parameters passed: `respond` builds the body once rate limit and faults let it through. */
export type Prepared = { ok: true; respond: () => unknown } | Refused;

/** Validates one analytics request's query string; nothing is computed until `respond` runs. */
export function prepareAnalytics(
  kind: AnalyticsKind,
  params: URLSearchParams,
  ctx: AnalyticsContext,
): Prepared {
  const { dataset } = ctx;
  const today = dataset.today;
  switch (kind) {
    case 'visitors': {
      const p = parseVisitorsQuery(params, today);
      return p.ok ? { ok: true, respond: () => visitorsPage(dataset, p.query, ctx.hasMoreOnFullPages) } : p;
    }
    case 'views': {
      const p = parseViewsQuery(params, today);
      if (!p.ok) return p;
      const { dateFrom, dateTo } = p.query;
      return {
        ok: true,
        respond: () => viewsPage(dataset.streams.views(dateFrom, dateTo), p.query, ctx.hasMoreOnFullPages),
      };
    }
    case 'searches': {
      const p = parseSearchesQuery(params, today, ctx.cursors);
      if (!p.ok) return p;
      const { dateFrom, dateTo } = p.query;
      return {
        ok: true,
        respond: () => searchesPage(dataset.streams.searches(dateFrom, dateTo), p.query, ctx.cursors),
      };
    }
    case 'caller-stats': {
      const p = parseCallerStatsQuery(params, today);
      if (!p.ok) return p;
      return {
        ok: true,
        respond: () => ({ ...dataset.streams.callerStats(p.query.dateFrom, p.query.dateTo) }),
      };
    }
    case 'feedback-by-page': {
      const p = parseFeedbackQuery(params, today);
      if (!p.ok) return p;
      const q = p.query;
      return {
        ok: true,
        respond: () => feedbackPage(feedbackRows(dataset.streams.feedback(q.dateFrom, q.dateTo), q), q.limit),
      };
    }
  }
}

/** The documented 400 body: a headline and one `{message}` per problem. */
export function refusal(r: Refused): Answer {
  return json(400, {
    error: r.error ?? 'Invalid query parameters',
    details: r.details.map((message) => ({ message })),
  });
}
