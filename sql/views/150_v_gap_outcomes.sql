-- The effect of a fix: for each gap an agent job was started for (agent_job_gaps) whose job
-- completed with a pull request, the gap's own measure over the win_days days before the job was
-- created and the win_days days after it completed.
--
-- gap_outcomes(win_days) is a table function (a table macro on DuckDB); v_gap_outcomes is
-- gap_outcomes(14).
-- before: [day the job was created - win_days, day the job was created); after: [the day after
--   completed_at, + win_days), days in UTC whatever the session's TimeZone. completed_at is when
--   this tool first saw the job completed.
-- measure, per kind: unanswered = such turns of the question per loaded day; search = the share of
--   the term's searches without a click (1 - CTR weighted by searches); flagged = thumbs-down and
--   comments (not dismissed) on the page per loaded day; losing = human views of the page per
--   loaded day. A day counts when its stream (assistant, searches, feedback, views) has a window
--   covering it, loaded after it ended.
-- days_before / days_after: such loaded days in each period.
-- change = after - before; change_pct = change / before (NULL when before is 0).
-- verdict: 'too little data' when either period has fewer than min(7, win_days) loaded days;
--   otherwise 'improved' when the measure moved 20% or more the good way (down, or up for a losing
--   page), 'worse' when 20% or more the other way (from 0 to anything is worse), else 'same'.
-- It uses question_key and redact_emails of 060_v_search_terms.sql and is_flag of 140_v_content_gaps.sql; sums of counts are
-- cast to double precision (PostgreSQL's sum of a bigint is numeric).
{{# table_function gap_outcomes(win_days integer) RETURNS TABLE (
  project_id text,
  job_id text,
  gap_id text,
  kind text,
  subject text,
  pr_link text,
  job_created_at timestamptz,
  completed_at timestamptz,
  before_start date,
  before_end date,
  after_start date,
  after_end date,
  measure text,
  days_before bigint,
  days_after bigint,
  measure_before double precision,
  measure_after double precision,
  change double precision,
  change_pct double precision,
  verdict text
) }}
WITH fixes AS (
  SELECT
    g.project_id,
    g.job_id,
    g.gap_id,
    g.kind,
    -- A key recorded under an earlier rule for the same question is read under today's.
    CASE WHEN g.kind IN ('unanswered', 'search') THEN question_key(g.subject_key) ELSE g.subject_key END AS subject_key,
    g.subject,
    j.pr_link,
    j.created_at AS job_created_at,
    j.completed_at,
    CASE g.kind WHEN 'unanswered' THEN 'assistant' WHEN 'search' THEN 'searches' WHEN 'flagged' THEN 'feedback'
      ELSE 'views' END AS stream,
    (coalesce(j.created_at, g.created_at) AT TIME ZONE 'UTC')::date - CAST(win_days AS INTEGER) AS before_start,
    (coalesce(j.created_at, g.created_at) AT TIME ZONE 'UTC')::date AS before_end,
    (j.completed_at AT TIME ZONE 'UTC')::date + 1 AS after_start,
    (j.completed_at AT TIME ZONE 'UTC')::date + 1 + CAST(win_days AS INTEGER) AS after_end
  FROM agent_job_gaps AS g
  JOIN agent_jobs AS j ON j.project_id = g.project_id AND j.job_id = g.job_id
  WHERE j.status = 'completed' AND j.pr_link IS NOT NULL AND j.completed_at IS NOT NULL
),
days AS (
  SELECT f.*, d.day::date AS day, d.day::date < f.before_end AS is_before
  FROM fixes AS f
  CROSS JOIN LATERAL generate_series(
    f.before_start::timestamp, (f.after_end - 1)::timestamp, INTERVAL '1 day'
  ) AS d(day)
  WHERE d.day::date < f.before_end OR d.day::date >= f.after_start
),
loaded_days AS (
  SELECT d.*
  FROM days AS d
  WHERE EXISTS (
    SELECT 1 FROM sync_windows AS w
    WHERE w.project_id = d.project_id AND w.stream = d.stream AND w.status = 'loaded'
      AND w.fetched_at >= (w.window_end::timestamp AT TIME ZONE 'UTC')
      AND w.window_start <= d.day AND d.day < w.window_end
  )
),
-- Only the fixed subjects' days, computed once: a plan that joins every subject's days once per
-- day of a fix (row estimates of tables not analysed since a load) would take seconds.
fixed AS MATERIALIZED (
  SELECT DISTINCT project_id, kind, subject_key FROM fixes
),
daily AS MATERIALIZED (
  SELECT project_id, 'unanswered'::text AS kind, question_key(query) AS subject_key,
    (ts AT TIME ZONE 'UTC')::date AS day, count(*)::double precision AS bad, NULL::double precision AS total
  FROM assistant_turns
  WHERE (resolution_status = 'unanswered' OR response_type = 'clarifying_question')
    AND (project_id, question_key(query)) IN (SELECT project_id, subject_key FROM fixed WHERE kind = 'unanswered')
  GROUP BY project_id, question_key(query), (ts AT TIME ZONE 'UTC')::date
  UNION ALL
  SELECT project_id, 'search', question_key(query), day,
    sum(hits * (1 - ctr)), sum(hits)::double precision
  FROM search_daily
  WHERE (project_id, question_key(query)) IN (
    SELECT project_id, subject_key FROM fixed WHERE kind = 'search'
  )
  GROUP BY project_id, question_key(query), day
  UNION ALL
  SELECT project_id, 'flagged', path, (created_at AT TIME ZONE 'UTC')::date, count(*)::double precision, NULL
  FROM feedback
  WHERE created_at IS NOT NULL AND is_flag(source, helpful, comment, status)
    AND (project_id, path) IN (SELECT project_id, subject_key FROM fixed WHERE kind = 'flagged')
  GROUP BY project_id, path, (created_at AT TIME ZONE 'UTC')::date
  UNION ALL
  SELECT project_id, 'losing', path, day, sum(human)::double precision, NULL
  FROM page_views_daily
  WHERE (project_id, path) IN (SELECT project_id, subject_key FROM fixed WHERE kind = 'losing')
  GROUP BY project_id, path, day
),
measured AS (
  SELECT
    l.project_id, l.job_id, l.gap_id, l.kind, l.subject, l.pr_link, l.job_created_at, l.completed_at,
    l.before_start, l.before_end, l.after_start, l.after_end,
    count(*) FILTER (WHERE l.is_before) AS days_before,
    count(*) FILTER (WHERE NOT l.is_before) AS days_after,
    coalesce(sum(m.bad) FILTER (WHERE l.is_before), 0) AS bad_before,
    coalesce(sum(m.bad) FILTER (WHERE NOT l.is_before), 0) AS bad_after,
    coalesce(sum(m.total) FILTER (WHERE l.is_before), 0) AS total_before,
    coalesce(sum(m.total) FILTER (WHERE NOT l.is_before), 0) AS total_after
  FROM loaded_days AS l
  LEFT JOIN daily AS m
    ON m.project_id = l.project_id AND m.kind = l.kind AND m.subject_key = l.subject_key AND m.day = l.day
  GROUP BY l.project_id, l.job_id, l.gap_id, l.kind, l.subject, l.pr_link, l.job_created_at, l.completed_at,
    l.before_start, l.before_end, l.after_start, l.after_end
),
valued AS (
  SELECT
    *,
    CASE WHEN kind = 'search' THEN bad_before / nullif(total_before, 0)
      ELSE bad_before / nullif(days_before, 0)::double precision END AS measure_before,
    CASE WHEN kind = 'search' THEN bad_after / nullif(total_after, 0)
      ELSE bad_after / nullif(days_after, 0)::double precision END AS measure_after
  FROM measured
)
SELECT
  project_id,
  job_id,
  gap_id,
  kind,
  subject,
  pr_link,
  job_created_at,
  completed_at,
  before_start,
  before_end,
  after_start,
  after_end,
  CASE kind
    WHEN 'unanswered' THEN 'unanswered turns per day'
    WHEN 'search' THEN 'share of searches without a click'
    WHEN 'flagged' THEN 'thumbs-down and comments per day'
    ELSE 'human views per day'
  END AS measure,
  days_before,
  days_after,
  measure_before,
  measure_after,
  measure_after - measure_before AS change,
  (measure_after - measure_before) / nullif(measure_before, 0) AS change_pct,
  CASE
    WHEN days_before < least(7, CAST(win_days AS INTEGER)) OR days_after < least(7, CAST(win_days AS INTEGER))
      OR measure_before IS NULL OR measure_after IS NULL THEN 'too little data'
    WHEN measure_before = measure_after THEN 'same'
    WHEN kind = 'losing' AND measure_after >= 1.2 * measure_before THEN 'improved'
    WHEN kind = 'losing' AND measure_after <= 0.8 * measure_before THEN 'worse'
    WHEN kind <> 'losing' AND measure_after <= 0.8 * measure_before THEN 'improved'
    WHEN kind <> 'losing' AND measure_after >= 1.2 * measure_before THEN 'worse'
    ELSE 'same'
  END AS verdict
FROM valued
{{/ table_function }}

-- The effect of every completed fix with a pull request: 14 days before the job against the 14
-- days after it completed.
CREATE OR REPLACE VIEW v_gap_outcomes AS
SELECT * FROM gap_outcomes(14)
ORDER BY project_id COLLATE "C", completed_at, job_id COLLATE "C", gap_id COLLATE "C";
