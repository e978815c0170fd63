import type { Digest } from '../insights/digest.js';
import { sections, title } from './digest-lines.js';
import { escapeHtml } from './html.js';
import { DIGEST_HTML_MARKER } from './marker.js';

const BODY = 'margin:0;padding:0;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b';
const CARD = 'max-width:600px;margin:0 auto;background:#ffffff;padding:16px 20px';
const H1 = 'font-size:20px;line-height:26px;margin:0 0 12px 0';
const H2 = 'font-size:15px;line-height:20px;margin:16px 0 4px 0;color:#3f3f46';
const LI = 'font-size:14px;line-height:20px;margin:0 0 2px 0;word-break:break-word';
const EMPTY = 'font-size:14px;line-height:20px;margin:0;color:#71717a';

/**
 * HTML for a mail client: one table-free column of at most 600 px, inline styles only (mail clients
 * drop <style> and <link>), no script, no image, no external resource of any kind.
 */
export function digestHtml(digests: readonly Digest[]): string {
  const body = digests.map((d) => {
    const parts = [`<h1 style="${H1}">${escapeHtml(title(d))}</h1>`];
    for (const s of sections(d)) {
      parts.push(`<h2 style="${H2}">${escapeHtml(s.heading)}</h2>`);
      if (s.items.length === 0) parts.push(`<p style="${EMPTY}">${escapeHtml(s.empty)}</p>`);
      else
        parts.push(
          `<ul style="margin:0;padding:0 0 0 18px">${s.items.map((i) => `<li style="${LI}">${escapeHtml(i)}</li>`).join('')}</ul>`,
        );
    }
    return `<div style="${CARD}">${parts.join('\n')}</div>`;
  });
  const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${DIGEST_HTML_MARKER}<title>${escapeHtml(digests[0] === undefined ? 'Docs week' : title(digests[0]))}</title>`;
  return `<!doctype html>\n<html lang="en"><head>${head}</head><body style="${BODY}">\n${body.join('\n')}\n</body></html>\n`;
}
