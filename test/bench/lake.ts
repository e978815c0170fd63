import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDuckFile } from '../helpers/duck-file.js';
import { startS3Server } from '../helpers/s3-server.js';
import { reproduce, type Bench, type BenchContext, type BenchResult } from './context.js';
import { runCliProcess, type ProcessRun } from './procs.js';
import { fixed, table, thousands } from './stats.js';

/**
 * Issue 38: the lake export of a big history to a real S3 server (moto), in bounded memory, and
 * what a nightly re-export writes against the full one. The data is made by SQL in a DuckDB file
 * (no sync): 3 years of site and page tables over 5,000 paths, and analytics_events spread over
 * the same days, some with a long assistant answer in `properties`.
 */

const FIRST_DAY = '2023-11-01';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

interface LakeScale {
  readonly days: number;
  readonly paths: number;
  readonly events: number;
}

const FULL: LakeScale = { days: 1095, paths: 5000, events: 20_000_000 };
export const QUICK: LakeScale = { days: 120, paths: 1000, events: 500_000 };

/** The history, by SQL; `from`..`from + days` are the days filled. */
export function historySql(
  s: LakeScale,
  fromDay: number,
  days: number,
  eventsFrom: number,
  events: number,
): string[] {
  const day = `DATE '${FIRST_DAY}' + CAST(d AS INTEGER)`;
  return [
    `INSERT INTO site_daily SELECT 'bench', ${day}, 1000 + d, d % 97, 1000 + d + d % 97, false, now(), 'bench'
     FROM range(${fromDay}, ${fromDay + days}) t(d)`,
    `INSERT INTO page_daily SELECT 'bench', ${day}, '/docs/section-' || (p % 50) || '/page-' || p, (p * 7 + d) % 500, (p + d) % 40, (p * 7 + d) % 500 + (p + d) % 40
     FROM range(${fromDay}, ${fromDay + days}) t(d), range(${s.paths}) q(p)`,
    `INSERT INTO page_views_daily SELECT 'bench', ${day}, '/docs/section-' || (p % 50) || '/page-' || p, (p * 13 + d) % 900, (p + 3 * d) % 60, (p * 13 + d) % 900 + (p + 3 * d) % 60
     FROM range(${fromDay}, ${fromDay + days}) t(d), range(${s.paths}) q(p)`,
    // Events in time order over the days; one in 200 carries an assistant answer of ~2,000 characters.
    `INSERT INTO analytics_events (project_id, event_id, event_type, subdomain, created_at, day, path, referrer,
       referrer_host, traffic_class, visitor_key, anon_id, session_id, user_id, user_agent, properties, object_key, run_id, loaded_at)
     SELECT 'bench', 'ev-' || i, CASE WHEN i % 200 = 0 THEN 'docs.assistant.completed' ELSE 'docs.content.view' END, 'acme',
       t_at, CAST(t_at AS DATE), '/docs/section-' || (i % 50) || '/page-' || (i % ${s.paths}),
       CASE WHEN i % 3 = 0 THEN 'https://www.google.com/search?q=' || (i % 1000) END,
       CASE WHEN i % 3 = 0 THEN 'www.google.com' END,
       CASE WHEN i % 11 = 0 THEN 'ai_answers' ELSE 'human' END,
       md5(CAST(i % 250000 AS VARCHAR)), 'anon-' || (i % 250000), 'sess-' || (i // 7), NULL,
       'Mozilla/5.0 (X11; Linux x86_64) Chrome/' || (100 + i % 30),
       CASE WHEN i % 200 = 0 THEN json_object('question', 'How do I ' || i || '?', 'answer', repeat('The answer is in the guide. ', 70))
            ELSE json_object('title', 'Page ' || (i % ${s.paths})) END,
       'events/' || strftime(t_at, '%Y/%m/%d') || '.jsonl', 'bench', now()
     FROM (SELECT i, TIMESTAMPTZ '${FIRST_DAY} 00:00:00+00' + to_microseconds(CAST((i - ${eventsFrom}) * (${days} * 86400000000.0 / ${events}) AS BIGINT)) + INTERVAL (${fromDay}) DAY AS t_at
           FROM range(${eventsFrom}, ${eventsFrom + events}) r(i))`,
  ];
}

interface Summary {
  readonly objectsPut: number;
  readonly bytesPut: number;
  readonly objectsDeleted: number;
  readonly tables: readonly { table: string; rows: number; partitionsChanged: number }[];
}

