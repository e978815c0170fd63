-- mintlify-etl schema v4: the tables of the day streams besides visitors. Each window (one UTC
-- day) replaces its rows as a set, so no key or index is declared on the row tables: the window
-- replace keeps (project_id, day, ...) unique, and the tests check it.

-- views: content view events per day (additive over days and paths, unlike unique visitors).
CREATE TABLE IF NOT EXISTS site_views_daily (
  project_id VARCHAR NOT NULL,
  day        DATE    NOT NULL,
  human      BIGINT  NOT NULL,
  ai         BIGINT  NOT NULL,
  total      BIGINT  NOT NULL,
  partial    BOOLEAN NOT NULL DEFAULT false,
  loaded_at  TIMESTAMPTZ NOT NULL,
  run_id     VARCHAR NOT NULL,
  PRIMARY KEY (project_id, day)
);

CREATE TABLE IF NOT EXISTS page_views_daily (
  project_id VARCHAR NOT NULL,
  day        DATE    NOT NULL,
  path       VARCHAR NOT NULL,
  human      BIGINT  NOT NULL,
  ai         BIGINT  NOT NULL,
  total      BIGINT  NOT NULL
);

-- searches: one row per search term and day (the service groups terms case-insensitively).
CREATE TABLE IF NOT EXISTS search_daily (
  project_id       VARCHAR NOT NULL,
  day              DATE    NOT NULL,
  query            VARCHAR NOT NULL,
  hits             BIGINT  NOT NULL,
  ctr              DOUBLE  NOT NULL,
  top_clicked_path VARCHAR,
  last_searched_at TIMESTAMPTZ
);

CREATE TABLE IF NOT EXISTS search_totals_daily (
  project_id     VARCHAR NOT NULL,
  day            DATE    NOT NULL,
  total_searches BIGINT  NOT NULL,
  terms          BIGINT  NOT NULL,  -- rows loaded into search_daily for the day
  truncated      BOOLEAN NOT NULL DEFAULT false,  -- --max-pages left terms out
  PRIMARY KEY (project_id, day)
);

-- caller_stats: assistant queries per day by caller type.
CREATE TABLE IF NOT EXISTS assistant_callers_daily (
  project_id VARCHAR NOT NULL,
  day        DATE    NOT NULL,
  web        BIGINT  NOT NULL,
  api        BIGINT  NOT NULL,
  other      BIGINT  NOT NULL,
  total      BIGINT  NOT NULL,
  PRIMARY KEY (project_id, day)
);

-- feedback_by_page (opt-in): the first 100 pages by feedback per day; the API cannot page past
-- them, so a day with more is recorded truncated in sync_windows.
CREATE TABLE IF NOT EXISTS feedback_page_daily (
  project_id  VARCHAR NOT NULL,
  day         DATE    NOT NULL,
  path        VARCHAR NOT NULL,
  thumbs_up   BIGINT  NOT NULL,
  thumbs_down BIGINT  NOT NULL,
  code        BIGINT  NOT NULL,
  total       BIGINT  NOT NULL
);
