-- mintlify-etl schema v8, PostgreSQL dialect of sql/schema/008_budget_scope.sql: whose budget each
-- request spent (a one-way fingerprint of the API key, or a chosen name); NULL in older rows, which
-- count against every scope.
ALTER TABLE api_requests ADD COLUMN IF NOT EXISTS budget_scope text;

-- PostgreSQL only: the ledger is written as requests go (src/load/postgres/ledger.ts), and each
-- answer replaces one of its run's pending rows. Without this index that search read the whole
-- ledger: 170 ms a request on a ledger of a million rows (a busy organization's year), 1 ms
-- with it. DuckDB writes its ledger in bulk with each batch and needs no index.
CREATE INDEX IF NOT EXISTS api_requests_run_seq ON api_requests (run_id, seq);
