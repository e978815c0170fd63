import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliInProcess } from './cli-in-process.js';

/**
 * A `mintlify-etl` command for shell scripts (the docs' examples) that runs the CLI in this
 * test's process: the command on PATH is a small script that sends its arguments, environment,
 * folder and stdin over a Unix socket and prints what the run printed, with its exit code. It
 * starts in ~50 ms where the CLI's process takes about a second. Not for a command a script puts
 * in the background or kills: the run it asked for goes on in this process.
 */
export interface CliServer {
  /** A folder holding the `mintlify-etl` command, to put first on PATH. */
  readonly bin: string;
  close(): Promise<void>;
}

interface Request {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  stdin: string;
}

function shimSource(socket: string): string {
  return `#!${process.execPath}
'use strict';
const net = require('node:net');
const chunks = [];
// Only \`query -\` reads stdin: any other command leaves it to the script's next reader.
const input = process.argv.includes('-') ? process.stdin : require('node:stream').Readable.from([]);
input.on('data', (c) => chunks.push(c));
input.on('end', () => {
  const s = net.connect(${JSON.stringify(socket)});
  const request = { argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), stdin: Buffer.concat(chunks).toString('utf8') };
  s.end(JSON.stringify(request));
  const answer = [];
  s.on('data', (d) => answer.push(d));
  s.on('end', () => {
    const r = JSON.parse(Buffer.concat(answer).toString('utf8'));
    process.stderr.write(r.stderr);
    process.stdout.write(r.stdout, () => process.exit(r.code));
  });
});
`;
}

async function answer(socket: Socket): Promise<void> {
  // Not `for await`: it destroys the socket at the end of the request, before the answer.
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('end', resolve);
    socket.once('error', reject);
  });
  const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request;
  const r = await runCliInProcess(request.argv, request.env, { cwd: request.cwd, stdin: request.stdin });
  socket.end(JSON.stringify({ code: r.code, stdout: r.stdout, stderr: r.stderr }));
}

export async function startCliServer(): Promise<CliServer> {
  const bin = mkdtempSync(join(tmpdir(), 'mlx-cli-bin-'));
  const socketPath = join(bin, 'cli.sock');
  // Half-open: the command ends its side once it has sent the request, and waits for the answer.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    answer(socket).catch((e: unknown) => {
      socket.end(JSON.stringify({ code: 70, stdout: '', stderr: `cli-server: ${String(e)}\n` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  const shim = join(bin, 'mintlify-etl');
  writeFileSync(shim, shimSource(socketPath));
  chmodSync(shim, 0o755);
  return {
    bin,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
