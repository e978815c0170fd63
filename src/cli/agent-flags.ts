import type { Command } from 'commander';
import { DB_FLAG, SCHEMA_FLAG, SCHEMA_HELP, dbHelp } from './db-flags.js';
import { collect } from './options.js';
import type { CommandResult } from './result.js';

/*
 * The flags every agent command shares, as text alone: `agent --help` shows them, and the
 * session that acts on them (agent-session.ts: the API client, the database) loads when one runs.
 */

export type Run = (fn: () => Promise<CommandResult>) => Promise<void>;

export interface CommonFlags {
  project?: string[];
  apiKeyFile?: string;
  apiUrl?: string;
  db?: string;
  schema?: string;
  json?: boolean;
  /** Only create and message send requests the budget counts. */
  rateLimit?: string;
}

export interface WaitFlags {
  interval: string;
  timeout: string;
}

/** The service allows 100 creates and messages per hour. */
export const DEFAULT_RATE_LIMIT = '100/1h';

export function withCommon(cmd: Command): Command {
  return cmd
    .option('-p, --project <id>', 'project id (env MINTLIFY_PROJECT_ID); exactly one', collect)
    .option(DB_FLAG, dbHelp())
    .option(SCHEMA_FLAG, SCHEMA_HELP)
    .option('--json', 'print the job object on stdout')
    .option('--api-key-file <path>', 'read the admin API key from this file instead of MINTLIFY_API_KEY')
    .option('--api-url <url>', 'API base URL (env MINTLIFY_API_URL; default https://api.mintlify.com)');
}

export function withBudget(cmd: Command): Command {
  return cmd.option(
    '--rate-limit <N/DURATION>',
    'budget of create and message requests (the service allows 100/1h)',
    DEFAULT_RATE_LIMIT,
  );
}

export function withWait(cmd: Command): Command {
  return cmd
    .option('--interval <duration>', 'time between polls (grows x1.5 up to 4x while nothing changes)', '5s')
    .option('--timeout <duration>', 'stop waiting after this long (the job keeps running)', '30m');
}
