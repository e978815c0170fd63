import pg from 'pg';
import type { Place } from '../../src/load/destination.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JobRecorder,
  insertJobGaps,
  readAgentJob,
  upsertAgentJob,
  type JobGapLink,
  type JobSighting,
} from '../../src/agent/store.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { defaultRules, type AlertRules } from '../../src/insights/alert-rules.js';
import type { Evaluation } from '../../src/insights/alert.js';
import { alertProjects, evaluateAlerts } from '../../src/insights/alerts.js';
import { isoWeekOf, lastCompleteWeek, readDigest } from '../../src/insights/digest.js';
import { projectsWithWindows, readGaps, readOutcomes } from '../../src/insights/gaps.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { duckSession } from '../../src/load/duckdb/session.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import type { SqlSession } from '../../src/load/session.js';
import { dispatchAlerts, type DispatchOptions } from '../../src/notify/dispatch.js';
import { runSync } from '../../src/pipeline/sync.js';
import { parseStreams } from '../../src/streams/index.js';
import { addDays, todayUtc } from '../../src/util/day.js';
import { silentLogger } from '../../src/util/log.js';
import { tempDbPath } from '../helpers/db.js';
import { insertGapEvidence, insertGapFixes } from '../helpers/gap-fixes.js';
import { copyTable, duckTables } from '../helpers/postgres-copy.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { emulatorSyncOptions } from '../helpers/sync-options.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * gaps, alerts, digest and the agent's records read and write the same on both destinations.
 * One emulator is synced into a DuckDB file, a second project derived from it with failed
 * windows, partial days and a refused run, agent fixes recorded, and every table copied into a
 * PostgreSQL schema. Then each reader runs on a session of each destination and must give the
 * same values; each writer runs on both and must leave the same rows (and, run again, no more).
 */

const STREAMS = 'visitors,views,searches,feedback,assistant';
const SCHEMA = 'insights';
const SECOND = 'second-project';

/** Sensitive rules, so that every rule fires somewhere in the emulator's ordinary days. */
function eagerRules(): AlertRules {
  const r = defaultRules();
  return {
    ...r,
    traffic: { ...r.traffic, threshold: 0.5, minChangePct: 0, minPageMedian: 0 },
    search: { ...r.search, minSearches: 1, minHistoryDays: 1 },
    feedback: { ...r.feedback, minCount: 1, factor: 1 },
    assistant: { ...r.assistant, minTurns: 1, increasePoints: 0, minHistoryDays: 1 },
  };
}

/** Doubles summed in another order differ in their last bits between engines (as canonical-rows rounds). */
function rounded(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Math.round(v * 1e9) / 1e9;
  if (Array.isArray(v)) return v.map(rounded);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]));
  }
  return v;
}

