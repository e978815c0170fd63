import { availableParallelism, loadavg } from 'node:os';
import pg from 'pg';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { postgresBinDir, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { reproduce, type Bench, type BenchContext, type BenchResult } from './context.js';
import { dropDatabase, freshDatabase, pgSyncProcess, type PgSyncRun } from './postgres-procs.js';
import { postmasterPid, processCpuS, treeCpuS } from './proc-cpu.js';
import { startEmulatorWith, type EmulatorProcess } from './procs.js';
import { fixed, showSpread, spread, table, thousands, verdict, type Spread } from './stats.js';

/*
 * Two organizations (their own API server, key, project and data) sync into one warehouse at the
 * same time, against one of them alone. They share only the PostgreSQL server (and the machine's
 * CPUs, which is the catch on a small machine): each has its own budget scope (the key's
 * fingerprint) and project, so neither waits for the other's lock or budget.
 */

interface Org {
  readonly name: string;
  readonly seed: number;
  readonly projectId: string;
  readonly apiKey: string;
}

const ORGS: readonly [Org, Org] = [
  { name: 'A', seed: 1, projectId: 'proj_org_a', apiKey: 'mint_bench_org_a' },
  { name: 'B', seed: 2, projectId: 'proj_org_b', apiKey: 'mint_bench_org_b' },
];

interface Round {
  readonly alone: PgSyncRun;
  readonly pair: readonly [PgSyncRun, PgSyncRun];
  /** From starting both processes to the later one's exit. */
  readonly pairWallMs: number;
  /** Which went first in this round (alternating, so drift in the machine's load hits both). */
  readonly aloneFirst: boolean;
  /** The machine's 1-minute load average as the round began: how many others wanted the 2 cores. */
  readonly load: number;
  /** CPU seconds of everything a run needs (CLIs, emulators, server) while it ran: alone, pair. */
  readonly aloneCpuS: number;
  readonly pairCpuS: number;
}

/** CPU seconds the emulators and the server have used so far (a difference of two is a run's share). */
type OthersCpu = () => number;

interface Timed<T> {
  readonly value: T;
  /** The CLI processes' own CPU plus the emulators' and the server's during the run. */
  readonly cpuS: number;
}

/** Rows per project and distinct budget scopes the pair left in the shared schema. */
async function shared(url: string): Promise<{ projects: number; scopes: number }> {
  const client = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await client.connect();
  try {
    const r = await client.query<{ projects: number; scopes: number }>(
      `SELECT (SELECT count(DISTINCT project_id)::int FROM mintlify.page_daily) AS projects,
              (SELECT count(DISTINCT budget_scope)::int FROM mintlify.api_requests) AS scopes`,
    );
    return r.rows[0] ?? { projects: 0, scopes: 0 };
  } finally {
    await client.end();
  }
}

async function alone(
  server: PostgresServer,
  emu: EmulatorProcess,
  days: number,
  i: number,
  others: OthersCpu,
): Promise<Timed<PgSyncRun>> {
  const name = `orgs_alone_${i}`;
  const url = await freshDatabase(server, name);
  try {
    const c0 = others();
    const r = await pgSyncProcess(emu, url, days);
    return { value: r, cpuS: others() - c0 + (r.cpuS ?? NaN) };
  } finally {
    await dropDatabase(server, name);
  }
}

async function pair(
  server: PostgresServer,
  emus: readonly [EmulatorProcess, EmulatorProcess],
  days: number,
  i: number,
  others: OthersCpu,
): Promise<Timed<{ runs: [PgSyncRun, PgSyncRun]; wallMs: number }>> {
  const name = `orgs_pair_${i}`;
  const url = await freshDatabase(server, name);
  try {
    const c0 = others();
    const t0 = performance.now();
    const runs = await Promise.all([pgSyncProcess(emus[0], url, days), pgSyncProcess(emus[1], url, days)]);
    const wallMs = performance.now() - t0;
    const cpuS = others() - c0 + (runs[0].cpuS ?? NaN) + (runs[1].cpuS ?? NaN);
    const s = await shared(url);
    if (s.projects !== 2 || s.scopes !== 2) {
      throw new Error(`the pair left ${s.projects} project(s) and ${s.scopes} budget scope(s), not 2 and 2`);
    }
    return { value: { runs, wallMs }, cpuS };
  } finally {
    await dropDatabase(server, name);
  }
}

async function measure(
  ctx: BenchContext,
  server: PostgresServer,
  emus: readonly [EmulatorProcess, EmulatorProcess],
  days: number,
  runs: number,
): Promise<Round[]> {
  const postmaster = await postmasterPid(server.url);
  const others: OthersCpu = () => processCpuS(emus[0].pid) + processCpuS(emus[1].pid) + treeCpuS(postmaster);
  const out: Round[] = [];
  for (let i = 0; i < runs; i++) {
    const aloneFirst = i % 2 === 0;
    const load = loadavg()[0] ?? NaN;
    let a: Timed<PgSyncRun> | undefined;
    if (aloneFirst) a = await alone(server, emus[0], days, i, others);
    const p = await pair(server, emus, days, i, others);
    if (!aloneFirst) a = await alone(server, emus[0], days, i, others);
    const done = a as Timed<PgSyncRun>;
    const round: Round = {
      alone: done.value,
      pair: p.value.runs,
      pairWallMs: p.value.wallMs,
      aloneFirst,
      load,
      aloneCpuS: done.cpuS,
      pairCpuS: p.cpuS,
    };
    out.push(round);
    ctx.log(
      `postgres-orgs: round ${i + 1}/${runs}: A alone ${fixed(round.alone.wallMs / 1000, 1)} s (${fixed(round.aloneCpuS, 1)} CPU s); A and B at once ${fixed(round.pairWallMs / 1000, 1)} s (${fixed(round.pairCpuS, 1)} CPU s)`,
    );
  }
  return out;
}

/**
 * What the CPU figures say about pair / alone: the machine's other tenants set the pace (the pair
 * got no more CPU per second than one sync), or the pair filled the cores (its CPU spread over
 * them bounds the ratio from below), or neither, and the ratio is the shared server's.
 */
function verdictOnCpu(
  rounds: readonly Round[],
  busy: Spread,
  busyPair: Spread,
  cpuRatio: Spread,
  cores: number,
): string {
  if (busyPair.median < 1.3 * busy.median) {
    return `- The benchmark's processes got about as much CPU per second with two syncs as with one (the other tenants of the machine took the rest), so the pair's wall time follows its CPU and pair / alone measures the machine's contention, not the shared server: it cannot show whether two organizations slow each other down here. What it does show: a second organization costs ${fixed(cpuRatio.median, 2)}× the CPU of one (ideal 2), the server and two emulators included.`;
  }
  if (busyPair.median >= 0.85 * cores) {
    const bound = spread(rounds.map((r) => r.pairCpuS / cores / (r.alone.wallMs / 1000)));
    return `- The pair kept the ${cores} cores busy: one sync with its emulator and server already needs ${fixed(busy.median, 2)} cores, so two cannot overlap here. Their CPU spread over ${cores} cores alone makes pair / alone at least ${showSpread(bound, 2)}; what is measured above that is the rest (waiting on each other's CPU and on the shared server). The ≤ 1.2 target needs a machine with the cores for two syncs and their emulators (≥ ${Math.ceil(busy.median * 2)} here), which this one is not; a second organization costs ${fixed(cpuRatio.median, 2)}× the CPU of one (ideal 2).`;
  }
  return '- The pair got more CPU per second than one sync alone and did not fill the cores: the ratio reflects the shared server.';
}

function section(rounds: readonly Round[], days: number, paths: number): string {
  const cores = availableParallelism();
  const ratio = spread(rounds.map((r) => r.pairWallMs / r.alone.wallMs));
  const busy = spread(rounds.map((r) => r.aloneCpuS / (r.alone.wallMs / 1000)));
  const busyPair = spread(rounds.map((r) => r.pairCpuS / (r.pairWallMs / 1000)));
  const cpuRatio = spread(rounds.map((r) => r.pairCpuS / r.aloneCpuS));
  const first = rounds[0];
  return [
    `Two organizations, each its own emulator process (\`node dist/test/bench/emulator-process.js\`: ${ORGS.map((o) => `${o.name}: seed ${o.seed}, project ${o.projectId}, its own key`).join('; ')}; ${days + 1} days of ${thousands(paths)} paths, no latency, no rate limit), sync the last ${days} days (\`node dist/src/cli/main.js sync --from <today-${days}> --db postgresql://... --rate-limit 1000000/1h --json\`, default streams and concurrency) into the same database and schema of one private server (test/helpers/postgres.ts: fsync off), both processes started at the same instant; against A alone. A fresh, migrated database for every run (a warehouse that exists; nobody settled a window yet). Each round runs "alone" and "pair" once, their order alternating. Time = process wall time; for the pair, from starting both to the later exit. After every pair the schema holds both projects under two budget scopes (checked). CPU s = user + system seconds of everything the run needs, while it ran: the CLI processes (/usr/bin/time), the emulator processes and the PostgreSQL server with its backends (/proc).`,
    '',
    table(
      [
        'round',
        'order',
        'load avg',
        'A alone s',
        'pair s',
        'A, B in pair s',
        'pair / alone',
        'CPU s alone',
        'CPU s pair',
      ],
      rounds.map((r, i) => [
        String(i + 1),
        r.aloneFirst ? 'alone, pair' : 'pair, alone',
        fixed(r.load, 1),
        fixed(r.alone.wallMs / 1000, 1),
        fixed(r.pairWallMs / 1000, 1),
        `${fixed(r.pair[0].wallMs / 1000, 1)}, ${fixed(r.pair[1].wallMs / 1000, 1)}`,
        fixed(r.pairWallMs / r.alone.wallMs, 2),
        fixed(r.aloneCpuS, 1),
        fixed(r.pairCpuS, 1),
      ]),
    ),
    '',
    `- Per sync: A ${thousands(first?.alone.summary.requests ?? NaN)} requests, ${thousands(first?.alone.summary.rows ?? NaN)} rows; B ${thousands(first?.pair[1].summary.requests ?? NaN)} requests, ${thousands(first?.pair[1].summary.rows ?? NaN)} rows.`,
    `- A alone ${showSpread(spread(rounds.map((r) => r.alone.wallMs / 1000)), 1)} s; the pair ${showSpread(spread(rounds.map((r) => r.pairWallMs / 1000)), 1)} s; pair / alone ${showSpread(ratio, 2)} (target ≤ 1.2: ${verdict(ratio.median <= 1.2)}).`,
    `- CPU: one sync alone keeps ${showSpread(busy, 2)} cores busy (CPU s / wall s), the pair ${showSpread(busyPair, 2)} of the ${cores}; the pair spends ${showSpread(cpuRatio, 2)} × the CPU of one sync alone.`,
    verdictOnCpu(rounds, busy, busyPair, cpuRatio, cores),
  ].join('\n');
}

export const postgresOrgsBench: Bench = {
  id: 'postgres-orgs',
  title: '10. Two organizations syncing into one PostgreSQL at once vs one alone',
  async run(ctx: BenchContext): Promise<BenchResult> {
    if (postgresBinDir() === undefined) {
      return {
        id: this.id,
        title: this.title,
        markdown: 'Skipped: no PostgreSQL server binaries (apt-get install postgresql).',
      };
    }
    const runs = ctx.quick ? 1 : 3;
    // One sync alone takes ~10 s on the 2-core machine at this size when it is quiet (more when not).
    const days = ctx.quick ? 30 : 120;
    const paths = ctx.quick ? 500 : 2000;
    const server = await startPostgres('bench');
    const emus: EmulatorProcess[] = [];
    let rounds: Round[];
    try {
      for (const o of ORGS) {
        emus.push(
          await startEmulatorWith({
            seed: o.seed,
            days: days + 1,
            paths,
            projectId: o.projectId,
            apiKey: o.apiKey,
          }),
        );
      }
      rounds = await measure(ctx, server, emus as [EmulatorProcess, EmulatorProcess], days, runs);
    } finally {
      for (const e of emus) await e.close();
      await server.stop();
    }
    const markdown = [section(rounds, days, paths), '', reproduce('postgres-orgs')].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
