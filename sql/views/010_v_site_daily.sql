-- One row per loaded day, with calendar-window averages. Rolling windows are RANGE frames over the
-- date, so a missing day shrinks the window instead of pulling in an older day: human_7d_avg on
-- day D is the mean over the loaded days in [D-6, D]. avg_7d_days / avg_28d_days say how many
-- loaded days those means cover: fewer than 7 on the first days after a first sync, or around a
-- gap. avg_7d_full is true only when all 7 days are loaded and none is partial: only then is the
-- 7-day average a trend (over fewer days it ramps up from one day's value and mixes weekdays).
-- total_wow_pct is a fraction (0.25 = +25%) against the same weekday exactly 7 days earlier, NULL
-- when that day is not loaded or was 0.
-- Counts are daily unique visitors: averaging them is fine, summing them gives visitor-days.
-- avg() of a bigint is numeric on PostgreSQL (DOUBLE on DuckDB): cast to double precision.
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
