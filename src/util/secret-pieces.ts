/**
 * No piece of a secret of PIECE_LENGTH characters or more may reach output: an API that echoes
 * the key split in two ("mint_Super ... SecretKey_Q1w2E3r4T5y6") shows 22 of its 32 characters
 * though neither half is the key. Every PIECE_LENGTH-gram of a secret is indexed in a map; a
 * text is scanned once per reading of it (as written; with \u, \x, %XX and HTML references
 * decoded; and with + as a space too), each hit covers its PIECE_LENGTH characters, overlapping
 * hits merge, and the merged spans of the text as written are replaced by the secret's mask.
 * Pieces in base64 are indexed as base64 text at each of the three byte alignments.
 *
 * It imports nothing: secrets.ts, below everything, uses it.
 */

/** The shortest piece of a secret that is redacted: shorter ones are too common to mask. */
export const PIECE_LENGTH = 8;

export interface PieceIndex {
  /** Every PIECE_LENGTH-gram of every secret (and of its base64), with the secret's mask. */
  readonly grams: Map<string, string>;
  /** The rolling hash of every gram: a text is scanned by hash, a gram compared only on a hit. */
  readonly hashes: Set<number>;
}

export function emptyPieceIndex(): PieceIndex {
  return { grams: new Map(), hashes: new Set() };
}

/** Adds the pieces of `value` (and of its base64 spellings) to the index. */
export function indexPieces(index: PieceIndex, value: string, mask: string): void {
  if (value.length < PIECE_LENGTH) return;
  for (const spelling of [value, ...base64Alignments(value)]) {
    for (let i = 0; i + PIECE_LENGTH <= spelling.length; i++) {
      const gram = spelling.slice(i, i + PIECE_LENGTH);
      if (!index.grams.has(gram)) index.grams.set(gram, mask);
      index.hashes.add(hashOf(gram, 0));
    }
  }
}

const BASE = 0x01000193;
/** BASE to the power PIECE_LENGTH - 1, modulo 2^32: the weight of the unit that leaves the window. */
const TOP = Array.from({ length: PIECE_LENGTH - 1 }).reduce<number>((h) => Math.imul(h, BASE), 1);

/** The rolling hash of the PIECE_LENGTH units of `s` from `i`. */
function hashOf(s: string, i: number): number {
  let h = 0;
  for (let k = 0; k < PIECE_LENGTH; k++) h = (Math.imul(h, BASE) + s.charCodeAt(i + k)) | 0;
  return h;
}

/**
 * The base64 and base64url text of the value from each of its first three bytes: a piece that
 * starts at byte k is encoded as a run of the alignment k mod 3 (but for its last group).
 */
function base64Alignments(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let k = 0; k < 3 && k < bytes.length; k++) {
    // Only whole groups of three bytes: the last group's characters depend on where it ends.
    const whole = bytes.subarray(k, k + Math.floor((bytes.length - k) / 3) * 3);
    out.push(whole.toString('base64'), whole.toString('base64url'));
  }
  return out;
}

/** A reading of the text: its UTF-16 units, each with the span of the text as written it came from. */
interface Reading {
  readonly units: string;
  readonly from: (i: number) => number;
  readonly to: (i: number) => number;
}

interface Span {
  start: number;
  end: number;
  readonly mask: string;
}

/** The text with every span holding a piece of a secret replaced by that secret's mask. */
export function redactPieces(text: string, index: PieceIndex): string {
  if (index.hashes.size === 0 || text.length < PIECE_LENGTH) return text;
  const spans: Span[] = [];
  for (const reading of readings(text)) collectHits(reading, index, spans);
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  let current: Span | undefined;
  const flush = (): void => {
    if (current === undefined) return;
    out += text.slice(at, current.start) + current.mask;
    at = current.end;
  };
  for (const s of spans) {
    if (current !== undefined && s.start <= current.end) current.end = Math.max(current.end, s.end);
    else {
      flush();
      current = { ...s };
    }
  }
  flush();
  return out + text.slice(at);
}

