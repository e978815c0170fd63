/*
 * Go/no-go probe for issue 35 item 14 (by hand, not part of `npm run bench`): PostgreSQL parsing
 * the event lines itself. On the speed folder: a plain COPY of the typed rows the sync stored
 * (timeCopy's statement) against COPY of the raw lines into a one-column stage plus one prepared
 * INSERT ... SELECT per object doing the line rules in SQL, straight into a table like
 * analytics_events (ON CONFLICT on its key). Server CPU read from /proc of the backend, JS CPU
 * from process.cpuUsage, wall from performance.now; the two alternate. Outcome and figures:
 * BENCHMARKS.md, benchmark 12 ("PostgreSQL parsing the lines itself"): no-go.
 *
 *   npm run build && node dist/test/bench/pg-sql-lines-probe.js SCALE RUNS MODE
 *   MODE: safe (the rules, each line cast to jsonb by a PL/pgSQL function with an exception
 *   block) | floor (no rules: fields read as text unchecked, no class, hash or host: the least any
 *   server-side parse pays) | plain (the rules with a bare ::jsonb cast: an invalid line aborts)
 *   KEEP=1: after the sync, print the server and wait for SIGUSR2 (to try statements by psql).
 *
 * Traps met on the way, each worth an order of magnitude: PostgreSQL inlines a CTE referenced
 * once, so a column holding a parse is re-parsed at each use (LATERAL (... OFFSET 0) evaluates it
 * once); the planner puts Memoize nodes keyed on jsonb (enable_memoize off); trafficClassSql folds
 * the user agent with translate() once per entry (fold once); planning costs ~33 ms a statement
 * (a prepared statement); a regex repetition count tops at 255.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { PLAIN_TYPES } from '../../src/load/postgres/session.js';
import { loadTrafficClasses, trafficClassSql } from '../../src/sources/events/traffic-class.js';
import { startPrivatePostgres } from '../helpers/postgres.js';
import { writeEventFolder } from './event-folder.js';
import { COPY_TABLE, copyRowsOut, eventSyncProcess } from './event-runs.js';
import { processCpuS } from './proc-cpu.js';

const SCHEMA = 'mintlify';

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name.endsWith('.jsonl')) out.push(join(e.parentPath, e.name));
  return out.sort();
}

const LF = 0x0a;
const BAD = [0x00, 0x01, 0x02, 0x0d];
const EMPTY = Buffer.alloc(0);

/**
 * The object's bytes as COPY csv input of one column: every line kept in place (its ord), a line
 * the server must not see (control bytes, BOM, `\u0000`-like escapes, invalid UTF-8) sent empty
 * (NULL) and returned for the slow path.
 */
export function copyBody(buf: Buffer): { body: Buffer[]; slow: number[]; lines: number } {
  let dirty =
    !isUtf8(buf) || buf.indexOf('\\u') !== -1 || buf.indexOf('\n\\.') !== -1 || buf.indexOf('\ufeff') !== -1;
  for (const b of BAD) if (!dirty && buf.indexOf(b) !== -1) dirty = true;
  let lines = 0;
  let start = 0;
  const slow: number[] = [];
  const body: Buffer[] = [];
  if (!dirty) {
    for (let i = buf.indexOf(LF); i !== -1; i = buf.indexOf(LF, i + 1)) lines++;
    if (buf.length > 0 && buf[buf.length - 1] !== LF) lines++;
    return { body: [buf], slow, lines };
  }
  while (start < buf.length) {
    let end = buf.indexOf(LF, start);
    if (end === -1) end = buf.length;
    let line = buf.subarray(start, end);
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
    const ok =
      isUtf8(line) &&
      !BAD.some((b) => line.indexOf(b) !== -1) &&
      !/\\u(?:0000|[dD][89a-fA-F])/.test(line.indexOf('\\u') === -1 ? '' : line.toString('latin1')) &&
      line.indexOf('\ufeff') === -1 &&
      !(line.length === 2 && line[0] === 0x5c && line[1] === 0x2e);
    if (!ok) slow.push(lines + 1);
    body.push(ok ? line : EMPTY, Buffer.from('\n'));
    lines++;
    start = end + 1;
  }
  return { body, slow, lines };
}

