import { readFile } from 'node:fs/promises';
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
    const kind = value.startsWith('mint_dsc_') ? 'an assistant (mint_dsc_) key' : 'an index (mint_us_) key';
    throw new UsageError(
      `${source} holds ${kind}, not an admin key: create an admin API key (it starts with mint_) on the dashboard's API keys page`,
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
        `cannot read --api-key-file ${opts.apiKeyFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        { file: opts.apiKeyFile },
        { cause: e },
      );
    }
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
