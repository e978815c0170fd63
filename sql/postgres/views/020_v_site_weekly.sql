-- PostgreSQL dialect of sql/views/020_v_site_weekly.sql (the column comments there hold for both).
-- Weeks are ISO weeks (Monday): date_trunc('week') on a timestamp WITHOUT time zone, so the
-- session's TimeZone cannot move a day; iso_year / iso_week are extract(isoyear / week).
CREATE OR REPLACE VIEW v_site_weekly AS
WITH weeks AS (
  SELECT
    project_id,
    date_trunc('week', day::timestamp)::date AS week_start,
    count(*)::bigint AS days,
    sum(human)::bigint AS human_visitor_days,
    sum(ai)::bigint AS ai_visitor_days,
    sum(total)::bigint AS total_visitor_days,
    coalesce(bool_or(partial), false) AS has_partial_day
  FROM site_daily
  GROUP BY project_id, date_trunc('week', day::timestamp)::date
),
joined AS (
  SELECT
    coalesce(d.project_id, u.project_id) AS project_id,
    coalesce(d.week_start, u.period_start) AS week_start,
    coalesce(d.days, 0)::bigint AS days,
    d.human_visitor_days,
    d.ai_visitor_days,
    d.total_visitor_days,
    coalesce(d.has_partial_day, false) AS has_partial_day,
    coalesce(d.days = 7 AND NOT d.has_partial_day, false) AS complete,
    u.human,
    u.ai,
    u.total,
    u.partial AS uniques_partial,
    CASE WHEN u.total IS NOT NULL THEN 'period' END AS uniques_source
  FROM weeks AS d
  FULL OUTER JOIN site_weekly AS u
    ON u.project_id = d.project_id AND u.period_start = d.week_start
)
SELECT
  w.project_id,
  extract(isoyear FROM w.week_start)::integer AS iso_year,
  extract(week FROM w.week_start)::integer AS iso_week,
  w.week_start,
  w.days,
  w.human_visitor_days,
  w.ai_visitor_days,
  w.total_visitor_days,
  w.has_partial_day,
  w.complete,
  CASE WHEN w.complete AND p.complete
    THEN (w.total_visitor_days - p.total_visitor_days)::double precision / nullif(p.total_visitor_days, 0)
  END AS total_visitor_days_change_pct,
  w.human,
  w.ai,
  w.total,
  w.uniques_partial,
  w.uniques_source,
  CASE WHEN NOT w.uniques_partial AND NOT p.uniques_partial
    THEN (w.total - p.total)::double precision / nullif(p.total, 0)
  END AS total_change_pct
FROM joined AS w
LEFT JOIN joined AS p
  ON p.project_id = w.project_id AND p.week_start = w.week_start - 7;
