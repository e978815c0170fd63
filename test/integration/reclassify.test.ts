import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEventStream, writeEventStream } from '../../src/emulator/events/index.js';
import { reclassifySql } from '../../src/pipeline/reclassify.js';
import { classify, loadTrafficClasses, type TrafficLists } from '../../src/sources/events/traffic-class.js';
import { runCli } from '../helpers/cli.js';
import { eventTargets, reading } from '../helpers/event-checks.js';

/*
 * `reclassify` gives every loaded event the class the lists say now, on both destinations, and
 * folds each user agent once per row: the fold per list entry made PostgreSQL spend ~0.7 ms a row
 * (2 million events: ~25 minutes; BENCHMARKS.md, benchmark 12).
 */

const PROJECT = 'proj_reclass';
const stream = generateEventStream({ seed: 5, days: 3, endDay: '2026-11-20', scale: 1, objectsPerDay: 2 });
const env = { MINTLIFY_PROJECT_ID: PROJECT };
const packaged = loadTrafficClasses();
// Every AI-answers agent becomes training, and Chrome (most humans of the stream) becomes other_bot.
const moved: TrafficLists = {
  source: 'test',
  classes: [
    ...packaged.classes.map((c) =>
      c.class === 'ai_answers'
        ? { ...c, class: 'training' as const }
        : c.class === 'training'
          ? { ...c, class: 'ai_answers' as const }
          : c,
    ),
  ].map((c) => (c.class === 'other_bot' ? { ...c, agents: [...c.agents, 'Chrome'] } : c)),
};
let folder: string;
let listsFile: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mlx-reclassify-'));
  await writeEventStream(folder, stream);
  listsFile = join(folder, 'classes.json');
  writeFileSync(listsFile, JSON.stringify(moved));
});
const { targets, stop } = eventTargets();
afterAll(async () => await stop());

describe('the reclassify statement', () => {
  it('folds each user agent once per row, not once per list entry', () => {
    const sql = reclassifySql(packaged);
    expect(packaged.classes.flatMap((c) => c.agents).length).toBeGreaterThan(10);
    expect(sql.match(/translate\(/g)).toHaveLength(1);
  });
});

describe.each(targets)('reclassify on %s', (_name, target) => {
  it("gives every event classify()'s class under the new lists, and counts the moved ones", async () => {
    const t = await target();
    const sync = await runCli(['sync', '--streams', 'events', '--events', folder, ...t.args], env);
    expect(sync.code, sync.stderr).toBe(0);
    const before = await reading(t.place, (s) =>
      s.rows('SELECT event_id, user_agent, traffic_class FROM analytics_events'),
    );
    const moves = before.filter(
      (r) => classify(r['user_agent'] as string | null, moved) !== r['traffic_class'],
    );
    expect(moves.length).toBeGreaterThan(0);
    const r = await runCli(['reclassify', ...t.args, '--traffic-classes', listsFile, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { changed: number }).changed).toBe(moves.length);
    const after = await reading(t.place, (s) =>
      s.rows('SELECT user_agent, traffic_class FROM analytics_events'),
    );
    expect(after).toHaveLength(before.length);
    for (const row of after)
      expect(row['traffic_class']).toBe(classify(row['user_agent'] as string | null, moved));
  });
});