function hmacPads(key: Buffer): [Buffer, Buffer] {
  const k = Buffer.alloc(64);
  (key.length > 64 ? createHash('sha256').update(key).digest() : key).copy(k);
  return [Buffer.from(k.map((b) => b ^ 0x36)), Buffer.from(k.map((b) => b ^ 0x5c))];
}

const TEXT = (j: string, k: string): string =>
  `CASE WHEN jsonb_typeof(${j}->'${k}') = 'string' THEN ${j}->>'${k}' END`;
/** A text field is certain when it is a string, absent, null, an object or an array. */
const TEXT_OK = (j: string, k: string): string =>
  `coalesce(jsonb_typeof(${j}->'${k}') NOT IN ('number', 'boolean'), true)`;

function selectSql(parse: string, classSql: string): string {
  const fields = ['anon_id', 'user_agent', 'referrer', 'path', 'subdomain', 'session_id', 'user_id', 'event'];
  return `
WITH pay AS (
  SELECT ord, j, p
  FROM stage_raw r,
    LATERAL (SELECT ${parse}(r.line) AS j OFFSET 0) e,
    LATERAL (SELECT CASE WHEN NOT j ? 'payload' THEN j
         WHEN jsonb_typeof(j->'payload') = 'string' THEN ${parse}(j->>'payload')
         ELSE j->'payload' END AS p OFFSET 0) pp
  WHERE r.line IS NOT NULL AND jsonb_typeof(j) = 'object'
), f AS (
  SELECT ord, j, p,
    CASE jsonb_typeof(p->'event_id') WHEN 'string' THEN p->>'event_id'
      WHEN 'number' THEN CASE WHEN p->>'event_id' ~ '^-?[0-9]{1,15}$' THEN p->>'event_id' END END AS id,
    p->>'created_at' AS c,
    ${fields.map((k) => `${TEXT('p', k)} AS ${k === 'event' ? 'event_name' : k}`).join(',\n    ')},
    ${TEXT('j', 'eventType')} AS event_type0,
    props,
    ${fields.map((k) => TEXT_OK('p', k)).join(' AND ')} AND ${TEXT_OK('j', 'eventType')} AS texts_ok
  FROM pay, LATERAL (SELECT CASE WHEN jsonb_typeof(p->'properties') = 'string' THEN coalesce(${parse}(p->>'properties'), p->'properties')
      ELSE p->'properties' END AS props OFFSET 0) pr
  WHERE jsonb_typeof(p) = 'object'
), certain AS (
  SELECT *, CASE WHEN ip_text IS NULL AND (anon_id IS NULL OR anon_id = '') THEN NULL
    ELSE encode(sha256($2::bytea || sha256($1::bytea || CASE WHEN anon_id <> '' THEN '\\x6100'::bytea || convert_to(anon_id, 'UTF8')
      ELSE '\\x6900'::bytea || convert_to(ip_text, 'UTF8') || '\\x00'::bytea || convert_to(coalesce(user_agent, ''), 'UTF8') END)), 'hex') END AS visitor_key
  FROM (SELECT *, CASE WHEN jsonb_typeof(p->'ip') = 'string' AND p->>'ip' <> '' THEN p->>'ip' END AS ip_text FROM f) f2,
    LATERAL (SELECT translate(user_agent, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AS ua_folded OFFSET 0) ua
  WHERE texts_ok AND length(id) <= 512 AND id ~ '^[!-~]+$'
    AND c ~ '^(20[0-9]{2}|21[0-9]{2})-(0[1-9]|1[0-2])-([0-2][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?Z$'
    AND substr(c, 9, 2) <= CASE substr(c, 6, 2) WHEN '02' THEN CASE WHEN (substr(c,1,4)::int % 4 = 0 AND substr(c,1,4)::int % 100 <> 0) OR substr(c,1,4)::int % 400 = 0 THEN '29' ELSE '28' END
      WHEN '04' THEN '30' WHEN '06' THEN '30' WHEN '09' THEN '30' WHEN '11' THEN '30' ELSE '31' END
    AND (referrer IS NULL OR referrer = '' OR referrer ~ '^[hH][tT][tT][pP][sS]?://[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?([/?#][!-~]*)?$')
    AND (props IS NULL OR jsonb_typeof(props) <> 'object' OR NOT jsonb_path_exists(props, 'strict $.** ? (@.type() == "number")')
         OR props::text !~ '[0-9]{16}|[0-9]\\.[0-9]*0([^0-9]|$)')
)
INSERT INTO ${SCHEMA}.bench_sql_events
SELECT DISTINCT ON (id) $4, id, coalesce(event_type0, event_name), subdomain, c::timestamptz, left(c, 10)::date, path, referrer,
  CASE WHEN referrer <> '' THEN nullif(regexp_replace(translate(substring(referrer from '://([^/?#:]*)'), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '^www\\.', ''), '') END,
  ${classSql}, visitor_key, anon_id, session_id, user_id, user_agent, CASE WHEN jsonb_typeof(props) = 'null' THEN NULL ELSE props END, $3, 'probe', now()
FROM certain ORDER BY id, ord
ON CONFLICT (project_id, event_id) DO NOTHING`;
}

