import { startFakeApi, type FakeApi } from '../helpers/fake-api.js';

/**
 * One day of `rows` page rows behind the offset-paged endpoints (`/visitors`, `/views`): the
 * emulator cannot serve a day that large (its --paths stops at 100,000), and item 15 of issue 19
 * is about a 600,000-row day. Row i is a pure function of i, so a test can compare every row.
 */
export interface BigDay {
  readonly rows: number;
  /** Paths of ~57 characters, as a real site's (issue 36, item 12); default ~22. */
  readonly longPaths?: boolean;
}

/** The i-th page row of the day (the same for visitors and views; views add up, total = human + ai). */
export function bigDayRow(
  i: number,
  longPaths = false,
): { path: string; human: number; ai: number; total: number } {
  const human = (i * 7) % 1000;
  const ai = (i * 13) % 100;
  const path = longPaths
    ? `/docs/guides/integrations/section-${i % 97}/xxxxxxxxxpage-${i}`
    : `/docs/section-${i % 97}/page-${i}`;
  return { path, human, ai, total: human + ai };
}

/** The site totals of a day of `rows` rows: consistent with the rows (sum of the pages). */
export function bigDayTotals(rows: number): { human: number; ai: number; total: number } {
  let human = 0;
  let ai = 0;
  for (let i = 0; i < rows; i++) {
    const r = bigDayRow(i);
    human += r.human;
    ai += r.ai;
  }
  return { human, ai, total: human + ai };
}

/** A loopback API serving one day of `day.rows` rows on /visitors and /views, any date asked. */
export async function startBigDayApi(day: BigDay): Promise<FakeApi> {
  const totals = bigDayTotals(day.rows);
  return startFakeApi((req) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const field = url.pathname.endsWith('/visitors')
      ? 'visitors'
      : url.pathname.endsWith('/views')
        ? 'views'
        : '';
    if (field === '') return { status: 404, body: { error: 'not served by the big-day fixture' } };
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 250);
    const end = Math.min(day.rows, offset + limit);
    const rows = [];
    for (let i = offset; i < end; i++) rows.push(bigDayRow(i, day.longPaths));
    return { status: 200, body: { totals, [field]: rows, hasMore: end < day.rows } };
  });
}
