import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DatabaseInUseError } from '../../errors.js';
import type { Lock } from '../duckdb/file-lock.js';

/**
 * The PostgreSQL destination's sync lock: one session-level advisory lock per project of the run,
 * held on a connection of its own for the length of the run. Runs of different projects (other
 * organizations syncing into the same warehouse) take different locks and write at the same time;
 * a second run of the same project into the same schema is refused. The server drops a session's
 * advisory locks with its connection, so a run that dies (SIGKILL, a crash) leaves no lock behind
 * and nothing on any machine's disk is needed to tell.
 */
export interface ProjectLock extends Lock {
  /** The schema and projects locked: `schema mintlify, projects a, b` (there is no lock file). */
  readonly path: string;
  readonly schema: string;
  readonly projectIds: readonly string[];
  /** Unlocks every project and closes the lock's connection. Safe to call twice. */
  release(): Promise<void>;
}

export interface ProjectLockOptions {
  /** Opens the lock's own connection (search_path does not matter: the locks name no table). */
  readonly connect: () => Promise<pg.Client>;
  readonly schema: string;
  readonly projectIds: readonly string[];
  /** How messages name the database, without the password (DbTarget's `label`). */
  readonly label?: string;
  /**
   * The lock's connection broke while held (server restart, network): the locks are gone, and
   * another run may start on these projects. The run should stop loading.
   */
  readonly onLost?: (err: Error) => void;
  /**
   * How soon the server must notice that this run is gone (its machine died, its network went
   * away) and free its locks: the lock's session is ended by the server after saying nothing for
   * this long (idle_session_timeout), and the run speaks every quarter of it. Default: none.
   */
  readonly deadClientMs?: number;
}

const KEY_PREFIX = 'mintlify-etl sync lock v1';

/**
 * The advisory lock key of a project in a schema: the first 8 bytes of SHA-256 over both, as a
 * signed bigint. Computed here, not by the server's hashtext, so that every version of the server
 * and of this tool agrees on it.
 */
export function projectLockKey(schema: string, projectId: string): bigint {
  // JSON: no pair of names can spell the same text as another pair.
  const digest = createHash('sha256')
    .update(`${KEY_PREFIX} ${JSON.stringify([schema, projectId])}`)
    .digest();
  return digest.readBigInt64BE(0);
}

/** Who holds a lock, as far as this login may see (other users' sessions show only their pid). */
interface Holder {
  pid: number | null;
  application: string | null;
  client: string | null;
  since: string | null;
}

async function holderOf(client: pg.Client, key: bigint): Promise<Holder | undefined> {
  const result = await client.query<Holder>(
    `SELECT l.pid, a.application_name AS application, host(a.client_addr) AS client,
            a.backend_start::text AS since
     FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
       AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
     LIMIT 1`,
    lockParts(key),
  );
  return result.rows[0];
}

/**
 * The projects whose sync lock some session holds now (this one's included): what `status` needs
 * to tell a run that is going from one whose process died. Reads only.
 */
