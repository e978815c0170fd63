-- Content gaps: what the docs fail to answer, ranked across kinds, per project.
--
-- content_gaps(win_days, to_day) is a table function (a table macro on DuckDB), so that `mintlify-etl gaps --days N --to D` and
-- the view v_content_gaps (28 days, the default end) share one definition.
-- Window W = [to_day - win_days, to_day), the previous window P = [to_day - 2 * win_days,
-- to_day - win_days), days in UTC whatever the session's TimeZone. to_day NULL: the day after the
-- project's last complete loaded day of the four streams the gaps read (assistant, searches,
-- feedback, views): per stream the latest end of the days its loaded windows hold whole (a
-- window's end, or the UTC day it was fetched on when that came first: a month window fetched
-- mid-month holds the days before that day), and of those the earliest, so that a stream loaded in
-- whole months (feedback's [02-01, 03-01) after `sync --to 02-16`) never moves the window past the
-- days the daily streams hold; a stream whose
-- last end is a whole window before the newest holds nothing of the window and is left out (a
-- stream no longer synced does not freeze the window). Never "today" nor a partial day (the rule
-- of every view with a period), so a backfill of last year gives last year's gaps.
--
-- Kinds (count = current_count in W, previous_count in P):
--  unanswered  assistant turns unanswered or answered with a clarifying question, grouped by
--              question_key (060_v_search_terms.sql: case, punctuation, symbols and white space of
--              any script ignored; subject_key is that key); count = such
--              turns; at least 2 in W. subject = the spelling asked most; examples = up to 3
--              spellings; pages = the pages the readers were on; category = the most frequent
--              query_category (ties: the first in code-point order); answer_excerpt = the latest
--              answer (turns at the same instant: by thread id, then text), first 300 characters.
--  search      search terms (grouped by question_key, as questions are) searched at least 10
--              times in W with a click-through rate (weighted by searches) of at most 5%; count =
--              searches in W; rate = that CTR; pages = the top clicked page when there is one.
--  flagged     pages with at least 3 entries in W that are a contextual thumbs-down or a comment
--              (code snippet, agent or thumbs-only source), not dismissed by triage; count = those
--              entries; examples = up to 3 of their comments, newest first (never the contact).
--  losing      pages whose human views fell by at least 25% from P to W, and by more than twice
--              the page's usual week-to-week change (the median over the weeks of P), with at
--              least 100 human views in P, when every day of both windows is loaded for views;
--              count = human views; rate = the fall (0.4 = 40% fewer).
--
-- trend: new (previous_count 0), worse (>= 1.25 x previous), better (<= 0.8 x previous), same;
--   a losing page is always worse (the gap is its fall). Only when the gap's stream (assistant,
--   searches, feedback) holds every day of W and of P whole (a loaded window fetched after the day
--   ended, no page cap): otherwise previous_count and trend are NULL and the score takes no trend
--   factor (after a first sync P is not loaded, and "new" against it would be invented).
-- score: the readers the gap failed in W, weighted by how sure that is, times the trend:
--   unanswered 1 per turn, search 0.5 per search without a click (searches x (1 - CTR): a reader
--   may have found the answer in the results), flagged 1 per entry, losing 0.1 per human view lost;
--   x 1.5 new, x 1.25 worse, x 1 same or no trend, x 0.75 better; rounded to one decimal.
-- gap_id: 'gap_' and 12 hex digits of md5(project_id | kind | subject_key): the same gap keeps its
--   id across runs and windows.
-- rank: 1 = highest score in the project (ties: kind, then subject_key).
-- fix_job_id, fix_status, fix_pr_link: the latest agent job started for this gap (`agent fix`),
--   NULL when none was (a question's key recorded under an earlier rule is read under today's).
-- Readers' e-mail addresses never reach a gap: a question, a search term or a comment that holds one
-- shows [email] instead (subject, subject_key, examples, answer_excerpt), by redact_emails (see
-- 060_v_search_terms.sql).

