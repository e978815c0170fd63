import { addDays } from '../util/day.js';
import type { Gap } from './gaps.js';

/**
 * The longest prompt `agent fix` writes. The service documents no maximum; `agent create` refuses
 * more than 10,000 characters (MAX_PROMPT_CHARS). A fix prompt stays well under that, so a
 * follow-up `agent message` and the agent's own instructions have room, and a reviewer reads the
 * whole of it in the pull request: the evidence of a gap is cut before the instructions are.
 */
export const MAX_FIX_PROMPT_CHARS = 6_000;

/** An example, an answer or a subject as quoted in a prompt: one line, at most this long. */
const QUOTE_CHARS = 200;

/**
 * The agent's instructions for the given gaps: what readers asked or searched (verbatim, e-mail
 * addresses already masked by content_gaps), which pages, what the assistant answered, and what is
 * asked of the agent. Gaps are ordered by id, so the same gaps give the same prompt.
 */
export function buildFixPrompt(gaps: readonly Gap[]): string {
  const sorted = [...gaps].sort((a, b) => (a.gapId < b.gapId ? -1 : a.gapId > b.gapId ? 1 : 0));
  const first = sorted[0];
  if (first === undefined) throw new Error('buildFixPrompt needs at least one gap');
  const head = [
    `Improve the documentation where readers show it does not answer them. mintlify-etl measured ${sorted.length === 1 ? 'this content gap' : `these ${sorted.length} content gaps`} in the docs site's analytics, ${first.windowStart} to ${addDays(first.windowEnd, -1)} (UTC), compared with the same number of days before.`,
    '',
  ];
  const tail = [
    'For every change: change only what the evidence supports, keep the style and structure of the existing pages, and prefer extending an existing page to adding a new one.',
    'In the pull request description, name the gap id each change addresses.',
  ];
  const budget = MAX_FIX_PROMPT_CHARS - length(head) - length(tail);
  const perGap = Math.floor(budget / sorted.length);
  const sections = sorted.map((g, i) => fitSection(gapSection(g, i + 1), perGap));
  return [...head, ...sections.flatMap((s) => [...s, '']), ...tail].join('\n');
}

function gapSection(g: Gap, n: number): string[] {
  const trend =
    g.previousCount === null
      ? `${g.currentCount} ${g.measure} in the window (the window before is not loaded: no trend)`
      : `${g.currentCount} ${g.measure} in the window, ${g.previousCount} in the one before (${g.trend ?? ''})`;
  const pages = g.pages.length > 0 ? [`- Pages involved: ${g.pages.join(', ')}`] : [];
  const examples = g.examples.map((e) => `  - ${quote(e)}`);
  switch (g.kind) {
    case 'unanswered':
      return [
        `Gap ${n} (${g.gapId}): a question the docs assistant could not answer: ${quote(g.subject)}`,
        `- ${trend}.${g.category !== null ? ` Category: ${g.category}.` : ''}`,
        '- How readers asked it, verbatim:',
        ...examples,
        ...pages.map((p) => p.replace('Pages involved', 'Pages the readers were on')),
        ...(g.answerExcerpt !== null
          ? [`- What the assistant answered (latest, shortened): ${quote(g.answerExcerpt)}`]
          : []),
        '- Asked of you: write or extend the page that answers this question, so that readers and the assistant find the answer.',
      ];
    case 'search':
      return [
        `Gap ${n} (${g.gapId}): a search term readers use and almost never click a result for: ${quote(g.subject)}`,
        `- ${trend}; ${percent(g.rate)} of them led to a click.`,
        ...(g.examples.length > 1 ? ['- Spellings searched:', ...examples] : []),
        ...pages.map((p) => p.replace('Pages involved', 'The result clicked most')),
        '- Asked of you: make the page that answers what readers look for under this term findable by it (title, headings, the words readers use), or write it if it is missing.',
      ];
    case 'flagged':
      return [
        `Gap ${n} (${g.gapId}): the page ${g.subject}, which readers flag with thumbs-down and comments`,
        `- ${trend}.`,
        ...(g.examples.length > 0 ? ['- What readers wrote, verbatim (newest first):', ...examples] : []),
        `- Asked of you: fix on ${g.subject} what the comments point at; where they are unclear, make the page clearer and correct.`,
      ];
    case 'losing':
      return [
        `Gap ${n} (${g.gapId}): the page ${g.subject}, which is losing human readers`,
        `- ${trend}: ${percent(g.rate)} fewer, beyond the page's usual weekly change.`,
        `- Asked of you: check ${g.subject} for outdated or wrong content, broken links to and from it, and a title and description that still match what readers search for.`,
      ];
  }
}

/** Shortens a section to fit: examples go first (from the last), the headline and the ask stay. */
function fitSection(lines: string[], max: number): string[] {
  const out = [...lines];
  while (length(out) > max) {
    const i = out.findLastIndex((l) => l.startsWith('  - '));
    if (i < 0) break;
    out.splice(i, 1);
  }
  return out;
}

function quote(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `"${one.length > QUOTE_CHARS ? `${one.slice(0, QUOTE_CHARS - 1)}…` : one}"`;
}

function percent(rate: number | null): string {
  return rate === null ? 'an unknown share' : `${(rate * 100).toFixed(1)}%`;
}

function length(lines: readonly string[]): number {
  return lines.reduce((n, l) => n + l.length + 1, 0);
}
