/**
 * What changed because of these benchmarks, with the figures that motivated it. They come from
 * earlier runs on the same machine, so they are context, not this run's results.
 */
export const CHANGES = `## What these benchmarks changed (before → after)

Figures from earlier runs on the same machine (single runs unless said), measured the same way as above.

### Load: group commit (benchmark 3)

- Before: the writer ran one transaction per window (DELETE + Appender + COMMIT, ~15 ms each whatever its size):
  25,000 rows as 100 windows took **28.7–29.5×** the time of \`read_json\` on the same rows (~18,000 rows/s).
- After: \`src/load/batch-loader.ts\` (\`loadWindowBatch\` / \`loadPreparedBatch\`) loads many windows in ONE
  transaction: one set-based DELETE per table (site_daily, page_daily, sync_windows) for every (project_id, day) of
  the batch (keys bound as two lists and unnested, with a day range so DuckDB skips row groups), then one Appender
  per table fed 2,048-row DataChunks. \`src/pipeline/writer.ts\` drains every queued window into one batch; windows
  finishing meanwhile form the next. 200,000 rows (quick runs): **3.3–4.2×** read_json, 150,000–180,000 rows/s;
  the full run above: 100,000 rows one window at a time ~13,800 rows/s vs ~200,000 rows/s group-committed for 1M
  and 5M rows (~14× faster), **5.3× / 5.7×** read_json (read_json itself gets faster per row on bigger files).
- Batch cap 50,000 → 250,000 rows: profiling 1M rows showed that batches smaller than a DuckDB row group
  (122,880 rows) send every row through the WAL and a checkpoint (commits: 1.9 s of 5.3 s); full row groups are
  written straight to the file (commits: 0.85 s).
- Why not 1.5×: the remaining cost is handing values from JS to DuckDB (node-api converts each VARCHAR and BIGINT
  through a native call on the main thread: ~2–3 µs a row, measured as the 'pages' step: 1.8–2.8 s per 1M rows),
  while read_json parses in C++ on both cores. Writing the batch as CSV/NDJSON for read_csv/read_json instead was
  measured too and is no better: serialising 1M rows in JS took ~2 s (CSV) / 2.4–2.7 s (NDJSON) before DuckDB
  read a byte (read_csv itself ~0.95 s, read_json ~1.0 s). Getting closer would need the rows to reach DuckDB
  without a per-value JS conversion (e.g. Arrow IPC, not available in @duckdb/node-api 1.5 without a new
  dependency).

### End-to-end (benchmark 4), 365 days × 2,000 paths, 20 ms latency, concurrency 4 (ideal 12.4 s)

| step | sync s | efficiency |
| --- | --- | --- |
| group-commit writer, runSync waiting for each day's commit | 17.7, 18.1 | 0.69–0.70 |
| + workers hand a day to the writer and fetch the next (unsettled loads capped at 60,000 rows), writer waits up to 200 ms or 20,000 rows to form a batch | 17.3, 17.4 | 0.72 |
| + Appender flushes and yields to the event loop every 4 chunks instead of blocking for a whole batch | 16.3–17.0 | 0.73–0.76 |
| reference: bare undici, 4 workers, same requests, no parsing, validation or loading | 14.3 | 0.87 |

Profile of the 365-day sync (\`node --cpu-prof\`): the sync process used 9.7 s of CPU (14.2 s before the changes
above) for 583,000 rows; the main thread was idle 10.7 s of 17.6 s; DuckDB's synchronous Appender calls were the
biggest single item (2.0 s → 0.6 s after yielding), then undici, JSON/zod, GC. Mean request time was 25–26 ms against
a 20 ms latency (the bare client: 23 ms): the box has 2 cores, the emulator process takes ~2.5 s of CPU, and other
tenants kept the load average near 2, so every millisecond of CPU the sync spends shows up as request latency. DB
open/close per idle was not a factor (no idle gap at 20 ms latency; 140 ms before the first request and 450 ms after
the last, including the final checkpoint).

### Memory (benchmark 5)

- The writer sets DuckDB's \`memory_limit\` to 128MB while it holds the file (DuckDB otherwise caches written blocks up
  to 80% of RAM). Measured effect: none on the peak to speak of, none on speed (1M rows through the writer:
  4.7–4.9 s with 128MB or 4GB).
- The peak is dominated by V8's heap growing lazily under a high allocation rate, not by anything that grows with the
  range: one 365-day run peaked at 343 MiB by default, 261 MiB with \`NODE_OPTIONS=--max-old-space-size=80\` and the
  same run time. Capping the heap (e.g. \`--max-old-space-size=128\` in how the CLI is launched) would be the lever.
`;
