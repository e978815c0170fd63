#!/usr/bin/env node
// First: sets libuv's pool size before anything can start the pool.
import './thread-pool.cjs';
import { setFlagsFromString } from 'node:v8';

// A sync allocates fast (pages parsed, checked and turned into load text) while keeping ~20 MB
// alive; V8's default lets the old generation grow to about 4x the live set between full GCs
// because GC is cheap here. A growing factor of 1.3 keeps the heap near the live set: measured on
// a 365-day, 5,000-path sync, V8's heap peaked at ~75 MB instead of ~130 MB, peak RSS went from
// ~340 to ~285 MiB, at the cost of more (short) full GCs (BENCHMARKS.md, benchmark 5). It must
// be set before the heap grows, so here, first thing.
setFlagsFromString('--heap-growing-percent=30');

// After the flag: the CLI's modules are loaded from here on.
const { runMain } = await import('./run.js');
const code = await runMain(process.argv.slice(2));
// Exit explicitly once stdout has drained: a keep-alive socket or DuckDB's threads must not
// hold a finished cron job open.
process.stdout.write('', () => process.exit(code));
