-- One row per project and ISO week (Monday to Sunday) that has a loaded day in site_daily or a
-- true weekly figure in site_weekly (a week can have either without the other).
-- The *_visitor_days columns are sums of daily unique visitors (site_daily): a visitor seen on
-- three days of the week counts three times, so they are NOT unique weekly visitors. `days` says
-- how many days of the week are loaded (0 when only site_weekly has the week: the visitor-days are
-- then NULL, not known); has_partial_day whether any of them was not over when fetched; complete =
-- all 7 days loaded and none partial.
-- total_visitor_days_change_pct is a fraction (0.25 = +25%) against the previous ISO week, only
-- when both weeks are complete (a 7-day sum against a 2-day one is no trend) and the previous
-- total is not 0; NULL otherwise.
-- human / ai / total: TRUE unique visitors of the week (site_weekly, stream visitors_weekly: one
-- request whose window is exactly the week), each reader counted once; NULL when that week is not
-- loaded there (the stream is opt-in). They are never derived from the daily figures, so they are
-- at most, and usually well below, the visitor-days. uniques_partial: the week was not over when
-- its true figure was fetched (NULL without one). uniques_source: 'period' when the true figure is
-- there, NULL otherwise. total_change_pct: the true total against the previous ISO week's, a
-- fraction, only when both weeks have a true figure, neither partial, and the previous is not 0.
-- Weeks are ISO weeks (Monday): date_trunc('week') on a timestamp WITHOUT time zone, so the
-- session's TimeZone cannot move a day (sql/partials/period_visitors.sql, shared with
-- v_site_monthly).
CREATE OR REPLACE VIEW v_site_weekly AS
WITH {{> period_visitors(grain = 'week', start = week_start, uniques = site_weekly) }},
flagged AS (
  SELECT
    *,
    days = 7 AND NOT has_partial_day AS complete
  FROM joined
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
FROM flagged AS w
LEFT JOIN flagged AS p
  ON p.project_id = w.project_id AND p.week_start = w.week_start - 7;
