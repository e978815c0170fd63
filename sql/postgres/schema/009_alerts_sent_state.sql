-- mintlify-etl schema v9, PostgreSQL dialect of sql/schema/009_alerts_sent_state.sql: 'sending'
-- (committed before the POST; left by a run that died while posting: not sent again unless
-- --resend), 'delivered', or 'failed' (sent again by the next run).
ALTER TABLE alerts_sent ADD COLUMN IF NOT EXISTS state text;
UPDATE alerts_sent SET state = CASE WHEN delivered THEN 'delivered' ELSE 'failed' END WHERE state IS NULL;
