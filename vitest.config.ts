import { defineConfig } from 'vitest/config';

// One malloc arena for the test workers (they inherit this when forked). Every DuckDB instance a
// test opens starts threads of its own, and glibc gave each new thread a fresh arena whose pages
// were faulted in anew (an open, a query and a close: 1,860 page faults; 1,190 with one arena). Measured on six DuckDB-heavy files, four runs
// in turn: 10% less CPU and 7-10% less wall time (docs/development.md). The CLI's own processes
// keep glibc's default, as a user's do.
process.env['GLIBC_TUNABLES'] ??= 'glibc.malloc.arena_max=1';

// Unit files that change state of the whole process (the secret registry): they keep a worker of
// their own, so nothing they leave behind reaches another file.
const PROCESS_STATE_UNITS = ['test/unit/safe-text.test.ts'];
// Files that replace a module (vi.mock): the module cache of a shared worker would keep the
// real one (or theirs) for the files after them.
const MODULE_MOCKS = [
  'test/integration/client-pins.test.ts',
  'test/integration/event-source-s3.test.ts',
  'test/integration/postgres-load.test.ts',
];

// First in every project's list: the temp folder of the run, made before the PostgreSQL template
// is made in it, and removed after every other teardown.
const TMP_ROOT = 'test/helpers/tmp-root.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: DuckDB and the emulator both want CPU; more forks only thrash.
    maxWorkers: 2,
    // The built CLI that tests run in their own process (test/helpers/cli-in-process.ts) loads
    // through Node, untransformed, as the installed command does.
    server: { deps: { external: [/\/dist\/src\//] } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          globalSetup: [TMP_ROOT],
          exclude: PROCESS_STATE_UNITS,
          // Pure in-process tests: one worker runs many files, loading the modules once. Measured
          // on 2 cores: 70 s of CPU isolated, 31 s shared (51 files).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: MODULE_MOCKS,
          // initdb once per run; every PostgreSQL test file copies that cluster (test/helpers/postgres.ts).
          globalSetup: [TMP_ROOT, 'test/helpers/pg-template.ts'],
          // One worker runs many files, loading vitest, the modules and the CLI they run in process
          // (test/helpers/cli-in-process.ts) once, not once per file. Every server, database and
          // folder a file makes is its own; the CLI forgets its per-run memory at each run.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: [...MODULE_MOCKS, ...PROCESS_STATE_UNITS],
          globalSetup: [TMP_ROOT, 'test/helpers/pg-template.ts'],
        },
      },
    ],
  },
});
