import { z } from 'zod';
import { ValidationError, type RequestDescription } from '../errors.js';

/** A UTC calendar day, `YYYY-MM-DD`. */
export type Day = string;

/**
 * Visitor counts are estimates of distinct visitors, so anything but a non-negative integer is a
 * broken response, and loading it would silently corrupt every sum built on top of it.
 */
const count = z.number().int().nonnegative();

export const TotalsSchema = z.object({ human: count, ai: count, total: count });

export const PageRowSchema = z.object({ path: z.string(), human: count, ai: count, total: count });

export const VisitorsResponseSchema = z.object({
  totals: TotalsSchema,
  visitors: z.array(PageRowSchema),
  hasMore: z.boolean(),
});

/** Both error shapes the service documents: analytics `{error, details?}` and admin `{error}`. */
export const AnalyticsErrorSchema = z.object({
  error: z.string(),
  details: z.array(z.object({ message: z.string() })).optional(),
});

export const AgentJobStatusSchema = z.enum(['active', 'completed', 'archived', 'failed']);

/**
 * The service guarantees no field of a job, so every field is optional and the documented
 * nullable ones accept null. Unknown fields are stripped (zod's default) so nothing unexpected
 * reaches the database; a field of the wrong type is still an error.
 */
export const AgentJobSchema = z.object({
  id: z.string().optional(),
  status: AgentJobStatusSchema.optional(),
  source: z
    .object({
      repository: z.string().optional(),
      ref: z.string().nullable().optional(),
    })
    .optional(),
  model: z.string().optional(),
  prLink: z.string().nullable().optional(),
  createdAt: z.string().optional(),
  archivedAt: z.string().nullable().optional(),
});

/** GET /views: view events, not people, so every field is additive and total = human + ai. */
export const ViewsTotalsSchema = z.object({ human: count, ai: count, total: count });

export const ViewRowSchema = z.object({ path: z.string(), human: count, ai: count, total: count });

export const ViewsResponseSchema = z.object({
  totals: ViewsTotalsSchema,
  views: z.array(ViewRowSchema),
  hasMore: z.boolean(),
});

/**
 * One row of GET /searches. The service documents ctr only as a number, not as a fraction or
 * a percentage, so only a negative or non-finite rate is refused; a top page is null when
 * nobody clicked.
 */
export const SearchRowSchema = z.object({
  searchQuery: z.string(),
  hits: count,
  ctr: z.number().nonnegative(),
  topClickedPage: z.string().nullable(),
  lastSearchedAt: z.string(),
});

/** GET /searches: cursor paging, so no hasMore; nextCursor is null on the last page and must be present. */
export const SearchesResponseSchema = z.object({
  searches: z.array(SearchRowSchema),
  totalSearches: count,
  nextCursor: z.string().nullable(),
});

/** GET /assistant/caller-stats: one object for the whole range, no paging. */
export const CallerStatsResponseSchema = z.object({ web: count, api: count, other: count, total: count });

export const FeedbackPageRowSchema = z.object({
  path: z.string(),
  thumbsUp: count,
  thumbsDown: count,
  code: count,
  total: count,
});

/** GET /feedback/by-page: no cursor or offset, so hasMore means rows exist that cannot be fetched. */
export const FeedbackByPageResponseSchema = z.object({
  feedback: z.array(FeedbackPageRowSchema),
  hasMore: z.boolean(),
});

/** A time the service sent: any ISO 8601 text Date.parse understands (the loader stores it as UTC). */
const timestamp = z.string().refine((t) => Number.isFinite(Date.parse(t)), 'not an ISO 8601 timestamp');

const FeedbackBase = {
  id: z.string().min(1),
  path: z.string(),
  comment: z.string().nullable(),
  createdAt: timestamp.nullable(),
  status: z.enum(['pending', 'in_progress', 'resolved', 'dismissed']),
};