/**
 * A floor, not the rules: the envelope parsed (safe), the payload taken as it is, fields read as
 * text with no check, no class, no hash, no referrer host: what any server-side parse must pay at
 * least besides the insert.
 */
function floorSql(parse: string): string {
  return `
INSERT INTO ${SCHEMA}.bench_sql_events
SELECT DISTINCT ON (id) $4, id, j->>'eventType', p->>'subdomain', c::timestamptz, left(c, 10)::date, p->>'path', p->>'referrer', NULL,
  'human', $1::text || $2::text, p->>'anon_id', p->>'session_id', p->>'user_id', p->>'user_agent', p->'properties', $3, 'probe', now()
FROM stage_raw r,
  LATERAL (SELECT ${parse}(r.line) AS j OFFSET 0) e,
  LATERAL (SELECT CASE WHEN jsonb_typeof(j->'payload') = 'string' THEN ${parse}(j->>'payload') ELSE j->'payload' END AS p OFFSET 0) pp,
  LATERAL (SELECT p->>'event_id' AS id, p->>'created_at' AS c OFFSET 0) f
WHERE r.line IS NOT NULL AND id IS NOT NULL AND c ~ '^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?Z$'
ORDER BY id, ord
ON CONFLICT (project_id, event_id) DO NOTHING`;
}

