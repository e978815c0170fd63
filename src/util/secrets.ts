/**
 * The process's registry of secrets (the API key, a URL's password; later database passwords
 * and webhook URLs) and the one function that removes them from text. It sits below everything
 * (it imports only secret-pieces.ts, which imports nothing) so that every exit point — log lines, error messages, --json summaries,
 * error columns of the database — can redact with it, whatever layer it is in.
 *
 * A server or a library may hand a secret back in another spelling than the raw one: a JSON
 * body with `\u0042` escapes (decoded later, after any plain-text redaction would have run), a
 * percent-encoded URL, an HTML page. So each registered secret becomes one pattern in which each
 * character may appear raw or in any of those encodings, in any mix, and the whole secret may
 * also appear in base64.
 *
 * A server may also echo a secret in pieces ("mint_Super ... SecretKey_Q1w2E3r4T5y6"): no piece
 * of PIECE_LENGTH characters or more of a secret may show either (secret-pieces.ts).
 */
import { onRunStart } from './run-state.js';
import { emptyPieceIndex, indexPieces, redactPieces } from './secret-pieces.js';

/** Shorter values would mask ordinary words; a URL's userinfo is masked by its own rule anyway. */
export const MIN_SECRET_LENGTH = 4;

interface Secret {
  readonly value: string;
  readonly mask: string;
  readonly pattern: RegExp;
}

export interface RegisterOptions {
  /**
   * Whether a piece of the value (PIECE_LENGTH characters or more) is redacted too (the
   * default). Off for a value whose pieces are public, such as a webhook URL's `https://host`
   * part: its secret part is registered on its own, with pieces.
   */
  readonly pieces?: boolean;
}

export class SecretRegistry {
  #secrets: Secret[] = [];
  #pieces = emptyPieceIndex();

  /** Forgets every secret: a new command run in the same process registers its own. */
  clear(): void {
    this.#secrets = [];
    this.#pieces = emptyPieceIndex();
  }

  /**
   * Adds a value to redact from now on, shown as `mask`. Returns false (and registers nothing)
   * for a value too short to tell from ordinary text.
   */
  register(value: string, mask = '****', opts: RegisterOptions = {}): boolean {
    if (value.length < MIN_SECRET_LENGTH) return false;
    if (opts.pieces ?? true) indexPieces(this.#pieces, value, mask);
    if (this.#secrets.some((s) => s.value === value)) return true;
    this.#secrets.push({ value, mask, pattern: secretPattern(value) });
    // Longest first: a secret that contains another is masked whole, not around the shorter one.
    this.#secrets.sort((a, b) => b.value.length - a.value.length);
    return true;
  }

  /**
   * The text with every registered secret, in any spelling the pattern knows, replaced by its
   * mask; then every piece left of one (in any of those spellings) replaced by its mask too.
   */
  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) out = out.replace(s.pattern, s.mask);
    return redactPieces(out, this.#pieces);
  }
}

/** The process-wide registry: every command registers its secrets here, every output redacts with it. */
export const secrets = new SecretRegistry();
onRunStart(() => secrets.clear());

export function registerSecret(value: string, mask?: string, opts?: RegisterOptions): boolean {
  return secrets.register(value, mask, opts);
}

export function redactSecrets(text: string): string {
  return secrets.redact(text);
}

function secretPattern(value: string): RegExp {
  const perChar = [...value].map(charAlternatives).join('');
  const whole = base64Spellings(value).map(escapeRegExp);
  return new RegExp([perChar, ...whole].join('|'), 'g');
}

/** One character raw or encoded: JSON/JS escapes, percent-encoding (UTF-8), HTML references. */
function charAlternatives(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const alts = [escapeRegExp(c)];
  // \uXXXX, as a surrogate pair above the BMP; and \xXX for JS and Python strings.
  alts.push(
    [...utf16Units(cp)].map((u) => `\\\\u${hex(u, 4)}`).join(''),
    ...(cp < 0x100 ? [`\\\\x${hex(cp, 2)}`] : []),
  );
  if (c === '"' || c === '\\' || c === '/') alts.push(`\\\\${escapeRegExp(c)}`);
  alts.push([...Buffer.from(c, 'utf8')].map((b) => `%${hex(b, 2)}`).join(''));
  if (c === ' ') alts.push('\\+');
  alts.push(`&#[xX]0*${hex(cp, 1)};`, `&#0*${cp};`);
  const named = HTML_NAMED[c];
  if (named !== undefined) alts.push(named);
  return `(?:${alts.join('|')})`;
}

const HTML_NAMED: Record<string, string> = {
  '"': '&quot;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  "'": '&#39;|&apos;',
};

function* utf16Units(cp: number): Generator<number> {
  if (cp < 0x10000) {
    yield cp;
    return;
  }
  const v = cp - 0x10000;
  yield 0xd800 + (v >> 10);
  yield 0xdc00 + (v & 0x3ff);
}

/** Hex digits of `n`, at least `width` of them, matching either case. */
function hex(n: number, width: number): string {
  return [...n.toString(16).padStart(width, '0')]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

/** The secret in base64 and base64url, unpadded (a Basic credential or a token echoed encoded). */
function base64Spellings(value: string): string[] {
  const b64 = Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, '');
  const url = Buffer.from(value, 'utf8').toString('base64url');
  return b64 === url ? [b64] : [b64, url];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
