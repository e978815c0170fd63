-- The assistant funnel per project and UTC day from the event stream: one row per (project, day)
-- with any docs.assistant.enter, docs.assistant.completed or docs.assistant.source_click event;
-- each counts on its own day. entered, completed, source_clicked: events; *_visitors: their
-- distinct visitor_key (BIGINT). completion_rate = completed / entered, source_click_rate =
-- source_clicked / completed (double precision; NULL when the divisor is 0). Events of one day
-- need not be of one conversation: a rate above 1 is possible on a day after a busy evening.
CREATE OR REPLACE VIEW v_event_assistant_daily AS
SELECT
  project_id,
  day,
  count(CASE WHEN event_type = 'docs.assistant.enter' THEN 1 END) AS entered,
  count(CASE WHEN event_type = 'docs.assistant.completed' THEN 1 END) AS completed,
  count(CASE WHEN event_type = 'docs.assistant.source_click' THEN 1 END) AS source_clicked,
  count(DISTINCT CASE WHEN event_type = 'docs.assistant.enter' THEN visitor_key END) AS entered_visitors,
  count(DISTINCT CASE WHEN event_type = 'docs.assistant.completed' THEN visitor_key END) AS completed_visitors,
  count(DISTINCT CASE WHEN event_type = 'docs.assistant.source_click' THEN visitor_key END)
    AS source_clicked_visitors,
  count(CASE WHEN event_type = 'docs.assistant.completed' THEN 1 END)::double precision
    / nullif(count(CASE WHEN event_type = 'docs.assistant.enter' THEN 1 END), 0) AS completion_rate,
  count(CASE WHEN event_type = 'docs.assistant.source_click' THEN 1 END)::double precision
    / nullif(count(CASE WHEN event_type = 'docs.assistant.completed' THEN 1 END), 0) AS source_click_rate
FROM analytics_events
WHERE event_type IN ('docs.assistant.enter', 'docs.assistant.completed', 'docs.assistant.source_click')
GROUP BY project_id, day;