-- Written once for both destinations; what keeps their rows the same:
-- - regular expressions: '.' never takes a newline in RE2 ([^\n] here); question_key (defined in
--   060_v_search_terms.sql) spells its class out;
-- - text tie-breaks and ordered lists sort in code-point order (COLLATE "C");
-- - sums are divided as double precision (PostgreSQL's sum of a bigint is numeric);
-- - a day starts at midnight UTC (date::timestamp AT TIME ZONE 'UTC'), whatever the session's
--   TimeZone.

-- A feedback entry that flags its page: a contextual thumbs-down, or a comment of another source,
-- in both cases not dismissed by triage.
{{# scalar_function is_flag(source text, helpful boolean, comment text, status text) RETURNS boolean }}
  status IS DISTINCT FROM 'dismissed'
  AND ((source = 'contextual' AND helpful = false)
    OR (source <> 'contextual' AND nullif(trim(comment), '') IS NOT NULL))
{{/ scalar_function }}

{{# table_function content_gaps(win_days integer, to_day date) RETURNS TABLE (
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
) }}
WITH stream_ends AS (
  SELECT project_id, stream, max(least(window_end, (fetched_at AT TIME ZONE 'UTC')::date)) AS last_end
  FROM sync_windows
  WHERE status = 'loaded' AND stream IN ('assistant', 'searches', 'feedback', 'views')
  GROUP BY project_id, stream
),
ends AS (
  SELECT e.project_id, min(e.last_end) AS last_end
  FROM stream_ends AS e
  JOIN (SELECT project_id, max(last_end) AS newest FROM stream_ends GROUP BY project_id) AS n
    ON n.project_id = e.project_id
  WHERE e.last_end > n.newest - CAST(win_days AS INTEGER)
  GROUP BY e.project_id
),
win AS (
  SELECT
    project_id,
    w_end,
    w_end - CAST(win_days AS INTEGER) AS w_start,
    w_end - 2 * CAST(win_days AS INTEGER) AS p_start
  FROM (SELECT project_id, coalesce(CAST(to_day AS DATE), last_end) AS w_end FROM ends) AS e
),
turns AS (
  SELECT
    t.project_id,
    t.thread_id,
    t.ts,
    redact_emails(t.query) AS query,
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
-- The most frequent query_category in W; ties: the first in code-point order (mode() would pick
-- among ties by the order rows happen to arrive in).
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
unanswered_turns AS (
  SELECT
    t.project_id,
    'unanswered' AS kind,
    t.subject_key,
    count(*) FILTER (WHERE t.in_w) AS current_count,
    count(*) FILTER (WHERE NOT t.in_w) AS previous_count,
    max(c.category) AS category,
    CAST(NULL AS double precision) AS rate,
    CAST(count(*) FILTER (WHERE t.in_w) AS double precision) AS failed
  FROM turns AS t
  LEFT JOIN categories AS c ON c.project_id = t.project_id AND c.subject_key = t.subject_key AND c.n = 1
  GROUP BY t.project_id, t.subject_key
  HAVING count(*) FILTER (WHERE t.in_w) >= 2
),
-- The answers stay out of `turns` (a real site's run to 30,000 characters, and DuckDB cannot spill
-- an ordered list of them): each question picks its latest turn in W (turns at the same instant:
-- by thread, then by answer text), and only those answers are read.
latest_turns AS (
  SELECT
    project_id,
    subject_key,
    thread_id,
    ts,
    row_number() OVER (PARTITION BY project_id, subject_key ORDER BY ts DESC, thread_id COLLATE "C") AS n
  FROM turns
  WHERE in_w
),
latest_answers AS (
  SELECT u.project_id, u.subject_key, left(min(redact_emails(a.response)), 300) AS answer_excerpt
  FROM unanswered_turns AS u
  JOIN latest_turns AS l ON l.project_id = u.project_id AND l.subject_key = u.subject_key AND l.n = 1
  JOIN assistant_turns AS a
    ON a.project_id = l.project_id AND a.thread_id = l.thread_id AND a.ts = l.ts
  WHERE (a.resolution_status = 'unanswered' OR a.response_type = 'clarifying_question')
    AND question_key(a.query) = u.subject_key
  GROUP BY u.project_id, u.subject_key
),
unanswered AS (
  SELECT
    u.project_id, u.kind, u.subject_key, u.current_count, u.previous_count, u.category,
    l.answer_excerpt, u.rate, u.failed
  FROM unanswered_turns AS u
  LEFT JOIN latest_answers AS l ON l.project_id = u.project_id AND l.subject_key = u.subject_key
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
    'search' AS kind,
    subject_key,
    coalesce(sum(hits) FILTER (WHERE in_w), 0) AS current_count,
    coalesce(sum(hits) FILTER (WHERE NOT in_w), 0) AS previous_count,
    CAST(NULL AS text) AS category,
    CAST(NULL AS text) AS answer_excerpt,
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
    'flagged' AS kind,
    path AS subject_key,
    count(*) FILTER (WHERE in_w) AS current_count,
    count(*) FILTER (WHERE NOT in_w) AS previous_count,
    CAST(NULL AS text) AS category,
    CAST(NULL AS text) AS answer_excerpt,
    CAST(NULL AS double precision) AS rate,
    CAST(count(*) FILTER (WHERE in_w) AS double precision) AS failed
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
  SELECT v.project_id, v.path, {{ int_div(v.day - w.p_start, 7) }} AS week, sum(v.human) AS human
  FROM page_views_daily AS v
  JOIN win AS w ON w.project_id = v.project_id
  JOIN views_complete AS c ON c.project_id = v.project_id
  WHERE v.day >= w.p_start AND v.day < w.w_start
  GROUP BY v.project_id, v.path, {{ int_div(v.day - w.p_start, 7) }}
),
-- The median of the week-to-week changes (the mean of the middle two when they are even).
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
    'losing' AS kind,
    p.path AS subject_key,
    p.current_count,
    p.previous_count,
    CAST(NULL AS text) AS category,
    CAST(NULL AS text) AS answer_excerpt,
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
-- examples, pages and subjects are MATERIALIZED: inlined, their list aggregates and the final
-- joins' hash tables were all live at once, and on a real site (6,218 paths, 864-character queries)
-- the query needed more than DuckDB's readers' 64 MB, which it cannot spill; computed once, 40 MB.
examples AS MATERIALIZED (
  SELECT
    project_id,
    'unanswered' AS kind,
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
pages AS MATERIALIZED (
  SELECT
    project_id,
    'unanswered' AS kind,
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
-- The subject is the spelling asked (searched) most; ties: the latest asked, then the first in order.
subjects AS MATERIALIZED (
  SELECT
    project_id,
    'unanswered' AS kind,
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
-- The days of W and of P each stream holds whole: covered by a loaded window fetched after the day
-- ended and not cut short by a page cap. A gap is compared with P only when both windows are whole
-- for its stream: after a first sync P holds a few days or none, and every gap would be "new".
calendar AS (
  SELECT w.project_id, w.w_start, w.w_end - w.w_start AS n, g.day::date AS day
  FROM win AS w
  CROSS JOIN LATERAL generate_series(w.p_start::timestamp, (w.w_end - 1)::timestamp, INTERVAL '1 day') AS g(day)
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
    -- losing is computed only when views hold both windows whole (views_complete).
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
    {{ round_double(j.failed * CASE j.trend WHEN 'new' THEN 1.5 WHEN 'worse' THEN 1.25 WHEN 'better' THEN 0.75 ELSE 1 END, 1) }}
      AS score
  FROM judged AS j
)
SELECT
  j.project_id,
  CAST(row_number() OVER (
    PARTITION BY j.project_id ORDER BY j.score DESC, j.kind COLLATE "C", j.subject_key COLLATE "C"
  ) AS BIGINT) AS rank,
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
  CAST(j.current_count AS BIGINT) AS current_count,
  CASE WHEN j.comparable THEN CAST(j.previous_count AS BIGINT) END AS previous_count,
  j.trend,
  j.score,
  j.rate,
  j.category,
  j.answer_excerpt,
  coalesce(e.examples, CAST(ARRAY[] AS text[])) AS examples,
  CASE WHEN j.kind IN ('flagged', 'losing') THEN ARRAY[j.subject_key] ELSE coalesce(p.pages, CAST(ARRAY[] AS text[])) END
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
{{/ table_function }}

-- The content gaps of the 28 days ending at each project's last complete loaded day (see
-- content_gaps above for every column), ordered by project and rank.
CREATE OR REPLACE VIEW v_content_gaps AS
SELECT * FROM content_gaps(28, NULL)
ORDER BY project_id COLLATE "C", rank;
