-- Reading sessions per project and UTC day from the event stream. A session is a session_id (empty
-- or NULL: none) of the project with at least one page view (docs.content.view,
-- docs.content.md.view; any traffic class); it counts on the UTC day of its first page view, with
-- all its page views, also those of later days. One row per (project, day) on which sessions start.
-- sessions, page_views, single_page_sessions (sessions of exactly one page view): BIGINT;
-- pages_per_session = page_views / sessions and single_page_share = single_page_sessions /
-- sessions: double precision.
CREATE OR REPLACE VIEW v_event_sessions_daily AS
WITH sessions AS (
  SELECT
    project_id,
    session_id,
    min(day) AS day,
    count(*) AS page_views
  FROM analytics_events
  WHERE event_type IN ('docs.content.view', 'docs.content.md.view') AND nullif(session_id, '') IS NOT NULL
  GROUP BY project_id, session_id
)
SELECT
  project_id,
  day,
  count(*) AS sessions,
  sum(page_views)::bigint AS page_views,
  sum(page_views)::double precision / count(*) AS pages_per_session,
  count(CASE WHEN page_views = 1 THEN 1 END) AS single_page_sessions,
  count(CASE WHEN page_views = 1 THEN 1 END)::double precision / count(*) AS single_page_share
FROM sessions
GROUP BY project_id, day;
