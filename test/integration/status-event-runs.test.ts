import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateEventStream, writeEventStream } from '../../src/emulator/events/index.js';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { runSync } from '../../src/pipeline/sync.js';
import { formatStatus } from '../../src/pipeline/status-format.js';
import { gatherStatus, sessionStatusSource } from '../../src/pipeline/status.js';
import { parseRateLimit } from '../../src/util/duration.js';
import { tempDbPath } from '../helpers/db.js';
import { eventOnlySyncOptions } from '../helpers/event-sync-options.js';
import { countingPlace } from '../helpers/counting-place.js';
import { readRows } from '../helpers/db.js';
import { placeOf } from '../../src/load/places.js';
import { parseDbTarget } from '../../src/load/target.js';
import type { OpenPurpose } from '../../src/load/destination.js';

/* An event-only run (sync --streams events) sends no request and loads no window: status shows its objects and events. */

const PROJECT = 'proj_status_events';
const stream = generateEventStream({ seed: 7, days: 2, endDay: '2026-11-20', objectsPerDay: 2 });
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mlx-status-events-'));
  await writeEventStream(folder, stream);
});

describe('status of an event-only run', () => {
  it('shows the objects it loaded and the events they added, in the text and --json', async () => {
    const db = tempDbPath();
    const summary = await runSync(eventOnlySyncOptions(PROJECT, { dbPath: db, events: { source: folder } }));
    expect(summary.events?.loaded).toBeGreaterThan(0);
    const file = await openDatabase(db, { readOnly: true });
    try {
      const report = await gatherStatus(
        sessionStatusSource(duckSession(file.connection), db, () => Promise.resolve(false)),
        {
          rateLimit: parseRateLimit('100/1h'),
        },
      );
      const run = report.projects.find((p) => p.projectId === PROJECT)?.runs[0];
      expect(run?.events).toEqual({ objects: summary.events?.loaded, newEvents: summary.events?.newEvents });
      const text = formatStatus(report);
      expect(text).toMatch(
        new RegExp(
          `${summary.events?.loaded} obj, ${(summary.events?.newEvents ?? 0).toLocaleString('en-US')} new`,
        ),
      );
    } finally {
      file.close();
    }
  });

  it('opens its file twice, to plan and to load, and records its end through the load’s open', async () => {
    const db = tempDbPath();
    const opens: OpenPurpose[] = [];
    const place = countingPlace(placeOf(parseDbTarget(db)), opens);
    const summary = await runSync(eventOnlySyncOptions(PROJECT, { place, events: { source: folder } }));
    expect(summary.status).toBe('succeeded');
    expect(opens).toEqual(['write', 'writer']);
    expect(
      await readRows(db, 'SELECT status, rows_loaded, finished_at IS NOT NULL AS done, error FROM sync_runs'),
    ).toEqual([
      { status: 'succeeded', rows_loaded: String(summary.events?.newEvents), done: true, error: null },
    ]);
  });
});
