import type { Random } from './prng.js';

/** Crockford's base32, as ULIDs spell it: no I, L, O or U. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 26 characters, the first 0-7 (a ULID is 128 bits in 130 bits of text). Case-insensitive, as Crockford decodes. */
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;

export function isUlid(text: string): boolean {
  return ULID_RE.test(text);
}

/** The 128-bit value of a ULID (any case), or undefined when the text is not one. */
export function ulidValue(text: string): bigint | undefined {
  if (!isUlid(text)) return undefined;
  let v = 0n;
  for (const ch of text.toUpperCase()) v = (v << 5n) | BigInt(ALPHABET.indexOf(ch));
  return v;
}

/** The 26-character upper-case ULID of a 128-bit value. */
export function ulidFromValue(value: bigint): string {
  if (value < 0n || value >= 1n << 128n) throw new RangeError('a ULID holds 128 bits');
  let out = '';
  let v = value;
  for (let i = 0; i < 26; i++) {
    out = (ALPHABET[Number(v & 31n)] ?? '0') + out;
    v >>= 5n;
  }
  return out;
}

/** A ULID whose time part is `timeMs` and whose 80 random bits come from `random` (five 16-bit draws). */
export function ulidAt(timeMs: number, random: Random): string {
  let v = BigInt(Math.floor(timeMs));
  for (let i = 0; i < 5; i++) v = (v << 16n) | BigInt(Math.floor(random() * 65_536));
  return ulidFromValue(v);
}

/** The epoch milliseconds of a ULID's time part. */
export function ulidTime(text: string): number | undefined {
  const v = ulidValue(text);
  return v === undefined ? undefined : Number(v >> 80n);
}
