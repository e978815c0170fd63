import type { BenchResult } from './context.js';

/** The heading every results section starts with; the notes after them start with CHANGES_HEADING. */
export const CHANGES_HEADING = '## What these benchmarks changed (before → after)';

/**
 * BENCHMARKS.md with some sections replaced by a newer run of them (`npm run bench -- --only X
 * --update`), the rest as they were: one section can be re-measured without an hour-long full run.
 * A section is its `## title` line up to the next `## ` heading; one not there yet goes before the
 * notes (or at the end), after the numbered sections.
 */
export function mergeSections(existing: string, results: readonly BenchResult[]): string {
  let text = existing.endsWith('\n') ? existing : `${existing}\n`;
  for (const r of results) {
    const heading = `## ${r.title}`;
    const body = `${heading}\n\n${r.markdown}\n\n`;
    const lines = text.split('\n');
    const start = lines.indexOf(heading);
    if (start !== -1) {
      const rest = lines.slice(start + 1).findIndex((l) => l.startsWith('## '));
      const end = rest === -1 ? lines.length : start + 1 + rest;
      text = [...lines.slice(0, start), body.trimEnd(), '', ...lines.slice(end)].join('\n');
    } else {
      const at = lines.indexOf(CHANGES_HEADING);
      text =
        at === -1
          ? `${text.trimEnd()}\n\n${body}`
          : [...lines.slice(0, at), body.trimEnd(), '', ...lines.slice(at)].join('\n');
    }
  }
  return text;
}
