import { resolve } from 'node:path';
import { UsageError } from '../../../errors.js';
import { parseS3Spec } from '../../../sources/events/s3-source.js';
import type { DdlDialect } from './dialects.js';

/**
 * Where the lake is, as the engines name it: `s3://bucket/prefix/` or an absolute folder path,
 * always ending with `/`, so that `root + manifest key` is an object's or a file's full name.
 */
export interface LakeLocation {
  readonly kind: 's3' | 'folder';
  readonly root: string;
}

/**
 * Characters of --to an engine's file matching cannot take literally: BigQuery's uris take one `*`,
 * the wildcard; DuckDB's glob reads a backslash as a separator (its other wildcards are escaped,
 * duckdb.ts).
 */
const UNGLOBBABLE: Readonly<Partial<Record<DdlDialect, RegExp>>> = { bigquery: /\*/, duckdb: /\\/ };

/**
 * The location `--to` names, for `dialect`. Refused (exit 2): a folder for an engine that reads
 * only object storage, control characters (no engine's string literal spells them the same way,
 * and no lake path needs them), and characters the engine's file matching cannot take literally.
 */
export function lakeLocation(to: string, dialect: DdlDialect): LakeLocation {
  const location = locationOf(to);
  if (location.kind === 'folder' && dialect !== 'duckdb') {
    throw new UsageError(
      `--ddl ${dialect} needs --to s3://BUCKET/PREFIX: ${dialect} reads object storage, not the folder ${to}`,
      { dialect, to },
    );
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(location.root)) {
    throw new UsageError('--to holds a control character, which no lake location should: rename it', { to });
  }
  const unglobbable = UNGLOBBABLE[dialect]?.exec(location.root);
  if (unglobbable) {
    throw new UsageError(
      `--to ${to} holds ${unglobbable[0]}, which ${dialect}'s file matching cannot read as itself: export into a location without it`,
      { dialect, to },
    );
  }
  return location;
}

function locationOf(to: string): LakeLocation {
  if (/^s3:\/\//i.test(to)) {
    const { bucket, prefix } = parseS3Spec(to);
    return { kind: 's3', root: `s3://${bucket}/${prefix}` };
  }
  const dir = resolve(to);
  return { kind: 'folder', root: dir.endsWith('/') ? dir : `${dir}/` };
}
