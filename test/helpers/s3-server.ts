import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from './postgres.js';

/**
 * A real S3-protocol server for tests: moto_server (from the machine image, Python's moto) on a
 * free loopback port, one per test file. It accepts any credentials; `env` holds the standard
 * AWS variables that point the tool's S3 client at it.
 */
export interface S3Server {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** AWS_ENDPOINT_URL_S3, test credentials and AWS_REGION for this server. */
  readonly env: Readonly<Record<string, string>>;
  createBucket(name: string): Promise<void>;
  put(bucket: string, key: string, body: string | Buffer): Promise<void>;
  stop(): Promise<void>;
}

const PYENV_MOTO = '/root/.pyenv/versions/3.11.7/bin/moto_server';

/** moto_server on PATH, else the machine image's pyenv copy; undefined when neither is there. */
export function motoServerPath(path = process.env['PATH'] ?? ''): string | undefined {
  const onPath = path
    .split(delimiter)
    .map((dir) => join(dir, 'moto_server'))
    .find((p) => existsSync(p));
  return onPath ?? (existsSync(PYENV_MOTO) ? PYENV_MOTO : undefined);
}

/** Polls the server until it answers an HTTP request (it takes a second or two to import moto). */
async function waitUntilAnswering(
  url: string,
  exited: () => string | undefined,
  deadlineMs: number,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const gone = exited();
    if (gone !== undefined) throw new Error(`moto_server exited before answering: ${gone}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      return;
    } catch {
      if (Date.now() > until) throw new Error(`moto_server did not answer at ${url} within ${deadlineMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function startS3Server(): Promise<S3Server> {
  const bin = motoServerPath();
  if (bin === undefined)
    throw new Error(`moto_server not found on PATH nor at ${PYENV_MOTO} (pip install 'moto[server]')`);
  const port = await freePort();
  // A watchdog shell: the server lives while our end of its stdin is open, so a worker that dies
  // (vitest ends its forks without running exit handlers) or a test that throws before stop()
  // leaves no server behind; when the server dies on its own, the shell exits too.
  // (sh gives a background job /dev/null as stdin: the pipe goes to it as fd 3.)
  const watchdog =
    'exec 3<&0; "$@" </dev/null & pid=$!; (cat <&3 >/dev/null; kill $pid 2>/dev/null) & wait $pid';
  const child = spawn('sh', ['-c', watchdog, 'sh', bin, '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  let exit: string | undefined;
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exit = `code ${code} signal ${signal}: ${stderr}`;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    child.stdin.end();
    await exited;
  };
  try {
    await waitUntilAnswering(url, () => exit, 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  const env = {
    AWS_ENDPOINT_URL_S3: url,
    AWS_ACCESS_KEY_ID: 'test-access-key',
    AWS_SECRET_ACCESS_KEY: 'test-secret-key',
    AWS_REGION: 'us-east-1',
  };
  const client = new S3Client({
    endpoint: url,
    forcePathStyle: true,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
  return {
    url,
    env,
    createBucket: async (name) => void (await client.send(new CreateBucketCommand({ Bucket: name }))),
    put: async (bucket, key, body) =>
      void (await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }))),
    stop: async () => {
      client.destroy();
      await stop();
    },
  };
}
