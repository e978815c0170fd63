import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEventStream, holdBack, writeEventStream } from '../../src/emulator/events/index.js';
import { runCli } from '../helpers/cli.js';
import {
  expectEventsExact,
  expectEventViewsExact,
  expectLedgerExact,
  eventTargets,
  type SyncTarget,
  reading,
  type EventsJson,
} from '../helpers/event-checks.js';

/*
 * sync --events from a folder laid out like the bucket, as a real process, into both destinations:
 * every distinct event once with every field as sent, rejected lines counted, visitors of any
 * period and the traffic classes exact against the emulator's truth; a re-run reads no object; two
 * new objects and one delivered late are picked up and nothing else is read.
 */

const PROJECT = 'proj_events';
const stream = generateEventStream({ seed: 29, days: 14, endDay: '2026-11-20' });
const { first, held } = holdBack(stream, 2);
const env = { MINTLIFY_PROJECT_ID: PROJECT };

const { targets, stop } = eventTargets();
afterAll(async () => {
  await stop();
});

async function sync(args: string[], folder: string): Promise<EventsJson> {
  const r = await runCli(['sync', '--streams', 'events', '--events', folder, ...args, '--json'], env);
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  const s = JSON.parse(r.stdout) as { requests: number; events: EventsJson };
  expect(s.requests).toBe(0);
  return s.events;
}

interface EventsPlanJson {
  listed: number;
  toRead: number;
  bytes: number;
  listRequests: number;
}

async function dryRun(args: string[], folder: string): Promise<EventsPlanJson> {
  const r = await runCli(
    ['sync', '--streams', 'events', '--events', folder, ...args, '--dry-run', '--json'],
    env,
  );
  expect(r.code).toBe(0);
  const s = JSON.parse(r.stdout) as { status: string; requests: number; eventsPlan: EventsPlanJson };
  expect(s).toMatchObject({ status: 'dry-run', requests: 0 });
  return s.eventsPlan;
}

