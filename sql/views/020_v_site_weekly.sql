-- One row per project and ISO week (Monday to Sunday). The sums are visitor-days: a visitor seen on
-- three days of the week counts three times, so they are NOT unique weekly visitors. `days` says
-- how many days of the week are loaded: compare weeks with the same number of days.
-- total_visitor_days_change_pct is a fraction (0.25 = +25%) against the previous ISO week, NULL
-- when that week has no loaded day or a total of 0.
CREATE OR REPLACE VIEW v_site_weekly AS
WITH weeks AS (
  SELECT
    project_id,
    date_trunc('week', day)::DATE AS week_start,
    count(*)::BIGINT AS days,
    sum(human)::BIGINT AS human_visitor_days,
    sum(ai)::BIGINT AS ai_visitor_days,
    sum(total)::BIGINT AS total_visitor_days,
    bool_or(partial) AS has_partial_day
  FROM site_daily
  GROUP BY project_id, date_trunc('week', day)::DATE
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
  (w.total_visitor_days - p.total_visitor_days)::DOUBLE / nullif(p.total_visitor_days, 0)
    AS total_visitor_days_change_pct
FROM weeks AS w
LEFT JOIN weeks AS p
  ON p.project_id = w.project_id AND p.week_start = w.week_start - 7;
