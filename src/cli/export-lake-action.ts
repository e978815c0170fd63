import { UsageError } from '../errors.js';
import type { Place } from '../load/destination.js';
import { describeLakeExport, exportToLake } from '../export/lake/lake-export.js';
import { openLakeTarget } from '../export/lake/lake-target-of.js';
import { parseDuration } from '../util/duration.js';
import { safeText } from '../util/safe-text.js';
import { clockFromEnv } from './clock.js';
import type { ExportFlags } from './export.js';
import type { CommandResult } from './result.js';

/** `export --to s3://BUCKET/PREFIX` or `--to DIR`: the lake export (src/export/lake/). */
export async function exportToLakeCommand(
  place: Place,
  flags: ExportFlags & { to: string },
): Promise<CommandResult> {
  if (flags.out !== undefined)
    throw new UsageError('give either --out DIR or --to s3://BUCKET/PREFIX|DIR, not both');
  if (flags.from !== undefined) {
    throw new UsageError(
      '--from does not apply to a lake export: it writes only the partitions that changed',
      {
        from: flags.from,
      },
    );
  }
  if (flags.format !== 'parquet')
    throw new UsageError('a lake export writes Parquet only', { format: flags.format });
  const graceMs = parseDuration(flags.grace ?? '1h', '--grace');
  const now = clockFromEnv() ?? Date.now;
  const target = await openLakeTarget(flags.to);
  try {
    const db = await place.open('read');
    try {
      const summary = await exportToLake(db, target, {
        includePersonalData: flags.includePersonalData ?? false,
        graceMs,
        nowMs: now(),
      });
      if (flags.json) return { exitCode: 0, json: summary };
      process.stdout.write(`${safeText(describeLakeExport(summary))}\n`);
      return { exitCode: 0 };
    } finally {
      await db.close();
    }
  } finally {
    target.close();
  }
}