describe.each(targets)('sync --events from a folder into %s', (_name, target) => {
  let t: SyncTarget;
  let folder: string;
  beforeAll(async () => {
    t = await target();
    folder = mkdtempSync(join(tmpdir(), 'mlx-events-'));
    await writeEventStream(folder, first);
  });

  it('says with --dry-run which objects a run would read, and reads none of them', async () => {
    const plan = await dryRun(t.args, folder);
    const bytes = first.objects.reduce((n, o) => n + o.body.length, 0);
    expect(plan).toMatchObject({
      listed: first.objects.length,
      toRead: first.objects.length,
      bytes,
      listRequests: 1,
    });
  });

  it('loads every distinct event once, counts the rejected lines, and needs no API key', async () => {
    const e = await sync(t.args, folder);
    const rejected = Object.values(first.truth.rejectedByObject).reduce((a, b) => a + b, 0);
    expect(rejected).toBeGreaterThan(0);
    expect(e).toMatchObject({
      loaded: first.objects.length,
      failed: 0,
      rejected,
      newEvents: first.truth.events.length,
    });
    await reading(t.place, async (s) => {
      await expectEventsExact(s, first, PROJECT);
      await expectLedgerExact(s, first, PROJECT);
    });
  });

  it('reads no object on a re-run with nothing new', async () => {
    const e = await sync(t.args, folder);
    expect(e).toMatchObject({ loaded: 0, getRequests: 0, newEvents: 0 });
  });

  it('picks up two new objects and one delivered late, reads nothing else, and the views are exact', async () => {
    expect(held).toHaveLength(3);
    await writeEventStream(folder, held);
    expect(await dryRun(t.args, folder)).toMatchObject({ toRead: 3 });
    const e = await sync(t.args, folder);
    expect(e).toMatchObject({ loaded: 3, getRequests: 3, failed: 0 });
    await reading(t.place, async (s) => {
      await expectEventsExact(s, stream, PROJECT);
      await expectLedgerExact(s, stream, PROJECT);
      await expectEventViewsExact(s, stream, PROJECT);
    });
  });

  it('reports a project with only the event stream: its section, also by --project, and names it when another is asked', async () => {
    const text = await runCli(['report', ...t.args], { NO_COLOR: '1', COLUMNS: '120' });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^Mintlify event stream · project ${PROJECT}\\n`));
    expect(text.stdout).toContain('Event stream: unique visitors');
    const json = await runCli(['report', ...t.args, '--project', PROJECT, '--json']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout) as { projects: unknown[]; eventOnly: { projectId: string }[] };
    expect(data.projects).toEqual([]);
    expect(data.eventOnly.map((e) => e.projectId)).toEqual([PROJECT]);
    const other = await runCli(['report', ...t.args, '--project', 'nope']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`it holds: ${PROJECT}`);
  });
});

describe.each(targets)('two deployments streaming into one bucket, into %s', (_name, target) => {
  it('loads each subdomain into its project by --events-project, counts the others unmapped, and keeps the ledger per project', async () => {
    const two = generateEventStream({ seed: 5, days: 5, endDay: '2026-11-20', subdomains: ['acme', 'beta'] });
    // The last objects arrive after the first run: the second run loads them for both projects at once.
    const parts = holdBack(two, 2);
    const folder = mkdtempSync(join(tmpdir(), 'mlx-events-two-'));
    await writeEventStream(folder, parts.first);
    const t = await target();
    const run = (map: string, projects: string): Promise<{ code: number | null; stdout: string }> =>
      runCli(
        ['sync', '--streams', 'events', '--events', folder, '--events-project', map, ...t.args, '--json'],
        {
          MINTLIFY_PROJECT_ID: projects,
        },
      );
    // First only acme's project: beta's events are not stored, and counted.
    const first = await run('acme=pa', 'pa');
    expect(first.code).toBe(0);
    const e = (JSON.parse(first.stdout) as { events: EventsJson }).events;
    expect(e.unmapped).toBeGreaterThan(0);
    expect(e.newEvents).toBe(parts.first.truth.events.filter((x) => x.subdomain === 'acme').length);
    // Then beta's project as well: the objects are read again for it alone, the new ones for both.
    await writeEventStream(folder, parts.held);
    const second = await run('acme=pa,beta=pb', 'pa,pb');
    expect(second.code).toBe(0);
    expect((JSON.parse(second.stdout) as { events: EventsJson }).events.loaded).toBe(two.objects.length);
    await reading(t.place, async (s) => {
      await expectEventsExact(s, two, 'pa', '', 'acme');
      await expectEventsExact(s, two, 'pb', '', 'beta');
      // Each object's new rows counted for the project they went to (an INSERT that lost its
      // project filter would give them all to the first project).
      for (const [project, sub] of [
        ['pa', 'acme'],
        ['pb', 'beta'],
      ] as const) {
        const rows = await s.rows(
          'SELECT object_key, new_events FROM event_objects WHERE project_id = $1 ORDER BY object_key',
          [project],
        );
        const want = Object.fromEntries(two.truth.keys.map((k) => [k, 0]));
        for (const ev of two.truth.events) if (ev.subdomain === sub) want[ev.object_key]! += 1;
        expect(
          Object.fromEntries(rows.map((r) => [r['object_key'], Number(r['new_events'])])),
          project,
        ).toEqual(want);
      }
    });
  });
});

describe.each(targets)('sync --events --dry-run against %s made before the event stream', (_name, target) => {
  it('counts every object to read when the destination has no event ledger yet (only a sync migrates)', async () => {
    const t = await target();
    const folder = mkdtempSync(join(tmpdir(), 'mlx-events-old-'));
    await writeEventStream(folder, first);
    await sync(t.args, folder);
    const dest = await t.place.open('writer');
    try {
      await dest.session.run('DROP TABLE event_objects');
    } finally {
      await dest.close();
    }
    expect(await dryRun(t.args, folder)).toMatchObject({
      listed: first.objects.length,
      toRead: first.objects.length,
    });
  });
});
