import { expect } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { ISO_WEEKS } from '../../src/extract/range-plan.js';
import { addDays, dayRange } from '../../src/util/day.js';
import { feedbackTruth, messagesTruth, turnsTruth } from './events-truth.js';
import {
  pgData,
  pgFeedbackByPage,
  pgFeedbackRows,
  pgMessageRows,
  pgRangeStarts,
  pgRows,
  pgSiteWeekly,
  pgStreamTables,
  pgTurnRows,
} from './postgres-rows.js';
import { byKey, truth } from './streams-truth.js';
import { expectedRows } from './truth.js';

/** The default streams and the opt-in ones the PostgreSQL end-to-end tests sync. */
export const PG_STREAMS = [
  'visitors',
  'views',
  'searches',
  'feedback',
  'assistant',
  'caller_stats',
  'feedback_by_page',
  'assistant_threads',
  'visitors_weekly',
].join(',');

/** The days (dateFrom) of the requests to `endpoint` (a path suffix) in the emulator's log from entry `since` on. */
export function fetchedDays(emu: Emulator, since: number, endpoint = '/visitors'): string[] {
  const days = emu.stats.log
    .slice(since)
    .filter((e) => e.path.endsWith(endpoint))
    .map((e) => new URLSearchParams(e.query).get('dateFrom') ?? '');
  return [...new Set(days)].sort();
}

/** The complete ISO weeks from `from`'s week on that a 3-day lookback has settled by `today`. */
function settledWeeks(from: string, today: string): string[] {
  const out: string[] = [];
  for (let s = ISO_WEEKS.start(from); addDays(ISO_WEEKS.next(s), 3) <= today; s = ISO_WEEKS.next(s))
    out.push(s);
  return out;
}

/**
 * Every table of PG_STREAMS in `schema` equals the emulator's ground truth for the days from
 * `from` to yesterday, table by table (each named in the failure). Tables must not be empty.
 */
export async function expectPgTruth(
  url: string,
  schema: string,
  emu: Emulator,
  from: string,
  today: string,
): Promise<void> {
  const ds = emu.dataset;
  const project = emu.projectId;
  const days = dayRange(from, today);
  const data = await pgData(url, schema);
  expect(data.site.length, 'site_daily').toBe(days.length);
  expect(data, 'site_daily, page_daily').toEqual(expectedRows(ds, days));
  const streams = await pgStreamTables(url, schema);
  const want = truth(ds, project, days);
  for (const k of Object.keys(want) as (keyof typeof want)[]) expect(streams[k], k).toEqual(want[k]);

  const starts = await pgRangeStarts(url, schema);
  const start = (s: string): string => starts.get(s) ?? from;
  const feedback = await pgFeedbackRows(url, schema);
  expect(feedback.length, 'feedback rows').toBeGreaterThan(0);
  expect(feedback, 'feedback').toEqual(feedbackTruth(ds, project, start('feedback'), today));
  expect(await pgTurnRows(url, schema), 'assistant_turns').toEqual(
    turnsTruth(ds, project, start('assistant'), today),
  );
  const threads = (
    await pgRows<{ id: string }>(url, schema, 'SELECT thread_id AS id FROM assistant_threads')
  ).map((r) => r.id);
  expect(threads.length, 'assistant_threads').toBeGreaterThan(0);
  expect(await pgMessageRows(url, schema), 'assistant_messages').toEqual(messagesTruth(ds, project, threads));

  const byPage = days
    .flatMap((day) =>
      ds.feedbackByPage(day).feedback.map((r) => ({
        day,
        path: r.path,
        thumbs_up: r.thumbsUp,
        thumbs_down: r.thumbsDown,
        code: r.code,
        total: r.total,
      })),
    )
    .sort(byKey('day', 'path'));
  expect(byPage.length).toBeGreaterThan(0);
  expect(await pgFeedbackByPage(url, schema), 'feedback_page_daily').toEqual(byPage);

  const weeks = settledWeeks(from, today);
  expect(weeks.length).toBeGreaterThan(0);
  expect(await pgSiteWeekly(url, schema), 'site_weekly').toEqual(
    weeks.map((s) => ({ project_id: project, period_start: s, ...ds.query(s, ISO_WEEKS.next(s)).totals })),
  );
}
