import { API_TIME_RANGE, shortValue } from '../util/time.js';
import type { PageRow, Totals } from './visitor-counts.js';

/** Kinds of data-quality findings: counted in the run record, logged once per kind, never fatal. */
export type QualityKind =
  | 'total_above_human_plus_ai'
  | 'total_below_max_of_human_ai'
  | 'site_total_below_top_page'
  | 'site_total_above_sum_of_pages'
  | 'views_total_not_human_plus_ai'
  | 'callers_total_not_sum'
  | 'searches_total_below_sum_of_hits'
  | 'event_outside_window'
  | 'event_repeated'
  | 'thread_turns_mismatch'
  | 'time_out_of_range';

export interface QualityWarning {
  readonly kind: QualityKind;
  readonly detail: string;
}

/**
 * Times outside API_TIME_RANGE in one window (see readApiTime): what was done with them (`left
 * out`: the time is the row's key or event time; `stored as NULL`: an optional attribute), the
 * field, how many, and the first value, shortened.
 */
export function timeOutOfRange(
  field: string,
  values: readonly string[],
  action: 'left out' | 'stored as NULL',
): QualityWarning[] {
  const first = values[0];
  if (first === undefined) return [];
  return [
    {
      kind: 'time_out_of_range',
      detail: `${values.length} row(s) with ${field} outside [${API_TIME_RANGE.from.slice(0, 10)}, ${API_TIME_RANGE.to.slice(0, 10)}), ${action === 'left out' ? 'left out' : `${field} stored as NULL`} (first: ${shortValue(first)})`,
    },
  ];
}

/**
 * The API's counts are estimates de-duplicated across human and AI traffic, so
 * max(human, ai) <= total <= human + ai should hold for every row and for the site; a break
 * is worth telling the user about but is what the API says, so it is loaded as is.
 */
export function checkInvariants(site: Totals, rows: readonly PageRow[]): QualityWarning[] {
  const c = invariantChecks();
  c.add(rows);
  return c.warnings(site);
}

/** A window's data-quality checks fed page by page, so that its rows need not be kept for them. */
export interface WindowChecks {
  add(rows: readonly PageRow[]): void;
  /** Every finding of the window, the site's first, in the order of `checkInvariants`. */
  warnings(site: Totals): QualityWarning[];
}

/** `checkInvariants` page by page: the rows' findings, the top page and the sum are all it keeps. */
export function invariantChecks(): WindowChecks {
  const found: QualityWarning[] = [];
  let rows = 0;
  let top = 0;
  let sum = 0;
  return {
    add(page) {
      for (const r of page) {
        found.push(...invariantBreaks(r, `path ${JSON.stringify(r.path)}`));
        if (r.total > top) top = r.total;
        sum += r.total;
      }
      rows += page.length;
    },
    warnings(site) {
      const out = [...invariantBreaks(site, 'site totals'), ...found];
      if (rows > 0 && site.total < top) {
        out.push({
          kind: 'site_total_below_top_page',
          detail: `site total ${site.total} < top page total ${top}`,
        });
      }
      // Only meaningful when every page came back; a site total above the sum means visitors
      // of pages the API did not list, which a complete listing rules out.
      if (rows > 0 && site.total > sum) {
        out.push({
          kind: 'site_total_above_sum_of_pages',
          detail: `site total ${site.total} > sum of page totals ${sum}`,
        });
      }
      return out;
    },
  };
}

function invariantBreaks(t: Totals, where: string): QualityWarning[] {
  const out: QualityWarning[] = [];
  if (t.total > t.human + t.ai) {
    out.push({
      kind: 'total_above_human_plus_ai',
      detail: `${where}: total ${t.total} > human ${t.human} + ai ${t.ai}`,
    });
  }
  if (t.total < Math.max(t.human, t.ai)) {
    out.push({
      kind: 'total_below_max_of_human_ai',
      detail: `${where}: total ${t.total} < max(human ${t.human}, ai ${t.ai})`,
    });
  }
  return out;
}
