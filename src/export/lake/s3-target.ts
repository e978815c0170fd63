import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { S3Spec } from '../../sources/events/s3-source.js';
import type { LakeObject, LakeTarget } from './target.js';

/** S3 deletes at most this many keys a request. */
const DELETE_BATCH = 1000;

/** A lake under an S3 prefix: one PUT per object, so a reader sees the old object or the new one. */
export function s3Target(client: S3Client, spec: S3Spec): LakeTarget {
  const { bucket, prefix } = spec;
  return {
    where: `s3://${bucket}/${prefix}`,
    async list() {
      const out: LakeObject[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const o of page.Contents ?? []) {
          if (o.Key === undefined) continue;
          out.push({ key: o.Key.slice(prefix.length), modifiedMs: o.LastModified?.getTime() ?? 0 });
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return out;
    },
    async getText(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }));
        return (await answer.Body?.transformToString('utf8')) ?? '';
      } catch (e) {
        if (e instanceof NoSuchKey || (e as { name?: string }).name === 'NoSuchKey') return undefined;
        throw e;
      }
    },
    async putText(key, text) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: prefix + key,
          Body: text,
          ContentType: 'application/json',
        }),
      );
    },
    async putFile(key, file) {
      const { size } = await stat(file);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: prefix + key,
          Body: createReadStream(file),
          ContentLength: size,
        }),
      );
    },
    async delete(keys) {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        await client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((k) => ({ Key: prefix + k })), Quiet: true },
          }),
        );
      }
    },
    close: () => client.destroy(),
  };
}
