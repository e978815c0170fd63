import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../../src/paths.js';
import { budgetBench } from './budget.js';
import { commandsBench } from './commands.js';
import type { Bench, BenchResult } from './context.js';
import { e2eBench } from './e2e.js';
import { eventsIncrementBench } from './event-increment.js';
import { eventsBench } from './events.js';
import { machine } from './env.js';
import { lakeBench } from './lake.js';
import { loadBench } from './load.js';
import { memoryBench } from './memory.js';
import { postgresLoadBench } from './postgres-load.js';
import { postgresMemoryBench } from './postgres-memory.js';
import { postgresOrgsBench } from './postgres-orgs.js';
import { mergeSections } from './merge.js';
import { CHANGES } from './notes.js';
import { requestsBench } from './requests.js';
import { streamsBench } from './streams.js';
import { fixed } from './stats.js';
import { versusBench } from './versus.js';

const BENCHES: readonly Bench[] = [
  requestsBench,
  budgetBench,
  loadBench,
  e2eBench,
  memoryBench,
  streamsBench,
  commandsBench,
  postgresLoadBench,
  postgresMemoryBench,
  postgresOrgsBench,
  versusBench,
  eventsBench,
  eventsIncrementBench,
  lakeBench,
];

const USAGE = `npm run bench [-- --quick] [-- --only ${BENCHES.map((b) => b.id).join(',')}] [-- --out FILE] [-- --update]
  --quick   fewer and smaller runs (minutes, for iterating; figures are not the reference ones)
  --only    run these benchmarks only (comma-separated)
  --out     where to write the markdown (default: BENCHMARKS.md for a full run, a temp file otherwise)
  --update  replace only the sections that ran in BENCHMARKS.md (or --out), keeping the others`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string' },
      update: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const wanted = values.only?.split(',').map((s) => s.trim()) ?? BENCHES.map((b) => b.id);
  const unknown = wanted.filter((id) => !BENCHES.some((b) => b.id === id));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s): ${unknown.join(', ')}\n${USAGE}`);
  const selected = BENCHES.filter((b) => wanted.includes(b.id));
  const partial = values.quick || selected.length < BENCHES.length;
  const out =
    values.out ??
    (partial && !values.update
      ? join(tmpdir(), 'mintlify-etl-bench.md')
      : join(packageRoot(), 'BENCHMARKS.md'));

  const m = await machine();
  const started = Date.now();
  const log = (message: string): void => {
    console.error(`[${fixed((Date.now() - started) / 1000, 0).padStart(4)} s] ${message}`);
  };
  const results: BenchResult[] = [];
  for (const b of selected) {
    log(`${b.title}`);
    results.push(await b.run({ quick: values.quick, log }));
  }
  const args = [values.quick ? '--quick' : '', values.only ? `--only ${values.only}` : '']
    .filter(Boolean)
    .join(' ');
  const md = [
    '# Benchmarks',
    '',
    `Measured ${new Date(started).toISOString()} with \`npm run bench${args ? ` -- ${args}` : ''}\` in ${fixed((Date.now() - started) / 60_000, 1)} min${partial ? ' (a partial or quick run: not the reference figures)' : ''}.`,
    '',
    `- Machine: ${m.cores} × ${m.cpu}, ${fixed(m.memoryGiB, 1)} GiB memory (os.cpus(), os.totalmem()), ${m.os}. The machine is shared and noisy, so every timing is a ratio against a baseline measured in the same run, reported as median (min–max, n runs).`,
    `- Versions: Node ${m.node}, DuckDB ${m.duckdb} (SELECT version()), @duckdb/node-api from package-lock.json.`,
    "- Everything runs on 127.0.0.1 against the project's emulator.",
    '- Reproduce all: `npm run bench` (builds, then `node dist/test/bench/run.js`); one benchmark: `npm run bench -- --only load` (add `--update` to replace just its section here); a fast iteration: `npm run bench -- --quick`.',
    '',
    ...results.flatMap((r) => [`## ${r.title}`, '', r.markdown, '']),
    CHANGES,
  ].join('\n');
  if (values.update && existsSync(out)) {
    // One section measured again, the others as they were (each numbered section dates itself or
    // belongs to the full run named at the top).
    writeFileSync(out, mergeSections(readFileSync(out, 'utf8'), results));
    console.log(results.map((r) => `## ${r.title}\n\n${r.markdown}\n`).join('\n'));
  } else {
    writeFileSync(out, md);
    console.log(md);
  }
  log(`written to ${out}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
