-- PostgreSQL dialect of sql/views/100_v_feedback_open.sql (the column comments there hold for both).
-- age_days is a difference of UTC dates; ids sort in code-point order (COLLATE "C") as on DuckDB.
CREATE OR REPLACE VIEW v_feedback_open AS
SELECT
  project_id,
  id,
  path,
  source,
  status,
  helpful,
  redact_emails(comment) AS comment,
  created_at,
  ((current_timestamp AT TIME ZONE 'UTC')::date - (created_at AT TIME ZONE 'UTC')::date)::bigint AS age_days,
  first_seen_at,
  last_seen_at AS status_seen_at
FROM feedback
WHERE status IN ('pending', 'in_progress')
ORDER BY project_id COLLATE "C", created_at ASC NULLS LAST, id COLLATE "C";
