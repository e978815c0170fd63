-- PostgreSQL dialect of sql/views/110_v_feedback_by_page.sql (the column comments there hold for
-- both). day: the UTC day of created_at, whatever the session's TimeZone.
CREATE OR REPLACE VIEW v_feedback_by_page AS
SELECT
  project_id,
  path,
  (created_at AT TIME ZONE 'UTC')::date AS day,
  count(*) FILTER (WHERE source = 'contextual' AND helpful)::bigint AS thumbs_up,
  count(*) FILTER (WHERE source = 'contextual' AND NOT helpful)::bigint AS thumbs_down,
  count(*) FILTER (WHERE source = 'code_snippet')::bigint AS code,
  count(*)::bigint AS total,
  count(*) FILTER (WHERE status IN ('pending', 'in_progress'))::bigint AS open
FROM feedback
GROUP BY project_id, path, (created_at AT TIME ZONE 'UTC')::date;
