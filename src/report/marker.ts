/**
 * How a later run tells a file this tool wrote (replaced freely) from any other file (never
 * replaced without --force): each file it writes carries one of these within its first few
 * hundred bytes.
 */

/** In the head of every HTML page `report --html` writes. */
export const REPORT_MARKER = '<meta name="generator" content="mintlify-etl report">';

/** In the head of every HTML digest. */
export const DIGEST_HTML_MARKER = '<meta name="generator" content="mintlify-etl digest">';

/**
 * The first line of a Markdown digest written with --out: an HTML comment, which GitHub and most
 * Markdown renderers hide. Not in the text sent to a webhook, where Slack would show it raw.
 */
export const DIGEST_MARKDOWN_MARKER = '<!-- generator: mintlify-etl digest -->';

/** Every marker: any file that carries one was written by this tool. */
export const TOOL_MARKERS: readonly string[] = [REPORT_MARKER, DIGEST_HTML_MARKER, DIGEST_MARKDOWN_MARKER];

/** How much of an existing file is read to look for a marker. */
export const MARKER_WITHIN_BYTES = 4096;
