/** A fenced block of a Markdown page marked `<!-- runnable -->`, as a bash script. */
export interface RunnableBlock {
  readonly page: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  readonly script: string;
}

const MARK = '<!-- runnable -->';

/**
 * The placeholders a reader replaces by their own values, replaced by what the test environment
 * already holds, so the block runs exactly as written otherwise.
 */
const PLACEHOLDERS: readonly (readonly [string, string])[] = [['your-project-id', '"$MINTLIFY_PROJECT_ID"']];

/**
 * The runnable blocks of a page. A block of shell lines runs whole; a transcript (lines starting
 * with `$ `, followed by what they print) runs its `$ ` lines only (and their `\` continuations).
 */
export function extractRunnableBlocks(page: string, markdown: string): RunnableBlock[] {
  const lines = markdown.split('\n');
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== MARK) continue;
    let open = i + 1;
    while (open < lines.length && lines[open]?.trim() === '') open++;
    if (!lines[open]?.startsWith('```'))
      throw new Error(`${page}:${i + 1}: ${MARK} is not followed by a fenced block`);
    const body: string[] = [];
    let close = open + 1;
    for (; close < lines.length && !lines[close]?.startsWith('```'); close++) body.push(lines[close] ?? '');
    blocks.push({ page, line: open + 1, script: withPlaceholders(toScript(body)) });
    i = close;
  }
  return blocks;
}

function toScript(body: readonly string[]): string {
  if (!body.some((l) => l.startsWith('$ '))) return body.join('\n');
  const commands: string[] = [];
  let continuing = false;
  for (const l of body) {
    if (l.startsWith('$ ')) commands.push(l.slice(2));
    else if (continuing) commands.push(l);
    else continue;
    continuing = l.endsWith('\\');
  }
  return commands.join('\n');
}

function withPlaceholders(script: string): string {
  return PLACEHOLDERS.reduce((s, [from, to]) => s.replaceAll(from, to), script);
}
