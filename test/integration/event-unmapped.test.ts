import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Place } from '../../src/load/destination.js';
import { checkEventSettings, syncEvents, type EventsSummary } from '../../src/pipeline/event-sync.js';
import { gatherStatus } from '../../src/pipeline/status.js';
import { formatStatus } from '../../src/pipeline/status-format.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { warningsLogger } from '../helpers/warnings-logger.js';
import { eventTargets, reading } from '../helpers/event-checks.js';

/*
 * A typo in --events-project loses no event for good: the events of a subdomain no mapping named
 * are recorded per object and subdomain, a later mapping that names it reads those objects again
 * for its project (even objects older than the listing's lookback), and a mapping that names a
 * subdomain no event has is said loudly. Both destinations, in process, from a folder.
 */

const NOW = Date.parse('2026-11-22T06:00:00Z');
const { targets, stop } = eventTargets();
afterAll(async () => {
  await stop();
});

function line(id: string, subdomain: string | null): string {
  return JSON.stringify({
    eventType: 'docs.content.view',
    payload: { event_id: id, subdomain, created_at: '2026-11-20T10:00:00Z', path: '/p', anon_id: `a-${id}` },
  });
}

/** Three objects days apart, each with 4 events of ACME (upper case: mappings match any case), 3 of beta, 1 without a subdomain. */
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mlx-unmapped-'));
  for (const d of ['10', '15', '21']) {
    const lines = [
      ...[1, 2, 3, 4].map((i) => line(`acme-${d}-${i}`, 'ACME')),
      ...[1, 2, 3].map((i) => line(`beta-${d}-${i}`, 'beta')),
      line(`none-${d}`, null),
    ];
    const file = join(dir, `2026/11/${d}/202611${d}T000000Z.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, lines.join('\n') + '\n');
  }
  return dir;
}

function run(
  place: Place,
  source: string,
  projects: string[],
  map: Record<string, string>,
): Promise<{ s: EventsSummary; warnings: string[] }> {
  const { logger, warnings } = warningsLogger();
  const checked = checkEventSettings(
    { source, projectBySubdomain: new Map(Object.entries(map)), now: () => NOW },
    projects,
  );
  return syncEvents({ place, projects, runId: `r-${Math.random()}`, refresh: false, logger }, checked).then(
    (s) => ({ s, warnings }),
  );
}

async function stored(place: Place): Promise<Record<string, unknown>[]> {
  return reading(place, (s) =>
    s.rows(
      `SELECT project_id, lower(subdomain) AS subdomain, count(*)::INTEGER AS n, count(DISTINCT event_id)::INTEGER AS ids
FROM analytics_events GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
  );
}

async function statusText(place: Place): Promise<string> {
  const dest = await place.open('read');
  try {
    return formatStatus(await gatherStatus(dest, { rateLimit: parseRateLimit('100/1h'), now: NOW }));
  } finally {
    await dest.close();
  }
}

async function waiting(place: Place): Promise<Record<string, unknown>[]> {
  return reading(place, (s) =>
    s.rows(
      'SELECT subdomain, count(*)::INTEGER AS objects, sum(events)::INTEGER AS events FROM event_object_unmapped GROUP BY 1 ORDER BY 1',
    ),
  );
}

describe.each(targets)('a mapping that left events unmapped, into %s', (_db, target) => {
  it('reads the objects again for the subdomain a corrected mapping names, adds its events once, and warned of the typo', async () => {
    const { place } = await target();
    const src = folder();
    const projects = ['proj_demo', 'proj_b'];
    const typo = await run(place, src, projects, { acm: 'proj_demo', beta: 'proj_b' });
    expect(typo.s).toMatchObject({ loaded: 3, newEvents: 9, unmapped: 15 });
    expect(typo.warnings.join('\n')).toMatch(/--events-project names acm, .*acme \(12 events in 3 objects\)/);
    expect(await waiting(place)).toEqual([{ subdomain: 'acme', objects: 3, events: 12 }]);
    expect(await statusText(place)).toContain(`\n  acme: 12 events in 3 objects of file://${src}/\n`);

    const fixed = await run(place, src, projects, { acme: 'proj_demo', beta: 'proj_b' });
    expect(fixed.s).toMatchObject({ loaded: 3, newEvents: 12, unmapped: 3 });
    expect(fixed.warnings).toEqual([]);
    expect(await waiting(place)).toEqual([]);
    expect(await statusText(place)).not.toContain('unmapped events');
    expect(await stored(place)).toEqual([
      { project_id: 'proj_b', subdomain: 'beta', n: 9, ids: 9 },
      { project_id: 'proj_demo', subdomain: 'acme', n: 12, ids: 12 },
    ]);
    expect((await run(place, src, projects, { acme: 'proj_demo', beta: 'proj_b' })).s).toMatchObject({
      loaded: 0,
      getRequests: 0,
    });
  });

  it('does not read objects back and forth when each project syncs alone with its own mapping', async () => {
    const { place } = await target();
    const src = folder();
    expect((await run(place, src, ['pa'], { acme: 'pa' })).s).toMatchObject({ loaded: 3, newEvents: 12 });
    expect(await waiting(place)).toEqual([{ subdomain: 'beta', objects: 3, events: 9 }]);
    expect((await run(place, src, ['pb'], { beta: 'pb' })).s).toMatchObject({ loaded: 3, newEvents: 9 });
    expect(await waiting(place)).toEqual([]);
    expect((await run(place, src, ['pa'], { acme: 'pa' })).s).toMatchObject({ loaded: 0 });
    expect((await run(place, src, ['pb'], { beta: 'pb' })).s).toMatchObject({ loaded: 0 });
  });
});
