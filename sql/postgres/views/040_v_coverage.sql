-- PostgreSQL dialect of sql/views/040_v_coverage.sql (the column comments there hold for both).
-- Lists are date[] arrays ('{}' when empty; cardinality, not array_length, which is NULL for an
-- empty array). A window's end is midnight UTC of window_end whatever the session's TimeZone.
CREATE OR REPLACE VIEW v_coverage AS
WITH loaded AS (
  SELECT
    project_id,
    stream,
    window_start AS day,
    window_end,
    fetched_at < (window_end::timestamp AT TIME ZONE 'UTC') AS partial,
    truncated,
    fetched_at
  FROM sync_windows
  WHERE status = 'loaded'
),
bounds AS (
  SELECT
    project_id,
    stream,
    min(day) AS first_day,
    (max(window_end) - 1)::date AS last_day,
    sum(window_end - day)::bigint AS days_loaded,
    count(*)::bigint AS windows_loaded,
    coalesce(array_agg(day ORDER BY day) FILTER (WHERE partial), '{}'::date[]) AS partial_days,
    coalesce(array_agg(day ORDER BY day) FILTER (WHERE truncated), '{}'::date[]) AS truncated_days,
    max(fetched_at) AS last_loaded_at
  FROM loaded
  GROUP BY project_id, stream
),
calendar AS (
  SELECT b.project_id, b.stream, g.day::date AS day
  FROM bounds AS b
  CROSS JOIN LATERAL generate_series(b.first_day::timestamp, b.last_day::timestamp, INTERVAL '1 day') AS g(day)
),
missing AS (
  SELECT c.project_id, c.stream, array_agg(c.day ORDER BY c.day) AS missing_days
  FROM calendar AS c
  WHERE NOT EXISTS (
    SELECT 1 FROM loaded AS l
    WHERE l.project_id = c.project_id AND l.stream = c.stream AND c.day >= l.day AND c.day < l.window_end
  )
  GROUP BY c.project_id, c.stream
)
SELECT
  b.project_id,
  b.stream,
  b.first_day,
  b.last_day,
  b.days_loaded,
  coalesce(cardinality(m.missing_days), 0)::bigint AS days_missing,
  coalesce(m.missing_days, '{}'::date[]) AS missing_days,
  cardinality(b.partial_days)::bigint AS days_partial,
  b.partial_days,
  cardinality(b.truncated_days)::bigint AS days_truncated,
  b.truncated_days,
  b.last_loaded_at,
  b.windows_loaded
FROM bounds AS b
LEFT JOIN missing AS m ON m.project_id = b.project_id AND m.stream = b.stream;
