const BARS = '▁▂▃▄▅▆▇█';

/** Averages runs of values down to `width` buckets; a bucket with no value stays null. */
function downsample(values: readonly (number | null)[], width: number): (number | null)[] {
  if (values.length <= width) return [...values];
  const out: (number | null)[] = [];
  for (let b = 0; b < width; b++) {
    const start = Math.floor((b * values.length) / width);
    const end = Math.floor(((b + 1) * values.length) / width);
    const present = values.slice(start, end).filter((v): v is number => v !== null && Number.isFinite(v));
    out.push(present.length ? present.reduce((a, v) => a + v, 0) / present.length : null);
  }
  return out;
}

/**
 * One block character per value, scaled from the series' minimum (▁) to its maximum (█); a
 * missing value (null) is a space, so gaps in the data stay visible. Longer series are averaged
 * down to `maxWidth` characters.
 */
export function sparkline(values: readonly (number | null)[], maxWidth = Number.POSITIVE_INFINITY): string {
  const series = downsample(values, Math.max(1, maxWidth));
  const present = series.filter((v): v is number => v !== null && Number.isFinite(v));
  if (present.length === 0) return ' '.repeat(series.length);
  const min = Math.min(...present);
  const max = Math.max(...present);
  return series
    .map((v) => {
      if (v === null || !Number.isFinite(v)) return ' ';
      // A flat series has no low and high: draw it mid-height (or on the floor when all zero).
      if (max === min) return max === 0 ? BARS[0] : BARS[3];
      return BARS[Math.round(((v - min) / (max - min)) * (BARS.length - 1))];
    })
    .join('');
}
