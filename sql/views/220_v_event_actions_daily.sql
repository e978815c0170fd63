-- Context-menu and MCP actions per project, UTC day and event type from the event stream: one row
-- per (project, day, event_type) of an event whose type starts with `docs.context_menu.` (kind
-- 'context_menu': copy_page, install_mcp_server, ...) or otherwise names `mcp` (kind 'mcp': an MCP
-- event outside the menu). events and visitors (distinct visitor_key): BIGINT. New action names
-- appear as rows of their own without a change here.
CREATE OR REPLACE VIEW v_event_actions_daily AS
SELECT
  project_id,
  day,
  CASE WHEN left(event_type, 18) = 'docs.context_menu.' THEN 'context_menu' ELSE 'mcp' END AS kind,
  event_type,
  count(*) AS events,
  count(DISTINCT visitor_key) AS visitors
FROM analytics_events
WHERE left(event_type, 18) = 'docs.context_menu.' OR strpos(event_type, 'mcp') > 0
GROUP BY project_id, day, event_type;
