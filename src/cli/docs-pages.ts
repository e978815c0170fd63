import type { Command } from 'commander';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

/** The page of docs/ that explains each command (and agent's subcommands). */
const PAGES: Readonly<Record<string, string>> = {
  sync: 'sync.md',
  check: 'status-and-check.md',
  status: 'status-and-check.md',
  query: 'query.md',
  export: 'export.md',
  report: 'report.md',
  gaps: 'gaps-and-fixes.md',
  alerts: 'alerts-and-digest.md',
  digest: 'alerts-and-digest.md',
  agent: 'agent-jobs.md',
  'agent fix': 'gaps-and-fixes.md',
  emulator: 'emulator.md',
  demo: 'emulator.md',
  sql: 'tables-and-views.md',
};

export function docsPage(command: string): string | undefined {
  const page = PAGES[command] ?? PAGES[command.split(' ')[0] ?? ''];
  return page === undefined ? undefined : join(packageRoot(), 'docs', page);
}

/** Ends every command's --help with the page to read next: the help says what, the page says why. */
export function addDocsPages(program: Command): void {
  const visit = (cmd: Command, prefix: string): void => {
    for (const sub of cmd.commands) {
      const name = `${prefix}${sub.name()}`;
      const page = docsPage(name);
      if (page !== undefined) sub.addHelpText('after', `\nDocs: ${page}`);
      visit(sub, `${name} `);
    }
  };
  visit(program, '');
}
