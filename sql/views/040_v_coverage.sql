-- Per project AND stream (visitors, views, searches, caller_stats, feedback_by_page, ...): which
-- calendar days between the first and the last loaded window of that stream are loaded, read from
-- sync_windows (status = 'loaded'; a window's day is its window_start). One row per stream that
-- has at least one loaded window. For the visitors numbers of earlier versions, filter
-- stream = 'visitors'. last_day is the last day the newest window covers (window_end - 1: a range
-- window of feedback or assistant, or a week or month of the period grains, covers several days).
-- days_loaded counts the days the loaded windows cover (one per window for the day streams);
-- windows_loaded counts the windows.
-- missing_days lists the calendar days in [first_day, last_day] that no loaded window of the
-- stream covers (a window covers [window_start, window_end)); empty list when none.
-- partial_days: loaded windows fetched before they ended (fetched_at < window_end, in UTC), e.g.
-- today with --include-today; the next sync fetches them again.
-- truncated_days: loaded windows that a page cap (--max-pages, or the API's own limit for
-- feedback_by_page) cut short: their rows are incomplete.
-- last_loaded_at: when the newest of those windows was fetched.
-- A window's end is midnight UTC of window_end whatever the session's TimeZone.
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
    coalesce(array_agg(day ORDER BY day) FILTER (WHERE partial), CAST(ARRAY[] AS date[])) AS partial_days,
    coalesce(array_agg(day ORDER BY day) FILTER (WHERE truncated), CAST(ARRAY[] AS date[])) AS truncated_days,
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
  coalesce({{ list_length(m.missing_days) }}, 0)::bigint AS days_missing,
  coalesce(m.missing_days, CAST(ARRAY[] AS date[])) AS missing_days,
  {{ list_length(b.partial_days) }}::bigint AS days_partial,
  b.partial_days,
  {{ list_length(b.truncated_days) }}::bigint AS days_truncated,
  b.truncated_days,
  b.last_loaded_at,
  b.windows_loaded
FROM bounds AS b
LEFT JOIN missing AS m ON m.project_id = b.project_id AND m.stream = b.stream;
