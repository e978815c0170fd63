-- mintlify-etl schema v4: the tables of the day streams besides visitors. Each window (one UTC
-- day) replaces its rows as a set, so no key or index is declared on the row tables: the window
-- replace keeps (project_id, day, ...) unique, and the tests check it.

-- views: content view events per day (additive over days and paths, unlike unique visitors).
CREATE TABLE IF NOT EXISTS site_views_daily (
  project_id   text    NOT NULL,
  day          date    NOT NULL,
  {{> site_counts }}
  PRIMARY KEY (project_id, day)
);

CREATE TABLE IF NOT EXISTS page_views_daily (
  project_id   text    NOT NULL,
  day          date    NOT NULL,
  path         text    NOT NULL,
  {{> visitor_counts }}
);

-- searches: one row per search term and day (the service groups terms case-insensitively).
CREATE TABLE IF NOT EXISTS search_daily (
  project_id       text    NOT NULL,
  day              date    NOT NULL,
  query            text    NOT NULL,
  hits             bigint  NOT NULL,
  ctr              double precision  NOT NULL,
  top_clicked_path text,
  last_searched_at timestamptz
);

CREATE TABLE IF NOT EXISTS search_totals_daily (
  project_id     text    NOT NULL,
  day            date    NOT NULL,
  total_searches bigint  NOT NULL,
  terms          bigint  NOT NULL,  -- rows loaded into search_daily for the day
  truncated      boolean NOT NULL DEFAULT false,  -- --max-pages left terms out
  PRIMARY KEY (project_id, day)
);

-- caller_stats: assistant queries per day by caller type.
CREATE TABLE IF NOT EXISTS assistant_callers_daily (
  project_id text    NOT NULL,
  day        date    NOT NULL,
  web        bigint  NOT NULL,
  api        bigint  NOT NULL,
  other      bigint  NOT NULL,
  total      bigint  NOT NULL,
  PRIMARY KEY (project_id, day)
);

-- feedback_by_page (opt-in): the first 100 pages by feedback per day; the API cannot page past
-- them, so a day with more is recorded truncated in sync_windows.
CREATE TABLE IF NOT EXISTS feedback_page_daily (
  project_id  text    NOT NULL,
  day         date    NOT NULL,
  path        text    NOT NULL,
  thumbs_up   bigint  NOT NULL,
  thumbs_down bigint  NOT NULL,
  code        bigint  NOT NULL,
  total       bigint  NOT NULL
);
