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
import { dbTargetOf, placeOf } from './destination-flags.js';
import type { DigestFlags } from './digest.js';

/*
 * What `mintlify-etl digest` does. Its flags and help are digest.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function digestCommand(flags: DigestFlags): Promise<CommandResult> {
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
