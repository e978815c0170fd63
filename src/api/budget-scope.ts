import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { ApiKey } from './key.js';

/**
 * Whose budget a request spends. The service's budget (100 requests an hour) is per organization,
 * and one database may hold several organizations' data: each request in the ledger records its
 * scope, and a run counts only its own scope's requests (and older rows that have none).
 *
 * By default the scope is derived from the API key by a one-way fingerprint, so two runs with the
 * same key share one budget and the key itself is never stored. An organization that uses several
 * keys names its scope instead (`--budget-scope NAME` / MINTLIFY_ETL_BUDGET_SCOPE): every run
 * with that name counts against one budget, whichever key it uses.
 */

export const BUDGET_SCOPE_ENV = 'MINTLIFY_ETL_BUDGET_SCOPE';

/** A named scope: short, and no ':' so that it can never look like a key's fingerprint. */
const NAME_SHAPE = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Hashed before the key: the fingerprint of a key here is not the plain SHA-256 of the key, so
 * that it cannot be looked up in a table of hashes of leaked keys made for another purpose.
 */
const FINGERPRINT_PREFIX = 'mintlify-etl budget scope v1\n';

/** Hex digits kept: 64 bits tell any two organizations' keys apart and say nothing about the key. */
const FINGERPRINT_HEX = 16;

/** 'key:' and 16 hex digits of SHA-256 over a fixed prefix and the key: stable, one-way, never the key. */
export function keyFingerprint(key: ApiKey | string): string {
  const value = typeof key === 'string' ? key : key.reveal();
  const hex = createHash('sha256').update(FINGERPRINT_PREFIX).update(value).digest('hex');
  return `key:${hex.slice(0, FINGERPRINT_HEX)}`;
}

/** Checks a scope name given by the user: 1 to 64 of letters, digits, '.', '_' and '-'. */
export function parseBudgetScope(name: string, source = '--budget-scope'): string {
  if (NAME_SHAPE.test(name)) return name;
  // The value is not echoed: someone may paste a key where the name goes.
  const what =
    name.length === 0 || name.length > 64 ? `it has ${name.length} characters` : 'it holds another character';
  throw new UsageError(
    `${source} must be 1 to 64 letters, digits, '.', '_' or '-' and ${what}: name the organization, e.g. acme-docs`,
    { source, length: name.length },
  );
}

export interface BudgetScopeInput {
  /** --budget-scope NAME, when given. */
  readonly name?: string | undefined;
  /** The API key the run uses, when it has one. */
  readonly apiKey?: ApiKey | string | undefined;
  /** Where MINTLIFY_ETL_BUDGET_SCOPE is read from (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The scope a run counts its requests in: the flag's name, else the variable's, else the key's
 * fingerprint. Undefined without any of them (a command with no key, such as `status` run
 * without one): then every request counts, whatever its scope, which errs on the side of waiting.
 */
export function resolveBudgetScope(input: BudgetScopeInput): string | undefined {
  if (input.name !== undefined) return parseBudgetScope(input.name);
  const fromEnv = (input.env ?? process.env)[BUDGET_SCOPE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return parseBudgetScope(fromEnv, BUDGET_SCOPE_ENV);
  return input.apiKey === undefined ? undefined : keyFingerprint(input.apiKey);
}
