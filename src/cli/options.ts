import { UsageError } from '../errors.js';
import { maskUserinfo, registerUrlSecrets } from '../util/url-text.js';

export const DEFAULT_API_URL = 'https://api.mintlify.com';
export const DEFAULT_DB = 'data/analytics.duckdb';

/** Integer flag parser for commander: the message names the flag and the accepted range. */
export function intFlag(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      const range =
        max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
      throw new UsageError(`${flag} "${value}" must be ${range}`, { flag, value });
    }
    return n;
  };
}

export function dbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? env['MINTLIFY_ETL_DB'] ?? DEFAULT_DB;
}

/** --project may repeat and take comma lists; MINTLIFY_PROJECT_ID is a comma list. */
export function projectIds(
  flags: readonly string[] | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const raw = flags && flags.length > 0 ? flags : [env['MINTLIFY_PROJECT_ID'] ?? ''];
  const ids = [
    ...new Set(
      raw
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ];
  if (ids.length === 0) {
    throw new UsageError(
      "no project: pass --project ID or set MINTLIFY_PROJECT_ID (the id is on the dashboard's API keys page; comma-separate several)",
    );
  }
  for (const id of ids) {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
      throw new UsageError(
        `project id "${id}" has characters a Mintlify project id never has (letters, digits, _ and - only)`,
        { id },
      );
    }
  }
  return ids;
}

export function apiUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = flag ?? env['MINTLIFY_API_URL'] ?? DEFAULT_API_URL;
  // A password in the URL is a secret from now on, wherever it shows up; every message here
  // shows the URL with its user and password masked.
  registerUrlSecrets(url);
  const shown = maskUserinfo(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `API URL "${shown}" is not a URL (MINTLIFY_API_URL / --api-url), e.g. https://api.mintlify.com`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError(`API URL "${shown}" must start with https://`);
  }
  // Plain http would send the admin key in clear text: only to this machine (the emulator).
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
    throw new UsageError(
      `API URL "${shown}" uses http:// to another machine, which would send the API key unencrypted: use https:// (http:// is only for 127.0.0.1 or localhost, e.g. the emulator)`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') {
    throw new UsageError(
      `API URL "${parsed.protocol}//${parsed.username || parsed.password ? '***@' : ''}${parsed.host}${parsed.pathname}…" may not carry a user, password, query or fragment: give the scheme, host and (for a proxy) path only`,
    );
  }
  // A path prefix (a proxy at https://proxy.example.com/mintlify) is kept; requests go below it.
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** Whether a URL names this machine (the emulator), not the service. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** The projects a command acts on: `-p ID`, repeatable or comma-separated, else MINTLIFY_PROJECT_ID. */
export const PROJECTS_FLAG = '-p, --project <id>';
export const PROJECTS_HELP = 'project id (repeatable, or comma-separated; env MINTLIFY_PROJECT_ID)';

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
