import type { AgentJob } from '../api/schemas.js';
import { EtlError, InternalError } from '../errors.js';
import { openDatabase, type OpenOptions } from '../load/duckdb/database.js';
import { duckSession } from '../load/duckdb/session.js';
import { isoTime, type SqlScalar, type SqlSession } from '../load/session.js';
import type { Logger } from '../util/log.js';
import { readApiTime } from '../util/time.js';

/** One answer from the service about one job, as it goes into agent_jobs. */
export interface JobSighting {
  readonly projectId: string;
  readonly jobId: string;
  readonly job: AgentJob;
  /** Only when this process sent it (create or message); otherwise the stored prompt is kept. */
  readonly prompt?: string | undefined;
  /** Epoch ms of the answer. */
  readonly seenAt: number;
}

export interface AgentJobRow {
  project_id: string;
  job_id: string;
  status: string | null;
  prompt: string | null;
  repository: string | null;
  ref: string | null;
  model: string | null;
  pr_link: string | null;
  created_at: string | null;
  archived_at: string | null;
  last_seen_at: string;
  /** When this tool first saw the job completed. */
  completed_at: string | null;
}

interface Column {
  readonly name: string;
  /** The SQL type its parameter is cast to (both dialects read the ISO text of a time). */
  readonly type: 'VARCHAR' | 'TIMESTAMPTZ';
  readonly value: SqlScalar;
}

function timestamp(iso: string | null): string | null | undefined {
  if (iso === null) return null;
  // An unreadable date, or one outside the range every API time must lie in (readApiTime), is
  // treated as absent: it must not erase a good value stored earlier.
  const t = readApiTime(iso);
  return 'iso' in t && t.iso !== null ? isoTime(Date.parse(t.iso)) : undefined;
}

/**
 * The columns this answer says something about. The service guarantees no field, so a field
 * that is absent keeps what the row already holds, while an explicit null (prLink of a job that
 * is active again after a follow-up message) does overwrite it.
 */
function columnsOf(s: JobSighting): Column[] {
  const { job } = s;
  const cols: Column[] = [];
  const text = (name: string, v: string | null | undefined): void => {
    if (v !== undefined) cols.push({ name, type: 'VARCHAR', value: v });
  };
  const time = (name: string, v: string | null | undefined): void => {
    const value = v === undefined ? undefined : timestamp(v);
    if (value !== undefined) cols.push({ name, type: 'TIMESTAMPTZ', value });
  };
  text('status', job.status);
  text('prompt', s.prompt);
  text('repository', job.source?.repository);
  text('ref', job.source?.ref);
  text('model', job.model);
  text('pr_link', job.prLink);
  time('created_at', job.createdAt);
  time('archived_at', job.archivedAt);
  cols.push({ name: 'last_seen_at', type: 'TIMESTAMPTZ', value: isoTime(s.seenAt) });
  if (job.status === 'completed') {
    cols.push({ name: 'completed_at', type: 'TIMESTAMPTZ', value: isoTime(s.seenAt) });
  }
  return cols;
}

/** The first sighting of a completed job is when it completed, as far as this tool can know. */
function assignment(c: Column): string {
  return c.name === 'completed_at'
    ? 'completed_at = coalesce(agent_jobs.completed_at, excluded.completed_at)'
    : `${c.name} = excluded.${c.name}`;
}

/** Inserts the job or updates the columns this sighting knows about (one statement, auto-committed). */
export async function upsertAgentJob(session: SqlSession, s: JobSighting): Promise<void> {
  const cols = columnsOf(s);
  const names = ['project_id', 'job_id', ...cols.map((c) => c.name)];
  const types = ['VARCHAR', 'VARCHAR', ...cols.map((c) => c.type)];
  const placeholders = types.map((t, i) => `$${i + 1}::${t}`);
  const sql =
    `INSERT INTO agent_jobs (${names.join(', ')}) VALUES (${placeholders.join(', ')}) ` +
    `ON CONFLICT (project_id, job_id) DO UPDATE SET ${cols.map(assignment).join(', ')}`;
  await session.run(sql, [s.projectId, s.jobId, ...cols.map((c) => c.value)]);
}

