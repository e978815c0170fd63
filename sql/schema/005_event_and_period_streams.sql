-- mintlify-etl schema v5: the event streams (feedback, assistant turns, assistant threads) and the
-- period grains of unique visitors (ISO weeks, calendar months).
--
-- Event streams load ranges of days: after a range window is loaded, its table holds exactly the
-- rows the API served for [window_start, window_end) (rows.window_start names the window). Rows
-- are keyed records that change later (a feedback status), so the loader upserts by key; no key
-- is declared, the loader keeps keys unique and the tests check it.

-- feedback: one row per feedback entry, the three shapes of `source` in one table (the fields of
-- the other shapes NULL). `contact` is an email address: personal data, never logged, left out of
-- export and report unless --include-personal-data. created_at may be NULL (the API allows it):
-- such rows are upserted by key and never deleted by a range.
CREATE TABLE IF NOT EXISTS feedback (
  project_id    text    NOT NULL,
  id            text    NOT NULL,
  path          text    NOT NULL,
  source        text    NOT NULL,  -- contextual | code_snippet | agent | thumbs_only
  status        text    NOT NULL,  -- pending | in_progress | resolved | dismissed
  comment       text,
  helpful       boolean,           -- contextual only
  contact       text,           -- contextual only; personal data
  code          text,           -- code_snippet only
  filename      text,           -- code_snippet only
  lang          text,           -- code_snippet only
  created_at    timestamptz,
  first_seen_at timestamptz NOT NULL,  -- when this tool first fetched the row
  last_seen_at  timestamptz NOT NULL,  -- when this tool last fetched the row
  run_id        text    NOT NULL,
  window_start  date NOT NULL        -- the range window that served the row last (owns it)
);

-- assistant: one row per user turn; the API's `id` is the thread id and repeats across turns.
-- sources: the pages the answer cited, a list of (title, url): on DuckDB a LIST of
-- STRUCT(title, url), on PostgreSQL a jsonb array of {"title", "url"} objects.
CREATE TABLE IF NOT EXISTS assistant_turns (
  project_id        text    NOT NULL,
  thread_id         text    NOT NULL,
  ts                timestamptz NOT NULL,
  query             text    NOT NULL,
  response          text    NOT NULL,
  response_type     text    NOT NULL,  -- answer | clarifying_question (answer when the API omits it)
  resolution_status text    NOT NULL,  -- answered | unanswered
  query_category    text,
  page_url          text,
  {{ sources_column(sources) }},
  loaded_at         timestamptz NOT NULL,
  run_id            text    NOT NULL,
  window_start      date NOT NULL      -- the range window that served the turn last (owns it)
);

-- assistant_threads (opt-in): every message of a fetched thread, replaced as a set per thread.
CREATE TABLE IF NOT EXISTS assistant_messages (
  project_id text    NOT NULL,
  thread_id  text    NOT NULL,
  message_id text    NOT NULL,
  seq        integer NOT NULL,  -- position in the thread as the API ordered it
  role       text    NOT NULL,  -- user | assistant
  content    text    NOT NULL,
  created_at timestamptz NOT NULL
);

-- One row per thread this tool fetched (or found gone): a thread is fetched again only when
-- assistant_turns holds more turns of it than `turns` says it had when fetched.
CREATE TABLE IF NOT EXISTS assistant_threads (
  project_id text    NOT NULL,
  thread_id  text    NOT NULL,
  status     text    NOT NULL,  -- loaded | gone (404 naming it) | refused (400) | failed (every retry)
  created_at timestamptz,
  turns      integer NOT NULL,  -- its turns when fetched (loaded turns or transcript user messages, the more)
  messages   integer NOT NULL,
  fetched_at timestamptz NOT NULL,
  run_id     text    NOT NULL,
  PRIMARY KEY (project_id, thread_id)
);

-- visitors_weekly / visitors_monthly (opt-in): true unique visitors of an ISO week [Monday, next
-- Monday) or a calendar month, from one request whose window is exactly that period. Unlike sums
-- of daily uniques (visitor-days) these count a reader once per period; partial: the period was
-- not over when fetched.
CREATE TABLE IF NOT EXISTS site_weekly (
  project_id   text    NOT NULL,
  period_start date    NOT NULL,
  {{> site_counts }}
  PRIMARY KEY (project_id, period_start)
);

CREATE TABLE IF NOT EXISTS site_monthly (
  project_id   text    NOT NULL,
  period_start date    NOT NULL,
  {{> site_counts }}
  PRIMARY KEY (project_id, period_start)
);

-- --period-pages: every page's true uniques of the period (truncation by --max-pages is recorded
-- on the window in sync_windows).
CREATE TABLE IF NOT EXISTS page_weekly (
  project_id   text    NOT NULL,
  period_start date    NOT NULL,
  path         text    NOT NULL,
  {{> visitor_counts }}
);

CREATE TABLE IF NOT EXISTS page_monthly (
  project_id   text    NOT NULL,
  period_start date    NOT NULL,
  path         text    NOT NULL,
  {{> visitor_counts }}
);
