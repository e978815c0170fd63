-- The docs gaps: questions the assistant left unanswered (assistant_turns with resolution_status
-- unanswered), grouped per project by question_key (060_v_search_terms.sql, docs/gaps-and-fixes.md:
-- case, punctuation, symbols and white space of any script ignored, so "How do I  Login?" and "how
-- do i login？" are one question), the same key as the gaps, the report and the alerts. Every
-- unanswered turn ever loaded counts; filter last_asked for a period.
-- question_key: that key (lower case, words separated by one space), to join or filter on. query: a representative
-- text, the spelling asked most often (ties: the one asked last). times_asked: unanswered turns;
-- threads: distinct threads that asked it; first_asked / last_asked: the first and last turn's ts.
-- example_page_url: the page the reader was on when asking, from the latest such turn that has one
-- (turns at the same instant: the first page in code-point order; NULL when none has). rank: 1 = asked most often, ties broken by last_asked (latest first) then
-- question_key; the view is ordered by project and rank.
-- Readers' e-mail addresses show as [email] in query and question_key (redact_emails, see
-- v_search_terms): questions that differ only there are one.
-- NOT in it: answered turns (even of the same question), the assistant's responses.
-- Ties sort in code-point order (COLLATE "C").
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