function summaryOf(run: ProcessRun): Summary {
  if (run.code !== 0) throw new Error(`lake export failed (exit ${run.code}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout) as Summary;
}

export const lakeBench: Bench = {
  id: 'lake',
  title: '13. Lake export to S3: memory, and the nightly re-export against the full one',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const s = ctx.quick ? QUICK : FULL;
    const dir = mkdtempSync(join(tmpdir(), 'bench-lake-'));
    const db = join(dir, 'analytics.duckdb');
    const s3 = await startS3Server();
    try {
      await s3.createBucket('bench');
      const built = performance.now();
      await withDuckFile(db, async (d) => {
        for (const sql of historySql(s, 0, s.days - 1, 0, s.events)) await d.connection.run(sql);
      });
      ctx.log(`lake: history built by SQL in ${fixed((performance.now() - built) / 1000, 0)} s`);
      const env = { ...s3.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
      const args = ['export', '--db', db, '--to', 's3://bench/lake', '--json'];
      const full = await runCliProcess(args, env);
      const fullSummary = summaryOf(full);
      ctx.log(
        `lake: full export ${fixed(full.wallMs / 1000, 0)} s, peak ${fixed(full.maxRssMiB ?? NaN, 0)} MiB`,
      );
      const same = await runCliProcess(args, env);
      const sameSummary = summaryOf(same);
      // A night: one more day of every table, and the day before restated (late data).
      const perDay = Math.round(s.events / s.days);
      await withDuckFile(db, async (d) => {
        for (const sql of historySql(s, s.days - 1, 1, s.events, perDay)) await d.connection.run(sql);
        await d.connection.run(
          `UPDATE page_daily SET human = human + 1 WHERE day = DATE '${FIRST_DAY}' + ${s.days - 2}`,
        );
      });
      const nightly = await runCliProcess(args, env);
      const nightlySummary = summaryOf(nightly);
      ctx.log(
        `lake: nightly export ${fixed(nightly.wallMs / 1000, 0)} s, peak ${fixed(nightly.maxRssMiB ?? NaN, 0)} MiB`,
      );
      const rows = (x: Summary, t: string) => x.tables.find((r) => r.table === t)?.rows ?? NaN;
      const changed = (x: Summary) => x.tables.reduce((n, t) => n + t.partitionsChanged, 0);
      const line = (name: string, r: ProcessRun, x: Summary): string[] => [
        name,
        thousands(x.objectsPut),
        fixed(x.bytesPut / 1048576, 1),
        thousands(x.objectsDeleted),
        thousands(changed(x)),
        fixed(r.maxRssMiB ?? NaN, 0),
        fixed(r.cpuS ?? NaN, 1),
        fixed(r.wallMs / 1000, 1),
      ];
      const markdown = [
        `\`node dist/src/cli/main.js export --db FILE --to s3://bench/lake --json\` as a process under /usr/bin/time, into moto_server on loopback. The DuckDB file is made by SQL: ${s.days} days from ${FIRST_DAY} of site_daily, page_daily and page_views_daily over ${thousands(s.paths)} paths (${thousands(rows(fullSummary, 'page_daily'))} rows each), and ${thousands(rows(fullSummary, 'analytics_events'))} analytics_events over the same days (one in 200 with a ~2,000-character assistant answer in properties). "Nightly": one more day of every table (${thousands(perDay)} events) and the day before restated in page_daily, then the same command.`,
        '',
        table(
          [
            'export',
            'objects written',
            'MiB written',
            'objects deleted',
            'partitions read',
            'peak RSS MiB',
            'CPU s',
            'wall s',
          ],
          [
            line('full (empty prefix)', full, fullSummary),
            line('again, nothing new', same, sameSummary),
            line('nightly', nightly, nightlySummary),
          ],
        ),
        '',
        `- Nightly against full: ${fixed((100 * nightlySummary.objectsPut) / fullSummary.objectsPut, 2)}% of the objects, ${fixed((100 * nightlySummary.bytesPut) / fullSummary.bytesPut, 2)}% of the bytes. Peak RSS target < 300 MiB: ${Math.max(full.maxRssMiB ?? Infinity, nightly.maxRssMiB ?? Infinity) < 300 ? 'met' : 'missed'}.`,
        '',
        reproduce('lake'),
      ].join('\n');
      return { id: 'lake', title: lakeBench.title, markdown };
    } finally {
      await s3.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
