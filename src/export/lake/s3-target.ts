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
import { s3Error } from '../../sources/events/s3-errors.js';
import type { S3Spec } from '../../sources/events/s3-source.js';
import type { LakeObject, LakeTarget } from './target.js';

/** What a lake export does on its prefix (docs/export.md's IAM policy). */
const LAKE_ACTIONS = 's3:ListBucket, s3:GetObject, s3:PutObject and s3:DeleteObject';

/** S3 deletes at most this many keys a request. */
const DELETE_BATCH = 1000;

/**
 * A lake under an S3 prefix: one PUT per object, so a reader sees the old object or the new one.
 * Every failure is the event source's S3 error (s3-errors.ts): a message built from the error's
 * name and status, never the SDK's text, which may quote a request.
 */
export function s3Target(client: S3Client, spec: S3Spec, endpoint?: string): LakeTarget {
  const where = `s3://${spec.bucket}/${spec.prefix}`;
  const target = rawS3Target(client, spec, where);
  const wrap =
    <A extends unknown[], R>(op: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await op(...a);
      } catch (e) {
        throw s3Error(e, { label: where, endpoint, needs: LAKE_ACTIONS });
      }
    };
  return {
    ...target,
    list: wrap(() => target.list()),
    getText: wrap((key: string) => target.getText(key)),
    putText: wrap((key: string, text: string) => target.putText(key, text)),
    putFile: wrap((key: string, file: string) => target.putFile(key, file)),
    delete: wrap((keys: readonly string[]) => target.delete(keys)),
  };
}

function rawS3Target(client: S3Client, spec: S3Spec, where: string): LakeTarget {
  const { bucket, prefix } = spec;
  return {
    where,
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
