-- Per project AND stream (visitors, views, searches, caller_stats, feedback_by_page, ...): which
-- calendar days between the first and the last day a loaded window of that stream covers are
-- loaded, read from sync_windows (status = 'loaded'; a window covers [window_start, window_end):
-- one day for the day streams, a range of days for feedback and assistant, a week or month for
-- the period grains). One row per stream that has at least one loaded window. For the visitors
-- numbers of earlier versions, filter stream = 'visitors'.
-- Every list and count is in days (UTC calendar days), whatever the stream's windows are; only
-- windows_loaded counts windows. A day covered by several loaded windows is judged by the newest
-- (the latest fetched_at: its load replaced the others' rows).
-- first_day / last_day: the first and the last day a loaded window covers.
-- days_loaded: the days loaded windows cover.
-- missing_days: the calendar days in [first_day, last_day] that no loaded window of the stream
-- covers; empty list when none.
-- partial_days: covered days that had not ended when their newest window was fetched (fetched_at
-- before the next midnight UTC), e.g. today with --include-today, or the rest of a week fetched
-- on its Wednesday; the next sync fetches them again.
-- truncated_days: covered days whose newest window a page cap (--max-pages, or the API's own
-- limit for feedback_by_page) cut short: their rows may be incomplete.
-- last_loaded_at: when the newest of the stream's windows was fetched.
-- windows_loaded: the loaded windows (one per day for the day streams).
-- A day ends at midnight UTC whatever the session's TimeZone.
CREATE OR REPLACE VIEW v_coverage AS
WITH windows AS (
  SELECT project_id, stream, window_start, window_end, truncated, fetched_at
  FROM sync_windows
  WHERE status = 'loaded'
),
covered AS (
  SELECT
    w.project_id,
    w.stream,
    g.day::date AS day,
    max(w.fetched_at) AS fetched_at,
    (array_agg(w.truncated ORDER BY w.fetched_at DESC, w.truncated DESC))[1] AS truncated
  FROM windows AS w
  CROSS JOIN LATERAL generate_series(
    w.window_start::timestamp, w.window_end::timestamp - INTERVAL '1 day', INTERVAL '1 day'
  ) AS g(day)
  GROUP BY w.project_id, w.stream, g.day::date
),
bounds AS (
  SELECT
    project_id,
    stream,
    min(day) AS first_day,
    max(day) AS last_day,
    count(*)::bigint AS days_loaded,
    coalesce(
      array_agg(day ORDER BY day) FILTER (WHERE fetched_at < ((day + 1)::timestamp AT TIME ZONE 'UTC')),
      CAST(ARRAY[] AS date[])
    ) AS partial_days,
    coalesce(array_agg(day ORDER BY day) FILTER (WHERE truncated), CAST(ARRAY[] AS date[])) AS truncated_days
  FROM covered
  GROUP BY project_id, stream
),
counts AS (
  SELECT project_id, stream, count(*)::bigint AS windows_loaded, max(fetched_at) AS last_loaded_at
  FROM windows
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
    SELECT 1 FROM covered AS v
    WHERE v.project_id = c.project_id AND v.stream = c.stream AND v.day = c.day
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
  n.last_loaded_at,
  n.windows_loaded
FROM bounds AS b
JOIN counts AS n ON n.project_id = b.project_id AND n.stream = b.stream
LEFT JOIN missing AS m ON m.project_id = b.project_id AND m.stream = b.stream;
