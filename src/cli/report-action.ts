import { UsageError } from '../errors.js';
import { gatherReport, hasReportViews, listProjects } from '../report/data.js';
import { hasReport, type ReportData } from '../report/model.js';
import { eventProjects } from '../insights/event-stream.js';
import { renderTerminal, shouldColor, terminalColumns } from '../report/terminal.js';
import { clockFromEnv } from './clock.js';
import { openToRead } from './open-readonly.js';
import { projectIds } from './options.js';
import { outputFile } from './output-file.js';
import type { CommandResult } from './result.js';
import { dbTargetOf, placeOf } from './destination-flags.js';
import type { ReportFlags } from './report.js';

/*
 * What `mintlify-etl report` does. Its flags and help are report.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function reportCommand(flags: ReportFlags): Promise<CommandResult> {
  const only = flags.project !== undefined ? projectIds([flags.project]) : undefined;
  const target = dbTargetOf(flags);
  const htmlFile =
    flags.html !== undefined
      ? outputFile({
          flag: '--html',
          given: flags.html,
          db: placeOf(target).file,
          force: flags.force === true,
          what: 'the page',
          example: 'report.html',
        })
      : undefined;
  const db = await openToRead(target);
  let data: ReportData;
  try {
    const session = db.session;
    if (!(await hasReportViews(session))) {
      throw new UsageError(
        `${db.label} has no mintlify-etl views (is it a mintlify-etl database?): run \`mintlify-etl sync\` on it first`,
        { path: db.label },
      );
    }
    // A project with only the event stream loaded is known too: it gets its event section.
    const withEvents = await eventProjects(session);
    const known = [...new Set([...(await listProjects(session)), ...withEvents.map((e) => e.projectId)])];
    const missing = (only ?? []).filter((p) => !known.includes(p));
    if (missing.length > 0 && known.length > 0) {
      throw new UsageError(
        `no data for project ${missing.map((p) => `"${p}"`).join(', ')} in ${db.label}; it holds: ${known.join(', ')}`,
        { missing, known },
      );
    }
    const now = clockFromEnv();
    data = await gatherReport(session, {
      days: flags.days,
      projects: only ?? known,
      eventProjects: withEvents,
      includePersonalData: flags.includePersonalData === true,
      ...(now ? { now: new Date(now()) } : {}),
    });
  } finally {
    await db.close();
  }

  if (htmlFile !== undefined) {
    // Loaded only when asked for: Plot, d3 and jsdom take a noticeable time to import.
    const { renderHtml } = await import('../report/html.js');
    await htmlFile.write(renderHtml(data));
  }
  if (flags.json) {
    if (!hasReport(data)) process.stderr.write('no data loaded yet: run `mintlify-etl sync` first\n');
    return { exitCode: 0, json: data };
  }
  // An empty database is not an error: the text says so and how to fill it.
  process.stdout.write(
    renderTerminal(data, { color: shouldColor(process.stdout), width: terminalColumns(process.stdout) }),
  );
  return { exitCode: 0 };
}
