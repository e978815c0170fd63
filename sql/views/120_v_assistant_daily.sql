-- The assistant per project and UTC day (table assistant_turns, stream assistant; day = UTC day of
-- the turn's ts). One row per day with a turn or covered by a loaded assistant window (a loaded
-- day without conversations has turns = 0, a day never synced has no row: see v_coverage).
-- turns: user turns (questions) that day; threads: distinct threads with a turn that day (a
-- thread spanning midnight counts on both days, so threads do NOT add up over days, turns do).
-- answered / unanswered: turns by resolution_status; answered_share = answered / turns, NULL
-- when there are no turns. clarifying_questions: turns the assistant answered with a question
-- back (response_type clarifying_question); clarifying_share = clarifying_questions / turns.
-- web / api / other: assistant queries by caller type from assistant_callers_daily (stream
-- caller_stats, its own counts, not derived from the turns) when that day is loaded there; NULL,
-- never 0, when it is not.
-- partial: the newest loaded assistant window covering the day was fetched before the day ended
-- (--include-today): its counts are not final. false for a day no loaded window covers.
-- Days are UTC days and a day ends at midnight UTC, whatever the session's TimeZone.
CREATE OR REPLACE VIEW v_assistant_daily AS
WITH turn_days AS (
  SELECT
    project_id,
    (ts AT TIME ZONE 'UTC')::date AS day,
    count(*)::bigint AS turns,
    count(DISTINCT thread_id)::bigint AS threads,
    count(*) FILTER (WHERE resolution_status = 'answered')::bigint AS answered,
    count(*) FILTER (WHERE resolution_status = 'unanswered')::bigint AS unanswered,
    count(*) FILTER (WHERE response_type = 'clarifying_question')::bigint AS clarifying_questions
  FROM assistant_turns
  GROUP BY project_id, (ts AT TIME ZONE 'UTC')::date
),
window_days AS (
  SELECT w.project_id, w.fetched_at, g.day::date AS day
  FROM sync_windows AS w
  CROSS JOIN LATERAL generate_series(
    w.window_start::timestamp, w.window_end::timestamp - INTERVAL '1 day', INTERVAL '1 day'
  ) AS g(day)
  WHERE w.stream = 'assistant' AND w.status = 'loaded' AND w.window_end > w.window_start
),
loaded_days AS (
  SELECT project_id, day, max(fetched_at) < ((day + 1)::timestamp AT TIME ZONE 'UTC') AS partial
  FROM window_days
  GROUP BY project_id, day
),
days AS (
  SELECT project_id, day FROM turn_days
  UNION
  SELECT project_id, day FROM loaded_days
)
SELECT
  d.project_id,
  d.day,
  coalesce(t.turns, 0)::bigint AS turns,
  coalesce(t.threads, 0)::bigint AS threads,
  coalesce(t.answered, 0)::bigint AS answered,
  coalesce(t.unanswered, 0)::bigint AS unanswered,
  t.answered::double precision / nullif(t.turns, 0) AS answered_share,
  coalesce(t.clarifying_questions, 0)::bigint AS clarifying_questions,
  t.clarifying_questions::double precision / nullif(t.turns, 0) AS clarifying_share,
  c.web,
  c.api,
  c.other,
  coalesce(l.partial, false) AS partial
FROM days AS d
LEFT JOIN turn_days AS t ON t.project_id = d.project_id AND t.day = d.day
LEFT JOIN loaded_days AS l ON l.project_id = d.project_id AND l.day = d.day
LEFT JOIN assistant_callers_daily AS c ON c.project_id = d.project_id AND c.day = d.day;
