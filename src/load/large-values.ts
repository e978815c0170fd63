/** The largest JSON text a window hands DuckDB, and what it holds (for the one-line failure). */
export interface LargestValue {
  /** Characters of the JSON text that carries it (its row, or its chunk of rows). */
  readonly chars: number;
  /** e.g. `field comment of row fb_1 (5.0 MB)`. */
  readonly what: string;
}

/**
 * The memory_limit a statement needs to parse one JSON text of `chars` and store what it holds.
 * DuckDB's JSON reader grows its buffer in powers of two and keeps the text, the parsed value
 * and the stored copy at once: measured, a 30 MB comment or a 1M-element sources list failed at
 * 128 MB and loaded at 256 MB; the 64 MB on top is the rest of the batch's working set.
 */
export function memoryForText(chars: number): number {
  let pow = 2 ** 20;
  while (pow < chars) pow *= 2;
  return 8 * pow + 64 * 2 ** 20;
}

/** `5.0 MB`: sizes as a person reads them in a failure line. */
export function formatSize(chars: number): string {
  if (chars >= 2 ** 20) return `${(chars / 2 ** 20).toFixed(1)} MB`;
  return `${Math.ceil(chars / 1024)} KB`;
}

/**
 * The field of `row` whose JSON is longest, as a LargestValue of the row's whole text
 * (`rowChars`): computed once per window, for its longest row only.
 */
export function largestField(row: object, rowChars: number, key: string): LargestValue {
  let field = '';
  let longest = -1;
  for (const [name, value] of Object.entries(row)) {
    const n = JSON.stringify(value ?? null).length;
    if (n > longest) {
      longest = n;
      field = name;
    }
  }
  const count = Array.isArray((row as Record<string, unknown>)[field])
    ? `, ${((row as Record<string, unknown>)[field] as unknown[]).length} elements`
    : '';
  const shown = key.length > 80 ? `${key.slice(0, 77)}...` : key;
  return { chars: rowChars, what: `field ${field} of row ${shown} (${formatSize(longest)}${count})` };
}
