-- PostgreSQL dialect of sql/views/090_v_site_monthly.sql (the column comments there hold for both).
-- Months from date_trunc on a timestamp WITHOUT time zone (the session's TimeZone cannot move a
-- day); days_in_month is a date difference.
CREATE OR REPLACE VIEW v_site_monthly AS
WITH months AS (
  SELECT
    project_id,
    date_trunc('month', day::timestamp)::date AS month_start,
    count(*)::bigint AS days,
    sum(human)::bigint AS human_visitor_days,
    sum(ai)::bigint AS ai_visitor_days,
    sum(total)::bigint AS total_visitor_days,
    coalesce(bool_or(partial), false) AS has_partial_day
  FROM site_daily
  GROUP BY project_id, date_trunc('month', day::timestamp)::date
),
joined AS (
  SELECT
    coalesce(d.project_id, u.project_id) AS project_id,
    coalesce(d.month_start, u.period_start) AS month_start,
    coalesce(d.days, 0)::bigint AS days,
    d.human_visitor_days,
    d.ai_visitor_days,
    d.total_visitor_days,
    coalesce(d.has_partial_day, false) AS has_partial_day,
    u.human,
    u.ai,
    u.total,
    u.partial AS uniques_partial,
    CASE WHEN u.total IS NOT NULL THEN 'period' END AS uniques_source
  FROM months AS d
  FULL OUTER JOIN site_monthly AS u
    ON u.project_id = d.project_id AND u.period_start = d.month_start
),
flagged AS (
  SELECT
    *,
    ((month_start + INTERVAL '1 month')::date - month_start)::bigint AS days_in_month
  FROM joined
)
SELECT
  m.project_id,
  extract(year FROM m.month_start)::integer AS year,
  extract(month FROM m.month_start)::integer AS month,
  m.month_start,
  m.days,
  m.days_in_month,
  m.human_visitor_days,
  m.ai_visitor_days,
  m.total_visitor_days,
  m.has_partial_day,
  m.days = m.days_in_month AND NOT m.has_partial_day AS complete,
  CASE WHEN m.days = m.days_in_month AND NOT m.has_partial_day
    AND p.days = p.days_in_month AND NOT p.has_partial_day
    THEN (m.total_visitor_days - p.total_visitor_days)::double precision / nullif(p.total_visitor_days, 0)
  END AS total_visitor_days_change_pct,
  m.human,
  m.ai,
  m.total,
  m.uniques_partial,
  m.uniques_source,
  CASE WHEN NOT m.uniques_partial AND NOT p.uniques_partial
    THEN (m.total - p.total)::double precision / nullif(p.total, 0)
  END AS total_change_pct
FROM flagged AS m
LEFT JOIN flagged AS p
  ON p.project_id = m.project_id AND p.month_start = (m.month_start - INTERVAL '1 month')::date;
