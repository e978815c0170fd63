-- AT is a keyword in DuckDB: `SELECT at FROM api_requests` is a syntax error, so every query had
-- to quote the column. RENAME keeps the rows, the column order (positional INSERTs still work)
-- and the NOT NULL; the table has no key or index to rebuild.
ALTER TABLE api_requests RENAME COLUMN "at" TO requested_at;
