-- mintlify-etl schema v6: which content gaps an agent job was started to fix (`agent fix`).
--
-- One row per job and gap. kind and subject_key are the gap's own (v_content_gaps), kept here so
-- that the gap's measure can be followed after the fix (v_gap_outcomes) whatever window the gap
-- was found in; subject is the gap's subject as it was shown when the job was created.
CREATE TABLE IF NOT EXISTS agent_job_gaps (
  project_id  text    NOT NULL,
  job_id      text    NOT NULL,
  gap_id      text    NOT NULL,
  kind        text    NOT NULL,
  subject_key text    NOT NULL,
  subject     text    NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (project_id, job_id, gap_id)
);

-- When this tool first saw the job completed (the answer that showed it): the service gives no
-- completion time, and the effect of a fix is measured from it.
ALTER TABLE agent_jobs ADD COLUMN IF NOT EXISTS completed_at timestamptz;
