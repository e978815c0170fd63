import { readSmallFile } from '../util/small-file.js';
import { z } from 'zod';
import { UsageError } from '../errors.js';

/**
 * The rules of `mintlify-etl alerts` and their defaults. A rules file (JSON) overrides any of
 * them; a rule with `"enabled": false` is off. Unknown keys are refused, so a typo does not
 * silently leave a default in place.
 */
const traffic = z
  .object({
    enabled: z.boolean().default(true),
    /** Same weekdays looked back at for the baseline. */
    weeks: z.number().int().min(2).max(52).default(8),
    /** Fewer loaded same weekdays than this: no traffic alert yet. */
    minWeeks: z.number().int().min(2).max(52).default(4),
    /** Outside median ± threshold × 1.4826 × MAD (a robust z-score). */
    threshold: z.number().positive().default(3),
    /** ...and at least this far from the median, in percent (a flat history has MAD 0). */
    minChangePct: z.number().min(0).default(20),
    /** The site's pages by visitors over the 28 days before the day, each watched on its own. */
    topPages: z.number().int().min(0).max(1000).default(10),
    /** A page below this median is too small to alert on. */
    minPageMedian: z.number().min(0).default(20),
  })
  .strict();

const search = z
  .object({
    enabled: z.boolean().default(true),
    minSearches: z.number().int().min(1).default(5),
    /** Loaded search days needed in the 7 days before. */
    minHistoryDays: z.number().int().min(1).max(7).default(7),
  })
  .strict();

const feedback = z
  .object({
    enabled: z.boolean().default(true),
    /** Thumbs-down or comments on one page that day. */
    minCount: z.number().int().min(1).default(3),
    /** ...and at least this many times the page's daily rate over the baseline. */
    factor: z.number().min(1).default(3),
    baselineDays: z.number().int().min(7).max(365).default(28),
  })
  .strict();

const assistant = z
  .object({
    enabled: z.boolean().default(true),
    minTurns: z.number().int().min(1).default(10),
    /** Percentage points above the median unanswered share of the baseline days. */
    increasePoints: z.number().min(0).max(100).default(15),
    baselineDays: z.number().int().min(7).max(365).default(28),
    minHistoryDays: z.number().int().min(1).max(365).default(7),
    topQuestions: z.number().int().min(0).max(20).default(3),
  })
  .strict();

const pipeline = z
  .object({
    enabled: z.boolean().default(true),
    /** The newest loaded visitors day more than this many days before today. */
    maxDaysBehind: z.number().int().min(1).default(2),
    /** Nights in a row the budget ran out before the work was done. */
    budgetNights: z.number().int().min(1).default(3),
  })
  .strict();

export const rulesSchema = z
  .object({
    traffic: traffic.prefault({}),
    search: search.prefault({}),
    feedback: feedback.prefault({}),
    assistant: assistant.prefault({}),
    pipeline: pipeline.prefault({}),
  })
  .strict();

export type AlertRules = z.infer<typeof rulesSchema>;
export type RuleName = keyof AlertRules;

export function defaultRules(): AlertRules {
  return rulesSchema.parse({});
}

/** A rules file is a few hundred bytes; the cap only keeps a wrong path from filling memory. */
export const RULES_MAX_BYTES = 1024 * 1024;

/** The rules of a JSON file over the defaults; a UsageError (exit 2) naming the key otherwise. */
export function loadRules(file: string): AlertRules {
  const text = readSmallFile(file, {
    subject: `--rules ${file}`,
    maxBytes: RULES_MAX_BYTES,
    what: 'a rules file',
    advice: 'give a JSON file',
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--rules ${file}: not JSON (${(e as Error).message})`, { file }, { cause: e });
  }
  return parseRules(data, file);
}

export function parseRules(data: unknown, file: string): AlertRules {
  const parsed = rulesSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const keys =
    issue?.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : (issue?.path ?? []);
  const key = keys.length === 0 ? '(top level)' : keys.map(String).join('.');
  const why = issue?.code === 'unrecognized_keys' ? 'unknown key' : (issue?.message ?? 'invalid');
  throw new UsageError(`--rules ${file}: ${key}: ${why}`, { file, key });
}
