-- PostgreSQL dialect of sql/views/050_v_views_daily.sql (the column comments there hold for both).
CREATE OR REPLACE VIEW v_views_daily AS
SELECT
  v.project_id,
  v.day,
  v.human,
  v.ai,
  v.total,
  v.partial,
  v.ai::double precision / nullif(v.human + v.ai, 0) AS ai_share,
  (avg(v.total) OVER w7)::double precision AS total_7d_avg,
  count(*) OVER w7 AS avg_7d_days,
  count(*) OVER w7 = 7 AND NOT bool_or(v.partial) OVER w7 AS avg_7d_full,
  CASE WHEN NOT v.partial AND NOT s.partial
    THEN v.total::double precision / nullif(s.total, 0)
  END AS views_per_visitor
FROM site_views_daily AS v
LEFT JOIN site_daily AS s
  ON s.project_id = v.project_id AND s.day = v.day
WINDOW
  w7 AS (PARTITION BY v.project_id ORDER BY v.day RANGE BETWEEN INTERVAL '6 days' PRECEDING AND CURRENT ROW);
