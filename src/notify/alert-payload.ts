import { createHash } from 'node:crypto';
import type { Alert } from '../insights/alert.js';

/**
 * The id of one message: a hash of the ids of the alerts it carries, so the same alerts posted
 * again (a retry, a --resend) carry the same id, in the payload's `id` and the Idempotency-Key
 * header. A receiver that wants exactly once drops a message id, or an alert id, it has seen.
 */
export function deliveryId(alerts: readonly Alert[]): string {
  const ids = alerts.map((a) => `${a.projectId}|${a.id}`).sort();
  return `dl_${createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 16)}`;
}

/**
 * One payload that Slack and Microsoft Teams incoming webhooks both display as it is: each reads
 * `text` (Markdown both can render) and ignores the other's keys; Slack adds `attachments` (its
 * fields), Teams the MessageCard `sections` (its facts). `alerts` is the same list for a script,
 * each with its stable `id`; `id` names the message (see deliveryId).
 */
export function alertPayload(alerts: readonly Alert[]): Record<string, unknown> {
  const summary = `mintlify-etl: ${alerts.length} alert${alerts.length === 1 ? '' : 's'}`;
  const text = [
    `*${summary}*`,
    ...alerts.map((a) => `• [${a.projectId} · ${a.rule}] ${chatText(a.message)}`),
  ].join('\n');
  return {
    id: deliveryId(alerts),
    text,
    attachments: alerts.map((a) => ({
      fallback: chatText(a.message),
      color: a.rule === 'pipeline' ? 'danger' : 'warning',
      title: `${a.rule} · ${a.projectId} · ${a.day}`,
      text: chatText(a.message),
      fields: fieldList(a).map(([title, value]) => ({ title, value, short: true })),
      footer: a.id,
    })),
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary,
    themeColor: 'D97706',
    sections: alerts.map((a) => ({
      activityTitle: `${a.rule} · ${a.projectId} · ${a.day}`,
      text: chatText(a.message),
      facts: fieldList(a).map(([name, value]) => ({ name, value })),
    })),
    alerts,
  };
}

function fieldList(a: Alert): [string, string][] {
  return [
    ['alert', a.id],
    ...Object.entries(a.fields)
      .filter(([, v]) => v !== null && v !== '')
      .map(([k, v]): [string, string] => [k, chatText(String(v))]),
  ];
}

/**
 * Search terms, paths and questions come from readers: in Slack `<!channel>` would ping a whole
 * channel and `<https://x|text>` would disguise a link. Slack's own escaping (&, <, >) makes them
 * plain text, and Teams shows the entities as the characters.
 */
export function chatText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
