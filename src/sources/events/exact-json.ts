import { storableJson, storableText } from '../../load/storable-text.js';

/**
 * JSON numbers as they were written, where a JavaScript number would change them: JSON.parse reads
 * every number into a double, so `12345678901234567890` (an id in `properties`, an `event_id` sent
 * as a number) would be stored as 12345678901234567000 and two such ids could become one. A text
 * whose parsed numbers include one a double may have changed (JsonReading) is read again here,
 * keeping those numbers' text; every other value is what JSON.parse gives, so both readings store
 * the same text. Not detected: a non-zero number below a double's range (1e-400, which no program
 * writing doubles sends) reads as 0. Not the lossless-json package: it refuses repeated keys, where
 * JSON.parse (and so this) keeps the last one.
 */
export class WrittenNumber {
  constructor(readonly text: string) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;

function significantDigits(token: string): number {
  const mantissa = token
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  return mantissa.replace(/^0+/, '').length;
}

/**
 * Whether the text behind this double may have had digits it lost: an integer past 2^53, a
 * fraction printed with 16+ digits, or past a double's range (Infinity). A double's shortest text
 * has at most 17 digits, so one printed with fewer came from a text a double holds.
 */
function mayBeChanged(n: number): boolean {
  if (!Number.isFinite(n)) return true;
  if (Number.isInteger(n)) return !Number.isSafeInteger(n);
  return significantDigits(String(n)) >= 16;
}

function holdsChangedNumber(v: unknown): boolean {
  if (typeof v === 'number') return mayBeChanged(v);
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(holdsChangedNumber);
  for (const k in v) if (holdsChangedNumber((v as Record<string, unknown>)[k])) return true;
  return false;
}

function numberOf(token: string): number | WrittenNumber {
  const n = Number(token);
  if (!Number.isFinite(n)) return new WrittenNumber(token);
  if (significantDigits(token) > 15 && String(n) !== token) return new WrittenNumber(token);
  // An exponent below a double's range reads as 0: a non-zero number stays as written.
  if (n === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return new WrittenNumber(token);
  return n;
}

/** Reads JSON text that JSON.parse accepts (the caller checked), into JSON.parse's value but for numbers. */
class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  private space(): void {
    SPACE.lastIndex = this.i;
    SPACE.exec(this.s);
    this.i = SPACE.lastIndex;
  }

  private string(): string {
    const start = this.i;
    let j = start + 1;
    for (;;) {
      const c = this.s.charCodeAt(j);
      if (c === 0x5c) j += 2;
      else if (c === 0x22) break;
      else j++;
    }
    this.i = j + 1;
    return JSON.parse(this.s.slice(start, j + 1)) as string;
  }

  value(): unknown {
    this.space();
    const c = this.s[this.i];
    let v: unknown;
    if (c === '{') v = this.object();
    else if (c === '[') v = this.array();
    else if (c === '"') v = this.string();
    else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      this.i += word.length;
      v = c === 't' ? true : c === 'f' ? false : null;
    } else {
      NUMBER.lastIndex = this.i;
      const token = NUMBER.exec(this.s)?.[0] ?? '';
      this.i += token.length;
      v = numberOf(token);
    }
    this.space();
    return v;
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.space();
    if (this.s[this.i] === '}') return (this.i++, out);
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.i++; // ':'
      // As JSON.parse: an own property even for "__proto__", a repeated key's last value in its first place.
      Object.defineProperty(out, key, {
        value: this.value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (this.s[this.i++] === '}') return out;
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.space();
    if (this.s[this.i] === ']') return (this.i++, out);
    for (;;) {
      out.push(this.value());
      if (this.s[this.i++] === ']') return out;
    }
  }
}

/** storableJson for a value the exact reading gave: the same text, WrittenNumbers as written. */
function jsonKeepingNumbers(value: unknown): string {
  if (value instanceof WrittenNumber) return value.text;
  if (typeof value === 'string') return JSON.stringify(storableText(value));
  if (Array.isArray(value)) return `[${value.map(jsonKeepingNumbers).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(storableText(k))}:${jsonKeepingNumbers(v)}`,
    );
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The JSON texts of one line: JSON.parse, the fast way, unless what it read holds a number a
 * double may have changed; then that text, and every later one of the line, is read exactly.
 */
export class JsonReading {
  private exact = false;

  parse(text: string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!holdsChangedNumber(value)) return value;
    this.exact = true;
    return new Reader(text).value();
  }

  /** The stored JSON text of a value this reading gave (storableJson's, numbers as written). */
  json(value: unknown): string {
    return this.exact ? jsonKeepingNumbers(value) : storableJson(value);
  }
}
