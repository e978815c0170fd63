-- mintlify-etl schema v7, PostgreSQL dialect of sql/schema/007_alerts_sent.sql: the alerts
-- `mintlify-etl alerts` has sent (delivered false: to send again on the next run). The webhook URL
-- is never stored.
CREATE TABLE IF NOT EXISTS alerts_sent (
  project_id text NOT NULL,
  alert_id   text NOT NULL,
  rule       text NOT NULL,
  day        date NOT NULL,
  sent_at    timestamptz NOT NULL,
  delivered  boolean NOT NULL,
  alert      text NOT NULL,
  PRIMARY KEY (project_id, alert_id)
);
