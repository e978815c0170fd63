import { z } from 'zod';

/*
 * The OpenAPI schemas of GET /feedback, /assistant and /assistant/threads/{threadId},
 * written out by hand (FeedbackResponse, AssistantConversationsResponse,
 * AssistantThreadResponse), strict so that an extra key fails. The three feedback shapes
 * have distinct key sets, so a strict item matches exactly one of them.
 */
const source = z.enum(['code_snippet', 'contextual', 'agent', 'thumbs_only']);
const status = z.enum(['pending', 'in_progress', 'resolved', 'dismissed']);
const base = {
  id: z.string(),
  path: z.string(),
  comment: z.string().nullable(),
  createdAt: z.string().nullable(),
  source,
  status,
};

export const ContextualFeedbackSchema = z.strictObject({
  ...base,
  helpful: z.boolean(),
  contact: z.string().nullable(),
});
export const CodeSnippetFeedbackSchema = z.strictObject({
  ...base,
  code: z.string(),
  filename: z.string().nullable(),
  lang: z.string().nullable(),
});
export const BaseFeedbackSchema = z.strictObject(base);
export const FEEDBACK_SHAPES = [
  ContextualFeedbackSchema,
  CodeSnippetFeedbackSchema,
  BaseFeedbackSchema,
] as const;

export const FeedbackItemSchema = z.union(FEEDBACK_SHAPES);
export const FeedbackResponseSchema = z.strictObject({
  feedback: z.array(FeedbackItemSchema),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

/** Which of the three shapes an item matches: exactly one index, or -1 / -2 for none / several. */
export function feedbackShape(item: unknown): number {
  const hits = FEEDBACK_SHAPES.flatMap((s, i) => (s.safeParse(item).success ? [i] : []));
  return hits.length === 1 ? hits[0]! : hits.length === 0 ? -1 : -2;
}

export const AssistantTurnSchema = z.strictObject({
  id: z.string(),
  timestamp: z.string(),
  query: z.string(),
  response: z.string(),
  responseType: z.enum(['answer', 'clarifying_question']).optional(),
  sources: z.array(z.strictObject({ title: z.string(), url: z.string() })),
  resolutionStatus: z.enum(['answered', 'unanswered']),
  queryCategory: z.string().nullable(),
  pageUrl: z.string().nullable(),
});
export const AssistantConversationsResponseSchema = z.strictObject({
  conversations: z.array(AssistantTurnSchema),
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
});

export const AssistantThreadResponseSchema = z.strictObject({
  threadId: z.string(),
  createdAt: z.string(),
  messages: z.array(
    z.strictObject({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      createdAt: z.string(),
    }),
  ),
});

export const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** ISO 8601 in UTC with milliseconds, as Date#toISOString writes it. */
export const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
