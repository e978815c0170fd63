import type { Destination } from '../load/destination.js';
import { foldedAgentSql, trafficClassSql, type TrafficLists } from '../sources/events/traffic-class.js';

export interface ReclassifyResult {
  /** Events whose class changed. */
  readonly changed: number;
  /** Events per class after the change, for the projects given. */
  readonly byClass: Readonly<Record<string, number>>;
}

/**
 * The UPDATE of the events of the projects ($1) whose class the lists change. Each user agent is
 * folded once, in a subquery that OFFSET 0 keeps PostgreSQL from merging into the CASE (which
 * would fold again for every list entry, in SET and in WHERE).
 */
export function reclassifySql(lists: TrafficLists): string {
  const cls = trafficClassSql('f.agent', lists, { folded: true });
  return `UPDATE analytics_events AS e SET traffic_class = c.cls
FROM (
  SELECT f.project_id, f.event_id, ${cls} AS cls
  FROM (
    SELECT project_id, event_id, ${foldedAgentSql('user_agent')} AS agent FROM analytics_events
    WHERE project_id IN (SELECT unnest($1::VARCHAR[])) OFFSET 0
  ) AS f
) AS c
WHERE e.project_id = c.project_id AND e.event_id = c.event_id AND e.traffic_class <> c.cls`;
}

/**
 * Gives every loaded event of the projects the class the lists say now, in one statement (the
 * lists are the ones a sync would use: Mintlify re-classified traffic before, and a user may edit
 * config/traffic-classes.json or pass --traffic-classes).
 */
export async function reclassifyEvents(
  dest: Destination,
  projects: readonly string[],
  lists: TrafficLists,
): Promise<ReclassifyResult> {
  const s = dest.session;
  const changed = await s.transaction(() => s.run(reclassifySql(lists), [[...projects]]));
  const rows = await s.rows(
    `SELECT traffic_class, count(*) AS n FROM analytics_events
WHERE project_id IN (SELECT unnest($1::VARCHAR[])) GROUP BY traffic_class ORDER BY traffic_class`,
    [[...projects]],
  );
  return {
    changed,
    byClass: Object.fromEntries(rows.map((r) => [String(r['traffic_class']), Number(r['n'])])),
  };
}
