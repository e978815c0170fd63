import type { Command } from 'commander';
import { intFlag } from './options.js';
import type { CommandResult } from './result.js';

export interface EmulatorFlags {
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
    .action((flags: EmulatorFlags) =>
      run(async () => (await import('./emulator-action.js')).emulatorCommand(flags)),
    );
}
