-- Page views and visitors per project, UTC day and traffic class from the event stream: one row for
-- each of the five classes (human, ai_answers, search_index, training, other_bot; see
-- src/load/event-rows.ts) on every (project, day) that has any event, zeros included, so a chart
-- has every series on every day. views = page-view events (docs.content.view and
-- docs.content.md.view) of the class; visitors = their distinct visitor_key (NULL: no visitor).
-- BIGINT counts. Summing visitors over days or classes gives visitor-days, not uniques.
CREATE OR REPLACE VIEW v_event_traffic_daily AS
WITH event_days AS (
  SELECT DISTINCT project_id, day FROM analytics_events
),
classes AS (
  SELECT c.traffic_class
  FROM (VALUES ('human'), ('ai_answers'), ('search_index'), ('training'), ('other_bot')) AS c(traffic_class)
),
counts AS (
  SELECT
    project_id,
    day,
    traffic_class,
    count(*) AS views,
    count(DISTINCT visitor_key) AS visitors
  FROM analytics_events
  WHERE event_type IN ('docs.content.view', 'docs.content.md.view')
  GROUP BY project_id, day, traffic_class
)
SELECT
  d.project_id,
  d.day,
  c.traffic_class,
  coalesce(n.views, 0) AS views,
  coalesce(n.visitors, 0) AS visitors
FROM event_days AS d
CROSS JOIN classes AS c
LEFT JOIN counts AS n
  ON n.project_id = d.project_id AND n.day = d.day AND n.traffic_class = c.traffic_class;
