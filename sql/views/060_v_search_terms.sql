-- Per project and search term (search_daily.query; the service groups terms case-insensitively):
-- the last 7 and the last 28 days ending on the project's newest complete search day L (the newest
-- day in search_totals_daily whose window was fetched after the day ended: a partial day, today
-- with --include-today, never ends a period, as in every view with a period): last 7 = days in (L-7, L], last 28 = (L-28, L], previous 7 =
-- (L-14, L-7]. Every term with a row in the last 28 days gets a row, also one searched only in
-- the previous 7 days (hits_7d = 0). Hits are searches: they add up over days.
-- ctr_7d / ctr_28d: click-through rate weighted by hits, sum(hits * ctr) / sum(hits); NULL when
-- the term had no hits in the period.
-- zero_click_share: of the term's hits in the last 28 days, the fraction that fell on days when
-- the term's CTR was exactly 0, i.e. days on which no search for it led to a click. It is NOT the
-- share of searches without a click (the API gives one CTR per term and day, not per search);
-- NULL when the term had no hits.
-- top_clicked_path: the top_clicked_path of the term's day with the most hits in the last 28 days
-- among its days that have one (ties: the later day); NULL when no day has one.
-- hits_change_pct: (hits_7d - hits_prev_7d) / hits_prev_7d as a fraction (0.25 = +25%), only when
-- both 7-day periods are complete (all 7 days loaded, none partial, none truncated) and
-- hits_prev_7d > 0; NULL otherwise. days_loaded_* say how many days each period holds.
-- seen_on_truncated_day: the term has a row on a day of the last 28 whose term list a page cap cut
-- short (search_totals_daily.truncated or sync_windows.truncated): on such days terms with fewer
-- hits may be missing, so sums of rarer terms can be too low. truncated_days_28d counts those days.
-- last_day_partial: L was not over when fetched: always false, since L is a complete day (kept so
-- that queries reading it still run).
-- rank: 1 = most hits in the last 28 days; ties broken by the term so it is unique.
-- query: the term with readers' e-mail addresses shown as [email] (terms that differ only there are
-- one row).
-- Readers' e-mail addresses: every view that shows readers' text (this one, v_feedback_open,
-- v_assistant_unanswered, v_content_gaps, v_gap_outcomes) shows [email] instead, by redact_emails.
-- The rule is written once, in src/util/personal-data.ts (the readers in TypeScript use it too):
-- the pattern and the token are filled in when this file is applied; docs/personal-data.md says
-- what counts as an address. Defined here, in the first view file that uses it.
{{# scalar_function redact_emails(s text) RETURNS text }}
  {{ mask_emails(s) }}
{{/ scalar_function }}

-- "The same question" (an assistant question, a search term): the one key every view and command
-- groups readers' text by; src/util/question-key.ts states the rule and fills in the separators
-- (Unicode punctuation, symbols, spaces, control and format characters, as one explicit class both
-- destinations read alike: RE2 knows \p classes, PostgreSQL does not, and its [[:punct:]] follows
-- the database's ctype). E-mail addresses masked, lower case over all of Unicode (U+0130 and the
-- final sigma made one first: ICU lowers them by context, DuckDB letter by letter), every run of
-- separators one space, trimmed: "How do I reset my API key？" and "  how do i reset my api key!!"
-- are one. docs/gaps-and-fixes.md states the rule for users. The masking is redact_emails' body
-- written out (mask_emails), not a call: on PostgreSQL a call inside a function body resolves by
-- the caller's search_path, and a BI login's does not name this schema.
{{# scalar_function question_key(q text) RETURNS text }}
  trim(regexp_replace(
    replace({{ lower_all(replace({{ mask_emails(q) }}, 'İ', 'I')) }}, 'ς', 'σ'),
    {{ question_separators }},
    ' ',
    'g'
  ))
{{/ scalar_function }}

-- Sums divided into a ratio are cast to double precision (PostgreSQL's sum of a bigint is numeric).
CREATE OR REPLACE VIEW v_search_terms AS
WITH days AS (
  SELECT
    t.project_id,
    t.day,
    t.truncated OR coalesce(w.truncated, false) AS truncated,
    coalesce(w.fetched_at < (w.window_end::timestamp AT TIME ZONE 'UTC'), false) AS partial
  FROM search_totals_daily AS t
  LEFT JOIN sync_windows AS w
    ON w.project_id = t.project_id AND w.stream = 'searches' AND w.window_start = t.day AND w.status = 'loaded'
),
latest AS (
  SELECT project_id, max(day) AS last_day FROM days WHERE NOT partial GROUP BY project_id
),
periods AS (
  SELECT
    l.project_id,
    l.last_day,
    bool_or(d.partial AND d.day = l.last_day) AS last_day_partial,
    count(*) FILTER (WHERE d.day > l.last_day - 7)::bigint AS days_loaded_7d,
    count(*) FILTER (WHERE d.day > l.last_day - 14 AND d.day <= l.last_day - 7)::bigint AS days_loaded_prev_7d,
    count(*)::bigint AS days_loaded_28d,
    count(*) FILTER (WHERE d.truncated)::bigint AS truncated_days_28d,
    count(*) FILTER (WHERE d.day > l.last_day - 7 AND NOT d.partial AND NOT d.truncated) = 7 AS complete_7d,
    count(*) FILTER (
      WHERE d.day > l.last_day - 14 AND d.day <= l.last_day - 7 AND NOT d.partial AND NOT d.truncated
    ) = 7 AS complete_prev_7d
  FROM latest AS l
  JOIN days AS d
    ON d.project_id = l.project_id AND d.day > l.last_day - 28 AND d.day <= l.last_day
  GROUP BY l.project_id, l.last_day
),
term_days AS (
  SELECT s.project_id, s.day, redact_emails(s.query) AS query, s.hits, s.ctr, s.top_clicked_path, d.truncated, p.last_day
  FROM search_daily AS s
  JOIN periods AS p
    ON p.project_id = s.project_id AND s.day > p.last_day - 28 AND s.day <= p.last_day
  JOIN days AS d
    ON d.project_id = s.project_id AND d.day = s.day
),
terms AS (
  SELECT
    project_id,
    query,
    coalesce(sum(hits) FILTER (WHERE day > last_day - 7), 0)::bigint AS hits_7d,
    sum(hits)::bigint AS hits_28d,
    coalesce(sum(hits) FILTER (WHERE day > last_day - 14 AND day <= last_day - 7), 0)::bigint AS hits_prev_7d,
    sum(hits * ctr) FILTER (WHERE day > last_day - 7)
      / nullif(sum(hits) FILTER (WHERE day > last_day - 7), 0)::double precision AS ctr_7d,
    sum(hits * ctr) / nullif(sum(hits), 0)::double precision AS ctr_28d,
    coalesce(sum(hits) FILTER (WHERE ctr = 0), 0)::double precision / nullif(sum(hits), 0) AS zero_click_share,
    bool_or(truncated) AS seen_on_truncated_day
  FROM term_days
  GROUP BY project_id, query
),
top_paths AS (
  SELECT
    project_id,
    query,
    top_clicked_path,
    row_number() OVER (PARTITION BY project_id, query ORDER BY hits DESC, day DESC) AS n
  FROM term_days
  WHERE top_clicked_path IS NOT NULL
)
SELECT
  t.project_id,
  t.query,
  p.last_day,
  p.last_day_partial,
  p.days_loaded_7d,
  p.days_loaded_prev_7d,
  p.days_loaded_28d,
  p.truncated_days_28d,
  t.hits_7d,
  t.hits_28d,
  t.ctr_7d,
  t.ctr_28d,
  t.zero_click_share,
  tp.top_clicked_path,
  t.hits_prev_7d,
  CASE WHEN p.complete_7d AND p.complete_prev_7d
    THEN (t.hits_7d - t.hits_prev_7d)::double precision / nullif(t.hits_prev_7d, 0)
  END AS hits_change_pct,
  t.seen_on_truncated_day,
  row_number() OVER (PARTITION BY t.project_id ORDER BY t.hits_28d DESC, t.query COLLATE "C") AS rank
FROM terms AS t
JOIN periods AS p ON p.project_id = t.project_id
LEFT JOIN top_paths AS tp ON tp.project_id = t.project_id AND tp.query = t.query AND tp.n = 1;
