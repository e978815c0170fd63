/**
 * The visitors endpoint's counts as the client reads them: the site's totals and one page's row.
 * They live apart from the pager so that the quality checks (which the pager runs) can name them
 * without importing the pager back.
 */

export interface Totals {
  human: number;
  ai: number;
  total: number;
}

export interface PageRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}
