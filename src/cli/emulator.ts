import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { emulatorBanner, startEmulator, utcToday } from '../emulator/index.js';
import { writeEventsFolder, type WriteSummary } from '../emulator/events/index.js';
import { clockFromEnv } from './clock.js';
import { parseRateLimit } from '../util/duration.js';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';

interface EmulatorFlags {
  port: number;
  host: string;
  seed: number;
  days: number;
  paths: number;
  faults: string;
  latencyMs: number;
  rateLimit?: string;
  agentRateLimit?: string;
  project?: string;
  allowRemote?: boolean;
  eventsOut?: string;
  eventsScale: number;
  eventsSubdomains: string;
}

export function registerEmulator(
  program: Command,
  run: (fn: () => Promise<CommandResult>) => Promise<void>,
): void {
  program
    .command('emulator')
    .summary('run a local emulator of the Mintlify API (for demos, tests, benchmarks)')
    .description(
      'Serves every analytics endpoint (visitors, views, searches, feedback, feedback/by-page, assistant, assistant/threads/{id}, assistant/caller-stats) and the v2 agent job endpoints on loopback, with deterministic data from --seed, an optional rate limit shared by every analytics endpoint, and injected faults.',
    )
    .option('--port <n>', 'port to listen on (0 = any free port)', intFlag('--port', 0, 65535), 8787)
    .option('--host <addr>', 'loopback address to bind (another one needs --allow-remote)', '127.0.0.1')
    .option(
      '--allow-remote',
      'let --host be an address other machines can reach (0.0.0.0, ::, a LAN address): it serves a known demo key to anyone who connects',
    )
    .option('--seed <n>', 'data seed', intFlag('--seed', 0), 1)
    // At least 4: the API data's first and last days are edge cases that need days between them.
    .option('--days <n>', 'days of data, ending yesterday (UTC); at least 4', intFlag('--days', 4, 3660), 90)
    .option('--paths <n>', 'distinct page paths', intFlag('--paths', 1, 100_000), 600)
    .option('--faults <p>', 'probability of an injected fault per request (0..1)', '0')
    .option('--latency-ms <n>', 'added latency per response', intFlag('--latency-ms', 0, 60_000), 0)
    .option(
      '--rate-limit <N/DURATION>',
      'answer analytics requests with 429 (no Retry-After) past this many per window',
    )
    .option('--agent-rate-limit <N/DURATION>', 'the same for agent job creates and messages, per project')
    .option('--project <id>', 'the project id it serves')
    .option(
      '--events-out <dir>',
      "first write a deterministic Enterprise event stream (Mintlify's S3 layout: .jsonl objects named from UTC times, wild on purpose) for --seed and --days into DIR, a folder `sync --events DIR` reads; DIR must be new, empty or hold only a stream this command wrote",
    )
    .option(
      '--events-scale <n>',
      'multiply the stream: 1 is ~230 events a day, 650 ~1.8 million (820 MB) in 14 days',
      intFlag('--events-scale', 1, 100_000),
      1,
    )
    .option(
      '--events-subdomains <list>',
      'the deployments in the stream, comma-separated (a second one gets a quarter of the traffic)',
      'acme',
    )
    .addHelpText(
      'after',
      `
Example:
  $ mintlify-etl emulator --port 8787 --rate-limit 100/1h
  $ MINTLIFY_API_URL=http://127.0.0.1:8787 MINTLIFY_API_KEY=<key it prints> \\
      MINTLIFY_PROJECT_ID=<project it prints> mintlify-etl sync
  $ mintlify-etl emulator --events-out ./bucket --days 14
  $ mintlify-etl sync --streams events --events ./bucket --project proj_demo   # in another shell`,
    )
    .action((flags: EmulatorFlags) => run(() => emulatorCommand(flags)));
}

