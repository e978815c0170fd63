import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeControl } from '../../util/safe-text.js';
import { openEventSource, type EventSourceOptions } from './event-source.js';

/** Names of the level above shown at most: enough to spot a typo, short enough for one line. */
const SHOWN = 8;

/**
 * What to say of a source that lists no object: most often a mistyped prefix or folder
 * (`s3://acme-analytics/mintlfy`), so one listing of the level above (S3: one request with a
 * delimiter) says what is there instead: `no object under mintlfy/; this bucket has mintlify/`.
 */
export async function emptySourceHint(spec: string, opts: EventSourceOptions = {}): Promise<EmptyHint> {
  const s3 = /^s3:\/\//i.test(spec);
  const { name, parent, where } = s3 ? await s3Parent(spec) : folderParent(spec);
  if (parent === undefined) return { text: `no object in ${where} yet`, listRequests: 0 };
  const above = await openEventSource(parent, opts);
  const names: string[] = [];
  let more = 0;
  try {
    for await (const e of above.listTop()) {
      if (!('prefix' in e)) continue;
      if (names.length < SHOWN) names.push(escapeControl(e.prefix));
      else more++;
    }
  } finally {
    above.close();
  }
  const held =
    names.length === 0 ? 'nothing else' : `${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  return {
    text: `no object under ${escapeControl(name)}; ${where} has ${held}`,
    listRequests: above.stats.listRequests,
  };
}

export interface EmptyHint {
  readonly text: string;
  readonly listRequests: number;
}

async function s3Parent(spec: string): Promise<{ name: string; parent: string | undefined; where: string }> {
  // Loaded here as openEventSource does: a folder run never loads the AWS SDK.
  const { parseS3Spec } = await import('./s3-source.js');
  const { bucket, prefix } = parseS3Spec(spec);
  const parts = prefix.split('/').filter((p) => p !== '');
  if (parts.length === 0) return { name: '', parent: undefined, where: `bucket ${bucket}` };
  const up = parts.slice(0, -1).join('/');
  return {
    name: `${parts[parts.length - 1] ?? ''}/`,
    parent: `s3://${bucket}/${up}`,
    where: up === '' ? 'this bucket' : `${up}/`,
  };
}

function folderParent(spec: string): { name: string; parent: string | undefined; where: string } {
  const path = resolve(/^file:\/\//i.test(spec) ? fileURLToPath(spec) : spec);
  const up = dirname(path);
  if (up === path) return { name: '', parent: undefined, where: path };
  return { name: `${basename(path)}/`, parent: up, where: 'its parent folder' };
}