/**
 * One GET /feedback entry. Its shape follows `source`: contextual adds helpful and contact (an
 * email address: personal data), code_snippet adds code, filename and lang, agent and
 * thumbs_only have the base fields only. A field of another shape is not kept.
 */
export const FeedbackItemSchema = z.discriminatedUnion('source', [
  z.object({
    ...FeedbackBase,
    source: z.literal('contextual'),
    helpful: z.boolean(),
    contact: z.string().nullable(),
  }),
  z.object({
    ...FeedbackBase,
    source: z.literal('code_snippet'),
    code: z.string(),
    filename: z.string().nullable(),
    lang: z.string().nullable(),
  }),
  z.object({ ...FeedbackBase, source: z.literal('agent') }),
  z.object({ ...FeedbackBase, source: z.literal('thumbs_only') }),
]);

/** GET /feedback: cursor paging with nextCursor and hasMore. */
export const FeedbackResponseSchema = z.object({
  feedback: z.array(FeedbackItemSchema),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

/** One user turn of GET /assistant: `id` is the thread id, repeated on every turn of the thread. */
export const AssistantTurnSchema = z.object({
  id: z.string().min(1),
  timestamp,
  query: z.string(),
  response: z.string(),
  responseType: z.enum(['answer', 'clarifying_question']).optional(),
  sources: z.array(z.object({ title: z.string(), url: z.string() })),
  resolutionStatus: z.enum(['answered', 'unanswered']),
  queryCategory: z.string().nullable(),
  pageUrl: z.string().nullable(),
});

/** GET /assistant: ULID cursor paging with nextCursor and hasMore, no ordering guarantee. */
export const AssistantResponseSchema = z.object({
  conversations: z.array(AssistantTurnSchema),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

/** GET /assistant/threads/{threadId}: the whole transcript, no paging. */
export const AssistantThreadSchema = z.object({
  threadId: z.string().min(1),
  createdAt: timestamp,
  messages: z.array(
    z.object({
      id: z.string().min(1),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      createdAt: timestamp,
    }),
  ),
});

export type Totals = z.infer<typeof TotalsSchema>;
export type PageRow = z.infer<typeof PageRowSchema>;
export type VisitorsPage = z.infer<typeof VisitorsResponseSchema>;
export type AnalyticsErrorBody = z.infer<typeof AnalyticsErrorSchema>;
export type AgentJob = z.infer<typeof AgentJobSchema>;
export type AgentJobStatus = z.infer<typeof AgentJobStatusSchema>;
export type ViewsTotals = z.infer<typeof ViewsTotalsSchema>;
export type ViewRow = z.infer<typeof ViewRowSchema>;
export type ViewsPage = z.infer<typeof ViewsResponseSchema>;
export type SearchRow = z.infer<typeof SearchRowSchema>;
export type SearchesPage = z.infer<typeof SearchesResponseSchema>;
export type CallerStats = z.infer<typeof CallerStatsResponseSchema>;
export type FeedbackPageRow = z.infer<typeof FeedbackPageRowSchema>;
export type FeedbackByPage = z.infer<typeof FeedbackByPageResponseSchema>;

/** A page of 250 broken rows would otherwise produce a message nobody can read. */
const MAX_ISSUES_IN_MESSAGE = 10;

/** `['visitors', 3, 'total']` -> `visitors[3].total`, the way a person would point at the field. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}

/** Validates a decoded response body; a mismatch is a ValidationError naming field, request and reason. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown, request: RequestDescription): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const all = result.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
  const shown = all.slice(0, MAX_ISSUES_IN_MESSAGE);
  if (all.length > shown.length) shown.push(`(+${all.length - shown.length} more issues)`);
  throw new ValidationError(request, shown);
}
export type FeedbackItem = z.infer<typeof FeedbackItemSchema>;
export type AssistantTurn = z.infer<typeof AssistantTurnSchema>;
export type AssistantThread = z.infer<typeof AssistantThreadSchema>;
