-- mintlify-etl schema v8: the request ledger records whose budget each request spent.
--
-- The service's budget is per organization and one database may hold several: budget_scope is a
-- one-way fingerprint of the API key ('key:' and 16 hex digits, never the key) or a name the user
-- chose ('--budget-scope'). Rows written before v8 have none (NULL): a run counts them against its
-- own scope, whatever it is, since they may have been anybody's.
ALTER TABLE api_requests ADD COLUMN IF NOT EXISTS budget_scope text;

-- The ledger is written as requests go on PostgreSQL (src/load/postgres/ledger.ts), and each
-- answer replaces one of its run's pending rows. Without this index that search read the whole
-- ledger: 170 ms a request on a ledger of a million rows (a busy organization's year), 1 ms
-- with it. DuckDB writes its ledger in bulk with each batch and needs no index.
{{ row_index(api_requests_run_seq, api_requests, (run_id, seq)) }}

-- Every window load deletes the rows it replaces first. DuckDB skips row groups by their min/max;
-- PostgreSQL without an index reads every row of the day range, of every project in a shared
-- warehouse, or the whole table for the keyed event rows. These make a load's deletes
-- proportional to the rows it replaces (benchmark 8: 1M page rows 1.24-1.39x a plain COPY with
-- the page index, against 1.54x without).
{{ row_index(page_daily_window, page_daily, (project_id, day)) }}
{{ row_index(page_views_daily_window, page_views_daily, (project_id, day)) }}
{{ row_index(search_daily_window, search_daily, (project_id, day)) }}
{{ row_index(feedback_page_daily_window, feedback_page_daily, (project_id, day)) }}
{{ row_index(page_weekly_window, page_weekly, (project_id, period_start)) }}
{{ row_index(page_monthly_window, page_monthly, (project_id, period_start)) }}
{{ row_index(feedback_key, feedback, (project_id, id)) }}
{{ row_index(feedback_window, feedback, (project_id, window_start)) }}
{{ row_index(assistant_turns_key, assistant_turns, (project_id, thread_id, ts)) }}
{{ row_index(assistant_turns_window, assistant_turns, (project_id, window_start)) }}
{{ row_index(assistant_messages_thread, assistant_messages, (project_id, thread_id)) }}
