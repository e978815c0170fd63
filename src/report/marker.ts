/**
 * In the head of every HTML page `report` writes, within its first few hundred bytes: how a later
 * `report --html` tells its own earlier page (replaced freely) from any other file (never
 * replaced without --force).
 */
export const REPORT_MARKER = '<meta name="generator" content="mintlify-etl report">';

/** How much of an existing file is read to look for the marker. */
export const REPORT_MARKER_WITHIN_BYTES = 4096;
