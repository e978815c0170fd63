import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/load/duckdb/database.js';
import { queryRows } from '../../src/load/duckdb/sql.js';
import { loadWindow } from '../../src/load/duckdb/visitor-windows.js';
import { type WindowLoad } from '../../src/load/site-page-rows.js';
import { WindowWriter } from '../../src/pipeline/writer.js';
import { addDays } from '../../src/util/day.js';
import { reproduce, scratch, type Bench, type BenchContext, type BenchResult } from './context.js';
import { fixed, showSpread, spread, table, thousands, verdict } from './stats.js';

const PROJECTS = 4;
const ROWS_PER_WINDOW = 250;
const ODD = ['"quoted"', 'a,b', 'back\\slash', '100%', '?q=1&x', 'héllo', '文档', '🚀', "it's", 'tab\there'];

/** A pool of distinct paths, some with every character a text format could trip on. */
function pathPool(n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    i % 7 === 0 ? `/docs/${ODD[i % ODD.length] ?? ''}/page-${i}` : `/docs/section-${i % 97}/page-${i}`,
  );
}

/** `rows` page rows as fetched windows of 250 rows, spread over days and projects. */
export function makeWindows(rows: number): WindowLoad[] {
  const pool = pathPool(5_000);
  const windows: WindowLoad[] = [];
  const fetchedAt = new Date();
  for (let start = 0, w = 0; start < rows; start += ROWS_PER_WINDOW, w++) {
    const n = Math.min(ROWS_PER_WINDOW, rows - start);
    const offset = (w * 37) % pool.length;
    const pages = Array.from({ length: n }, (_, i) => {
      const human = (start + i) % 1_000;
      const ai = (start + i) % 77;
      return { path: pool[(offset + i) % pool.length] as string, human, ai, total: human + ai - (ai >> 1) };
    });
    windows.push({
      projectId: `project-${w % PROJECTS}`,
      day: addDays('2000-01-01', Math.floor(w / PROJECTS)),
      site: { human: 5_000, ai: 500, total: 5_300 },
      pages,
      partial: false,
      pagesFetched: 1,
      attempts: 1,
      runId: 'bench',
      fetchedAt,
      apiTotalsTotal: 5_300,
    });
  }
  return windows;
}

