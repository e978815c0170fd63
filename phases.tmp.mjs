import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
const OLD = '/tmp/mintlify-etl-baselines/6cb36afa5d3afb19a22747855c5524a031f1ade0/dist/src/cli/main.js';
const NEW = '/work/wt-h-bench/dist/src/cli/main.js';
const FROM = new Date(Date.now() - 46 * 86400e3).toISOString().slice(0, 10);
const n = Number(process.argv[2] ?? 4);
const rows = { old: [], new: [] };
for (let i = 0; i < n; i++) for (const v of i % 2 ? ['new', 'old'] : ['old', 'new']) {
  const dir = mkdtempSync('/tmp/hb/ph-'); const db = `${dir}/a.duckdb`;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [...(process.env.EXTRA ? process.env.EXTRA.split(' ') : []), v === 'old' ? OLD : NEW, 'sync', '--from', FROM, '--db', db, '--streams', 'visitors', '--rate-limit', '1000000/1h', '--json'], { env: { ...process.env, CI: '1' }, encoding: 'utf8' });
  const t1 = Date.now();
  if (r.status !== 0) throw new Error(r.stderr);
  const inst = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' }); const c = await inst.connect();
  const q = await c.runAndReadAll(`SELECT epoch_ms(min(requested_at))::DOUBLE f, max(epoch_ms(requested_at)+duration_ms)::DOUBLE l, (SELECT epoch_ms(started_at)::DOUBLE FROM sync_runs) s, (SELECT epoch_ms(finished_at)::DOUBLE FROM sync_runs) e FROM api_requests`);
  const [x] = q.getRowObjects(); c.closeSync(); inst.closeSync(); rmSync(dir, { recursive: true });
  rows[v].push({ start: x.s - t0, beforeFirst: x.f - x.s, requests: x.l - x.f, afterLast: x.e - x.l, exit: t1 - x.e, total: t1 - t0 });
}
const med = (a) => { const s = [...a].sort((p, q) => p - q); return s[Math.floor(s.length / 2)]; };
for (const v of ['old', 'new']) { const k = Object.keys(rows[v][0]); console.log(v, k.map((key) => `${key} ${med(rows[v].map((r) => r[key])).toFixed(0)}`).join('  ')); }
for (const v of ['old', 'new']) console.log(v, 'all totals', rows[v].map(r=>r.total).join(' '), ' start', rows[v].map(r=>r.start.toFixed(0)).join(' '));
