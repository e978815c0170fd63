-- mintlify-etl schema v6, PostgreSQL dialect of sql/schema/006_agent_job_gaps.sql: which content
-- gaps an agent job was started to fix (`agent fix`), and when a job was first seen completed.
CREATE TABLE IF NOT EXISTS agent_job_gaps (
  project_id  text NOT NULL,
  job_id      text NOT NULL,
  gap_id      text NOT NULL,
  kind        text NOT NULL,
  subject_key text NOT NULL,
  subject     text NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (project_id, job_id, gap_id)
);

ALTER TABLE agent_jobs ADD COLUMN IF NOT EXISTS completed_at timestamptz;
