-- PostgreSQL dialect of sql/views/060_v_search_terms.sql (the column comments there hold for both).
-- sum() of a bigint is numeric here: sums divided into a ratio are cast to double precision, as
-- DuckDB divides in DOUBLE. rank breaks ties by the term in code-point order (COLLATE "C").
-- redact_emails: see sql/views/060_v_search_terms.sql; the rule of src/util/personal-data.ts,
-- filled in when this file is applied, as on DuckDB.
CREATE OR REPLACE FUNCTION redact_emails(s text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT regexp_replace(s, {{email_pattern}}, {{email_token}}, 'g')
$$;

-- question_key: see sql/views/060_v_search_terms.sql. lower() under ICU's root locale (und-x-icu):
-- a "C" database would lower ASCII only, DuckDB lowers every letter.
CREATE OR REPLACE FUNCTION question_key(q text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT trim(regexp_replace(
    replace(lower(replace(redact_emails(q), 'İ', 'I') COLLATE "und-x-icu"), 'ς', 'σ'),
    {{question_separators}},
    ' ',
    'g'
  )) COLLATE "default"
$$;

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