export async function readAgentJob(
  session: SqlSession,
  projectId: string,
  jobId: string,
): Promise<AgentJobRow | undefined> {
  const rows = await session.rows(
    'SELECT * FROM agent_jobs WHERE project_id = $1::VARCHAR AND job_id = $2::VARCHAR',
    [projectId, jobId],
  );
  return rows[0] as AgentJobRow | undefined;
}

/** A destination opened for one write: its session, and how to let it go at once. */
export interface OpenedDestination {
  readonly session: SqlSession;
  close(): void | Promise<void>;
}

export interface RecorderOptions {
  /** Where the rows go, as said in a warning (a path, or a URL without its password). */
  readonly dbPath: string;
  readonly logger: Logger;
  /** DuckDB: how the file is opened for each write (when `connect` is not given). */
  readonly open?: OpenOptions;
  /**
   * Opens the destination for one write; default: the DuckDB file at `dbPath`. A PostgreSQL
   * destination hands a connection here (and may keep one open: `close` is then a no-op).
   */
  readonly connect?: () => Promise<OpenedDestination>;
}

/** The DuckDB file opened for one write and closed after it (see JobRecorder). */
export async function openDuckDbFile(path: string, opts: OpenOptions = {}): Promise<OpenedDestination> {
  const db = await openDatabase(path, opts);
  return { session: duckSession(db.connection), close: () => db.close() };
}

/**
 * Records sightings in agent_jobs, opening the database for each write and closing it at once:
 * a wait can last half an hour and the file must stay free for sync, analysts and BI tools.
 *
 * A failed write does not stop the command (the job exists on the service either way, and its
 * id and PR link matter more than the row): it is logged, and `failure` holds it until a later
 * write succeeds, since each write carries the job's whole current state. The command turns a
 * failure still present at the end into its exit code.
 */
export class JobRecorder {
  private lastFailure: EtlError | undefined;

  constructor(private readonly opts: RecorderOptions) {}

  get failure(): EtlError | undefined {
    return this.lastFailure;
  }

  record(s: JobSighting): Promise<void> {
    return this.write(s.jobId, (session) => upsertAgentJob(session, s));
  }

  /** Records which content gaps a job was started for (`agent fix`). */
  linkGaps(links: readonly JobGapLink[]): Promise<void> {
    const jobId = links[0]?.jobId ?? '';
    return this.write(jobId, (session) => insertJobGaps(session, links));
  }

  private async write(jobId: string, fn: (session: SqlSession) => Promise<void>): Promise<void> {
    let opened: OpenedDestination | undefined;
    try {
      const { connect, dbPath, open } = this.opts;
      opened = await (connect ?? (() => openDuckDbFile(dbPath, open ?? {})))();
      await fn(opened.session);
      this.lastFailure = undefined;
    } catch (e) {
      const err =
        e instanceof EtlError ? e : new InternalError((e as Error).message ?? String(e), {}, { cause: e });
      this.lastFailure = err;
      this.opts.logger.warn(`could not record job ${jobId} in ${this.opts.dbPath}: ${err.message}`);
    } finally {
      await opened?.close();
    }
  }
}

/** A row of agent_job_gaps: a job started to fix a content gap. */
export interface JobGapLink {
  readonly projectId: string;
  readonly jobId: string;
  readonly gapId: string;
  readonly kind: string;
  readonly subjectKey: string;
  readonly subject: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** Links in one transaction; a link recorded before stays as it was (its first creation time). */
export async function insertJobGaps(session: SqlSession, links: readonly JobGapLink[]): Promise<void> {
  await session.transaction(async () => {
    for (const l of links) {
      await session.run(
        `INSERT INTO agent_job_gaps (project_id, job_id, gap_id, kind, subject_key, subject, created_at)
         VALUES ($1::VARCHAR, $2::VARCHAR, $3::VARCHAR, $4::VARCHAR, $5::VARCHAR, $6::VARCHAR, $7::TIMESTAMPTZ)
         ON CONFLICT (project_id, job_id, gap_id) DO NOTHING`,
        [l.projectId, l.jobId, l.gapId, l.kind, l.subjectKey, l.subject, isoTime(l.createdAt)],
      );
    }
  });
}
