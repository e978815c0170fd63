import { existsSync, readdirSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { onFile } from '../util/file-errors.js';

/**
 * Every export writes this file into its folder first: it is how a later export knows the folder
 * is its own (and not /etc or a user's documents) before it renames and deletes anything there.
 */
export const EXPORT_MANIFEST = '.mintlify-etl-export.json';

export interface ExportFolderRules {
  /** The table folder names an export writes (earlier versions wrote no manifest, only these). */
  readonly tables: readonly string[];
  /** Staging folders of an export that was killed start with this. */
  readonly stagingPrefix: string;
  /** Entry names in the folder that are the database and its own files (allowed beside an export). */
  readonly databaseEntries: ReadonlySet<string>;
}

/**
 * The entries of `out` that no export of this tool made, when it has no manifest: an empty
 * folder, an earlier export (manifest, or only table and staging folders) and the database's own
 * files are fine.
 */
export function foreignEntries(out: string, given: string, rules: ExportFolderRules): string[] {
  if (!existsSync(out)) return [];
  const names = onFile(`--out ${given}`, 'read the folder', out, () => readdirSync(out));
  if (names.includes(EXPORT_MANIFEST)) return [];
  return names
    .filter(
      (n) => !rules.tables.includes(n) && !n.startsWith(rules.stagingPrefix) && !rules.databaseEntries.has(n),
    )
    .sort();
}

/** Refuses an export into a folder holding files of something else, unless the user insists. */
export function refuseForeignFolder(
  out: string,
  given: string,
  rules: ExportFolderRules,
  force: boolean,
): void {
  if (force) return;
  const foreign = foreignEntries(out, given, rules);
  if (foreign.length === 0) return;
  const shown = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, … (${foreign.length} in all)` : '');
  throw new UsageError(
    `--out ${given} holds files that are not an export of mintlify-etl (${shown}); nothing was written: choose an empty or new folder, or pass --force to write the table folders beside them`,
    { out: given, foreign: foreign.length },
  );
}

/**
 * Marks `out` as an export of this tool, atomically (a killed export leaves no half manifest), once:
 * an export that fails later must leave the folder as it was, manifest included.
 */
export async function writeManifest(out: string): Promise<void> {
  const file = join(out, EXPORT_MANIFEST);
  if (existsSync(file)) return;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify({ tool: 'mintlify-etl', kind: 'export' })}\n`, { flag: 'w' });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
