-- Per project: which calendar days between the first and the last loaded day are loaded.
-- missing_days lists the days with no site_daily row (empty list when none); partial_days the
-- loaded days that were not over when fetched (re-fetched by the next sync).
CREATE OR REPLACE VIEW v_coverage AS
WITH bounds AS (
  SELECT
    project_id,
    min(day) AS first_day,
    max(day) AS last_day,
    count(*)::BIGINT AS days_loaded,
    coalesce(list(day ORDER BY day) FILTER (WHERE partial), []::DATE[]) AS partial_days,
    max(loaded_at) AS last_loaded_at
  FROM site_daily
  GROUP BY project_id
),
calendar AS (
  SELECT b.project_id, unnest(generate_series(b.first_day::TIMESTAMP, b.last_day::TIMESTAMP, INTERVAL 1 DAY))::DATE AS day
  FROM bounds AS b
),
missing AS (
  SELECT c.project_id, list(c.day ORDER BY c.day) AS missing_days
  FROM calendar AS c
  ANTI JOIN site_daily AS s ON s.project_id = c.project_id AND s.day = c.day
  GROUP BY c.project_id
)
SELECT
  b.project_id,
  b.first_day,
  b.last_day,
  b.days_loaded,
  coalesce(len(m.missing_days), 0)::BIGINT AS days_missing,
  coalesce(m.missing_days, []::DATE[]) AS missing_days,
  len(b.partial_days)::BIGINT AS days_partial,
  b.partial_days,
  b.last_loaded_at
FROM bounds AS b
LEFT JOIN missing AS m ON m.project_id = b.project_id;
