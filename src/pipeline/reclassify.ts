import type { Destination } from '../load/destination.js';
import { trafficClassSql, type TrafficLists } from '../sources/events/traffic-class.js';

export interface ReclassifyResult {
  /** Events whose class changed. */
  readonly changed: number;
  /** Events per class after the change, for the projects given. */
  readonly byClass: Readonly<Record<string, number>>;
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
  const cls = trafficClassSql('user_agent', lists);
  const changed = await s.transaction(() =>
    s.run(
      `UPDATE analytics_events SET traffic_class = ${cls}
WHERE project_id IN (SELECT unnest($1::VARCHAR[])) AND traffic_class <> ${cls}`,
      [[...projects]],
    ),
  );
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
