import type { AssistantCursors } from './assistant.js';
import { assistantPage, checkThreadId, parseAssistantQuery } from './assistant.js';
import { parseCallerStatsQuery } from './caller-stats.js';
import type { Dataset } from './data.js';
import { feedbackPage, feedbackRows, parseFeedbackQuery } from './feedback-by-page.js';
import { feedbackEventsPage, parseFeedbackEventsQuery } from './feedback-events.js';
import type { Refused } from './query-params.js';
import type { Answer } from './responses.js';
import { json } from './responses.js';
import type { SearchCursors } from './search-cursor.js';
import { parseSearchesQuery, searchesPage } from './searches.js';
import { editRows, type ServedEdits } from './served-edits.js';
import type { SignedCursors } from './signed-cursor.js';
import { parseViewsQuery, viewsPage } from './views.js';
import { parseVisitorsQuery, visitorsPage } from './visitors.js';

/** The analytics operations the emulator serves: all share one rate limit, as at the service. */
export const ANALYTICS_KINDS = [
  'visitors',
  'views',
  'searches',
  'caller-stats',
  'feedback-by-page',
  'feedback',
  'assistant',
  'assistant-thread',
] as const;
export type AnalyticsKind = (typeof ANALYTICS_KINDS)[number];

export interface AnalyticsContext {
  dataset: Dataset;
  cursors: SearchCursors;
  feedbackCursors: SignedCursors;
  assistantCursors: AssistantCursors;
  hasMoreOnFullPages: boolean;
  edits: ServedEdits;
}

/** A request whose parameters passed: `respond` builds the answer once rate limit and faults let it through. */
export type Prepared = { ok: true; respond: () => Answer } | Refused;

/** A 200 with the body `build` makes. */
function ok(build: () => unknown): Prepared {
  return { ok: true, respond: () => json(200, build()) };
}

/**
 * Validates one analytics request's query string (and the thread id of `assistant-thread`);
 * nothing is computed until `respond` runs.
 */
export function prepareAnalytics(
  kind: AnalyticsKind,
  params: URLSearchParams,
  ctx: AnalyticsContext,
  threadId = '',
): Prepared {
  const { dataset } = ctx;
  const today = dataset.today;
  switch (kind) {
    case 'visitors': {
      const p = parseVisitorsQuery(params, today);
      if (!p.ok) return p;
      return ok(() =>
        editRows(visitorsPage(dataset, p.query, ctx.hasMoreOnFullPages), 'visitors', ctx.edits.pages),
      );
    }
    case 'views': {
      const p = parseViewsQuery(params, today);
      if (!p.ok) return p;
      const { dateFrom, dateTo } = p.query;
      return ok(() =>
        editRows(
          viewsPage(dataset.streams.views(dateFrom, dateTo), p.query, ctx.hasMoreOnFullPages),
          'views',
          ctx.edits.pages,
        ),
      );
    }
    case 'searches': {
      const p = parseSearchesQuery(params, today, ctx.cursors);
      if (!p.ok) return p;
      const { dateFrom, dateTo } = p.query;
      return ok(() =>
        editRows(
          searchesPage(dataset.streams.searches(dateFrom, dateTo), p.query, ctx.cursors),
          'searches',
          ctx.edits.searches,
        ),
      );
    }
    case 'caller-stats': {
      const p = parseCallerStatsQuery(params, today);
      if (!p.ok) return p;
      return ok(() => ({ ...dataset.streams.callerStats(p.query.dateFrom, p.query.dateTo) }));
    }
    case 'feedback-by-page': {
      const p = parseFeedbackQuery(params, today);
      if (!p.ok) return p;
      const q = p.query;
      return ok(() => feedbackPage(feedbackRows(dataset.streams.feedback(q.dateFrom, q.dateTo), q), q.limit));
    }
    case 'feedback': {
      const p = parseFeedbackEventsQuery(params, today, ctx.feedbackCursors);
      if (!p.ok) return p;
      const q = p.query;
      return ok(() =>
        editRows(
          feedbackEventsPage(dataset.streams.feedbackEvents(q.dateFrom, q.dateTo), q, ctx.feedbackCursors),
          'feedback',
          ctx.edits.feedback,
        ),
      );
    }
    case 'assistant': {
      const p = parseAssistantQuery(params, today, ctx.assistantCursors);
      if (!p.ok) return p;
      const q = p.query;
      return ok(() =>
        editRows(
          assistantPage(dataset.streams.assistantTurns(q.dateFrom, q.dateTo), q, ctx.assistantCursors),
          'conversations',
          ctx.edits.assistant,
        ),
      );
    }
    case 'assistant-thread': {
      const refused = checkThreadId(threadId);
      if (refused) return refused;
      return {
        ok: true,
        respond: () => {
          const body = dataset.streams.assistantThread(threadId);
          if (!body) return json(404, { error: `Thread ${threadId} not found` });
          return json(200, ctx.edits.thread ? ctx.edits.thread(body) : body);
        },
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
