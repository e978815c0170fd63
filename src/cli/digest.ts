import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { alertProjects } from '../insights/alerts.js';
import { isoWeekStart, lastCompleteWeek, readDigest, type Digest } from '../insights/digest.js';
import { chatText } from '../notify/alert-payload.js';
import { checkWebhookUrl, postJson, registerWebhookSecret } from '../notify/webhook.js';
import { digestHtml } from '../report/digest-html.js';
import { digestMarkdown } from '../report/digest-markdown.js';
import { DIGEST_MARKDOWN_MARKER } from '../report/marker.js';
import { WEBHOOK_ENV } from './alerts.js';
import { openToRead } from './open-readonly.js';
import { outputFile } from './output-file.js';
import type { CommandResult } from './result.js';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp, dbTargetOf, placeOf } from './destination-flags.js';

interface DigestFlags {
  db?: string;
  schema?: string;
  project?: string;
  week?: string;
  format: 'markdown' | 'html';
  out?: string;
  force?: boolean;
  webhook?: string;
  json?: boolean;
}

export function registerDigest(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('digest')
    .summary('the week at a glance, in Markdown (Slack, GitHub) or HTML (e-mail)')
    .description(
      `The ISO week (default: each project's last complete week) at a glance, from the database
alone: visitors and views with the change, pages up and down, top searches and new ones
without a click, feedback received and still open, assistant questions and the unanswered
share, the top content gaps, and the fixes and their effect. --webhook (or ${WEBHOOK_ENV})
sends the Markdown digest as the "text" of a JSON message.

--out FILE replaces an earlier digest or report of this tool (recognised by its
generator line) but no other file unless --force, never the database, and never
anything but a regular file (a FIFO, a device, a folder). It is written to a
temporary file in the same folder and renamed into place.`,
    )
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('-p, --project <id>', 'only this project (default: every project in the database)')
    .option('--week <week>', 'the ISO week, e.g. 2026-W47 (default: the last complete week)')
    .addOption(
      new Option('--format <format>', 'markdown or html').choices(['markdown', 'html']).default('markdown'),
    )
    .option('--out <file>', 'write the digest to this file instead of stdout')
    .option(
      '--force',
      'let --out replace an existing file that mintlify-etl did not write (refused by default)',
    )
    .option(
      '--webhook <url>',
      `POST the Markdown digest to this URL (env ${WEBHOOK_ENV}); a secret, never printed`,
    )
    .option('--json', 'print the digest data as one JSON object on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ mintlify-etl digest
  $ mintlify-etl digest --week 2026-W47 --format html --out digest.html`,
    )
    .action((flags: DigestFlags) => run(() => digestCommand(flags)));
}

async function digestCommand(flags: DigestFlags): Promise<CommandResult> {
  const fromEnv = process.env[WEBHOOK_ENV]?.trim();
  const url = flags.webhook ?? (fromEnv === '' ? undefined : fromEnv);
  if (url !== undefined) {
    registerWebhookSecret(url);
    checkWebhookUrl(url, flags.webhook !== undefined ? '--webhook' : WEBHOOK_ENV);
  }
  if (flags.week !== undefined) isoWeekStart(flags.week);
  const target = dbTargetOf(flags);
  // Checked before any work: a refused --out costs nothing and the database is never replaced.
  const out =
    flags.out === undefined
      ? undefined
      : outputFile({
          flag: '--out',
          given: flags.out,
          db: placeOf(target).file,
          force: flags.force === true,
          what: 'the digest',
          example: flags.format === 'html' ? 'digest.html' : 'digest.md',
        });
  const db = await openToRead(target);
  const session = db.session;
  const digests: Digest[] = [];
  try {
    const projects = await alertProjects(session);
    if (flags.project !== undefined && !projects.includes(flags.project)) {
      throw new UsageError(
        `project ${flags.project} has no data in ${db.label}: see \`mintlify-etl status\``,
        {
          project: flags.project,
        },
      );
    }
    for (const p of flags.project === undefined ? projects : [flags.project]) {
      const week = flags.week ?? (await lastCompleteWeek(session, p));
      if (week !== null) digests.push(await readDigest(session, p, week));
    }
  } finally {
    await db.close();
  }
  if (url !== undefined && digests.length > 0)
    await postJson(url, { text: chatText(digestMarkdown(digests)) });
  if (flags.json) return { exitCode: 0, json: { digests } };
  const text =
    digests.length === 0
      ? 'No complete week loaded yet: nothing to digest.\n'
      : flags.format === 'html'
        ? digestHtml(digests)
        : digestMarkdown(digests);
  if (out === undefined) process.stdout.write(text);
  // The HTML digest carries its marker in its head; any other text gets a first line that says it.
  else await out.write(text.includes('<meta name="generator"') ? text : `${DIGEST_MARKDOWN_MARKER}\n${text}`);
  return { exitCode: 0 };
}
