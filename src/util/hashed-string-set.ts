/**
 * A set of strings kept as 64-bit hashes in typed arrays (open addressing, linear probing): 8 to
 * 16 bytes a string instead of the ~70 a `Set` of 30-character strings costs, which is what a
 * 600,000-path day needs to spot a path seen twice. `add` answering false is only a "maybe": two
 * strings can share a hash (about one chance in 10^8 for a million strings), so the caller
 * confirms a repeat before acting on it.
 */
export class HashedStringSet {
  #hi = new Uint32Array(1 << 12);
  #lo = new Uint32Array(1 << 12);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `s`; false when its hash was there already (`s` itself, or a string sharing its hash). */
  add(s: string): boolean {
    const [hi, lo] = hash64(s);
    if (!this.#insert(hi, lo)) return false;
    this.#size++;
    // Kept at most 3/4 full, so that probes stay short.
    if (this.#size * 4 > this.#hi.length * 3) this.#grow();
    return true;
  }

  /** Whether `s`'s hash is there: `s`, or (rarely) a string sharing its hash. */
  mayHave(s: string): boolean {
    const [hi, lo] = hash64(s);
    const mask = this.#hi.length - 1;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const h = this.#hi[i] as number;
      const l = this.#lo[i] as number;
      if (h === 0 && l === 0) return false;
      if (h === hi && l === lo) return true;
    }
  }

  #insert(hi: number, lo: number): boolean {
    const mask = this.#hi.length - 1;
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const h = this.#hi[i] as number;
      const l = this.#lo[i] as number;
      if (h === 0 && l === 0) {
        this.#hi[i] = hi;
        this.#lo[i] = lo;
        return true;
      }
      if (h === hi && l === lo) return false;
    }
  }

  #grow(): void {
    const hi = this.#hi;
    const lo = this.#lo;
    this.#hi = new Uint32Array(hi.length * 2);
    this.#lo = new Uint32Array(lo.length * 2);
    for (let i = 0; i < hi.length; i++) {
      if (hi[i] !== 0 || lo[i] !== 0) this.#insert(hi[i] as number, lo[i] as number);
    }
  }
}

/** Two independent 32-bit hashes of the UTF-16 code units (FNV-1a and a murmur3-style mix); never (0, 0), the empty slot. */
function hash64(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ s.length ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  a >>>= 0;
  b >>>= 0;
  return a === 0 && b === 0 ? [0, 1] : [a, b];
}
