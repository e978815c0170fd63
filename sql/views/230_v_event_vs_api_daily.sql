-- Event-derived unique visitors beside the API's, per project and UTC day where both are loaded: one
-- row per (project, day) with events (v_event_visitors_daily) and a site_daily row (the visitors
-- stream). event_human / event_ai / event_total: v_event_visitors_daily; api_human / api_ai /
-- api_total / api_partial: site_daily (api_partial: the day was not over when the API was asked).
-- *_ratio = event / api (double precision; NULL when the API's count is 0): 1 when both agree;
-- below 1 when events are missing (a stream set up mid-day, objects not yet delivered).
CREATE OR REPLACE VIEW v_event_vs_api_daily AS
SELECT
  e.project_id,
  e.day,
  e.human AS event_human,
  e.ai AS event_ai,
  e.total AS event_total,
  s.human AS api_human,
  s.ai AS api_ai,
  s.total AS api_total,
  s.partial AS api_partial,
  e.human::double precision / nullif(s.human, 0) AS human_ratio,
  e.ai::double precision / nullif(s.ai, 0) AS ai_ratio,
  e.total::double precision / nullif(s.total, 0) AS total_ratio
FROM v_event_visitors_daily AS e
JOIN site_daily AS s
  ON s.project_id = e.project_id AND s.day = e.day;
