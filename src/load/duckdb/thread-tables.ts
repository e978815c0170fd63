import { listValue } from '@duckdb/node-api';
import type { TableSpec, ThreadData } from '../table-spec.js';
import { toTimestampValue } from './sql.js';
import type { DuckTableLoader } from './loader.js';

const KEYS = `(SELECT unnest($1::VARCHAR[]) AS project_id, unnest($2::VARCHAR[]) AS thread_id) AS k`;

/** DuckDB's loader of a `threads` spec: each thread replaced as a set, its messages and its record of what was fetched when. */
export function threadsLoader(spec: Extract<TableSpec, { kind: 'threads' }>): DuckTableLoader {
  const MESSAGES = spec.messages;
  return {
    async replace(conn, batch, { onStep }) {
      const keys = [
        listValue(batch.map((b) => b.w.projectId)),
        listValue(batch.map((b) => b.w.item?.id ?? '')),
      ];
      for (const t of ['assistant_messages', 'assistant_threads'])
        await conn.run(
          `DELETE FROM ${t} USING ${KEYS} WHERE ${t}.project_id = k.project_id AND ${t}.thread_id = k.thread_id`,
          keys,
        );
      await onStep('delete');
      const shape = `[{${MESSAGES.columns.map(([n, type]) => `"${n}":"${type}"`).join(',')}}]`;
      // One statement per chunk of about 1 MB: a thread of 100,000 messages in one statement was
      // more JSON than the writer's memory limit lets DuckDB parse at once.
      for (const b of batch) {
        for (const c of (b.data as ThreadData).chunks) {
          if (c.rows === 0) continue;
          await conn.run(
            `INSERT INTO assistant_messages (project_id, thread_id, message_id, seq, role, content, created_at)
SELECT $1::VARCHAR, r.thread_id, r.message_id, r.seq, r.role, r.content, r.created_at
FROM (SELECT unnest(from_json($2::VARCHAR, '${shape}')) AS r)`,
            [b.w.projectId, c.body],
          );
        }
      }
      const data = batch.map((b) => b.data as ThreadData);
      await conn.run(
        `INSERT INTO assistant_threads (project_id, thread_id, status, created_at, turns, messages, fetched_at, run_id)
SELECT * FROM (SELECT unnest($1::VARCHAR[]), unnest($2::VARCHAR[]), unnest($3::VARCHAR[]),
  unnest($4::VARCHAR[])::TIMESTAMPTZ, unnest($5::INTEGER[]), unnest($6::INTEGER[]),
  unnest($7::TIMESTAMPTZ[]), unnest($8::VARCHAR[]))`,
        [
          ...keys,
          listValue(data.map((d) => d.status)),
          listValue(data.map((d) => d.createdAt)),
          listValue(data.map((d) => d.turns)),
          listValue(data.map((d) => d.messages)),
          listValue(batch.map((b) => toTimestampValue(b.w.fetchedAt))),
          listValue(batch.map((b) => b.w.runId)),
        ],
      );
      await onStep('pages');
    },
  };
}