/** A copy of the synced project with failed windows, partial days and a night refused with 401. */
async function deriveSecond(
  db: Database,
  tables: readonly string[],
  source: string,
  today: string,
): Promise<void> {
  const conn = db.connection;
  for (const t of tables) {
    const cols = (
      await conn.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_name = '${t}'`)
    )
      .getRows()
      .map((r) => String(r[0]));
    if (!cols.includes('project_id')) continue;
    await conn.run(
      `INSERT INTO ${t} SELECT * REPLACE ('${SECOND}' AS project_id) FROM ${t} WHERE project_id = '${source}'`,
    );
  }
  await conn.run(
    `UPDATE sync_windows SET status = 'failed', error = 'HTTP 503 (window ' || strftime(window_start, '%d') || ')'
     WHERE project_id = '${SECOND}' AND dayofmonth(window_start) IN (7, 8)`,
  );
  await conn.run(
    `UPDATE site_daily SET partial = true WHERE project_id = '${SECOND}' AND day = DATE '${addDays(today, -3)}'`,
  );
  // Capitals and ties, so that text order (code points, as DuckDB sorts) decides what comes first.
  await conn.run(
    `UPDATE search_daily SET query = upper(query), hits = least(hits, 3) WHERE project_id = '${SECOND}' AND length(query) % 2 = 0`,
  );
  await conn.run(`UPDATE search_daily SET hits = least(hits, 3) WHERE project_id = '${SECOND}'`);
  for (const t of ['page_daily', 'feedback']) {
    await conn.run(
      `UPDATE ${t} SET path = upper(path) WHERE project_id = '${SECOND}' AND length(path) % 2 = 0`,
    );
  }
  await conn.run(`INSERT INTO sync_runs (run_id, project_ids, started_at, finished_at, status, windows_deferred, error, deferred_days)
    VALUES ('run-refused', ['${SECOND}'], TIMESTAMPTZ '${today} 01:00:00+00', TIMESTAMPTZ '${today} 01:00:01+00', 'failed', 2,
      'the API refused the key (401)', ['${SECOND}:${addDays(today, -9)}', '${SECOND}:searches:${addDays(today, -8)}'])`);
}

const runIf = hasPostgres();

describe.skipIf(!runIf)('gaps, alerts, digest and agent records on DuckDB and on PostgreSQL', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client;
  let emu: Emulator | undefined;
  let db: Database | undefined;
  let duck: SqlSession;
  let post: SqlSession;
  let today = '';
  let hook: WebhookReceiver | undefined;

  /** What one reader gives on each destination. */
  async function both<T>(read: (s: SqlSession) => Promise<T>): Promise<{ duck: T; post: T }> {
    return { duck: await read(duck), post: await read(post) };
  }

  beforeAll(async () => {
    today = todayUtc();
    const started = await Promise.all([
      startPostgres(),
      startEmulator({ seed: 33, days: 90, paths: 40 }),
      startWebhookReceiver([200]),
    ]);
    [server, emu, hook] = started;
    const dbPath = tempDbPath();
    const summary = await runSync(
      emulatorSyncOptions(emu, dbPath, { streams: parseStreams(STREAMS), from: addDays(today, -90) }),
    );
    expect(summary.status).toBe('succeeded');
    db = await openDatabase(dbPath);
    const tables = await duckTables(db.connection);
    await deriveSecond(db, tables, emu.projectId, today);
    await insertGapEvidence(db.connection, today);
    await insertGapFixes(db.connection, today);
    // A warehouse's database sorts text by a language's rules (here ICU en-US, where 'a' < 'B'):
    // every order the commands print must still be DuckDB's code-point order.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    // Named after the file's database: the worker's server may hold other files' databases.
    const en = `${server.database}_en`;
    await admin.query(
      `CREATE DATABASE ${en} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
    );
    await admin.end();
    const url = new URL(server.url);
    url.pathname = `/${en}`;
    client = new pg.Client({ connectionString: url.toString(), types: PLAIN_TYPES });
    await client.connect();
    const order = await client.query("SELECT x FROM (VALUES ('a'), ('B')) AS t(x) ORDER BY x");
    expect(order.rows.map((r: { x: string }) => r.x)).toEqual(['a', 'B']);
    await migratePostgres(client, { schema: SCHEMA });
    for (const t of tables) if (t !== 'schema_migrations') await copyTable(db.connection, client, t);
    // A session in another zone (+13:45, DST in its winter) must not move a day.
    await client.query("SET TimeZone TO 'Pacific/Chatham'");
    duck = duckSession(db.connection);
    post = pgSession(client);
  }, 240_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await emu?.close();
    await hook?.close();
    await server?.stop();
  });

  it('knows the same projects', async () => {
    const projects = await both(alertProjects);
    expect(projects.duck).toHaveLength(2);
    expect(projects.post).toEqual(projects.duck);
    const withWindows = await both(projectsWithWindows);
    expect(withWindows.post).toEqual(withWindows.duck);
  });

  it('ranks the same content gaps, with their fixes, for every window, project, limit and id list', async () => {
    const queries = [
      { days: 28 },
      { days: 14, to: addDays(today, -20) },
      { days: 7, projectId: SECOND, limit: 3 },
    ];
    for (const q of queries) {
      const gaps = await both((s) => readGaps(s, q));
      expect(gaps.duck.length, JSON.stringify(q)).toBeGreaterThan(0);
      expect(rounded(gaps.post), JSON.stringify(q)).toEqual(rounded(gaps.duck));
    }
    const all = await readGaps(duck, { days: 28 });
    expect(new Set(all.map((g) => g.kind)).size).toBeGreaterThan(1);
    expect(all.some((g) => g.fix !== null)).toBe(true);
    const ids = all.filter((_, i) => i % 3 === 0).map((g) => g.gapId);
    const picked = await both((s) => readGaps(s, { days: 28, projectId: SECOND, gapIds: ids }));
    expect(picked.duck.length).toBeGreaterThan(0);
    expect(rounded(picked.post)).toEqual(rounded(picked.duck));
  });

  it('measures the same outcomes of the fixes', async () => {
    for (const p of [emu!.projectId, SECOND]) {
      const outcomes = await both((s) => readOutcomes(s, p, 100));
      expect(outcomes.duck.length).toBeGreaterThan(0);
      expect(rounded(outcomes.post)).toEqual(rounded(outcomes.duck));
    }
  });

  it('fires the same alerts with the same notes, day after day, for every rule', async () => {
    const rules = eagerRules();
    const fired = new Set<string>();
    const days = [undefined, ...[2, 3, 5, 8, 13].map((k) => addDays(today, -k))];
    for (const day of days) {
      const o = { rules, today: addDays(today, 4), ...(day !== undefined ? { day } : {}) };
      const e = await both((s) => evaluateAlerts(s, o));
      expect(rounded(e.post), day).toEqual(rounded(e.duck));
      for (const a of e.duck.flatMap((x) => x.alerts)) fired.add(`${a.rule}:${a.subject.split(' ')[0]}`);
    }
    const rulesFired = new Set([...fired].map((f) => f.split(':')[0]));
    expect([...rulesFired].sort()).toEqual(['assistant', 'feedback', 'pipeline', 'search', 'traffic']);
    expect([...fired].filter((f) => f.startsWith('pipeline:')).sort()).toEqual(
      expect.arrayContaining(['pipeline:auth', 'pipeline:behind', 'pipeline:deferred', 'pipeline:failing']),
    );
  });

  it('dispatches alerts once on each, posting the same payload and recording the same alerts_sent rows', async () => {
    const evaluations: Evaluation[] = await evaluateAlerts(duck, { rules: eagerRules(), today });
    expect(evaluations.flatMap((e) => e.alerts).length).toBeGreaterThan(0);
    const opts: DispatchOptions = {
      resend: false,
      webhookUrl: hook!.url,
      webhook: { retries: 0 },
      now: () => new Date(`${today}T06:00:00.123Z`),
    };
    const first = await both((s) => dispatchAlerts(s, evaluations, opts));
    expect(first.duck.delivered).toBe(true);
    expect(first.post).toEqual(first.duck);
    expect(hook!.accepted).toHaveLength(2);
    expect(hook!.accepted[1]).toEqual(hook!.accepted[0]);
    const again = await both((s) => dispatchAlerts(s, evaluations, opts));
    expect(again.duck.sent).toEqual([]);
    expect(again.post).toEqual(again.duck);
    const resent = await both((s) => dispatchAlerts(s, evaluations, { ...opts, resend: true }));
    expect(resent.post).toEqual(resent.duck);
    const sql = `SELECT project_id, alert_id, rule, day, sent_at, delivered, alert FROM alerts_sent
      ORDER BY project_id COLLATE "C", alert_id COLLATE "C"`;
    const rows = await both((s) => s.rows(sql));
    expect(rows.duck).toHaveLength(first.duck.sent.length);
    expect(rows.post).toEqual(rows.duck);
  });

  it('writes the same digest of every complete week', async () => {
    for (const p of [emu!.projectId, SECOND]) {
      const week = await both((s) => lastCompleteWeek(s, p));
      expect(week.duck).not.toBeNull();
      expect(week.post).toEqual(week.duck);
      const monday = addDays(today, -21);
      for (const w of [week.duck!, isoWeekOf(monday)]) {
        const digest = await both((s) => readDigest(s, p, w));
        expect(digest.duck.topSearches.length, w).toBeGreaterThan(0);
        expect(rounded(digest.post), w).toEqual(rounded(digest.duck));
      }
    }
  });

  it("records an agent job's sightings and gap links alike, idempotently, also through the recorder's seam", async () => {
    const sightings: JobSighting[] = [
      {
        projectId: 'agent-p',
        jobId: 'j1',
        prompt: 'first',
        seenAt: Date.parse('2026-01-01T00:00:00Z'),
        job: {
          id: 'j1',
          status: 'completed',
          source: { repository: 'https://github.com/o/r', ref: 'main' },
          model: 'sonnet',
          prLink: 'https://github.com/o/r/pull/1',
          createdAt: '2025-12-31T23:00:00.123456Z',
          archivedAt: null,
        },
      },
      {
        projectId: 'agent-p',
        jobId: 'j1',
        seenAt: Date.parse('2026-01-01T00:05:00Z'),
        job: { id: 'j1', status: 'active', prLink: null, createdAt: 'not a date' },
      },
    ];
    const links: JobGapLink[] = ['g1', 'g2'].map((gapId, i) => ({
      projectId: 'agent-p',
      jobId: 'j1',
      gapId,
      kind: 'unanswered',
      subjectKey: `question ${i}`,
      subject: `Question ${i}?`,
      createdAt: Date.parse('2026-01-01T00:00:00.5Z') + i,
    }));
    for (const s of [duck, post]) {
      for (const x of sightings) await upsertAgentJob(s, x);
      await insertJobGaps(s, links);
      await insertJobGaps(
        s,
        links.map((l) => ({ ...l, createdAt: l.createdAt + 60_000 })),
      );
    }
    const linked = await both((s) =>
      s.rows(
        `SELECT created_at FROM agent_job_gaps WHERE project_id = 'agent-p' AND job_id = 'j1' AND gap_id = 'g1'`,
      ),
    );
    // Linked again later: the first link stands.
    expect(linked.duck).toEqual([{ created_at: '2026-01-01T00:00:00.500Z' }]);
    expect(linked.post).toEqual(linked.duck);
    const job = await both((s) => readAgentJob(s, 'agent-p', 'j1'));
    expect(job.duck?.completed_at).toBe('2026-01-01T00:00:00.000Z');
    expect(job.post).toEqual(job.duck);
    // Through the seam a PostgreSQL destination is handed to the recorder.
    let closed = 0;
    const place = {
      label: 'postgresql://postgres@127.0.0.1/mintlify_test',
      open: () => Promise.resolve({ session: post, close: () => void closed++ }),
    } as unknown as Place;
    const recorder = new JobRecorder({ place, logger: silentLogger });
    await recorder.record({ ...sightings[1]!, jobId: 'j2', job: { ...sightings[1]!.job, id: 'j2' } });
    await recorder.linkGaps(links.map((l) => ({ ...l, jobId: 'j2' })));
    expect(recorder.failure).toBeUndefined();
    expect(closed).toBe(2);
    await upsertAgentJob(duck, { ...sightings[1]!, jobId: 'j2', job: { ...sightings[1]!.job, id: 'j2' } });
    await insertJobGaps(
      duck,
      links.map((l) => ({ ...l, jobId: 'j2' })),
    );
    const sql = (t: string): string =>
      `SELECT * FROM ${t} WHERE project_id = 'agent-p' ORDER BY job_id COLLATE "C"${t === 'agent_job_gaps' ? ', gap_id COLLATE "C"' : ''}`;
    for (const t of ['agent_jobs', 'agent_job_gaps']) {
      const rows = await both((s) => s.rows(sql(t)));
      expect(rows.duck.length, t).toBeGreaterThan(1);
      expect(rows.post, t).toEqual(rows.duck);
    }
  });
});
