-- Per project and path: the last 7 days against the 7 before, relative to the project's latest
-- complete loaded day L (last 7 = days in (L-7, L], previous 7 = (L-14, L-7]). A partial day
-- (today, loaded with --include-today) never ends a period, here as in every view with a period:
-- half a day against full ones is no trend. Sums are visitor-days, not
-- unique visitors. A path absent from a window counts 0 there. change_pct is a fraction
-- (0.25 = +25%), NULL when the previous window has 0. days_loaded_7d / days_loaded_prev_7d say how
-- many days of each window are loaded: a gap makes the comparison unfair, and these show it.
-- rank: 1 = most visitor-days in the last 7 days; ties broken by path so it is unique.
-- Text tie-breaks are in code-point order (COLLATE "C") whatever the database's collation.
CREATE OR REPLACE VIEW v_page_trends AS
WITH latest AS (
  SELECT project_id, max(day) AS last_day
  FROM site_daily
  WHERE NOT partial
  GROUP BY project_id
),
windows AS (
  SELECT
    l.project_id,
    l.last_day,
    count(*) FILTER (WHERE s.day > l.last_day - 7)::bigint AS days_loaded_7d,
    count(*) FILTER (WHERE s.day <= l.last_day - 7)::bigint AS days_loaded_prev_7d
  FROM latest AS l
  JOIN site_daily AS s
    ON s.project_id = l.project_id AND s.day > l.last_day - 14 AND s.day <= l.last_day
  GROUP BY l.project_id, l.last_day
),
sums AS (
  SELECT
    p.project_id,
    p.path,
    coalesce(sum(p.human) FILTER (WHERE p.day > w.last_day - 7), 0)::bigint AS human_visitor_days_7d,
    coalesce(sum(p.ai) FILTER (WHERE p.day > w.last_day - 7), 0)::bigint AS ai_visitor_days_7d,
    coalesce(sum(p.total) FILTER (WHERE p.day > w.last_day - 7), 0)::bigint AS total_visitor_days_7d,
    coalesce(sum(p.total) FILTER (WHERE p.day <= w.last_day - 7), 0)::bigint AS total_visitor_days_prev_7d
  FROM page_daily AS p
  JOIN windows AS w
    ON w.project_id = p.project_id AND p.day > w.last_day - 14 AND p.day <= w.last_day
  GROUP BY p.project_id, p.path
)
SELECT
  s.project_id,
  s.path,
  w.last_day,
  w.days_loaded_7d,
  w.days_loaded_prev_7d,
  s.human_visitor_days_7d,
  s.ai_visitor_days_7d,
  s.total_visitor_days_7d,
  s.total_visitor_days_prev_7d,
  s.total_visitor_days_7d - s.total_visitor_days_prev_7d AS change,
  (s.total_visitor_days_7d - s.total_visitor_days_prev_7d)::double precision
    / nullif(s.total_visitor_days_prev_7d, 0) AS change_pct,
  s.ai_visitor_days_7d::double precision / nullif(s.human_visitor_days_7d + s.ai_visitor_days_7d, 0) AS ai_share_7d,
  row_number() OVER (PARTITION BY s.project_id ORDER BY s.total_visitor_days_7d DESC, s.path COLLATE "C") AS rank
FROM sums AS s
JOIN windows AS w ON w.project_id = s.project_id;