function collectHits(reading: Reading, index: PieceIndex, spans: Span[]): void {
  const { units } = reading;
  let runStart = -1;
  let runEnd = -1;
  let runMask = '';
  const flush = (): void => {
    if (runStart >= 0)
      spans.push({ start: reading.from(runStart), end: reading.to(runEnd - 1), mask: runMask });
  };
  let hash = units.length >= PIECE_LENGTH ? hashOf(units, 0) : 0;
  for (let i = 0; i + PIECE_LENGTH <= units.length; i++) {
    if (i > 0) {
      // The window moves one unit: the first leaves, the next comes in.
      const out = Math.imul(units.charCodeAt(i - 1), TOP);
      hash = (Math.imul(hash - out, BASE) + units.charCodeAt(i + PIECE_LENGTH - 1)) | 0;
    }
    if (!index.hashes.has(hash)) continue;
    const mask = index.grams.get(units.slice(i, i + PIECE_LENGTH));
    if (mask === undefined) continue;
    if (runStart >= 0 && i <= runEnd) runEnd = i + PIECE_LENGTH;
    else {
      flush();
      runStart = i;
      runEnd = i + PIECE_LENGTH;
      runMask = mask;
    }
  }
  flush();
}

/** The text as written, and decoded (with + as itself and as a space) when it holds an encoding. */
function readings(text: string): Reading[] {
  const out: Reading[] = [{ units: text, from: (i) => i, to: (i) => i + 1 }];
  if (/[\\%&]/.test(text)) out.push(decoded(text, false));
  if (text.includes('+')) out.push(decoded(text, true));
  return out;
}

const NAMED: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };

/** One encoded character at `i`: its text and where its spelling ends, or undefined. */
function decodeAt(text: string, i: number, plus: boolean): { text: string; end: number } | undefined {
  const c = text[i];
  if (c === '+' && plus) return { text: ' ', end: i + 1 };
  if (c === '\\') {
    const u = /^\\u([0-9a-fA-F]{4})/.exec(text.slice(i, i + 6));
    if (u?.[1] !== undefined) return { text: String.fromCharCode(parseInt(u[1], 16)), end: i + 6 };
    const x = /^\\x([0-9a-fA-F]{2})/.exec(text.slice(i, i + 4));
    if (x?.[1] !== undefined) return { text: String.fromCharCode(parseInt(x[1], 16)), end: i + 4 };
    const next = text[i + 1] ?? '';
    if (`"\\/'`.includes(next) && next !== '') return { text: next, end: i + 2 };
    return undefined;
  }
  if (c === '%') return percentAt(text, i);
  if (c === '&') {
    const m = /^&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(quot|amp|lt|gt|apos));/.exec(
      text.slice(i, i + 12),
    );
    if (m === null) return undefined;
    const cp = m[1] !== undefined ? parseInt(m[1], 16) : m[2] !== undefined ? Number(m[2]) : -1;
    if (m[3] !== undefined) return { text: NAMED[m[3]] ?? '', end: i + m[0].length };
    return cp >= 0 && cp <= 0x10ffff ? { text: String.fromCodePoint(cp), end: i + m[0].length } : undefined;
  }
  return undefined;
}

/** A percent-encoded UTF-8 character at `i` (one to four %XX), or undefined. */
function percentAt(text: string, i: number): { text: string; end: number } | undefined {
  const byteAt = (j: number): number | undefined => {
    const m = /^%([0-9a-fA-F]{2})/.exec(text.slice(j, j + 3));
    return m?.[1] !== undefined ? parseInt(m[1], 16) : undefined;
  };
  const lead = byteAt(i);
  if (lead === undefined) return undefined;
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (length === 0) return undefined;
  const bytes = [lead];
  for (let k = 1; k < length; k++) {
    const b = byteAt(i + 3 * k);
    if (b === undefined || (b & 0xc0) !== 0x80) return undefined;
    bytes.push(b);
  }
  const decodedText = Buffer.from(bytes).toString('utf8');
  return decodedText.includes('\ufffd') ? undefined : { text: decodedText, end: i + 3 * length };
}

/** The decoded reading: each unit maps back to the whole spelling of its character. */
function decoded(text: string, plus: boolean): Reading {
  const parts: string[] = [];
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let n = 0;
  const special = plus ? /[\\%&+]/g : /[\\%&]/g;
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const next = special.exec(text)?.index ?? text.length;
    // A run as written: each unit is its own spelling.
    for (let k = i; k < next; k++) {
      from[n] = k;
      to[n] = k + 1;
      n++;
    }
    if (next > i) parts.push(text.slice(i, next));
    if (next >= text.length) break;
    const d = decodeAt(text, next, plus);
    const chunk = d?.text ?? text.charAt(next);
    const end = d?.end ?? next + 1;
    for (let k = 0; k < chunk.length; k++) {
      from[n] = next;
      to[n] = end;
      n++;
    }
    parts.push(chunk);
    i = end;
  }
  return { units: parts.join(''), from: (k) => from[k] ?? 0, to: (k) => to[k] ?? text.length };
}
