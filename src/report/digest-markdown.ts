import type { Digest } from '../insights/digest.js';
import { sections, title } from './digest-lines.js';

/** Markdown that Slack (mrkdwn: *bold*, bullets) and GitHub both render: no tables, no headers Slack would show raw. */
export function digestMarkdown(digests: readonly Digest[]): string {
  const out: string[] = [];
  for (const d of digests) {
    out.push(`*${title(d)}*`, '');
    for (const s of sections(d)) {
      out.push(`*${s.heading}*`);
      const items = s.items.length === 0 ? [s.empty] : s.items;
      for (const i of items) out.push(`• ${i.replaceAll('*', '\\*')}`);
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}
