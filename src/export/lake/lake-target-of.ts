import { parseS3Spec } from '../../sources/events/s3-source.js';
import { s3ClientFromEnv, s3EndpointFromEnv } from '../../sources/events/s3-client.js';
import { folderTarget } from './folder-target.js';
import { s3Target } from './s3-target.js';
import type { LakeTarget } from './target.js';

/**
 * `export --to` takes a day (the end of --from/--to's months, as before) or a lake: an
 * `s3://BUCKET/PREFIX` or a folder. A value of digits and dashes only is a day, so a mistyped
 * date is refused as one rather than becoming a folder named 2026-3-1.
 */
export function isLakeDestination(to: string | undefined): to is string {
  return to !== undefined && !/^[\d-]+$/.test(to.trim());
}

export async function openLakeTarget(to: string): Promise<LakeTarget> {
  if (/^s3:\/\//i.test(to)) return s3Target(await s3ClientFromEnv(), parseS3Spec(to), s3EndpointFromEnv());
  return folderTarget(to);
}
