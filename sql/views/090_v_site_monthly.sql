-- One row per project and calendar month that has a loaded day in site_daily or a true monthly
-- figure in site_monthly (a month can have either without the other).
-- The *_visitor_days columns are sums of daily unique visitors (site_daily): a visitor seen on ten
-- days of the month counts ten times, so they are NOT unique monthly visitors. `days` says how many
-- days of the month are loaded (0 when only site_monthly has it: visitor-days then NULL, not
-- known), days_in_month how many it has; has_partial_day whether a loaded day was not over when
-- fetched; complete = every day of the month loaded and none partial.
-- total_visitor_days_change_pct: a fraction (0.25 = +25%) against the previous month, only when
-- both months are complete and the previous total is not 0 (months differ in length by up to 3
-- days: a 31-day sum against a 28-day one is part of the change).
-- human / ai / total: TRUE unique visitors of the month (site_monthly, stream visitors_monthly:
-- one request whose window is exactly the month); NULL when the month is not loaded there.
-- uniques_partial: the month was not over when fetched (NULL without a true figure);
-- uniques_source: 'period' when the true figure is there, NULL otherwise. total_change_pct: the
-- true total against the previous month's, only when both have one, neither partial, and the
-- previous is not 0; NULL otherwise.
-- Months from date_trunc on a timestamp WITHOUT time zone (the session's TimeZone cannot move a
-- day): sql/partials/period_visitors.sql, shared with v_site_weekly.
CREATE OR REPLACE VIEW v_site_monthly AS
WITH {{> period_visitors(grain = 'month', start = month_start, uniques = site_monthly) }},
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
