-- Page views by referrer host per project and UTC day from the event stream: one row per (project,
-- day, referrer_host) with page views (docs.content.view, docs.content.md.view) of any traffic
-- class. referrer_host is the referrer URL's host in lower case without `www.`; NULL when there was
-- no referrer or it was not a URL (direct traffic: a row of its own). views and visitors (distinct
-- visitor_key) count every class; human_views and human_visitors the human class only. BIGINT.
CREATE OR REPLACE VIEW v_event_referrers_daily AS
SELECT
  project_id,
  day,
  referrer_host,
  count(*) AS views,
  count(DISTINCT visitor_key) AS visitors,
  count(CASE WHEN traffic_class = 'human' THEN 1 END) AS human_views,
  count(DISTINCT CASE WHEN traffic_class = 'human' THEN visitor_key END) AS human_visitors
FROM analytics_events
WHERE event_type IN ('docs.content.view', 'docs.content.md.view')
GROUP BY project_id, day, referrer_host;
