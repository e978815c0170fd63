-- Content views per project and loaded day (stream views, table site_views_daily). Views are
-- events, so unlike unique visitors they add up over days and pages.
-- ai_share = ai / (human + ai), NULL when both are 0.
-- total_7d_avg: mean of total views over the loaded days in the calendar window [D-6, D] (a RANGE
-- frame: a missing day shrinks the window, it never pulls in an older day); avg_7d_days says how
-- many loaded days that is, avg_7d_full is true only when all 7 are loaded and none is partial.
-- views_per_visitor = views total / unique visitors total (site_daily) of the same day: how many
-- pages a visitor of that day read. NULL when the visitors stream has no row for the day, when
-- either day is partial (two half days fetched at different times are no ratio), or when the
-- visitors total is 0.
-- partial: the views day was not over when fetched (--include-today).
CREATE OR REPLACE VIEW v_views_daily AS
SELECT
  v.project_id,
  v.day,
  v.human,
  v.ai,
  v.total,
  v.partial,
  v.ai::double precision / nullif(v.human + v.ai, 0) AS ai_share,
  (avg(v.total) OVER views_7d)::double precision AS total_7d_avg,
  count(*) OVER views_7d AS avg_7d_days,
  count(*) OVER views_7d = 7 AND NOT bool_or(v.partial) OVER views_7d AS avg_7d_full,
  CASE WHEN NOT v.partial AND NOT s.partial
    THEN v.total::double precision / nullif(s.total, 0)
  END AS views_per_visitor
FROM site_views_daily AS v
LEFT JOIN site_daily AS s
  ON s.project_id = v.project_id AND s.day = v.day
WINDOW
  views_7d AS (PARTITION BY v.project_id ORDER BY v.day RANGE BETWEEN INTERVAL '6 days' PRECEDING AND CURRENT ROW);
