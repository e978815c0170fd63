-- Per project and stream: which calendar days between the first and the last loaded window are
-- loaded (from sync_windows, so that every stream is covered whatever its tables). missing_days
-- lists the days with no loaded window (empty list when none); partial_days the loaded days that
-- were not over when fetched (re-fetched by the next sync); truncated_days the loaded days a
-- --max-pages cap cut short.
CREATE OR REPLACE VIEW v_coverage AS
WITH loaded AS (
  SELECT project_id, stream, window_start AS day, fetched_at,
         fetched_at < window_end::TIMESTAMPTZ AS partial, truncated
  FROM sync_windows
  WHERE status = 'loaded'
),
bounds AS (
  SELECT
    project_id,
    stream,
    min(day) AS first_day,
    max(day) AS last_day,
    count(*)::BIGINT AS days_loaded,
    coalesce(list(day ORDER BY day) FILTER (WHERE partial), []::DATE[]) AS partial_days,
    coalesce(list(day ORDER BY day) FILTER (WHERE truncated), []::DATE[]) AS truncated_days,
    max(fetched_at) AS last_loaded_at
  FROM loaded
  GROUP BY project_id, stream
),
calendar AS (
  SELECT b.project_id, b.stream,
         unnest(generate_series(b.first_day::TIMESTAMP, b.last_day::TIMESTAMP, INTERVAL 1 DAY))::DATE AS day
  FROM bounds AS b
),
missing AS (
  SELECT c.project_id, c.stream, list(c.day ORDER BY c.day) AS missing_days
  FROM calendar AS c
  ANTI JOIN loaded AS l ON l.project_id = c.project_id AND l.stream = c.stream AND l.day = c.day
  GROUP BY c.project_id, c.stream
)
SELECT
  b.project_id,
  b.stream,
  b.first_day,
  b.last_day,
  b.days_loaded,
  coalesce(len(m.missing_days), 0)::BIGINT AS days_missing,
  coalesce(m.missing_days, []::DATE[]) AS missing_days,
  len(b.partial_days)::BIGINT AS days_partial,
  b.partial_days,
  len(b.truncated_days)::BIGINT AS days_truncated,
  b.truncated_days,
  b.last_loaded_at
FROM bounds AS b
LEFT JOIN missing AS m ON m.project_id = b.project_id AND m.stream = b.stream;
