-- PostgreSQL dialect of sql/views/140_v_content_gaps.sql (the comments there say what every
-- column means; they hold for both). The macros are SQL functions: is_flag
-- IMMUTABLE (redact_emails and question_key are defined in 060_v_search_terms.sql), content_gaps(win_days, to_day) a STABLE table function whose body
-- resolves tables in the schema it was created in (SET search_path FROM CURRENT: a function body,
-- unlike a view, is bound when it runs, and a BI tool's search_path names other schemas).
-- What keeps the rows the same as DuckDB's:
-- - regular expressions: RE2's '.' never takes a newline where PostgreSQL's does, so '[?#].*$' is
--   '[?#][^\n]*$';
-- - lower() uses ICU's root locale (und-x-icu), as DuckDB lowers every letter;
-- - text tie-breaks and ordered lists sort in code-point order (COLLATE "C"), as DuckDB sorts;
-- - list(x ORDER BY ...)[1:3] is (array_agg(x ORDER BY ...))[1:3]; arg_max picks are the first of
--   an ordered array; DuckDB's median is percentile_cont(0.5) (the mean of the middle two);
-- - DuckDB's '/' divides integers (sums: HUGEINT) as DOUBLE, its '//' truncates: casts here;
-- - round(DOUBLE, 1) is round(numeric, 1) back to double precision;
-- - a day starts at midnight UTC (date::timestamp AT TIME ZONE 'UTC'), whatever the session's
--   TimeZone.

DROP FUNCTION IF EXISTS content_gaps(integer, date);

CREATE OR REPLACE FUNCTION is_flag(source text, helpful boolean, comment text, status text) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
  SELECT status IS DISTINCT FROM 'dismissed'
    AND ((source = 'contextual' AND helpful = false)
      OR (source <> 'contextual' AND nullif(trim(comment), '') IS NOT NULL))
$$;

CREATE FUNCTION content_gaps(win_days integer, to_day date)
RETURNS TABLE (
  project_id text,
  rank bigint,
  gap_id text,
  kind text,
  subject text,
  subject_key text,
  window_start date,
  window_end date,
  measure text,
  current_count bigint,
  previous_count bigint,
  trend text,
  score double precision,
  rate double precision,
  category text,
  answer_excerpt text,
  examples text[],
  pages text[],
  fix_job_id text,
  fix_status text,
  fix_pr_link text
)
LANGUAGE sql STABLE
SET search_path FROM CURRENT
AS $$
WITH ends AS (
  SELECT project_id, max(window_end) AS last_end
  FROM sync_windows
  WHERE status = 'loaded' AND fetched_at >= (window_end::timestamp AT TIME ZONE 'UTC')
  GROUP BY project_id
),
win AS (
  SELECT
    project_id,
    w_end,
    w_end - win_days AS w_start,
    w_end - 2 * win_days AS p_start
  FROM (SELECT project_id, coalesce(to_day, last_end) AS w_end FROM ends) AS e
),
turns AS (
  SELECT
    t.project_id,
    t.thread_id,
    t.ts,
    redact_emails(t.query) AS query,
    redact_emails(t.response) AS response,
    t.query_category,
    nullif(regexp_replace(t.page_url, '^[A-Za-z][A-Za-z0-9+.-]*://[^/]*|[?#][^\n]*$', '', 'g'), '') AS page_path,
    question_key(t.query) AS subject_key,
    t.ts >= (w.w_start::timestamp AT TIME ZONE 'UTC') AS in_w
  FROM assistant_turns AS t
  JOIN win AS w ON w.project_id = t.project_id
  WHERE (t.resolution_status = 'unanswered' OR t.response_type = 'clarifying_question')
    AND t.ts >= (w.p_start::timestamp AT TIME ZONE 'UTC') AND t.ts < (w.w_end::timestamp AT TIME ZONE 'UTC')
),
spellings AS (
  SELECT project_id, subject_key, query, count(*) AS n, max(ts) AS last_ts
  FROM turns
  WHERE in_w
  GROUP BY project_id, subject_key, query
),
turn_pages AS (
  SELECT project_id, subject_key, page_path, count(*) AS n
  FROM turns
  WHERE in_w AND page_path IS NOT NULL
  GROUP BY project_id, subject_key, page_path
),
categories AS (
  SELECT
    project_id,
    subject_key,
    query_category AS category,
    row_number() OVER (
      PARTITION BY project_id, subject_key ORDER BY count(*) DESC, query_category COLLATE "C"
    ) AS n
  FROM turns
  WHERE in_w AND query_category IS NOT NULL
  GROUP BY project_id, subject_key, query_category
),
unanswered AS (
  SELECT
    t.project_id,
    'unanswered'::text AS kind,
    t.subject_key,
    count(*) FILTER (WHERE t.in_w)::numeric AS current_count,
    count(*) FILTER (WHERE NOT t.in_w)::numeric AS previous_count,
    max(c.category) AS category,
    left(
      (array_agg(t.response ORDER BY t.ts DESC, t.thread_id COLLATE "C", t.response COLLATE "C")
        FILTER (WHERE t.in_w))[1],
      300
    ) AS answer_excerpt,
    NULL::double precision AS rate,
    (count(*) FILTER (WHERE t.in_w))::double precision AS failed
  FROM turns AS t
  LEFT JOIN categories AS c ON c.project_id = t.project_id AND c.subject_key = t.subject_key AND c.n = 1
  GROUP BY t.project_id, t.subject_key
  HAVING count(*) FILTER (WHERE t.in_w) >= 2
),
search_rows AS (
  SELECT
    s.project_id,
    question_key(s.query) AS subject_key,
    redact_emails(s.query) AS query,
    s.day,
    s.hits,
    s.ctr,
    s.top_clicked_path,
    s.day >= w.w_start AS in_w
  FROM search_daily AS s
  JOIN win AS w ON w.project_id = s.project_id
  WHERE s.day >= w.p_start AND s.day < w.w_end
),
search AS (
  SELECT
    project_id,
    'search'::text AS kind,
    subject_key,
    coalesce(sum(hits) FILTER (WHERE in_w), 0) AS current_count,
    coalesce(sum(hits) FILTER (WHERE NOT in_w), 0) AS previous_count,
    NULL::text AS category,
    NULL::text AS answer_excerpt,
    sum(hits * ctr) FILTER (WHERE in_w) / nullif(sum(hits) FILTER (WHERE in_w), 0)::double precision AS rate,
    sum(hits * (1 - ctr)) FILTER (WHERE in_w) * 0.5 AS failed
  FROM search_rows
  GROUP BY project_id, subject_key
  HAVING coalesce(sum(hits) FILTER (WHERE in_w), 0) >= 10
    AND sum(hits * ctr) FILTER (WHERE in_w) / nullif(sum(hits) FILTER (WHERE in_w), 0)::double precision <= 0.05
),
flag_rows AS (
  SELECT
    f.project_id,
    f.path,
    redact_emails(f.comment) AS comment,
    f.created_at,
    f.id,
    f.created_at >= (w.w_start::timestamp AT TIME ZONE 'UTC') AS in_w
  FROM feedback AS f
  JOIN win AS w ON w.project_id = f.project_id
  WHERE f.path IS NOT NULL
    AND f.created_at >= (w.p_start::timestamp AT TIME ZONE 'UTC')
    AND f.created_at < (w.w_end::timestamp AT TIME ZONE 'UTC')
    AND is_flag(f.source, f.helpful, f.comment, f.status)
),
flagged AS (
  SELECT
    project_id,
    'flagged'::text AS kind,
    path AS subject_key,
    count(*) FILTER (WHERE in_w)::numeric AS current_count,
    count(*) FILTER (WHERE NOT in_w)::numeric AS previous_count,
    NULL::text AS category,
    NULL::text AS answer_excerpt,
    NULL::double precision AS rate,
    (count(*) FILTER (WHERE in_w))::double precision AS failed
  FROM flag_rows
  GROUP BY project_id, path
  HAVING count(*) FILTER (WHERE in_w) >= 3
),
views_complete AS (
  SELECT w.project_id
  FROM win AS w
  JOIN sync_windows AS sw
    ON sw.project_id = w.project_id AND sw.stream = 'views' AND sw.status = 'loaded'
    AND sw.fetched_at >= (sw.window_end::timestamp AT TIME ZONE 'UTC')
    AND sw.window_start >= w.p_start AND sw.window_start < w.w_end
  GROUP BY w.project_id, w.w_end, w.p_start
  HAVING count(*) = w.w_end - w.p_start
),
page_weeks AS (
  SELECT v.project_id, v.path, (v.day - w.p_start) / 7 AS week, sum(v.human) AS human
  FROM page_views_daily AS v
  JOIN win AS w ON w.project_id = v.project_id
  JOIN views_complete AS c ON c.project_id = v.project_id
  WHERE v.day >= w.p_start AND v.day < w.w_start
  GROUP BY v.project_id, v.path, (v.day - w.p_start) / 7
),
weekly_noise AS (
  SELECT
    project_id,
    path,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(human - prev_human)::double precision / prev_human::double precision)
      AS noise
  FROM (
    SELECT project_id, path, human, lag(human) OVER (PARTITION BY project_id, path ORDER BY week) AS prev_human
    FROM page_weeks
  ) AS weeks
  WHERE prev_human > 0
  GROUP BY project_id, path
),
page_windows AS (
  SELECT
    v.project_id,
    v.path,
    coalesce(sum(v.human) FILTER (WHERE v.day >= w.w_start), 0) AS current_count,
    coalesce(sum(v.human) FILTER (WHERE v.day < w.w_start), 0) AS previous_count
  FROM page_views_daily AS v
  JOIN win AS w ON w.project_id = v.project_id
  JOIN views_complete AS c ON c.project_id = v.project_id
  WHERE v.day >= w.p_start AND v.day < w.w_end
  GROUP BY v.project_id, v.path
),
losing AS (
  SELECT
    p.project_id,
    'losing'::text AS kind,
    p.path AS subject_key,
    p.current_count,
    p.previous_count,
    NULL::text AS category,
    NULL::text AS answer_excerpt,
    1 - p.current_count::double precision / p.previous_count::double precision AS rate,
    ((p.previous_count - p.current_count) * 0.1)::double precision AS failed
  FROM page_windows AS p
  LEFT JOIN weekly_noise AS n ON n.project_id = p.project_id AND n.path = p.path
  WHERE p.previous_count >= 100
    AND 1 - p.current_count::double precision / p.previous_count::double precision >= 0.25
    AND 1 - p.current_count::double precision / p.previous_count::double precision > 2 * coalesce(n.noise, 0)
),
gaps AS (
  SELECT * FROM unanswered
  UNION ALL SELECT * FROM search
  UNION ALL SELECT * FROM flagged
  UNION ALL SELECT * FROM losing
),
examples AS (
  SELECT
    project_id,
    'unanswered'::text AS kind,
    subject_key,
    (array_agg(query ORDER BY n DESC, last_ts DESC, query COLLATE "C"))[1:3] AS examples
  FROM spellings GROUP BY project_id, subject_key
  UNION ALL
  SELECT project_id, 'search', subject_key, (array_agg(DISTINCT query COLLATE "C" ORDER BY query COLLATE "C"))[1:3]
  FROM search_rows WHERE in_w GROUP BY project_id, subject_key
  UNION ALL
  SELECT project_id, 'flagged', path, (array_agg(comment ORDER BY created_at DESC, id COLLATE "C"))[1:3]
  FROM flag_rows WHERE in_w AND nullif(trim(comment), '') IS NOT NULL GROUP BY project_id, path
),
pages AS (
  SELECT
    project_id,
    'unanswered'::text AS kind,
    subject_key,
    (array_agg(page_path ORDER BY n DESC, page_path COLLATE "C"))[1:3] AS pages
  FROM turn_pages GROUP BY project_id, subject_key
  UNION ALL
  SELECT
    project_id,
    'search',
    subject_key,
    (array_agg(top_clicked_path ORDER BY hits DESC, day DESC, top_clicked_path COLLATE "C"))[1:1]
  FROM search_rows WHERE in_w AND top_clicked_path IS NOT NULL GROUP BY project_id, subject_key
),
-- DuckDB's arg_max(query, pick) over row_number() ascending: the first of the reverse order.
subjects AS (
  SELECT
    project_id,
    'unanswered'::text AS kind,
    subject_key,
    (array_agg(query ORDER BY n DESC, last_ts DESC, query COLLATE "C"))[1] AS subject
  FROM spellings
  GROUP BY project_id, subject_key
  UNION ALL
  SELECT project_id, 'search', subject_key, (array_agg(query ORDER BY hits DESC, query COLLATE "C"))[1]
  FROM (
    SELECT project_id, subject_key, query, sum(hits) AS hits
    FROM search_rows WHERE in_w GROUP BY project_id, subject_key, query
  ) AS spelled
  GROUP BY project_id, subject_key
),
fixes AS (
  SELECT * FROM (
    SELECT g.project_id, g.kind, CASE WHEN g.kind IN ('unanswered', 'search') THEN question_key(g.subject_key) ELSE g.subject_key END AS subject_key, g.job_id, a.status, a.pr_link,
      row_number() OVER (
        PARTITION BY g.project_id, g.kind, CASE WHEN g.kind IN ('unanswered', 'search') THEN question_key(g.subject_key) ELSE g.subject_key END ORDER BY g.created_at DESC, g.job_id COLLATE "C"
      ) AS n
    FROM agent_job_gaps AS g
    LEFT JOIN agent_jobs AS a ON a.project_id = g.project_id AND a.job_id = g.job_id
  ) AS latest
  WHERE n = 1
),
-- The days of W and of P each stream holds whole (see the DuckDB text): a gap is compared with P
-- only when both are whole for its stream.
calendar AS (
  SELECT w.project_id, w.w_start, w.w_end - w.w_start AS n, d::date AS day
  FROM win AS w, generate_series(w.p_start::timestamp, (w.w_end - 1)::timestamp, interval '1 day') AS d
),
whole AS (
  SELECT c.project_id, sw.stream,
    count(DISTINCT c.day) FILTER (WHERE c.day >= c.w_start) = c.n
      AND count(DISTINCT c.day) FILTER (WHERE c.day < c.w_start) = c.n AS comparable
  FROM calendar AS c
  JOIN sync_windows AS sw
    ON sw.project_id = c.project_id AND sw.status = 'loaded' AND NOT sw.truncated
    AND sw.stream IN ('assistant', 'searches', 'feedback')
    AND sw.window_start <= c.day AND sw.window_end > c.day
    AND sw.fetched_at >= ((c.day + 1)::timestamp AT TIME ZONE 'UTC')
  GROUP BY c.project_id, sw.stream, c.n
),
judged AS (
  SELECT
    g.*,
    g.kind = 'losing' OR coalesce(wh.comparable, false) AS comparable,
    CASE
      WHEN g.kind = 'losing' THEN 'worse'
      WHEN NOT coalesce(wh.comparable, false) THEN NULL
      WHEN g.previous_count = 0 THEN 'new'
      WHEN g.current_count >= 1.25 * g.previous_count THEN 'worse'
      WHEN g.current_count <= 0.8 * g.previous_count THEN 'better'
      ELSE 'same'
    END AS trend
  FROM gaps AS g
  LEFT JOIN whole AS wh
    ON wh.project_id = g.project_id
    AND wh.stream = CASE g.kind WHEN 'unanswered' THEN 'assistant' WHEN 'search' THEN 'searches' ELSE 'feedback' END
),
scored AS (
  SELECT
    j.*,
    round(
      (j.failed * CASE j.trend WHEN 'new' THEN 1.5 WHEN 'worse' THEN 1.25 WHEN 'better' THEN 0.75 ELSE 1 END)::numeric,
      1
    )::double precision AS score
  FROM judged AS j
)
SELECT
  j.project_id,
  row_number() OVER (
    PARTITION BY j.project_id ORDER BY j.score DESC, j.kind COLLATE "C", j.subject_key COLLATE "C"
  ) AS rank,
  'gap_' || left(md5(j.project_id || '|' || j.kind || '|' || j.subject_key), 12) AS gap_id,
  j.kind,
  coalesce(s.subject, j.subject_key) AS subject,
  j.subject_key,
  w.w_start AS window_start,
  w.w_end AS window_end,
  CASE j.kind
    WHEN 'unanswered' THEN 'unanswered turns'
    WHEN 'search' THEN 'searches'
    WHEN 'flagged' THEN 'thumbs-down and comments'
    ELSE 'human views'
  END AS measure,
  j.current_count::bigint AS current_count,
  CASE WHEN j.comparable THEN j.previous_count::bigint END AS previous_count,
  j.trend,
  j.score,
  j.rate,
  j.category,
  j.answer_excerpt,
  coalesce(e.examples, '{}'::text[]) AS examples,
  CASE WHEN j.kind IN ('flagged', 'losing') THEN ARRAY[j.subject_key] ELSE coalesce(p.pages, '{}'::text[]) END
    AS pages,
  f.job_id AS fix_job_id,
  f.status AS fix_status,
  f.pr_link AS fix_pr_link
FROM scored AS j
JOIN win AS w ON w.project_id = j.project_id
LEFT JOIN subjects AS s ON s.project_id = j.project_id AND s.kind = j.kind AND s.subject_key = j.subject_key
LEFT JOIN examples AS e ON e.project_id = j.project_id AND e.kind = j.kind AND e.subject_key = j.subject_key
LEFT JOIN pages AS p ON p.project_id = j.project_id AND p.kind = j.kind AND p.subject_key = j.subject_key
LEFT JOIN fixes AS f ON f.project_id = j.project_id AND f.kind = j.kind AND f.subject_key = j.subject_key
$$;

-- The content gaps of the 28 days ending at each project's last complete loaded day.
CREATE OR REPLACE VIEW v_content_gaps AS
SELECT * FROM content_gaps(28, NULL)
ORDER BY project_id COLLATE "C", rank;
