import { VisitorsResponseSchema } from '../api/schemas.js';
import { siteAndPagesStream } from './site-and-pages.js';

/**
 * Unique visitors per day (`/visitors`): site totals and per-page counts, human and AI, into
 * site_daily and page_daily. Unique visitors are not additive, so a window is one day, never
 * more; their data-quality checks are max(human, ai) <= total <= human + ai.
 */
export const visitors = siteAndPagesStream({
  name: 'visitors',
  endpoint: 'visitors',
  siteTable: 'site_daily',
  pageTable: 'page_daily',
  rowsField: 'visitors',
  schema: VisitorsResponseSchema,
});
