-- Assistant queries per project and loaded day by caller type (stream caller_stats, table
-- assistant_callers_daily): web (the docs site's assistant), api (the assistant API), other.
-- Queries are events: they add up over days. web_share / api_share / other_share are fractions
-- of total (0.25 = 25%), NULL when total is 0 (no division by zero).
-- partial: the day was not over when fetched (sync_windows: fetched_at < window_end); a partial
-- day's counts are not comparable with a full day's.
-- A window's end is midnight UTC of window_end whatever the session's TimeZone.
CREATE OR REPLACE VIEW v_assistant_callers_daily AS
SELECT
  a.project_id,
  a.day,
  a.web,
  a.api,
  a.other,
  a.total,
  a.web::double precision / nullif(a.total, 0) AS web_share,
  a.api::double precision / nullif(a.total, 0) AS api_share,
  a.other::double precision / nullif(a.total, 0) AS other_share,
  coalesce(w.fetched_at < (w.window_end::timestamp AT TIME ZONE 'UTC'), false) AS partial
FROM assistant_callers_daily AS a
LEFT JOIN sync_windows AS w
  ON w.project_id = a.project_id AND w.stream = 'caller_stats' AND w.window_start = a.day
  AND w.status = 'loaded';
