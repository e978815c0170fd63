import { hostname } from 'node:os';
import type pg from 'pg';
import type { Destination, Place, RunLock } from '../destination.js';
import { PgRequestLedger } from './ledger.js';
import { loadPreparedBatchPostgres, markWindowFailedPostgres } from './window-batch.js';
import {
  connectClient,
  deadClientMs,
  schemaHasTables,
  openPostgres,
  type PgDatabase,
  type PgOpenOptions,
  type PgTarget,
} from './connect.js';
import { acquireProjectLocks, heldProjects } from './lock.js';
import { markStaleRuns } from '../runs.js';
import { endedOr } from './ended.js';
import { exportFromPostgres } from './export.js';
import { refuseLeavingReadOnly } from './query-guard.js';
import { DEFAULT_QUERY_TIMEOUT_MS, withPostgresQuery } from './user-query.js';

import { pgEventStage } from './event-stage.js';

export type PgPlaceOptions = PgOpenOptions;

/** An open PostgreSQL schema as a Destination. */
export function pgDestination(db: PgDatabase): Destination & { readonly pg: PgDatabase } {
  return {
    kind: 'postgres',
    label: db.label,
    session: db.session,
    pg: db,
    notes: db.notes,
    // The writer is the client's only user while it loads (its jobs run one at a time), so the
    // loader's own BEGIN ... COMMIT on the client cannot take in another caller's statement.
    loadBatch: (windows, o) =>
      loadPreparedBatchPostgres(db.client, windows, {
        ...(o?.onStep !== undefined ? { onStep: o.onStep } : {}),
        destination: db.label,
      }).catch((e: unknown) => {
        throw endedOr(e, db.label);
      }),
    markWindowFailed: (f) =>
      markWindowFailedPostgres(db.client, f).catch((e: unknown) => {
        throw endedOr(e, db.label);
      }),
    // Each project has its own lock: only runs sharing one with this run are surely dead.
    markStaleRuns: (projects) => markStaleRuns(db.session, { projectIds: projects }),
    // Each request is recorded as it happens, on its own connection: a kill loses none.
    recoverLostRequests: () => Promise.resolve({ added: 0, skippedMessage: undefined }),
    lostRequests: () => Promise.resolve([]),
    syncRunning: async (projects) => (await heldProjects(db.client, db.target.schema, projects)).size > 0,
    exportTables: (o) => exportFromPostgres(db.client, o),
    eventStage: () => pgEventStage(db.client),
    close: () => db.close(),
  };
}

/**
 * A schema of a PostgreSQL database named by --db. Migrations and views are applied by the first
 * open to write in this process only: every later open finds them in place.
 */
export function pgPlace(target: PgTarget, opts: PgPlaceOptions = {}): Place {
  let migrated = false;
  return {
    kind: 'postgres',
    label: target.label,
    handsOver: false,
    check(): void {},
    lockIfExists(projects) {
      return this.lock(projects);
    },
    // The first open to write creates the schema.
    makeRoom: () => Promise.resolve(),
    // A schema is created by the first open to write and never dropped by this tool.
    firstUse: () => ({ existed: true, created: () => false, dropIfEmpty: () => Promise.resolve() }),
    async requireExisting() {
      await (await this.open('read')).close();
    },
    async checkWritable() {
      await (await this.open('write')).close();
    },
    async runUserQuery(sql, o, consume) {
      // Before connecting: SQL that could leave read-only mode never reaches the server.
      refuseLeavingReadOnly(sql);
      const db = await openPostgres(target, { ...opts, applicationName: 'mintlify-etl query' });
      try {
        return await withPostgresQuery(
          db.client,
          sql,
          { timeoutMs: o.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS },
          consume,
        );
      } finally {
        await db.close();
      }
    },
    // A schema without our tables is "no destination yet"; a server that cannot be used is an
    // error to say, not an empty history (a dry run would otherwise plan as if nothing were loaded).
    exists: () => schemaHasTables(target, opts),
    lock(projects, lockOpts): Promise<RunLock> {
      return acquireProjectLocks({
        connect: () => connectForLock(target),
        schema: target.schema,
        projectIds: projects,
        label: target.database,
        deadClientMs: deadClientMs(),
        ...(lockOpts?.onLost !== undefined ? { onLost: lockOpts.onLost } : {}),
      });
    },
    async requestLedger({ runId, budgetScope }) {
      // Its own connection in autocommit: on the writer's, a row would wait for the window
      // transaction in progress and vanish with its rollback.
      const db = await openPostgres(target, { ...opts, writes: true });
      const ledger = new PgRequestLedger(db.session, { runId, budgetScope });
      return {
        granted: (at) => ledger.granted(at),
        refunded: (at) => ledger.refunded(at),
        answered: (row) => {
          ledger.answered(row);
          return true;
        },
        finish: async () => {
          try {
            await ledger.flush();
          } finally {
            await db.close();
          }
        },
        close: () => db.close(),
      };
    },
    async open(purpose) {
      const migrate = purpose !== 'read' && !migrated;
      const db = await openPostgres(target, { ...opts, migrate, writes: purpose !== 'read' });
      if (migrate) migrated = true;
      return pgDestination(db);
    },
  };
}

/** The lock's own connection, named so that the message a second run gets says who holds it. */
function connectForLock(target: PgTarget): Promise<pg.Client> {
  return connectClient(target, { applicationName: `mintlify-etl sync pid ${process.pid} on ${hostname()}` });
}
