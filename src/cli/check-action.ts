import { loadApiKey } from '../api/key.js';
import { runCheck, type CheckResult } from '../pipeline/check.js';
import { checkEventSource, type EventSourceCheck } from '../pipeline/check-events.js';

import { parseRateLimit } from '../util/duration.js';
import { safeText } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import { syncSelection } from './event-flags.js';
import { apiUrl, projectIds } from './options.js';
import type { CommandResult } from './result.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import { resolveBudgetScope } from '../api/budget-scope.js';
import type { CheckFlags } from './check.js';

/*
 * What `mintlify-etl check` does. Its flags and help are check.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function checkCommand(flags: CheckFlags): Promise<CommandResult> {
  const { streams, events } = syncSelection({
    ...(flags.streams !== undefined ? { streams: flags.streams } : {}),
    ...(flags.events !== undefined ? { events: flags.events } : {}),
  });
  const target = dbTargetOf(flags);
  const place = placeOf(target);
  // Only the API side needs a project and a key: `--streams events` checks the bucket alone.
  const api = streams.length === 0 ? undefined : await checkApi(flags, streams, place);
  const source = events === undefined ? undefined : await checkEventSource(events.source);
  const exitCode = Math.max(api?.exitCode ?? 0, source?.exitCode ?? 0);
  if (flags.json) return { exitCode, json: { ...(api ?? {}), exitCode, events: source ?? null } };
  process.stdout.write(safeText(describe(api, source, target.label)));
  return { exitCode };
}

async function checkApi(
  flags: CheckFlags,
  streams: ReturnType<typeof syncSelection>['streams'],
  place: ReturnType<typeof placeOf>,
): Promise<CheckResult> {
  place.check();
  const projects = projectIds(flags.project);
  const rateLimit = parseRateLimit(flags.rateLimit);
  const url = apiUrl(flags.apiUrl);
  const apiKey = await loadApiKey({ apiKeyFile: flags.apiKeyFile });
  const budgetScope = resolveBudgetScope({ name: flags.budgetScope, apiKey });
  const now = clockFromEnv();
  return runCheck({
    projects,
    streams,
    apiUrl: url,
    apiKey,
    place,
    budgetScope,
    rateLimit,
    ...(now ? { now } : {}),
  });
}

function describe(r: CheckResult | undefined, source: EventSourceCheck | undefined, db: string): string {
  const lines = r === undefined ? [] : apiLines(r, db);
  if (source !== undefined) {
    lines.splice(
      r === undefined ? 0 : r.projects.length,
      0,
      `${source.ok ? 'ok  ' : 'FAIL'}  events  ${source.source}  ${source.detail}`,
    );
    if (r === undefined)
      lines.push(
        `${source.listRequests} listing request${source.listRequests === 1 ? '' : 's'}, no API request`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function apiLines(r: CheckResult, db: string): string[] {
  const width = Math.max(...r.projects.map((p) => p.projectId.length));
  const sw = Math.max(...r.projects.map((p) => p.stream.length));
  const lines = r.projects.map(
    (p) =>
      `${p.ok ? 'ok  ' : p.budgetSpent ? 'WAIT' : 'FAIL'}  ${p.projectId.padEnd(width)}  ${p.stream.padEnd(sw)}  ${p.detail}`,
  );
  const b = r.budget;
  const frees = b.remaining === 0 && b.freesAt !== null ? `, the next frees at ${b.freesAt}` : '';
  lines.push(
    `${r.requests} request${r.requests === 1 ? '' : 's'} spent; budget ${b.rateLimit}: ${b.remaining} left by this database's ledger${frees} (other tools using the same organization's key are not counted)`,
  );
  if (r.createdDb) lines.push(`created ${db} to record them, so that the next sync counts them`);
  return lines;
}