export async function heldProjects(
  client: pg.ClientBase,
  schema: string,
  projectIds: readonly string[],
): Promise<Set<string>> {
  const rows = (
    await client.query<{ classid: string; objid: string }>(
      `SELECT classid::text AS classid, objid::text AS objid FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objsubid = 1
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    )
  ).rows;
  const held = new Set(rows.map((r) => `${r.classid}/${r.objid}`));
  return new Set(
    projectIds.filter((p) => {
      const [high, low] = lockParts(projectLockKey(schema, p));
      return held.has(`${high}/${low}`);
    }),
  );
}

/** pg_locks shows a bigint key as classid (its high 32 bits) and objid (its low 32 bits), unsigned. */
function lockParts(key: bigint): [string, string] {
  const unsigned = BigInt.asUintN(64, key);
  return [(unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()];
}

function inUse(opts: ProjectLockOptions, projectId: string, holder: Holder | undefined): DatabaseInUseError {
  const where = opts.label ?? 'the database';
  const pid = holder?.pid ?? null;
  const who = [
    pid !== null ? `server process ${pid}` : '',
    holder?.client ? `connected from ${holder.client}` : '',
    holder?.since ? `since ${holder.since}` : '',
    holder?.application ? `application ${JSON.stringify(holder.application)}` : '',
  ].filter((s) => s !== '');
  const gone =
    pid !== null
      ? `the server frees its lock when its connection drops, or end it now with SELECT pg_terminate_backend(${pid})`
      : 'the server frees its lock when its connection drops';
  return new DatabaseInUseError(
    `project ${projectId} is being synced into schema ${opts.schema} of ${where} by another run` +
      `${who.length > 0 ? ` (${who.join(', ')})` : ''}; wait for it, or sync other projects meanwhile ` +
      `(runs of other projects are not held up); if that run is gone, ${gone}`,
    { schema: opts.schema, projectId, holderPid: pid, holderClient: holder?.client ?? null },
  );
}

/**
 * Takes the advisory lock of every project of the run, on a connection of its own that stays open
 * until `release()`. If another run holds any of them, the ones taken are released, the connection
 * closed, and DatabaseInUseError (exit 5) names the project, the schema and what to do.
 */
export async function acquireProjectLocks(opts: ProjectLockOptions): Promise<ProjectLock> {
  const projectIds = [...new Set(opts.projectIds)].sort();
  const client = await opts.connect();
  let released = false;
  let lost = false;
  // Without a listener a broken connection's 'error' event would crash the process. A connection
  // may report its end more than once (the server's notice, then the socket): the run hears once.
  client.on('error', (err: Error) => {
    if (released || lost) return;
    lost = true;
    opts.onLost?.(err);
  });
  const close = async (): Promise<void> => {
    released = true;
    // Ending the session releases every advisory lock it holds, in one step.
    await client.end().catch(() => undefined);
  };
  try {
    for (const projectId of projectIds) {
      const key = projectLockKey(opts.schema, projectId);
      const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [
        key.toString(),
      ]);
      if (got.rows[0]?.ok !== true) throw inUse(opts, projectId, await holderOf(client, key));
    }
  } catch (e) {
    await close();
    throw e;
  }
  const stopBeat =
    opts.deadClientMs !== undefined
      ? await heartbeat(client, opts.deadClientMs, (err) => {
          if (released || lost) return;
          lost = true;
          opts.onLost?.(err);
          // A connection that no longer answers is of no use; end it so nothing waits on it.
          void client.end().catch(() => undefined);
        })
      : () => undefined;
  return {
    path: `schema ${opts.schema}, project${projectIds.length === 1 ? '' : 's'} ${projectIds.join(', ')}`,
    schema: opts.schema,
    projectIds,
    async release(): Promise<void> {
      if (released) return;
      stopBeat();
      await client.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      await close();
    },
  };
}

/**
 * Keeps the lock's session provably alive, so that the server can end it when it is not: the
 * server ends a session idle for `boundMs` (PostgreSQL 14 and later; older servers rely on the TCP
 * keepalives every connection sets), and a statement every quarter of the bound keeps a live
 * run's session from ever idling that long. Without this a run whose machine dies keeps its
 * advisory locks until the server's TCP keepalive gives up, about two hours by default, and the
 * next night's run from another machine exits 5. A beat that fails or goes unanswered for the
 * bound means the locks may be gone: `lost` is told. Returns the function that stops the beat.
 */
async function heartbeat(
  client: pg.Client,
  boundMs: number,
  lost: (err: Error) => void,
): Promise<() => void> {
  try {
    await client.query(`SET idle_session_timeout TO ${Math.round(boundMs)}`);
  } catch {
    // PostgreSQL before 14 has no such setting: the keepalives alone notice a dead machine.
  }
  let beating = false;
  const beat = async (): Promise<void> => {
    if (beating) return;
    beating = true;
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the server did not answer for ${Math.round(boundMs / 1000)}s`)),
        boundMs,
      );
    });
    try {
      await Promise.race([client.query('SELECT 1'), unanswered]);
    } catch (e) {
      lost(e as Error);
    } finally {
      clearTimeout(timer);
      beating = false;
    }
  };
  const every = setInterval(() => void beat(), Math.max(250, Math.floor(boundMs / 4)));
  every.unref();
  return () => clearInterval(every);
}
