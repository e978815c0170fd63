-- Per project and path: the last 28 days ending on the project's last loaded visitors day L (the
-- newest day in site_daily, partial or not): days (L-28, L]. One row per path seen in any of the
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
-- A stream's columns are NULL when that stream has no loaded day in the 28 days (e.g. the opt-in
-- feedback_by_page never synced): NULL means "not known", 0 means "loaded, none".
-- days_loaded / views_days_loaded / search_days_loaded / feedback_days_loaded: the loaded days of
-- each stream in the 28 days (sync_windows, status loaded), to judge a gap.
-- rank: 1 = most visitor-days; ties broken by path. The view is ordered by project and rank.
CREATE OR REPLACE VIEW v_page_health AS
WITH latest AS (
  SELECT project_id, max(day) AS last_day FROM site_daily GROUP BY project_id
),
loaded AS (
  SELECT
    l.project_id,
    l.last_day,
    count(*) FILTER (WHERE w.stream = 'visitors')::BIGINT AS days_loaded,
    count(*) FILTER (WHERE w.stream = 'views')::BIGINT AS views_days_loaded,
    count(*) FILTER (WHERE w.stream = 'searches')::BIGINT AS search_days_loaded,
    count(*) FILTER (WHERE w.stream = 'feedback_by_page')::BIGINT AS feedback_days_loaded
  FROM latest AS l
  LEFT JOIN sync_windows AS w
    ON w.project_id = l.project_id AND w.status = 'loaded'
    AND w.window_start > l.last_day - 28 AND w.window_start <= l.last_day
  GROUP BY l.project_id, l.last_day
),
visitors AS (
  SELECT p.project_id, p.path, sum(p.total)::BIGINT AS visitor_days
  FROM page_daily AS p
  JOIN latest AS l ON l.project_id = p.project_id AND p.day > l.last_day - 28 AND p.day <= l.last_day
  GROUP BY p.project_id, p.path
),
views AS (
  SELECT p.project_id, p.path, sum(p.total)::BIGINT AS views
  FROM page_views_daily AS p
  JOIN latest AS l ON l.project_id = p.project_id AND p.day > l.last_day - 28 AND p.day <= l.last_day
  GROUP BY p.project_id, p.path
),
landing AS (
  SELECT s.project_id, s.top_clicked_path AS path, sum(s.hits)::BIGINT AS searches_landing
  FROM search_daily AS s
  JOIN latest AS l ON l.project_id = s.project_id AND s.day > l.last_day - 28 AND s.day <= l.last_day
  WHERE s.top_clicked_path IS NOT NULL
  GROUP BY s.project_id, s.top_clicked_path
),
feedback AS (
  SELECT
    f.project_id,
    f.path,
    sum(f.thumbs_up)::BIGINT AS thumbs_up,
    sum(f.thumbs_down)::BIGINT AS thumbs_down,
    sum(f.code)::BIGINT AS code,
    sum(f.total)::BIGINT AS feedback_total
  FROM feedback_page_daily AS f
  JOIN latest AS l ON l.project_id = f.project_id AND f.day > l.last_day - 28 AND f.day <= l.last_day
  GROUP BY f.project_id, f.path
),
paths AS (
  SELECT project_id, path FROM visitors
  UNION SELECT project_id, path FROM views
  UNION SELECT project_id, path FROM landing
  UNION SELECT project_id, path FROM feedback
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
    coalesce(v.visitor_days, 0)::BIGINT AS visitor_days,
    CASE WHEN l.views_days_loaded > 0 THEN coalesce(w.views, 0)::BIGINT END AS views,
    CASE WHEN l.search_days_loaded > 0 THEN coalesce(s.searches_landing, 0)::BIGINT END AS searches_landing,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.thumbs_up, 0)::BIGINT END AS thumbs_up,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.thumbs_down, 0)::BIGINT END AS thumbs_down,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.code, 0)::BIGINT END AS code,
    CASE WHEN l.feedback_days_loaded > 0 THEN coalesce(f.feedback_total, 0)::BIGINT END AS feedback_total
  FROM paths AS p
  JOIN loaded AS l ON l.project_id = p.project_id
  LEFT JOIN visitors AS v ON v.project_id = p.project_id AND v.path = p.path
  LEFT JOIN views AS w ON w.project_id = p.project_id AND w.path = p.path
  LEFT JOIN landing AS s ON s.project_id = p.project_id AND s.path = p.path
  LEFT JOIN feedback AS f ON f.project_id = p.project_id AND f.path = p.path
)
SELECT
  project_id,
  path,
  row_number() OVER (PARTITION BY project_id ORDER BY visitor_days DESC, path) AS rank,
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
  feedback_days_loaded
FROM health
ORDER BY project_id, rank;
