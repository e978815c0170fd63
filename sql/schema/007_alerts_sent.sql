-- mintlify-etl schema v7: the alerts `mintlify-etl alerts` has sent, so that a re-run for the
-- same day sends nothing new.
--
-- One row per project and alert (alert_id is a hash of project, rule, subject and day: stable
-- from run to run). delivered is false while the webhook has not accepted it: the next run sends
-- it again. alert is the alert as sent (JSON), so that it can be sent again after its day has
-- passed. The webhook URL is a secret and is never stored.
CREATE TABLE IF NOT EXISTS alerts_sent (
  project_id text    NOT NULL,
  alert_id   text    NOT NULL,
  rule       text    NOT NULL,
  day        date NOT NULL,
  sent_at    timestamptz NOT NULL,
  delivered  boolean NOT NULL,
  alert      text    NOT NULL,
  PRIMARY KEY (project_id, alert_id)
);
