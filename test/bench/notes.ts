/**
 * What changed because of these benchmarks, with the figures that motivated it. They come from
 * earlier runs on the same machine, so they are context, not this run's results.
 */
export const CHANGES = `## What these benchmarks changed (before → after)

Figures from earlier runs on the same machine (single runs unless said), measured the same way as above.

### Load: group commit, then rows as JSON text (benchmark 3)

- Before: the writer ran one transaction per window (DELETE + Appender + COMMIT, ~15 ms each whatever its size):
  25,000 rows as 100 windows took **28.7–29.5×** the time of \`read_json\` on the same rows (~18,000 rows/s).
- Group commit: \`src/load/batch-loader.ts\` loads many windows in ONE transaction: one set-based DELETE per table
  (site_daily, page_daily, sync_windows) for every (project_id, day) of the batch (keys bound as two lists and
  unnested, with a day range so DuckDB skips row groups); \`src/pipeline/writer.ts\` drains every queued window into
  one batch; windows finishing meanwhile form the next. With page rows still fed through the Appender: ~200,000
  rows/s for 1M and 5M rows, **5.3× / 5.7×** read_json.
- Batch cap 50,000 → 250,000 rows: batches smaller than a DuckDB row group (122,880 rows) send every row through
  the WAL and a checkpoint (commits: 1.9 s of 5.3 s per 1M rows); full row groups go straight to the file (0.85 s).
- Rows as JSON text: the Appender cost a native call per value on the main thread (~2–3 µs a row). Now each
  window's rows are \`JSON.stringify\`-ed once (native V8 code) when the window reaches the writer, and DuckDB parses
  them inside the INSERT (\`unnest(from_json(body, '[{"path":"VARCHAR",...}]'))\`, ≤ 50,000 rows per statement, the
  inserted count checked against the rows sent). Measured in a full run before this one: 1M rows 542,000 rows/s
  vs read_json 2.39M rows/s (**4.48×**, 4.21–4.58), 5M rows 502,000 vs 2.64M rows/s (**5.35×**): the loader is
  ~2.7× faster, but read_json got faster on that run too (the machine was quieter), so the ratio moved less.
- Why not 1.5×: read_json reads flat NDJSON in C++ on both cores; the loader's rows come from JavaScript objects.
  Measured per 1M rows: \`JSON.stringify\` alone 0.3–0.5 s; DuckDB parsing the nested per-window lists 0.8 s vs
  0.42 s for flat read_json; writing the batch as one NDJSON file and calling read_json on it 1.5 s in all (no
  better). Closer would need rows to reach DuckDB without JS serialising them (e.g. Arrow IPC straight from the
  HTTP body), which @duckdb/node-api 1.5 does not offer.

### End-to-end (benchmark 4), 365 days × 2,000 paths, 20 ms latency, concurrency 4 (ideal 12.4 s)

| step | sync s | efficiency |
| --- | --- | --- |
| group-commit writer, runSync waiting for each day's commit | 17.7, 18.1 | 0.69–0.70 |
| + workers hand a day to the writer and fetch the next (unsettled loads capped at 60,000 rows), writer waits up to 200 ms or 20,000 rows to form a batch | 17.3, 17.4 | 0.72 |
| + Appender flushes and yields to the event loop every 4 chunks instead of blocking for a whole batch | 16.3–17.0 | 0.73–0.76 |
| + page rows to DuckDB as JSON text instead of the Appender (2026-11-23) | 14.2–14.4 | 0.86–0.87 |
| reference: bare undici, 4 workers, same requests, no parsing, validation or loading | 14.3 | 0.87 |

Profile of the 365-day sync (\`node --cpu-prof\`): the sync process used 9.7 s of CPU (14.2 s before the changes
above) for 583,000 rows; the main thread was idle 10.7 s of 17.6 s; DuckDB's synchronous Appender calls were the
biggest single item (2.0 s → 0.6 s after yielding), then undici, JSON/zod, GC. Mean request time was 25–26 ms against
a 20 ms latency (the bare client: 23 ms): the box has 2 cores, the emulator process takes ~2.5 s of CPU, and other
tenants kept the load average near 2, so every millisecond of CPU the sync spends shows up as request latency. DB
open/close per idle was not a factor (no idle gap at 20 ms latency; 140 ms before the first request and 450 ms after
the last, including the final checkpoint).

### Memory (benchmark 5)

- Peak RSS before this round: 322 MiB (317–331) for 365 days and 378 MiB (360–387) for 1,095 days; the JSON loader
  alone moved a 365-day run to 330–360 MiB.
- What the RSS was made of (365 days, sampled every 20 ms): V8 heap 125–136 MB of which ~20 MB live after each full
  GC; the rest is Node itself (~45 MiB), DuckDB's library and buffers. V8 let the old generation grow to ~4× the live
  set between full GCs because GC was cheap (mutator utilisation 0.98).
- \`--heap-growing-percent=30\` (set by the CLI at start-up with \`v8.setFlagsFromString\`, which works for this flag,
  unlike \`--max-old-space-size\`): V8 heap 71–75 MB, peak RSS 272–290 MiB, the zero-latency sync 6.2 s → 6.6–6.8 s
  (more, shorter full GCs; invisible at 20 ms latency).
- The writer's DuckDB \`memory_limit\` 128MB → 32MB. A full run with 64MB gave 278 (270–278) MiB for 365 days and
  296 (291–304) MiB for 1,095 days, the worst run over the target; single 1,095-day runs: 303–320 MiB with 64MB,
  289–293 with 48MB, 268–274 with 32MB. The cost is on the loader: 1M rows 566k → 538k rows/s, 5M rows 547k →
  447k rows/s (benchmark 3 above is measured with 32MB), which a sync bounded by the API's 100 requests an hour
  never feels.
- Turning windows into load text as they reach the writer (so queued windows hold one string, not thousands of row
  objects) did not move the peak on its own (the objects were young garbage already); kept because it keeps the
  queue's memory proportional to its bytes.
- Tried without effect: \`SET threads = 1\` in the writer, \`allocator_flush_threshold = '8MB'\`, 10,000 rows per
  INSERT instead of 50,000, \`--max-semi-space-size=4\`, a 20,000-row batch cap (all within the ±15 MiB noise).
`;
