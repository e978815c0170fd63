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

/**
 * The deepest nesting of arrays and objects a line may have. JSON.parse reads any depth, but
 * JSON.stringify (and every walk of the value) runs out of stack between 1,000 and 5,000 levels
 * ("Maximum call stack size exceeded" ended every run at a line 5,000 deep), and PostgreSQL's jsonb
 * between 10,000 and 100,000. No event nests like that: deeper is refused, on both destinations.
 */
export const MAX_JSON_DEPTH = 1_000;

/** What a walk of a parsed value found. */
const PLAIN = 0;
const CHANGED = 1;
const TOO_DEEP = 2;

/**
 * Whether the value holds a number a double may have changed, or nests deeper than MAX_JSON_DEPTH
 * (the walk stops there: its own recursion is bounded).
 */
function walk(v: unknown, depth: number): number {
  if (typeof v === 'number') return mayBeChanged(v) ? CHANGED : PLAIN;
  if (v === null || typeof v !== 'object') return PLAIN;
  if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
  let found = PLAIN;
  if (Array.isArray(v)) {
    for (const item of v as unknown[]) {
      const f = walk(item, depth + 1);
      if (f === TOO_DEEP) return f;
      if (f > found) found = f;
    }
    return found;
  }
  for (const k in v) {
    const f = walk((v as Record<string, unknown>)[k], depth + 1);
    if (f === TOO_DEEP) return f;
    if (f > found) found = f;
  }
  return found;
}

function numberOf(token: string): number | WrittenNumber {
  const n = Number(token);
  if (!Number.isFinite(n)) return new WrittenNumber(token);
  if (significantDigits(token) > 15 && String(n) !== token) return new WrittenNumber(token);
  // An exponent below a double's range reads as 0: a non-zero number stays as written.
  if (n === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return new WrittenNumber(token);
  return n;
}

/** PostgreSQL's numeric: at most 131,072 digits before the decimal point and 16,383 after. */
const NUMERIC_INTEGER_DIGITS = 131_072;
const NUMERIC_SCALE = 16_383;
/** Exponents past this are refused whatever the digits (0e999999999 included): no event sends one. */
const MAX_EXPONENT = 1_000_000;
const NUMBER_PARTS = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether PostgreSQL's jsonb can hold the JSON number `token` as written (numeric's limits:
 * `1e131072` and `1e-16384` overflow it, "value overflows numeric format"); DuckDB keeps the
 * JSON text, so the rule is this one for both. Measured on PostgreSQL 15.
 */
export function numericHolds(token: string): boolean {
  const m = NUMBER_PARTS.exec(token);
  if (m === null) return false;
  const [, int = '', frac = '', exp = '0'] = m;
  if (exp.replace(/^[+-]?0*/, '').length > String(MAX_EXPONENT).length) return false;
  const e = Number(exp);
  if (Math.abs(e) > MAX_EXPONENT) return false;
  if (frac.length - e > NUMERIC_SCALE) return false;
  const digits = (int + frac).replace(/^0+/, '');
  if (digits === '') return true;
  // Digits before the point once the exponent moved it: the leading zeros of int + frac left out.
  const before = int.length - ((int + frac).length - digits.length) + e;
  return before <= NUMERIC_INTEGER_DIGITS;
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
  /** A text this reading parsed nests deeper than MAX_JSON_DEPTH (parse then gave undefined). */
  tooDeep = false;

  parse(text: string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    const found = walk(value, 0);
    if (found === PLAIN) return value;
    if (found === TOO_DEEP) {
      this.tooDeep = true;
      return undefined;
    }
    this.exact = true;
    return new Reader(text).value();
  }

  /** Whether `value` (of this reading) holds a number PostgreSQL's numeric cannot hold. */
  holdsNumberOutOfRange(value: unknown): boolean {
    if (!this.exact) return false;
    if (value instanceof WrittenNumber) return !numericHolds(value.text);
    if (value === null || typeof value !== 'object') return false;
    const items: unknown[] = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
    return items.some((item) => this.holdsNumberOutOfRange(item));
  }

  /** The stored JSON text of a value this reading gave (storableJson's, numbers as written). */
  json(value: unknown): string {
    return this.exact ? jsonKeepingNumbers(value) : storableJson(value);
  }
}
