import { readFileSync } from 'node:fs';

/**
 * The slowest test files of a vitest JSON report (`npm test` writes one to
 * test-artifacts/vitest-report.json): `npm run test:slowest [-- N]`. A file's time is its wall time
 * in its worker, setup included (servers started, clusters copied), which is what a slow file costs.
 */

interface Report {
  readonly testResults: readonly {
    readonly name: string;
    readonly startTime: number;
    readonly endTime: number;
    readonly assertionResults: readonly unknown[];
  }[];
}

const [, , file = 'test-artifacts/vitest-report.json', count = '20'] = process.argv;
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
const root = `${process.cwd()}/`;
const rows = report.testResults
  .map((f) => ({
    s: (f.endTime - f.startTime) / 1000,
    n: f.assertionResults.length,
    name: f.name.replace(root, ''),
  }))
  .sort((a, b) => b.s - a.s);
const total = rows.reduce((a, r) => a + r.s, 0);
const lines = [
  `slowest test files of ${rows.length} (${total.toFixed(0)} s of worker time in all):`,
  ...rows
    .slice(0, Number(count))
    .map((r) => `${r.s.toFixed(1).padStart(7)} s  ${String(r.n).padStart(3)} tests  ${r.name}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
