import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../util/process-alive.js';

/**
 * The private folder a lake export writes its files into before uploading them:
 * <tmp>/mintlify-etl-lake-<pid>-<random>. The pid says whether its export still runs: one a
 * killed export left behind (a whole export's files) is removed by the next lake export.
 */
const PREFIX = 'mintlify-etl-lake-';

export async function makeStagingDir(root = tmpdir()): Promise<string> {
  await removeLeftovers(root);
  return mkdtemp(join(root, `${PREFIX}${process.pid}-`));
}

async function removeLeftovers(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(PREFIX)) continue;
    const pid = Number(/^mintlify-etl-lake-(\d+)-/.exec(entry.name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid)) continue;
    await rm(join(root, entry.name), { recursive: true, force: true });
  }
}
