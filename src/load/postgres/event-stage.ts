import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { InternalError } from '../../errors.js';
import type { EventRow } from '../event-rows.js';
import { EVENT_STAGE, insertFromStage, STAGE_COLUMNS, type EventStage } from '../event-stage.js';
import { textField } from './copy-text.js';

/** Typed where PostgreSQL's COPY can parse the text itself: the merge's casts are then no-ops. */
const TYPED: Partial<Record<(typeof STAGE_COLUMNS)[number], string>> = {
  created_at: 'timestamptz',
  day: 'date',
  properties: 'jsonb',
};

/** Rows per COPY text piece: the socket takes one piece before the next is made. */
const PIECE_ROWS = 2_000;

function* lines(rows: readonly EventRow[], firstOrd: number): Generator<string> {
  for (let start = 0; start < rows.length; start += PIECE_ROWS) {
    let out = '';
    const end = Math.min(rows.length, start + PIECE_ROWS);
    for (let i = start; i < end; i++) {
      const r = rows[i] as EventRow;
      out += String(firstOrd + i);
      for (const c of STAGE_COLUMNS) {
        const v = r[c];
        out += v === null ? '\t\\N' : `\t${textField(v, c)}`;
      }
      out += '\n';
    }
    yield out;
  }
}

/** PostgreSQL's stage: a temporary table dropped at commit, filled by COPY FROM STDIN. */
export function pgEventStage(client: pg.ClientBase): EventStage {
  return {
    async create() {
      const cols = STAGE_COLUMNS.map((c) => `${c} ${TYPED[c] ?? 'text'}`).join(', ');
      await client.query(
        `CREATE TEMP TABLE IF NOT EXISTS ${EVENT_STAGE} (ord bigint, ${cols}) ON COMMIT DROP`,
      );
      await client.query(`TRUNCATE ${EVENT_STAGE}`);
    },
    async append(rows: readonly EventRow[], firstOrd: number) {
      if (rows.length === 0) return;
      const sink = client.query(
        copyFrom(`COPY ${EVENT_STAGE} (ord, ${STAGE_COLUMNS.join(', ')}) FROM STDIN`),
      );
      await pipeline(Readable.from(lines(rows, firstOrd), { highWaterMark: 1 }), sink);
      if (sink.rowCount !== rows.length)
        throw new InternalError(
          `event rows did not round-trip: sent ${rows.length}, PostgreSQL read ${sink.rowCount}`,
          { sent: rows.length, read: sink.rowCount },
        );
    },
    /**
     * Per project, `ON CONFLICT DO NOTHING` on the table's unique key: each key looked up in its
     * index. Deleting the stored keys from the stage first, as DuckDB does, scanned the whole of
     * analytics_events once per object (BENCHMARKS.md, benchmark 12).
     */
    async insertNew(runId, projects, loadedAt) {
      const added = new Map<string, number>();
      for (const project of projects) {
        const r = await client.query(
          insertFromStage(' WHERE project_id = $3', ' ON CONFLICT (project_id, event_id) DO NOTHING'),
          [runId, loadedAt, project],
        );
        if ((r.rowCount ?? 0) > 0) added.set(project, r.rowCount ?? 0);
      }
      return added;
    },
    async drop() {
      await client.query(`DROP TABLE IF EXISTS ${EVENT_STAGE}`);
    },
    ended() {
      return Promise.resolve();
    },
  };
}
