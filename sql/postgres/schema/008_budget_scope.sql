-- mintlify-etl schema v8, PostgreSQL dialect of sql/schema/008_budget_scope.sql: whose budget each
-- request spent (a one-way fingerprint of the API key, or a chosen name); NULL in older rows, which
-- count against every scope.
ALTER TABLE api_requests ADD COLUMN IF NOT EXISTS budget_scope text;
