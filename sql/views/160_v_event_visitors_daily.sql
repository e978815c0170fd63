-- Unique visitors per project and UTC day from the event stream (analytics_events), with the
-- Mintlify dashboard's definitions (sql/partials/event_visitor_counts.sql): human, ai, total
-- (total = visitors in either set, counted once: not human + ai). Counts are BIGINT.
-- One row per (project, day) that has any event, page view or not: a day of searches only gives
-- zeros. `day` is the stored UTC day of created_at, never a cast in the session's TimeZone.
-- Summing days gives visitor-days, not uniques: for a period use event_visitors(from_day, to_day)
-- (below).
--
-- event_visitors(from_day, to_day): true unique visitors of any period from the event stream, per
-- project: the days [from_day, to_day) (half-open: event_visitors(DATE '2026-03-01', DATE
-- '2026-04-01') is March), the same definitions as v_event_visitors_daily
-- (sql/partials/event_visitor_counts.sql), each visitor counted once in the period. One row per
-- project with any event in the range; none when the range is empty. A DuckDB table macro, a
-- PostgreSQL set-returning function: `SELECT * FROM event_visitors(DATE '...', DATE '...')` on both.

CREATE OR REPLACE VIEW v_event_visitors_daily AS
SELECT
  project_id,
  day,
  {{> event_visitor_counts }}
FROM analytics_events
GROUP BY project_id, day;

{{# table_function event_visitors(from_day date, to_day date) RETURNS TABLE (
  project_id text,
  human bigint,
  ai bigint,
  total bigint
) }}
SELECT
  project_id,
  {{> event_visitor_counts }}
FROM analytics_events
WHERE day >= from_day AND day < to_day
GROUP BY project_id
{{/ table_function }}
