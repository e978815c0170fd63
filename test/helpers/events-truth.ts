import type { Dataset } from '../../src/emulator/index.js';
import { readRows } from './db.js';
import { byKey } from './streams-truth.js';

/**
 * The event streams' tables compared with the emulator's ground truth: rows in the table's
 * columns (times as epoch ms, so the text form cannot differ), sorted by key.
 */
export function feedbackTruth(ds: Dataset, project: string, from: string, to: string) {
  const byId = new Map<string, Record<string, unknown>>();
  for (const f of ds.feedbackEvents(from, to)) {
    const g = f as unknown as Record<string, unknown>;
    byId.set(f.id, {
      project_id: project,
      id: f.id,
      path: f.path,
      source: f.source,
      status: f.status,
      comment: f.comment,
      helpful: f.source === 'contextual' ? g['helpful'] : null,
      contact: f.source === 'contextual' ? g['contact'] : null,
      code: f.source === 'code_snippet' ? g['code'] : null,
      filename: f.source === 'code_snippet' ? g['filename'] : null,
      lang: f.source === 'code_snippet' ? g['lang'] : null,
      created_ms: f.createdAt === null ? null : Date.parse(f.createdAt),
    });
  }
  return [...byId.values()].sort(byKey('id'));
}

export async function feedbackRows(db: string) {
  return readRows<Record<string, unknown>>(
    db,
    `SELECT project_id, id, path, source, status, comment, helpful, contact, code, filename, lang,
            epoch_ms(created_at)::DOUBLE AS created_ms FROM feedback ORDER BY id`,
  );
}

export function turnsTruth(ds: Dataset, project: string, from: string, to: string) {
  return ds
    .assistantTurns(from, to)
    .map((t) => ({
      project_id: project,
      thread_id: t.id,
      ts_ms: Date.parse(t.timestamp),
      query: t.query,
      response: t.response,
      response_type: t.responseType ?? 'answer',
      resolution_status: t.resolutionStatus,
      query_category: t.queryCategory,
      page_url: t.pageUrl,
      sources: t.sources.map((s) => ({ title: s.title, url: s.url })),
    }))
    .sort(byKey('thread_id', 'ts_ms'));
}

export async function turnRows(db: string) {
  const rows = await readRows<Record<string, unknown>>(
    db,
    `SELECT project_id, thread_id, epoch_ms(ts)::DOUBLE AS ts_ms, query, response, response_type, resolution_status,
            query_category, page_url, to_json(sources)::VARCHAR AS sources FROM assistant_turns`,
  );
  return rows
    .map((r) => ({ ...r, sources: JSON.parse(String(r['sources'])) as unknown }))
    .sort(byKey('thread_id', 'ts_ms'));
}

export function messagesTruth(ds: Dataset, project: string, threadIds: readonly string[]) {
  return threadIds
    .flatMap((id) =>
      (ds.assistantThread(id)?.messages ?? []).map((m, seq) => ({
        project_id: project,
        thread_id: id,
        message_id: m.id,
        seq,
        role: m.role,
        content: m.content,
        created_ms: Date.parse(m.createdAt),
      })),
    )
    .sort(byKey('thread_id', 'message_id'));
}

export async function messageRows(db: string) {
  const rows = await readRows<Record<string, unknown>>(
    db,
    `SELECT project_id, thread_id, message_id, seq, role, content, epoch_ms(created_at)::DOUBLE AS created_ms
     FROM assistant_messages`,
  );
  return rows.sort(byKey('thread_id', 'message_id'));
}

/** Requests a complete range window costs: one per page of `limit` rows, one for an empty range. */
export function rangeRequests(rows: number, limit: number): number {
  return Math.max(1, Math.ceil(rows / limit));
}
