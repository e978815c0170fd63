import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { emulatorBanner, startEmulator, utcToday } from '../emulator/index.js';
import { writeEventsFolder, type WriteSummary } from '../emulator/events/index.js';
import { clockFromEnv } from './clock.js';
import { parseRateLimit } from '../util/duration.js';
import type { CommandResult } from './result.js';
import type { EmulatorFlags } from './emulator.js';

/*
 * What `mintlify-etl emulator` does. Its flags and help are emulator.ts, whose action imports this
 * module only when the command runs: --help loads none of what is below.
 */

export async function emulatorCommand(flags: EmulatorFlags): Promise<CommandResult> {
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
