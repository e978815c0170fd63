-- PostgreSQL dialect of sql/schema/002_ledger_requested_at.sql: the same name on both destinations.
ALTER TABLE api_requests RENAME COLUMN "at" TO requested_at;
