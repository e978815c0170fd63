-- Two CTEs of v_site_weekly and v_site_monthly: `loaded`, the loaded days of each project and
-- period summed from site_daily (visitor-days, not uniques), and `joined`, one row per project and
-- period that has loaded days or a true figure in the period table (a FULL OUTER JOIN: either can
-- be missing). Periods start at date_trunc on a timestamp WITHOUT time zone, so the session's
-- TimeZone cannot move a day. Arguments: grain ('week' or 'month'), start (the name of the
-- period's first-day column), uniques (site_weekly or site_monthly).
loaded AS (
  SELECT
    project_id,
    date_trunc({{ grain }}, day::timestamp)::date AS {{ start }},
    count(*)::bigint AS days,
    sum(human)::bigint AS human_visitor_days,
    sum(ai)::bigint AS ai_visitor_days,
    sum(total)::bigint AS total_visitor_days,
    coalesce(bool_or(partial), false) AS has_partial_day
  FROM site_daily
  GROUP BY project_id, date_trunc({{ grain }}, day::timestamp)::date
),
joined AS (
  SELECT
    coalesce(d.project_id, u.project_id) AS project_id,
    coalesce(d.{{ start }}, u.period_start) AS {{ start }},
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
  FROM loaded AS d
  FULL OUTER JOIN {{ uniques }} AS u
    ON u.project_id = d.project_id AND u.period_start = d.{{ start }}
)
