/**
 * BENCHMARKS.md section 12's sub-section on listing requests (issue 35, item 4): measured by hand
 * against moto_server (a year of hourly objects is too many PUTs for the benchmark's run), kept here
 * so that the generated section keeps it.
 */
export const LISTING_NOTES: readonly string[] = [
  '',
  '### Listing requests of a two-prefix bucket (issue 35, item 4)',
  '',
  "By hand (2026-11-28) against moto_server, ListObjectsV2 pages of 1,000 keys (S3's maximum), counted by the source (`stats.listRequests`) through `listAgainstLedger` (src/pipeline/event-listing.ts). A year of hourly objects (`PREFIX/YYYY/MM/DD/YYYYMMDDTHH0000Z-0001.jsonl`, from 2025-11-22), then one more day of 24 per deployment, the ledger holding the year:",
  '',
  '| bucket | first run (empty ledger) | nightly increment | --refresh |',
  '| --- | --- | --- | --- |',
  '| two deployments, `docs/` and `help/`, 17,520 keys | 19 requests (1 delimiter listing + 2 × 9 pages), 17,520 listed | **3 requests** (1 + one per prefix), 146 listed (each prefix from 2 days back), 48 new: all read | 19 requests |',
  '| one deployment, years `2025/` and `2026/` as sub-prefixes, 8,760 keys | 10 requests | **3 requests** (1 + one per year), 122 listed, 24 new | 10 requests |',
  "| before (one start over every key), two deployments | – | 1 request, 73 listed, **24 of the 48 new keys found** (`docs/`'s new day never listed: it sorts before `help/`'s start) | – |",
  '',
  "- The increment's cost is ceil(new keys and the lookback's keys / 1000) per sub-prefix + 1, whatever the history: 3 requests after a year as after a week. A sub-prefix no longer written to (last year's `2025/`) still costs one request a run (its last 2 days listed again), so a bucket with N sub-prefixes pays N + 1 requests a night at least.",
  "- Tested (test/integration/event-listing.test.ts, pages of 5 keys so that small buckets page): a two-prefix bucket's increment lists in at most 1 + 2 + 2 requests.",
];
