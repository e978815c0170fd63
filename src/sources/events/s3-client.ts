import { S3Client } from '@aws-sdk/client-s3';

/**
 * An S3 client configured by the standard AWS environment: the credential chain (keys,
 * AWS_PROFILE, SSO, instance roles), AWS_REGION (us-east-1 when nothing sets one; a bucket
 * elsewhere is followed by its redirect), and AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL for another
 * store, then with path-style addressing. The event stream reads with it, the lake export writes.
 */
export interface S3ClientOptions {
  readonly maxAttempts?: number | undefined;
  readonly connectionTimeoutMs?: number | undefined;
  readonly requestTimeoutMs?: number | undefined;
}

/** The region the SDK's own chain finds (AWS_REGION, the profile), else us-east-1. */
async function region(): Promise<string> {
  const probe = new S3Client({});
  try {
    return await probe.config.region();
  } catch {
    return 'us-east-1';
  } finally {
    probe.destroy();
  }
}

/** The endpoint of another store than AWS, if the environment names one. */
export function s3EndpointFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env['AWS_ENDPOINT_URL_S3'] || env['AWS_ENDPOINT_URL'] || undefined;
}

export async function s3ClientFromEnv(opts: S3ClientOptions = {}): Promise<S3Client> {
  const endpoint = s3EndpointFromEnv();
  return new S3Client({
    region: await region(),
    ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
    followRegionRedirects: true,
    maxAttempts: opts.maxAttempts ?? 3,
    // requestTimeout bounds the wait for an answer (an error, not the SDK's default warning);
    // socketTimeout bounds silence, a body that stops mid-object included.
    requestHandler: {
      connectionTimeout: opts.connectionTimeoutMs ?? 5000,
      requestTimeout: opts.requestTimeoutMs ?? 60_000,
      throwOnRequestTimeout: true,
      socketTimeout: opts.requestTimeoutMs ?? 60_000,
    },
  });
}
