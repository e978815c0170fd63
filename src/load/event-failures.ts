import { isoTime, type SqlSession } from './session.js';
import { hasRelations } from './relations.js';
import { safeLine } from '../util/safe-text.js';

/**
 * The event stream's failure ledger (sql/schema/011_event_object_failures.sql): the objects whose
 * read failed, per project, with the real cause, so that a run goes on past them and later runs
 * read them again by key (wherever the listing starts); and the objects a user skipped on purpose.
 */

export type FailureStatus = 'failing' | 'skipped';

export interface ObjectFailure {
  readonly project: string;
  readonly source: string;
  readonly key: string;
  readonly etag: string | null;
  readonly size: number;
  readonly status: FailureStatus;
  readonly code: string;
  readonly cause: string;
  readonly attempts: number;
  readonly firstFailedAt: string;
  readonly lastFailedAt: string;
  readonly runId: string;
}

/** Per object key, per project, its row. */
export type ObjectFailures = Map<string, Map<string, ObjectFailure>>;

const COLUMNS = `project_id, source, object_key, etag, size, status, code, cause, attempts, first_failed_at,
  last_failed_at, run_id`;

function toFailure(r: Record<string, unknown>): ObjectFailure {
  return {
    project: String(r['project_id']),
    source: String(r['source']),
    key: String(r['object_key']),
    etag: (r['etag'] as string | null) ?? null,
    size: Number(r['size']),
    status: r['status'] === 'skipped' ? 'skipped' : 'failing',
    code: String(r['code']),
    cause: String(r['cause']),
    attempts: Number(r['attempts']),
    firstFailedAt: String(r['first_failed_at']),
    lastFailedAt: String(r['last_failed_at']),
    runId: String(r['run_id']),
  };
}

/** The rows of `source` for these projects. */
export async function readObjectFailures(
  session: SqlSession,
  source: string,
  projects: readonly string[],
): Promise<ObjectFailures> {
  const rows = await session.rows(
    `SELECT ${COLUMNS} FROM event_object_failures
WHERE source = $1 AND project_id IN (SELECT unnest($2::VARCHAR[]))`,
    [source, [...projects]],
  );
  const out: ObjectFailures = new Map();
  for (const r of rows) {
    const f = toFailure(r);
    const m = out.get(f.key) ?? new Map<string, ObjectFailure>();
    m.set(f.project, f);
    out.set(f.key, m);
  }
  return out;
}

/** One project's rows, any source, oldest key first (status); none on a destination without the table. */
export async function projectObjectFailures(session: SqlSession, project: string): Promise<ObjectFailure[]> {
  if (!(await hasRelations(session, ['event_object_failures']))) return [];
  const rows = await session.rows(
    `SELECT ${COLUMNS} FROM event_object_failures WHERE project_id = $1::VARCHAR
ORDER BY ${session.sql.codePoint('object_key')}`,
    [project],
  );
  return rows.map(toFailure);
}

export interface FailureWrite {
  readonly source: string;
  readonly key: string;
  readonly etag: string | null;
  readonly size: number;
  readonly projects: readonly string[];
  readonly runId: string;
  readonly at: number;
}

/**
 * Records a failed read for each project: attempts go up by one while the ETag stays the same, a
 * skip in between included (a new ETag is a new object: 1 again). `cause` is stored as one safe line.
 */
export async function recordObjectFailure(
  session: SqlSession,
  w: FailureWrite,
  failure: { readonly code: string; readonly cause: string },
  known: ReadonlyMap<string, ObjectFailure> | undefined,
): Promise<number> {
  let attempts = 1;
  await session.transaction(async () => {
    for (const project of w.projects) {
      const was = known?.get(project);
      const same = was !== undefined && was.etag === w.etag;
      const n = same ? was.attempts + 1 : 1;
      attempts = Math.max(attempts, n);
      await put(session, w, project, {
        status: 'failing',
        code: failure.code,
        cause: failure.cause,
        attempts: n,
        first: same ? was.firstFailedAt : isoTime(w.at),
      });
    }
  });
  return attempts;
}

/** Marks the object skipped on purpose for each project, keeping a known cause. */
export async function recordObjectSkipped(
  session: SqlSession,
  w: FailureWrite,
  known: ReadonlyMap<string, ObjectFailure> | undefined,
): Promise<void> {
  await session.transaction(async () => {
    for (const project of w.projects) {
      const was = known?.get(project);
      await put(session, w, project, {
        status: 'skipped',
        code: was?.code ?? 'E_EVENT_OBJECT_SKIPPED',
        cause: was?.cause ?? 'skipped on purpose (--events-skip)',
        attempts: was?.attempts ?? 0,
        first: was?.firstFailedAt ?? isoTime(w.at),
      });
    }
  });
}

/** Forgets the object's rows for these projects (it loaded, it is gone, or a user asked to read it). */
export async function clearObjectFailures(
  session: SqlSession,
  source: string,
  key: string,
  projects: readonly string[],
): Promise<void> {
  await session.run(
    `DELETE FROM event_object_failures
WHERE source = $1 AND object_key = $2 AND project_id IN (SELECT unnest($3::VARCHAR[]))`,
    [source, key, [...projects]],
  );
}

async function put(
  session: SqlSession,
  w: FailureWrite,
  project: string,
  v: { status: FailureStatus; code: string; cause: string; attempts: number; first: string },
): Promise<void> {
  await session.run(
    'DELETE FROM event_object_failures WHERE project_id = $1 AND source = $2 AND object_key = $3',
    [project, w.source, w.key],
  );
  await session.run(
    `INSERT INTO event_object_failures (project_id, source, object_key, etag, size, status, code, cause,
  attempts, first_failed_at, last_failed_at, run_id)
VALUES ($1, $2, $3, $4, $5::BIGINT, $6, $7, $8, $9::INTEGER, $10::TIMESTAMPTZ, $11::TIMESTAMPTZ, $12)`,
    [
      project,
      w.source,
      w.key,
      w.etag,
      w.size,
      v.status,
      v.code,
      safeLine(v.cause),
      v.attempts,
      v.first,
      isoTime(w.at),
      w.runId,
    ],
  );
}
