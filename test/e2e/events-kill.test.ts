import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEventStream, writeEventStream } from '../../src/emulator/events/index.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { eventTargets, expectEventsExact, expectLedgerExact, reading } from '../helpers/event-checks.js';

/*
 * SIGKILL at any instant of an event load leaves every object fully loaded or not at all: after
 * eight kills at different moments of a load and one run to the end, the tables are exact.
 */

const PROJECT = 'proj_kill';
// Big enough that a load takes a few seconds, so the kills land inside it.
const stream = generateEventStream({ seed: 31, days: 10, endDay: '2026-11-20', scale: 3, objectsPerDay: 4 });
const env = { MINTLIFY_PROJECT_ID: PROJECT };
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mlx-events-kill-'));
  await writeEventStream(folder, stream);
});
afterAll(async () => {
  await stop();
});

const { targets, stop } = eventTargets();

/**
 * Starts a load and kills it `delayMs` after its log says it loaded `objects` objects: inside the
 * next object's transaction or between two, wherever that instant falls.
 */
async function killDuring(args: string[], objects: number, delayMs: number): Promise<void> {
  const run = runCliProcess(['sync', '--streams', 'events', '--events', folder, ...args, '--verbose'], env);
  let seen = 0;
  run.child.stderr?.on('data', (d: Buffer) => {
    seen += d
      .toString()
      .split('\n')
      .filter((l) => l.includes('events: loaded ')).length;
    if (seen >= objects) setTimeout(() => run.child.kill('SIGKILL'), delayMs);
  });
  await run;
}

describe.each(targets)('SIGKILL during an event load into %s', (_name, target) => {
  it('leaves the tables exact after eight kills and one run to the end', { timeout: 180_000 }, async () => {
    const t = await target();
    for (let i = 0; i < 8; i++) await killDuring(t.args, 1, i * 9);
    // The kills landed inside the load: some objects made it, not all.
    const partway = await reading(t.place, (s) => s.rows('SELECT count(*) AS n FROM event_objects'));
    expect(partway[0]?.['n']).toBeGreaterThan(0);
    expect(partway[0]?.['n']).toBeLessThan(stream.objects.length);
    const r = await runCli(['sync', '--streams', 'events', '--events', folder, ...t.args, '--json'], env);
    expect(r.code).toBe(0);
    await reading(t.place, async (s) => {
      await expectEventsExact(s, stream, PROJECT);
      await expectLedgerExact(s, stream, PROJECT);
    });
  });
});