async function emulatorCommand(flags: EmulatorFlags): Promise<CommandResult> {
  const faults = Number(flags.faults);
  if (!(faults >= 0 && faults <= 1)) {
    throw new UsageError(`--faults "${flags.faults}" must be a probability from 0 to 1, e.g. 0.1`);
  }
  if (flags.rateLimit !== undefined) parseRateLimit(flags.rateLimit);
  if (flags.agentRateLimit !== undefined) parseRateLimit(flags.agentRateLimit);
  if (!isLoopback(flags.host) && flags.allowRemote !== true) {
    throw new UsageError(
      `--host ${flags.host} is not a loopback address: other machines could reach the emulator and its demo key; use 127.0.0.1 (the default) or ::1, or pass --allow-remote to serve them on purpose`,
      { host: flags.host },
    );
  }
  const emu = await startEmulator({
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    days: flags.days,
    paths: flags.paths,
    faults,
    latencyMs: flags.latencyMs,
    ...(flags.rateLimit !== undefined ? { rateLimit: flags.rateLimit } : {}),
    ...(flags.agentRateLimit !== undefined ? { agentRateLimit: flags.agentRateLimit } : {}),
    ...(flags.project !== undefined ? { projectId: flags.project } : {}),
  }).catch((e: unknown) => {
    throw listenError(e, flags);
  });
  // Written once the emulator took its options and port (a refused flag writes nothing), before the banner.
  const events =
    flags.eventsOut === undefined
      ? undefined
      : await writeEvents(flags.eventsOut, flags).catch(async (e: unknown) => {
          await emu.close();
          throw e;
        });
  // Listening for the signals before the banner: whoever reads it may stop us at once.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stdout.write(`${isLoopback(flags.host) ? emulatorBanner(emu) : remoteBanner(emu)}\n`);
  // After the banner: whoever reads the first line as the banner still does; the folder was complete before.
  if (events !== undefined) process.stdout.write(`${events}\n`);
  await stopped;
  await emu.close();
  return { exitCode: 0 };
}

/** Writes the stream whose days end yesterday (UTC, by the test clock when set), like the API's data. */
async function writeEvents(dir: string, flags: EmulatorFlags): Promise<string> {
  const subdomains = flags.eventsSubdomains
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const endDay = utcToday((clockFromEnv() ?? Date.now)());
  const w: WriteSummary = await writeEventsFolder(dir, {
    seed: flags.seed,
    days: flags.days,
    endDay,
    scale: flags.eventsScale,
    ...(subdomains.length > 0 ? { subdomains } : {}),
  });
  return `wrote ${w.objects} event objects (${w.events ?? '?'} events, ${w.bytes} bytes) to ${resolve(dir)}`;
}

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** The banner names the address actually bound: 0.0.0.0 is every interface, not 127.0.0.1. */
function remoteBanner(emu: {
  host: string;
  port: number;
  url: string;
  projectId: string;
  apiKey: string;
}): string {
  const every = emu.host === '0.0.0.0' || emu.host === '::' || emu.host === '';
  const bound = emu.host.includes(':') ? `[${emu.host}]:${emu.port}` : `${emu.host}:${emu.port}`;
  return `mintlify emulator listening on ${bound}${every ? ' (every interface)' : ''}, reachable from other machines; from this one: ${emu.url} project=${emu.projectId} key=${emu.apiKey}`;
}

/** The listen failures a user causes and can fix, as usage errors naming the flag. */
function listenError(e: unknown, flags: EmulatorFlags): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new UsageError(
      `--port ${flags.port} is in use on ${flags.host}: stop what listens there, choose another --port, or --port 0 for any free one`,
      { port: flags.port, host: flags.host },
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new UsageError(
      `--host ${flags.host} is not an address of this machine: use a loopback address such as 127.0.0.1 (the default) or ::1`,
      { host: flags.host },
    );
  if (code === 'EACCES')
    return new UsageError(
      `--port ${flags.port} needs privileges to listen on: use a port from 1024 up, or --port 0 for any free one`,
      { port: flags.port },
    );
  return e;
}
