import { UsageError } from '../errors.js';

/**
 * The service documents no maximum (only minLength 1), but a prompt is an instruction, not a
 * document: 10,000 characters is a few pages of text, far more than any real instruction,
 * while a mistake like `--prompt "$(cat build.log)"` would otherwise send megabytes to the
 * service, spend one of the 100 creates an hour on it and store it in agent_jobs.
 */
export const MAX_PROMPT_CHARS = 10_000;

/** Job ids go into the URL path; anything else is a typo or a pasted URL, caught before a request. */
const JOB_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

/** The prompt exactly as given (never trimmed: it is the user's text), or a UsageError. */
export function validatePrompt(prompt: string | undefined, flag = '--prompt'): string {
  if (prompt === undefined || prompt.trim() === '') {
    throw new UsageError(
      `${flag} is empty: give the agent an instruction, e.g. ${flag} "Document the new /v2 endpoints"`,
      {
        flag,
      },
    );
  }
  // Characters as a person counts them (code points), not UTF-16 units.
  const chars = [...prompt].length;
  if (chars > MAX_PROMPT_CHARS) {
    throw new UsageError(
      `${flag} is ${chars.toLocaleString('en-US')} characters, more than the ${MAX_PROMPT_CHARS.toLocaleString('en-US')} allowed: an agent prompt is an instruction; point it at files in the repository instead of pasting them`,
      { flag, chars, max: MAX_PROMPT_CHARS },
    );
  }
  return prompt;
}

export function validateJobId(id: string | undefined): string {
  const value = (id ?? '').trim();
  if (!JOB_ID.test(value)) {
    throw new UsageError(
      `job id "${id ?? ''}" is not a job id (letters, digits, _ . : - only, as printed by \`mintlify-etl agent create\`)`,
      { id },
    );
  }
  return value;
}

/** Agent jobs belong to one project: several ids (flags or MINTLIFY_PROJECT_ID) is a usage error. */
export function singleProject(ids: readonly string[]): string {
  const [first, ...rest] = ids;
  if (first === undefined || rest.length > 0) {
    throw new UsageError(
      `agent commands work on exactly one project, got ${ids.length} (${ids.join(', ')}): pass --project ID`,
      { projects: ids },
    );
  }
  return first;
}
