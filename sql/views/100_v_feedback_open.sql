-- The feedback still to handle: one row per feedback entry (table feedback, stream feedback) whose
-- status is pending or in_progress, oldest first (entries without created_at last, then by id).
-- source: contextual | code_snippet | agent | thumbs_only; helpful: the thumb of a contextual entry
-- (true = up, false = down), NULL for the other sources. created_at: when the reader sent it (UTC;
-- NULL when the API gave none). age_days: whole UTC days from created_at's day to today's, NULL
-- when created_at is NULL. first_seen_at: when this tool first fetched the entry (a lower bound of
-- its age when created_at is missing).
-- comment: readers' e-mail addresses in it show as [email] (redact_emails, see v_search_terms).
-- NOT in it: `contact` (the reader's email: personal data stays in the table), the code fields of
-- code_snippet entries (code, filename, lang: see the table), resolved and dismissed entries. The
-- API sets status later without any timestamp: an entry is as open as the last sync that fetched
-- its window saw it. status_seen_at says when that was: sync re-reads a month for
-- --feedback-lookback days (30) after it ends, so an older entry's status is that of its last
-- re-read (sync --refresh re-reads every month).
-- ids sort in code-point order (COLLATE "C") whatever the database's collation.
CREATE OR REPLACE VIEW v_feedback_open AS
SELECT
  project_id,
  id,
  path,
  source,
  status,
  helpful,
  redact_emails(comment) AS comment,
  created_at,
  ((current_timestamp AT TIME ZONE 'UTC')::date - (created_at AT TIME ZONE 'UTC')::date)::bigint AS age_days,
  first_seen_at,
  last_seen_at AS status_seen_at
FROM feedback
WHERE status IN ('pending', 'in_progress')
ORDER BY project_id COLLATE "C", created_at ASC NULLS LAST, id COLLATE "C";
