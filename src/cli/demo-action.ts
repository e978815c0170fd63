import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_STREAMS, streamByName } from '../streams/index.js';
import { validateApiKey } from '../api/key.js';
import { startEmulator } from '../emulator/index.js';
import { writeEventsFolder } from '../emulator/events/index.js';
import { runSync } from '../pipeline/sync.js';
import { gatherReport, listProjects } from '../report/data.js';
import { renderTerminal, shouldColor, terminalColumns } from '../report/terminal.js';
import { addDays, todayUtc } from '../util/day.js';
import { formatDuration, parseRateLimit } from '../util/duration.js';
import { createLogger } from '../util/log.js';
import { shellWord } from '../util/shell-word.js';
import { openToRead } from './open-readonly.js';
import { placeOf } from './destination-flags.js';
import { namedAgain, parseDbTarget, type DbTarget } from '../load/target.js';
import { createProgress } from './progress-bar.js';
import { demoAgentClock, fixStory, replayFixes } from './demo-story.js';
import type { CommandResult } from './result.js';
import { selfCommand } from './self-command.js';
import type { DemoFlags } from './demo.js';

/*
 * What `mintlify-etl demo` does. Its flags and help are demo.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

/** The default streams and the cheap opt-in ones, so the report shows every section. */
const DEMO_STREAMS = [...DEFAULT_STREAMS, 'assistant_threads', 'visitors_weekly', 'visitors_monthly'];

export async function demoCommand(flags: DemoFlags): Promise<CommandResult> {
  const log = createLogger();
  // 600 paths gives days of 0, 250, 251 and 500 rows: every pagination case shows up.
  // A bad --db is a usage error before the emulator starts or anything is printed.
  const target = parseDbTarget(flags.db, flags.schema);
  const place = placeOf(target);
  place.check();
  const emu = await startEmulator({
    seed: flags.seed,
    days: flags.days + 7,
    paths: 600,
    latencyMs: 5,
    pollsToFinish: 2,
    agentClock: demoAgentClock,
  });
  await replayFixes(emu, place);
  log.info(
    `started the emulator at ${emu.url} (project ${emu.projectId}); syncing ${flags.days} days into ${flags.db}`,
  );
  const apiKey = validateApiKey(emu.apiKey, 'the emulator key');
  // The Enterprise event stream as a folder mirroring the bucket: the report's event section.
  const events = mkdtempSync(join(tmpdir(), 'mintlify-etl-demo-events-'));
  const written = await writeEventsFolder(events, { seed: flags.seed, days: flags.days, endDay: todayUtc() });
  log.info(
    // Not its path: the folder is removed when the sync is done, and a path printed would lead nowhere.
    `wrote an Enterprise event stream of ${written.objects} objects (${written.events ?? '?'} events) to a temporary folder (removed after the sync)`,
  );
  const options = {
    projects: [emu.projectId],
    streams: DEMO_STREAMS.map(streamByName),
    from: addDays(todayUtc(), -flags.days),
    lookback: 3,
    place,
    // The real service allows 100/1h; a demo that took hours would teach nothing. Four streams of
    // 90 days are ~750 requests: at 600/1m a first look waited a whole minute for the budget.
    rateLimit: parseRateLimit('3000/1m'),
    maxWaitMs: 60_000,
    concurrency: 4,
    includeToday: false,
    dryRun: false,
    apiUrl: emu.url,
    apiKey,
    logger: log,
  };
  let summary;
  let story: string[];
  try {
    const progress = createProgress();
    summary = await runSync({ ...options, events: { source: events }, ...(progress ? { progress } : {}) });
    story = await fixStory({
      emu,
      apiKey,
      place,
      log,
      resync: async (from) => {
        await runSync({ ...options, streams: [streamByName('assistant')], from, refresh: true });
      },
    });
  } finally {
    await emu.close();
    rmSync(events, { recursive: true, force: true });
  }
  log.info(
    `synced ${flags.days} days of ${DEMO_STREAMS.join(', ')} (${summary.windows.loaded} windows, ${summary.rows} rows) with ${summary.requests} requests in ${formatDuration(summary.durationMs)}`,
  );

  const db = await openToRead(target);
  try {
    const session = db.session;
    const data = await gatherReport(session, { days: 28, projects: await listProjects(session) });
    process.stdout.write(
      renderTerminal(data, { color: shouldColor(process.stdout), width: terminalColumns(process.stdout) }),
    );
    process.stdout.write(`\n\n${story.join('\n')}`);
  } finally {
    await db.close();
  }
  process.stdout.write(nextSteps(target));
  return { exitCode: summary.exitCode };
}

/**
 * The commands to try next, runnable as printed from any folder: the CLI and every path in
 * them are absolute, since the demo's --db is relative to the folder it ran in.
 */
function nextSteps(target: DbTarget): string {
  const cli = selfCommand();
  // A URL is repeated without its password (PGPASSWORD or ~/.pgpass supply it again).
  const again = namedAgain(target);
  const dir = again.folder;
  const at = `--db ${shellWord(again.db)}${again.schema === undefined ? '' : ` --schema ${again.schema}`}`;
  return `
Next, try:
  ${cli} query ${at} "SELECT day, human, ai, total, total_7d_avg, total_wow_pct FROM v_site_daily ORDER BY day DESC LIMIT 7"
  ${cli} query ${at} "SELECT path, total_visitor_days_7d, change_pct FROM v_page_trends ORDER BY rank LIMIT 10"
  ${cli} report ${at} --html ${shellWord(join(dir, 'report.html'))}     # open it in a browser
  ${cli} export ${at} --out ${shellWord(join(dir, 'export'))}           # hive-partitioned Parquet
  ${cli} query ${at} "SELECT * FROM event_visitors(current_date - 28, current_date)"   # true uniques of 28 days (event stream)
  ${cli} status ${at}
  ${cli} gaps ${at}                               # what the docs fail to answer
  ${cli} query ${at} "SELECT kind, subject, measure_before, measure_after, verdict FROM v_gap_outcomes"
  ${cli} emulator --rate-limit 100/1h                        # then sync against it yourself (see README)
`;
}
