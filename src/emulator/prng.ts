/** A uniform source in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: tiny, fast and good enough for synthetic data. Everything the emulator
 * generates flows from one of these, so a seed reproduces the same service byte for byte.
 */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Mixes several integers into one 32-bit seed, so that each (seed, day) pair gets its own
 * independent stream: a day's data then does not depend on which other days were built.
 */
export function mixSeed(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    // Split doubles beyond 32 bits so large day numbers or seeds still mix in fully.
    const lo = part >>> 0;
    const hi = Math.floor(part / 4_294_967_296) >>> 0;
    for (const v of [lo, hi]) {
      h = Math.imul(h ^ v, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
    }
  }
  return h >>> 0;
}

/** Integer in [min, max] inclusive. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * A Poisson-like count with mean `mean` from exactly one uniform draw (inverse CDF for small
 * means, a logistic approximation of the normal for large ones). One draw per call keeps
 * the stream aligned however the means change. Small means give real zeros: the long tail.
 */
export function poisson(random: Random, mean: number): number {
  const u = random();
  if (!(mean > 0)) return 0;
  if (mean < 30) {
    let p = Math.exp(-mean);
    let cdf = p;
    let k = 0;
    while (u > cdf && k < 200) {
      k++;
      p *= mean / k;
      cdf += p;
    }
    return k;
  }
  // Logistic with the normal's standard deviation: close enough for synthetic traffic.
  const z = 0.5513 * Math.log(Math.max(u, 1e-12) / Math.max(1 - u, 1e-12));
  return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
}
