/**
 * Number and text formatting shared by the terminal and HTML reports. Fixed to en-US so that
 * a report reads the same on every machine and tests can assert on exact text.
 */
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ONE = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** 12345.6 -> "12,346"; null -> "–". */
export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined || !Number.isFinite(n) ? '–' : INT.format(Math.round(n));
}

/** A signed count: +123, -45, 0. */
export function formatSignedCount(n: number): string {
  const r = Math.round(n);
  return r > 0 ? `+${INT.format(r)}` : INT.format(r);
}

/** A change given as a fraction, as the views give it (0.1234 -> "+12.3%"); null (no base) -> "–". */
export function formatChange(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '–';
  const text = ONE.format(Math.abs(fraction * 100));
  if (text === '0.0') return '0.0%';
  return `${fraction > 0 ? '+' : '-'}${text}%`;
}

/** A ratio with one decimal: 2.345 -> "2.3"; null -> "–". */
export function formatRatio(n: number | null | undefined): string {
  return n === null || n === undefined || !Number.isFinite(n) ? '–' : ONE.format(n);
}

/** A share in 0..1 -> "23.4%"; null -> "–". */
export function formatShare(share: number | null | undefined): string {
  return share === null || share === undefined || !Number.isFinite(share)
    ? '–'
    : `${ONE.format(share * 100)}%`;
}

/** ISO week label, e.g. 2026-W07. */
export function formatIsoWeek(isoYear: number, isoWeek: number): string {
  return `${isoYear}-W${String(isoWeek).padStart(2, '0')}`;
}

/** 1 -> "1 day", 3 -> "3 days": a one-day report must not say "1 days". */
export function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}
