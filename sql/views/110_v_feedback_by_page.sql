-- Feedback per project, page and day, counted from the feedback entries themselves (table
-- feedback, stream feedback): no request of its own and, unlike the API's feedback/by-page
-- endpoint (table feedback_page_daily), not capped at 100 pages. day: the UTC day of created_at;
-- entries without created_at are counted under day NULL. Counts are entries, so they add up:
-- group the days into weeks or months as you like.
-- thumbs_up / thumbs_down: contextual entries with helpful true / false; code: code_snippet
-- entries; total: every entry, of every source (agent and thumbs_only included, and contextual
-- ones without a thumb); open: entries still pending or in_progress (as last fetched).
-- A page and day without feedback has no row; whether a day was synced at all is in v_coverage
-- (stream feedback). NOT in it: the readers' emails (contact), comments (see v_feedback_open).
CREATE OR REPLACE VIEW v_feedback_by_page AS
SELECT
  project_id,
  path,
  (created_at AT TIME ZONE 'UTC')::date AS day,
  count(*) FILTER (WHERE source = 'contextual' AND helpful)::bigint AS thumbs_up,
  count(*) FILTER (WHERE source = 'contextual' AND NOT helpful)::bigint AS thumbs_down,
  count(*) FILTER (WHERE source = 'code_snippet')::bigint AS code,
  count(*)::bigint AS total,
  count(*) FILTER (WHERE status IN ('pending', 'in_progress'))::bigint AS open
FROM feedback
GROUP BY project_id, path, (created_at AT TIME ZONE 'UTC')::date;
