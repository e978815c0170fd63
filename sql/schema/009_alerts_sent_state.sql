-- mintlify-etl schema v9: where each alert's delivery stands, so that a run killed while posting
-- it does not post it again.
--
-- state: 'sending' is written and committed before the POST; 'delivered' once the webhook
-- accepted it (or it was printed, without a webhook); 'failed' when the webhook refused it or
-- could not be reached, retries included (sent again by the next run). An alert left 'sending'
-- was in flight when its run died: it may have arrived, so it is not sent again unless
-- `alerts --resend` asks (at most once). delivered stays: true exactly when state = 'delivered'.
ALTER TABLE alerts_sent ADD COLUMN IF NOT EXISTS state text;
UPDATE alerts_sent SET state = CASE WHEN delivered THEN 'delivered' ELSE 'failed' END WHERE state IS NULL;
