-- The Mintlify dashboard's visitor counts over rows of analytics_events, as three columns of a
-- GROUP BY's select list (human, ai, total; BIGINT): human = distinct visitor_key of
-- docs.content.view events of class human; ai = distinct visitor_key of page views
-- (docs.content.view, docs.content.md.view) of class ai_answers, or of docs.content.md.view events
-- of class human (a markdown page fetched by a tool with a browser's user agent); total = distinct
-- visitor_key of the union of both sets (a visitor in both counts once, so total <= human + ai).
-- A NULL visitor_key is no visitor. Shared by v_event_visitors_daily and event_visitors().
count(DISTINCT CASE WHEN event_type = 'docs.content.view' AND traffic_class = 'human'
  THEN visitor_key END) AS human,
count(DISTINCT CASE
  WHEN (event_type IN ('docs.content.view', 'docs.content.md.view') AND traffic_class = 'ai_answers')
    OR (event_type = 'docs.content.md.view' AND traffic_class = 'human')
  THEN visitor_key END) AS ai,
count(DISTINCT CASE
  WHEN (event_type = 'docs.content.view' AND traffic_class = 'human')
    OR (event_type IN ('docs.content.view', 'docs.content.md.view') AND traffic_class = 'ai_answers')
    OR (event_type = 'docs.content.md.view' AND traffic_class = 'human')
  THEN visitor_key END) AS total
