-- mintlify-etl schema v8, PostgreSQL dialect of sql/schema/008_budget_scope.sql: whose budget each
-- request spent (a one-way fingerprint of the API key, or a chosen name); NULL in older rows, which
-- count against every scope.
ALTER TABLE api_requests ADD COLUMN IF NOT EXISTS budget_scope text;

-- PostgreSQL only: the ledger is written as requests go (src/load/postgres/ledger.ts), and each
-- answer replaces one of its run's pending rows. Without this index that search read the whole
-- ledger: 170 ms a request on a ledger of a million rows (a busy organization's year), 1 ms
-- with it. DuckDB writes its ledger in bulk with each batch and needs no index.
CREATE INDEX IF NOT EXISTS api_requests_run_seq ON api_requests (run_id, seq);

-- PostgreSQL only: every window load deletes the rows it replaces first. DuckDB skips row groups
-- by their min/max; PostgreSQL without an index reads every row of the day range, of every
-- project in a shared warehouse, or the whole table for the keyed event rows. These make a load's
-- deletes proportional to the rows it replaces (benchmark 8: 1M page rows 1.24-1.39x a plain
-- COPY with the page index, against 1.54x without).
CREATE INDEX IF NOT EXISTS page_daily_window ON page_daily (project_id, day);
CREATE INDEX IF NOT EXISTS page_views_daily_window ON page_views_daily (project_id, day);
CREATE INDEX IF NOT EXISTS search_daily_window ON search_daily (project_id, day);
CREATE INDEX IF NOT EXISTS feedback_page_daily_window ON feedback_page_daily (project_id, day);
CREATE INDEX IF NOT EXISTS page_weekly_window ON page_weekly (project_id, period_start);
CREATE INDEX IF NOT EXISTS page_monthly_window ON page_monthly (project_id, period_start);
CREATE INDEX IF NOT EXISTS feedback_key ON feedback (project_id, id);
CREATE INDEX IF NOT EXISTS feedback_window ON feedback (project_id, window_start);
CREATE INDEX IF NOT EXISTS assistant_turns_key ON assistant_turns (project_id, thread_id, ts);
CREATE INDEX IF NOT EXISTS assistant_turns_window ON assistant_turns (project_id, window_start);
CREATE INDEX IF NOT EXISTS assistant_messages_thread ON assistant_messages (project_id, thread_id);
