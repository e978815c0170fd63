-- PostgreSQL dialect of sql/views/010_v_site_daily.sql (the column comments there hold for both).
-- avg() of a bigint is numeric here (DOUBLE on DuckDB): cast to double precision. Rolling windows
-- are RANGE frames over the date with an interval offset, as on DuckDB.
CREATE OR REPLACE VIEW v_site_daily AS
SELECT
  s.project_id,
  s.day,
  s.human,
  s.ai,
  s.total,
  s.partial,
  s.ai::double precision / nullif(s.human + s.ai, 0) AS ai_share,
  (avg(s.human) OVER w7)::double precision AS human_7d_avg,
  (avg(s.ai) OVER w7)::double precision AS ai_7d_avg,
  (avg(s.total) OVER w7)::double precision AS total_7d_avg,
  count(*) OVER w7 AS avg_7d_days,
  count(*) OVER w7 = 7 AND NOT bool_or(s.partial) OVER w7 AS avg_7d_full,
  (avg(s.total) OVER w28)::double precision AS total_28d_avg,
  count(*) OVER w28 AS avg_28d_days,
  (s.total - w.total)::double precision / nullif(w.total, 0) AS total_wow_pct
FROM site_daily AS s
LEFT JOIN site_daily AS w
  ON w.project_id = s.project_id AND w.day = s.day - 7
WINDOW
  w7 AS (PARTITION BY s.project_id ORDER BY s.day RANGE BETWEEN INTERVAL '6 days' PRECEDING AND CURRENT ROW),
  w28 AS (PARTITION BY s.project_id ORDER BY s.day RANGE BETWEEN INTERVAL '27 days' PRECEDING AND CURRENT ROW);
