/** Median, min and max of repeated measurements: the machine is shared, one run proves little. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  return { median, min: s[0] as number, max: s.at(-1) as number, n: s.length };
}

export function fixed(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}

/** `1.23 (1.10–1.40, n=5)` */
export function showSpread(s: Spread, digits = 2): string {
  return `${fixed(s.median, digits)} (${fixed(s.min, digits)}–${fixed(s.max, digits)}, n=${s.n})`;
}

export function thousands(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

export function verdict(ok: boolean): string {
  return ok ? 'met' : '**missed**';
}
