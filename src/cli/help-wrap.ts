import { Help } from 'commander';

/**
 * The help texts are written as paragraphs broken at about 95 columns; commander then wrapped
 * each of those lines again at the terminal's width (80 when not a terminal), leaving a short
 * fragment after nearly every line. Here a paragraph's lines are joined first and wrapped once.
 * An indented line (a table row, a list of rules) is never joined to another.
 */
export function reflow(text: string): string {
  const out: string[] = [];
  let joinable = false;
  for (const line of text.split('\n')) {
    const plain = line.trim() !== '' && !/^\s/.test(line) && !/^([-*•]|\d+\.)\s/.test(line);
    if (plain && joinable) out[out.length - 1] = `${out[out.length - 1] ?? ''} ${line}`;
    else out.push(line);
    joinable = plain;
  }
  return out.join('\n');
}

/** Commander's wrap, after reflow; an indented line too long wraps under its own indentation. */
export function wrapHelpText(help: Help, text: string, width: number): string {
  return reflow(text)
    .split('\n')
    .map((line) => {
      const indent = /^\s*/.exec(line)?.[0] ?? '';
      if (indent === '' || line.length <= width) return Help.prototype.boxWrap.call(help, line, width);
      return Help.prototype.boxWrap
        .call(help, line.slice(indent.length), width - indent.length)
        .split('\n')
        .map((l) => indent + l)
        .join('\n');
    })
    .join('\n');
}