/** The same rows as newline-delimited JSON, written in slices (one string of 5M rows would pass V8's limit). */
function writeNdjson(file: string, windows: readonly WindowLoad[]): void {
  const fd = openSync(file, 'w');
  try {
    let buf: string[] = [];
    const flush = (): void => {
      writeSync(fd, buf.join(''));
      buf = [];
    };
    for (const w of windows) {
      for (const p of w.pages) {
        buf.push(
          `${JSON.stringify({ project_id: w.projectId, day: w.day, path: p.path, human: p.human, ai: p.ai, total: p.total })}\n`,
        );
      }
      if (buf.length > 50_000) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
}

const READ_JSON_SQL = (file: string): string => `
INSERT INTO page_daily
SELECT project_id, day, path, human, ai, total
FROM read_json('${file.replaceAll("'", "''")}', format = 'newline_delimited',
  columns = {project_id: 'VARCHAR', day: 'DATE', path: 'VARCHAR', human: 'BIGINT', ai: 'BIGINT', total: 'BIGINT'})`;

async function countRows(path: string): Promise<number> {
  const db = await openDatabase(path, { readOnly: true });
  try {
    const [r] = await queryRows(db.connection, 'SELECT count(*) AS n FROM page_daily');
    return Number(r?.['n']);
  } finally {
    db.close();
  }
}

/** DuckDB's own ingest of the same rows into the same (migrated) table: the physical limit. */
async function timeReadJson(file: string): Promise<number> {
  const s = scratch();
  try {
    const db = await openDatabase(s.db);
    try {
      const t0 = performance.now();
      await db.connection.run(READ_JSON_SQL(file));
      return performance.now() - t0;
    } finally {
      db.close();
    }
  } finally {
    s.remove();
  }
}

/** The sync's real path: every window handed to the run's writer, which group-commits them. */
async function timeWriter(windows: readonly WindowLoad[], expectRows: number): Promise<number> {
  const s = scratch();
  try {
    (await openDatabase(s.db)).close();
    const t0 = performance.now();
    const writer = new WindowWriter(s.db, { drainLedger: () => [], idleCloseMs: 60_000 });
    await Promise.all(windows.map((w) => writer.load(w)));
    await writer.close();
    const ms = performance.now() - t0;
    const got = await countRows(s.db);
    if (got !== expectRows) throw new Error(`writer loaded ${got} rows, expected ${expectRows}`);
    return ms;
  } finally {
    s.remove();
  }
}

/** Before group commit: one transaction per window (what the writer did). */
async function timePerWindow(windows: readonly WindowLoad[]): Promise<number> {
  const s = scratch();
  try {
    const db = await openDatabase(s.db);
    try {
      const t0 = performance.now();
      for (const w of windows) await loadWindow(db, w);
      return performance.now() - t0;
    } finally {
      db.close();
    }
  } finally {
    s.remove();
  }
}

interface Row {
  readonly label: string;
  readonly rows: number;
  readonly baseMs: number[];
  readonly loaderMs: number[];
}

async function measure(
  ctx: BenchContext,
  label: string,
  rows: number,
  runs: number,
  loader: (ws: readonly WindowLoad[]) => Promise<number>,
): Promise<Row> {
  const windows = makeWindows(rows);
  const s = scratch();
  const file = join(s.dir, 'rows.ndjson');
  writeNdjson(file, windows);
  const out: Row = { label, rows, baseMs: [], loaderMs: [] };
  try {
    for (let i = 0; i < runs; i++) {
      // Paired and alternating, so a noisy neighbour hits both sides of a ratio alike.
      out.baseMs.push(await timeReadJson(file));
      out.loaderMs.push(await loader(windows));
      ctx.log(
        `load: ${label} ${thousands(rows)} rows run ${i + 1}/${runs}: read_json ${fixed(out.baseMs.at(-1) ?? NaN, 0)} ms, loader ${fixed(out.loaderMs.at(-1) ?? NaN, 0)} ms`,
      );
    }
  } finally {
    s.remove();
  }
  return out;
}

export const loadBench: Bench = {
  id: 'load',
  title: '3. Load throughput vs DuckDB read_json',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const runs = ctx.quick ? 3 : 5;
    const sizes = ctx.quick ? [200_000] : [1_000_000, 5_000_000];
    const oldRows = ctx.quick ? 25_000 : 100_000;
    const results: Row[] = [];
    results.push(await measure(ctx, 'before: one transaction per window', oldRows, runs, timePerWindow));
    for (const n of sizes) {
      results.push(
        await measure(
          ctx,
          'after: group commit, rows as JSON text (WindowWriter + loadPreparedBatch)',
          n,
          runs,
          (ws) => timeWriter(ws, n),
        ),
      );
    }
    const lines = results.map((r) => {
      const ratio = spread(r.loaderMs.map((ms, i) => ms / (r.baseMs[i] as number)));
      const base = spread(r.baseMs.map((ms) => r.rows / (ms / 1000)));
      const mine = spread(r.loaderMs.map((ms) => r.rows / (ms / 1000)));
      return { r, ratio, base, mine };
    });
    const after = lines.slice(1);
    const ok = after.every((l) => l.ratio.median <= 1.5);
    const markdown = [
      `Page rows already fetched and in memory, as windows of ${ROWS_PER_WINDOW} rows over ${PROJECTS} projects and consecutive days (paths include quotes, commas, backslashes, %, ?, unicode). Each run uses a fresh, migrated database file. Baseline in the same run, alternating with the loader: \`INSERT INTO page_daily SELECT ... FROM read_json('rows.ndjson', format='newline_delimited', columns={...})\` of the same rows into the same table. The loader's time includes opening the database (the writer opens it on first use) and committing; read_json's excludes both.`,
      '',
      table(
        ['loader', 'rows', 'read_json rows/s', 'loader rows/s', 'loader time / read_json time'],
        lines.map((l) => [
          l.r.label,
          thousands(l.r.rows),
          `${thousands(l.base.median)} (${thousands(l.base.min)}–${thousands(l.base.max)})`,
          `${thousands(l.mine.median)} (${thousands(l.mine.min)}–${thousands(l.mine.max)})`,
          showSpread(l.ratio, 2),
        ]),
      ),
      '',
      `- Target: within 1.5× of read_json: ${verdict(ok)}.`,
      `- The "before" row is measured on fewer rows (its cost is per window, ~linear in windows).`,
      '',
      reproduce('load'),
    ].join('\n');
    return { id: this.id, title: this.title, markdown };
  },
};
