-- The search funnel per project and UTC day from the event stream: one row per (project, day) with
-- any docs.search.query, docs.search.result_click or docs.search.close event; each event counts on
-- its own day. queries, searchers (distinct visitor_key of the queries), result_clicks, closes:
-- BIGINT. click_through = result_clicks / queries (double precision; NULL without queries).
-- closed_without_click: closes after which the reader had clicked no result. Rule: a session's
-- search events (session_id; empty or NULL: none) in time order, at the same instant a query first,
-- then clicks, then closes; a close is without a click when no result_click of its session lies
-- between the session's latest query before it (or the session's start when there is none) and the
-- close. A close without a session is in closes but never in closed_without_click (nothing ties a
-- click to it). Sessions may span days: the query and the click can be on the close's day before.
CREATE OR REPLACE VIEW v_event_search_daily AS
WITH search AS (
  SELECT
    project_id,
    day,
    visitor_key,
    nullif(session_id, '') AS session_id,
    created_at,
    CASE event_type WHEN 'docs.search.query' THEN 0 WHEN 'docs.search.result_click' THEN 1 ELSE 2 END AS step
  FROM analytics_events
  WHERE event_type IN ('docs.search.query', 'docs.search.result_click', 'docs.search.close')
),
-- query_seq: how many queries of the session came before or with the event (its search, so to say).
segmented AS (
  SELECT
    *,
    count(CASE WHEN step = 0 THEN 1 END)
      OVER (PARTITION BY project_id, session_id ORDER BY created_at, step) AS query_seq
  FROM search
),
-- clicks_before: result clicks in the same search up to the event (ties in (created_at, step) are
-- the same kind of event, so the default RANGE frame is the same on both destinations).
marked AS (
  SELECT
    *,
    count(CASE WHEN step = 1 THEN 1 END)
      OVER (PARTITION BY project_id, session_id, query_seq ORDER BY created_at, step) AS clicks_before
  FROM segmented
)
SELECT
  project_id,
  day,
  count(CASE WHEN step = 0 THEN 1 END) AS queries,
  count(DISTINCT CASE WHEN step = 0 THEN visitor_key END) AS searchers,
  count(CASE WHEN step = 1 THEN 1 END) AS result_clicks,
  count(CASE WHEN step = 2 THEN 1 END) AS closes,
  count(CASE WHEN step = 2 AND session_id IS NOT NULL AND clicks_before = 0 THEN 1 END) AS closed_without_click,
  count(CASE WHEN step = 1 THEN 1 END)::double precision
    / nullif(count(CASE WHEN step = 0 THEN 1 END), 0) AS click_through
FROM marked
GROUP BY project_id, day;
