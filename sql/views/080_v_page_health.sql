-- Per project and path: the last 28 days ending on the project's newest complete visitors day L
-- (the newest day in site_daily that is not partial: a day fetched before it ended, today with
-- --include-today, never ends a period, as in every view with a period): days (L-28, L]. One row per path seen in any of the
-- sources below in those days.
-- visitor_days: sum of the path's daily unique visitors (page_daily.total). A visitor seen on three
-- days counts three times: these are visitor-days, NOT unique visitors.
-- views: content view events of the path (page_views_daily.total); they do add up.
-- searches_landing: hits of the search terms whose top_clicked_path is this path, summed over the
-- terms' days (search_daily): searches whose most clicked result was this page.
-- thumbs_up / thumbs_down / code: feedback on the page (feedback_page_daily; code = feedback on
-- its code snippets); feedback_total: all feedback on the page, kinds without a column of their own
-- included. feedback_by_page keeps the first 100 pages by feedback per day: a truncated day
-- (v_coverage.truncated_days) may leave a page's feedback out.
-- open_feedback / feedback_thumbs_up / feedback_thumbs_down: from the feedback entries themselves
-- (table feedback, stream feedback) created in the same 28 days (UTC day of created_at): entries
-- still pending or in_progress (as last fetched), and contextual entries with a thumb up / down.
-- Unlike thumbs_up / thumbs_down (feedback_by_page) they have no 100-page cap. Entries without
-- created_at belong to no period and are not counted here (see v_feedback_open).
-- assistant_citations: assistant turns in the 28 days (UTC day of ts) whose sources cite the page:
-- a source url's path (scheme and host, query and fragment, and a trailing slash stripped; a bare
-- host is '/') equals the page's path exactly (case and percent-encoding as sent). A turn citing
-- the page twice counts once. A cited path no other source has gets a row of its own.
-- A stream's columns are NULL when that stream has no loaded day in the 28 days (e.g. the opt-in
-- feedback_by_page never synced): NULL means "not known", 0 means "loaded, none". For the range
-- streams feedback and assistant, "loaded" means a loaded window overlapping the 28 days.
-- days_loaded / views_days_loaded / search_days_loaded / feedback_days_loaded: the loaded days of
-- each day stream in the 28 days (sync_windows, status loaded), to judge a gap;
-- feedback_windows_loaded / assistant_windows_loaded: the loaded windows of the range streams
-- feedback and assistant that overlap the 28 days (a window spans several days).
-- rank: 1 = most visitor-days; ties broken by path. The view is ordered by project and rank.
-- The URL regexes never let '.' take a newline (written [^\n], as RE2 and PostgreSQL read it alike);
-- text tie-breaks are in code-point order (COLLATE "C").
CREATE OR REPLACE VIEW v_page_health AS
WITH latest AS (
  SELECT project_id, max(day) AS last_day FROM site_daily WHERE NOT partial GROUP BY project_id
),
loaded AS (
  SELECT
    l.project_id,
    l.last_day,
    count(*) FILTER (WHERE w.stream = 'visitors')::bigint AS days_loaded,
    count(*) FILTER (WHERE w.stream = 'views')::bigint AS views_days_loaded,
    count(*) FILTER (WHERE w.stream = 'searches')::bigint AS search_days_loaded,
    count(*) FILTER (WHERE w.stream = 'feedback_by_page')::bigint AS feedback_days_loaded
  FROM latest AS l
  LEFT JOIN sync_windows AS w
    ON w.project_id = l.project_id AND w.status = 'loaded'
    AND w.window_start > l.last_day - 28 AND w.window_start <= l.last_day
  GROUP BY l.project_id, l.last_day
),
-- Range windows [window_start, window_end) overlapping the days [last_day - 27, last_day].
ranges AS (
  SELECT
    l.project_id,
    count(*) FILTER (WHERE w.stream = 'feedback')::bigint AS feedback_windows_loaded,
    count(*) FILTER (WHERE w.stream = 'assistant')::bigint AS assistant_windows_loaded
  FROM latest AS l
  LEFT JOIN sync_windows AS w
    ON w.project_id = l.project_id AND w.status = 'loaded'
    AND w.window_start <= l.last_day AND w.window_end > l.last_day - 27
  GROUP BY l.project_id
),
visitors AS (
  SELECT p.project_id, p.path, sum(p.total)::bigint AS visitor_days
  FROM page_daily AS p
  JOIN latest AS l ON l.project_id = p.project_id AND p.day > l.last_day - 28 AND p.day <= l.last_day
  GROUP BY p.project_id, p.path
),
views AS (
  SELECT p.project_id, p.path, sum(p.total)::bigint AS views
  FROM page_views_daily AS p
  JOIN latest AS l ON l.project_id = p.project_id AND p.day > l.last_day - 28 AND p.day <= l.last_day
  GROUP BY p.project_id, p.path
),
landing AS (
  SELECT s.project_id, s.top_clicked_path AS path, sum(s.hits)::bigint AS searches_landing
  FROM search_daily AS s
  JOIN latest AS l ON l.project_id = s.project_id AND s.day > l.last_day - 28 AND s.day <= l.last_day
  WHERE s.top_clicked_path IS NOT NULL
  GROUP BY s.project_id, s.top_clicked_path
),
by_page AS (
  SELECT
    f.project_id,
    f.path,
    sum(f.thumbs_up)::bigint AS thumbs_up,
    sum(f.thumbs_down)::bigint AS thumbs_down,
    sum(f.code)::bigint AS code,
    sum(f.total)::bigint AS feedback_total
  FROM feedback_page_daily AS f
  JOIN latest AS l ON l.project_id = f.project_id AND f.day > l.last_day - 28 AND f.day <= l.last_day
  GROUP BY f.project_id, f.path
),
entries AS (
  SELECT
    f.project_id,
    f.path,
    count(*) FILTER (WHERE f.status IN ('pending', 'in_progress'))::bigint AS open_feedback,
    count(*) FILTER (WHERE f.source = 'contextual' AND f.helpful)::bigint AS feedback_thumbs_up,
    count(*) FILTER (WHERE f.source = 'contextual' AND NOT f.helpful)::bigint AS feedback_thumbs_down
  FROM feedback AS f
  JOIN latest AS l
    ON l.project_id = f.project_id
    AND (f.created_at AT TIME ZONE 'UTC')::date > l.last_day - 28
    AND (f.created_at AT TIME ZONE 'UTC')::date <= l.last_day
  GROUP BY f.project_id, f.path
),
cited AS (
  -- One row per turn and cited path: scheme and host off, then query and fragment, then a
  -- trailing slash (never the root's); a bare host is the root.
  SELECT DISTINCT
    t.project_id,
    t.thread_id,
    t.ts,
    coalesce(
      nullif(
        regexp_replace(
          regexp_replace(regexp_replace({{ source_url(u.s) }}, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*', ''), '[?#][^\n]*$', ''),
          '([^\n])/+$',
          '\1'
        ),
        ''
      ),
      '/'
    ) AS path
  FROM assistant_turns AS t
  JOIN latest AS l
    ON l.project_id = t.project_id
    AND (t.ts AT TIME ZONE 'UTC')::date > l.last_day - 28
    AND (t.ts AT TIME ZONE 'UTC')::date <= l.last_day
  CROSS JOIN {{ each_source(t.sources) }} AS u(s)
  WHERE {{ source_url(u.s) }} IS NOT NULL
),
citations AS (
  SELECT project_id, path, count(*)::bigint AS assistant_citations
  FROM cited
  GROUP BY project_id, path
),
paths AS (
  SELECT project_id, path FROM visitors
  UNION SELECT project_id, path FROM views
  UNION SELECT project_id, path FROM landing
  UNION SELECT project_id, path FROM by_page
  UNION SELECT project_id, path FROM entries
  UNION SELECT project_id, path FROM citations
),
health AS (
  SELECT
    p.project_id,
    p.path,
    l.last_day,
    l.days_loaded,
    l.views_days_loaded,
    l.search_days_loaded,
    l.feedback_days_loaded,
    coalesce(v.visitor_days, 0)::bigint AS visitor_days,
    CASE WHEN l.views_days_loaded > 0 THEN coalesce(w.views, 0)::bigint END AS views,
    CASE WHEN l.search_days_loaded > 0 THEN coalesce(s.searches_landing, 0)::bigint END AS searches_landing,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.thumbs_up, 0)::bigint END AS thumbs_up,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.thumbs_down, 0)::bigint END AS thumbs_down,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.code, 0)::bigint END AS code,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.feedback_total, 0)::bigint END AS feedback_total,
    r.feedback_windows_loaded,
    r.assistant_windows_loaded,
    CASE WHEN r.feedback_windows_loaded > 0 THEN coalesce(e.open_feedback, 0)::bigint END AS open_feedback,
    CASE WHEN r.feedback_windows_loaded > 0 THEN coalesce(e.feedback_thumbs_up, 0)::bigint END AS feedback_thumbs_up,
    CASE WHEN r.feedback_windows_loaded > 0 THEN coalesce(e.feedback_thumbs_down, 0)::bigint END
      AS feedback_thumbs_down,
    CASE WHEN r.assistant_windows_loaded > 0 THEN coalesce(c.assistant_citations, 0)::bigint END
      AS assistant_citations
  FROM paths AS p
  JOIN loaded AS l ON l.project_id = p.project_id
  JOIN ranges AS r ON r.project_id = p.project_id
  LEFT JOIN visitors AS v ON v.project_id = p.project_id AND v.path = p.path
  LEFT JOIN views AS w ON w.project_id = p.project_id AND w.path = p.path
  LEFT JOIN landing AS s ON s.project_id = p.project_id AND s.path = p.path
  LEFT JOIN by_page AS f ON f.project_id = p.project_id AND f.path = p.path
  LEFT JOIN entries AS e ON e.project_id = p.project_id AND e.path = p.path
  LEFT JOIN citations AS c ON c.project_id = p.project_id AND c.path = p.path
)
SELECT
  project_id,
  path,
  row_number() OVER (PARTITION BY project_id ORDER BY visitor_days DESC, path COLLATE "C") AS rank,
  visitor_days,
  views,
  searches_landing,
  thumbs_up,
  thumbs_down,
  code,
  feedback_total,
  last_day,
  days_loaded,
  views_days_loaded,
  search_days_loaded,
  feedback_days_loaded,
  open_feedback,
  feedback_thumbs_up,
  feedback_thumbs_down,
  assistant_citations,
  feedback_windows_loaded,
  assistant_windows_loaded
FROM health
ORDER BY project_id COLLATE "C", rank;
