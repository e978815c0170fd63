-- One row per project and ISO week (Monday to Sunday). The sums are visitor-days: a visitor seen on
-- three days of the week counts three times, so they are NOT unique weekly visitors. `days` says
-- how many days of the week are loaded; has_partial_day whether any of them was not over when
-- fetched; complete = all 7 days loaded and none partial.
-- total_visitor_days_change_pct is a fraction (0.25 = +25%) against the previous ISO week, only
-- when both weeks are complete (a 7-day sum against a 2-day one is no trend) and the previous
-- total is not 0; NULL otherwise.
CREATE OR REPLACE VIEW v_site_weekly AS
WITH weeks AS (
  SELECT
    project_id,
    date_trunc('week', day)::DATE AS week_start,
    count(*)::BIGINT AS days,
    sum(human)::BIGINT AS human_visitor_days,
    sum(ai)::BIGINT AS ai_visitor_days,
    sum(total)::BIGINT AS total_visitor_days,
    coalesce(bool_or(partial), false) AS has_partial_day
  FROM site_daily
  GROUP BY project_id, date_trunc('week', day)::DATE
),
flagged AS (
  SELECT *, days = 7 AND NOT has_partial_day AS complete FROM weeks
)
SELECT
  w.project_id,
  isoyear(w.week_start)::INTEGER AS iso_year,
  week(w.week_start)::INTEGER AS iso_week,
  w.week_start,
  w.days,
  w.human_visitor_days,
  w.ai_visitor_days,
  w.total_visitor_days,
  w.has_partial_day,
  w.complete,
  CASE WHEN w.complete AND p.complete
    THEN (w.total_visitor_days - p.total_visitor_days)::DOUBLE / nullif(p.total_visitor_days, 0)
  END AS total_visitor_days_change_pct
FROM flagged AS w
LEFT JOIN flagged AS p
  ON p.project_id = w.project_id AND p.week_start = w.week_start - 7;
