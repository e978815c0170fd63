-- PostgreSQL dialect of sql/views/130_v_assistant_unanswered.sql (the column comments there hold
-- for both). question_key is defined in 060_v_search_terms.sql. arg_max becomes the first of an
-- ordered array_agg. Ties sort in code-point order (COLLATE "C").
CREATE OR REPLACE VIEW v_assistant_unanswered AS
WITH turns AS (
  SELECT
    project_id,
    thread_id,
    ts,
    redact_emails(query) AS query,
    page_url,
    question_key(query) AS question_key
  FROM assistant_turns
  WHERE resolution_status = 'unanswered'
),
spellings AS (
  SELECT
    project_id,
    question_key,
    query,
    row_number() OVER (
      PARTITION BY project_id, question_key ORDER BY count(*) DESC, max(ts) DESC, query COLLATE "C"
    ) AS n
  FROM turns
  GROUP BY project_id, question_key, query
),
questions AS (
  SELECT
    project_id,
    question_key,
    count(*)::bigint AS times_asked,
    count(DISTINCT thread_id)::bigint AS threads,
    min(ts) AS first_asked,
    max(ts) AS last_asked,
    (array_agg(page_url ORDER BY ts DESC, page_url COLLATE "C") FILTER (WHERE page_url IS NOT NULL))[1] AS example_page_url
  FROM turns
  GROUP BY project_id, question_key
),
ranked AS (
  SELECT
    q.project_id,
    row_number() OVER (
      PARTITION BY q.project_id ORDER BY q.times_asked DESC, q.last_asked DESC, q.question_key COLLATE "C"
    ) AS rank,
    s.query,
    q.question_key,
    q.times_asked,
    q.threads,
    q.first_asked,
    q.last_asked,
    q.example_page_url
  FROM questions AS q
  JOIN spellings AS s ON s.project_id = q.project_id AND s.question_key = q.question_key AND s.n = 1
)
SELECT * FROM ranked
ORDER BY project_id COLLATE "C", rank;
