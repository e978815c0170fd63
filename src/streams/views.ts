import { ViewsResponseSchema } from '../api/schemas.js';
import type { QualityWarning, WindowChecks } from '../extract/quality.js';
import type { Totals } from '../extract/visitor-counts.js';
import { siteAndPagesStream } from './site-and-pages.js';

/**
 * Views are event counts, so they add up: total = human + ai for the site and every page, and
 * the pages sum to the site totals when every page came back. A break is loaded as the API sent
 * it and counted, like the visitor invariants.
 */
function viewChecks(): WindowChecks {
  const found: QualityWarning[] = [];
  return {
    add(rows) {
      for (const r of rows) found.push(...notAdditive(r, `path ${JSON.stringify(r.path)}`));
    },
    warnings: (site) => [...notAdditive(site, 'site views'), ...found],
  };
}

function notAdditive(t: Totals, where: string): QualityWarning[] {
  return t.total === t.human + t.ai
    ? []
    : [
        {
          kind: 'views_total_not_human_plus_ai',
          detail: `${where}: total ${t.total} <> human ${t.human} + ai ${t.ai}`,
        },
      ];
}

/**
 * Content views per day (`/views`): site totals and per-page counts, human and AI, into
 * site_views_daily and page_views_daily, with the same paging and consistency rules as visitors.
 */
export const views = siteAndPagesStream({
  name: 'views',
  endpoint: 'views',
  siteTable: 'site_views_daily',
  pageTable: 'page_views_daily',
  rowsField: 'views',
  schema: ViewsResponseSchema,
  checks: viewChecks,
});