async function serverCpu(c: pg.Client): Promise<() => number> {
  const pid = Number((await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
  const t0 = processCpuS(pid);
  return () => processCpuS(pid) - t0;
}

async function runCopy(url: string, file: string): Promise<[number, number]> {
  const c = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await c.connect();
  await c.query(`TRUNCATE ${COPY_TABLE}`);
  const cpu = await serverCpu(c);
  const t0 = performance.now();
  await c.query('BEGIN');
  await pipeline(
    createReadStream(file, { highWaterMark: 256 * 1024 }),
    c.query(copyFrom(`COPY ${COPY_TABLE} FROM STDIN`)),
  );
  await c.query('COMMIT');
  const ms = performance.now() - t0;
  const s = cpu();
  await c.end();
  return [ms, s];
}

async function runSql(
  url: string,
  dir: string,
  sql: string,
  pads: [Buffer, Buffer],
  setup: string[],
): Promise<[number, number, number, number, number]> {
  const c = new pg.Client({ connectionString: url, types: PLAIN_TYPES });
  await c.connect();
  await c.query(`TRUNCATE ${SCHEMA}.bench_sql_events`);
  await c.query('SET enable_memoize = off');
  for (const s of setup) await c.query(s);
  await c.query('CREATE TEMP TABLE stage_raw (ord bigint GENERATED ALWAYS AS IDENTITY, line text)');
  const cpu = await serverCpu(c);
  const js0 = process.cpuUsage();
  const t0 = performance.now();
  let rows = 0;
  let slow = 0;
  for (const f of files(dir)) {
    const { body, slow: s } = copyBody(readFileSync(f));
    slow += s.length;
    await c.query('BEGIN');
    await c.query('TRUNCATE stage_raw RESTART IDENTITY');
    await pipeline(
      Readable.from(body),
      c.query(copyFrom(`COPY stage_raw (line) FROM STDIN (FORMAT csv, DELIMITER e'\\x02', QUOTE e'\\x01')`)),
    );
    const r = await c.query({
      name: 'lines',
      text: sql,
      values: [pads[0], pads[1], f.slice(dir.length + 1), 'bench'],
    });
    rows += r.rowCount ?? 0;
    await c.query('COMMIT');
  }
  const ms = performance.now() - t0;
  const s = cpu();
  const js = process.cpuUsage(js0);
  await c.end();
  return [ms, s, (js.user + js.system) / 1e6, rows, slow];
}

async function main(): Promise<void> {
  const scale = Number(process.argv[2] ?? 94);
  const runs = Number(process.argv[3] ?? 3);
  const mode = process.argv[4] ?? 'safe';
  const work = mkdtempSync(join(tmpdir(), 'pg-sql-lines-'));
  const server = await startPrivatePostgres('bench');
  try {
    const folder = writeEventFolder(join(work, 'folder'), { scale });
    console.log(
      `folder: ${folder.objects} objects, ${(folder.bytes / 2 ** 20).toFixed(0)} MiB, ${folder.events} events`,
    );
    const sync = await eventSyncProcess(folder.dir, server.url, folder.events);
    console.log(`sync: wall ${sync.wallMs.toFixed(0)} ms, CLI cpu ${sync.cpuS} s`);
    const rowsFile = join(work, 'rows.copy');
    const n = await copyRowsOut(server.url, rowsFile);
    console.log(`typed rows: ${n}, ${(statSync(rowsFile).size / 2 ** 20).toFixed(0)} MiB`);
    const c = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await c.connect();
    await c.query(`CREATE TABLE ${SCHEMA}.bench_sql_events (LIKE ${SCHEMA}.analytics_events INCLUDING ALL)`);
    const key = (
      await c.query<{ k: Buffer }>(`SELECT * FROM ${SCHEMA}.event_hash_key`).catch(() => ({ rows: [] }))
    ).rows[0];
    console.log('hash key row', key === undefined ? 'none' : Object.keys(key));
    await c.end();
    const lists = loadTrafficClasses();
    const classSql = trafficClassSql('ua_folded', lists).replaceAll(
      "translate(ua_folded, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')",
      'ua_folded',
    );
    const setup =
      mode !== 'plain'
        ? [
            `CREATE FUNCTION pg_temp.try_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN t::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$`,
          ]
        : [];
    const parse = mode !== 'plain' ? 'pg_temp.try_jsonb' : 'plain_jsonb';
    const sql = (mode === 'floor' ? floorSql(parse) : selectSql(parse, classSql)).replaceAll(
      'plain_jsonb(',
      '(',
    );
    const pads = hmacPads(Buffer.alloc(32, 7));
    if (process.env['KEEP'] !== undefined) {
      console.log(`server ${server.url}`);
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(work, 'select.sql'), sql);
      console.log(`sql in ${join(work, 'select.sql')}, folder ${folder.dir}`);
      const alive = setInterval(() => {}, 1000);
      await new Promise((r) => process.once('SIGUSR2', r));
      clearInterval(alive);
    }
    for (let i = 0; i < runs; i++) {
      const [cm, cs] = await runCopy(server.url, rowsFile);
      console.log(`COPY typed: wall ${cm.toFixed(0)} ms, server cpu ${cs.toFixed(2)} s`);
      const [sm, ss, js, rows, slow] = await runSql(server.url, folder.dir, sql, pads, setup);
      console.log(
        `raw+SQL (${mode}): wall ${sm.toFixed(0)} ms, server cpu ${ss.toFixed(2)} s, JS cpu ${js.toFixed(2)} s, rows ${rows}, JS-slow lines ${slow}`,
      );
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
