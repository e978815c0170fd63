-- mintlify-etl schema v8: the request ledger records whose budget each request spent.
--
-- The service's budget is per organization and one database may hold several: budget_scope is a
-- one-way fingerprint of the API key ('key:' and 16 hex digits, never the key) or a name the user
-- chose ('--budget-scope'). Rows written before v8 have none (NULL): a run counts them against its
-- own scope, whatever it is, since they may have been anybody's.
ALTER TABLE api_requests ADD COLUMN budget_scope VARCHAR;
