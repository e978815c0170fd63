import { readFile, stat } from 'node:fs/promises';
import { inspect } from 'node:util';
import { UsageError } from '../errors.js';
import { registerSecret } from '../util/secrets.js';

/**
 * An admin API key that cannot leak by accident: `toString`, `toJSON` and `util.inspect` all
 * print a redacted form; only `reveal()` gives the value, and only the HTTP client calls it.
 * The value sits in a #private field: unlike a property (even a symbol-keyed one), it is not
 * copied by object spread and not shown by `inspect` with `customInspect: false` or `showHidden`.
 */
export class ApiKey {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    // A key that exists is a registered secret: every output of the process redacts it from
    // here on, whichever path the key (or a server's echo of it) takes to get there.
    registerSecret(value, 'mint_****');
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return 'mint_****';
  }

  toJSON(): string {
    return 'mint_****';
  }

  [inspect.custom](): string {
    return 'ApiKey(mint_****)';
  }
}

/**
 * What a key can hold: a Bearer token's characters (RFC 6750 b64token: letters, digits,
 * `- . _ ~ + /`, then `=` padding). A quote, a backslash or a space would be a copy-paste
 * accident, and a key that must be escaped in JSON or a URL is one more spelling to hide.
 */
const KEY_SHAPE = /^mint_[A-Za-z0-9._~+/-]+=*$/;
export const KEY_CHARACTERS = 'letters, digits and - . _ ~ + / = only';

/** Checks the key's shape before any request: admin keys start `mint_`, but not `mint_dsc_`/`mint_us_`. */
export function validateApiKey(raw: string, source: string): ApiKey {
  const value = raw.trim();
  if (value === '') {
    throw new UsageError(`${source} is empty: set MINTLIFY_API_KEY to an admin API key (mint_...)`, {
      source,
    });
  }
  if (value.startsWith('mint_dsc_') || value.startsWith('mint_us_')) {
    // Written "mint_ + dsc_": output masks every 8 characters of the key, so "mint_dsc_" itself
    // would print as mint_**** and the line would stop saying which kind it is.
    const kind = value.startsWith('mint_dsc_')
      ? 'an assistant key (it begins mint_ + dsc_)'
      : 'an index key (it begins mint_ + us_)';
    throw new UsageError(
      `${source} holds ${kind}, not an admin key: an admin key begins mint_ with neither dsc_ nor us_ after it; create one on the dashboard's API keys page`,
      { source },
    );
  }
  if (!value.startsWith('mint_') || value.length <= 'mint_'.length) {
    throw new UsageError(
      `${source} does not look like a Mintlify admin API key (they start with mint_): check the value you set`,
      { source },
    );
  }
  // A key with a space, a zero-width space or a curly quote from a copy-paste would fail inside
  // the HTTP client on every attempt (or be sent, and echoed, in a form we do not expect).
  if (!KEY_SHAPE.test(value)) {
    throw new UsageError(
      `${source} contains a character an API key cannot have (a key holds ${KEY_CHARACTERS}; a space, a quote, an invisible or non-ASCII character usually comes from copy and paste): copy the key again from the dashboard's API keys page`,
      { source },
    );
  }
  return new ApiKey(value);
}

/**
 * Loads the key from `--api-key-file` (first line) or `MINTLIFY_API_KEY`. Never from a plain
 * flag: a flag value would show in `ps` and shell history.
 */
export async function loadApiKey(opts: {
  apiKeyFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Where a warning about the key file goes (a file others can read); stderr by default. */
  warn?: (message: string) => void;
}): Promise<ApiKey> {
  const env = opts.env ?? process.env;
  if (opts.apiKeyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(opts.apiKeyFile, 'utf8');
    } catch (e) {
      // Someone who passes the key itself instead of a path must not see it echoed back, not
      // even through the cause (fs errors name the path).
      if (opts.apiKeyFile.trim().startsWith('mint_')) {
        throw new UsageError(
          '--api-key-file takes the path of a file that holds the key, not the key itself: put the key in a file (chmod 600) and pass its path, or set MINTLIFY_API_KEY',
        );
      }
      throw new UsageError(
        `--api-key-file ${opts.apiKeyFile} ${unreadableWhy((e as NodeJS.ErrnoException).code)}`,
        { file: opts.apiKeyFile },
        { cause: e },
      );
    }
    const warning = await exposedKeyFile(opts.apiKeyFile);
    if (warning !== undefined)
      (opts.warn ?? ((m: string) => process.stderr.write(`mintlify-etl: warning: ${m}\n`)))(warning);
    return validateApiKey(text.split(/\r?\n/)[0] ?? '', `--api-key-file ${opts.apiKeyFile}`);
  }
  const fromEnv = env['MINTLIFY_API_KEY'];
  if (fromEnv === undefined || fromEnv.trim() === '') {
    throw new UsageError(
      'no API key: set MINTLIFY_API_KEY to an admin API key (mint_...) or pass --api-key-file PATH',
    );
  }
  return validateApiKey(fromEnv, 'MINTLIFY_API_KEY');
}

/** Why a key file could not be read, and what to do: the rest of its one-line message. */
function unreadableWhy(code: string | undefined): string {
  switch (code) {
    case 'ENOENT':
      return 'does not exist: check the path (relative paths start at the current folder), or set MINTLIFY_API_KEY instead';
    case 'EACCES':
    case 'EPERM':
      return "cannot be read by this user (permission denied): run the command as the file's owner, or chmod 600 it as that owner";
    case 'EISDIR':
      return 'is a folder: give the path of the file that holds the key';
    case 'ENOTDIR':
      return 'goes through a file as if it were a folder: check the path';
    default:
      return `cannot be read (${code ?? 'error'}): check the path, or set MINTLIFY_API_KEY instead`;
  }
}

/**
 * A key file that others on the machine can read hands them the organization's admin key: said
 * once per run, as ssh does for a private key (the key is still used, so a cron job keeps running).
 */
async function exposedKeyFile(path: string): Promise<string | undefined> {
  if (process.platform === 'win32') return undefined;
  const mode = (await stat(path).catch(() => undefined))?.mode;
  if (mode === undefined || (mode & 0o077) === 0) return undefined;
  const octal = (mode & 0o777).toString(8);
  return `--api-key-file ${path} is readable by others (mode ${octal}): anyone on this machine can read the admin key; run chmod 600 ${path}`;
}
