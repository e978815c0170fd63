/**
 * libuv's thread pool runs every DuckDB statement (node-api's async work) besides file reads and
 * zlib. With its default 4 threads, glibc gives each allocating thread its own malloc arena and
 * DuckDB's allocations spread over all of them: loading 2 million events into DuckDB peaked ~16 MiB
 * higher than with 2 threads (BENCHMARKS.md, benchmark 12), for no speed, as one writer runs one
 * statement at a time. libuv reads the variable when the pool first starts: CommonJS, so that the
 * bin (bin.cts) can set it before Node 20's ES module loader starts the pool to read main.js; Node 22
 * and later start it lazily, so main's first import is early enough there. A user's setting wins.
 */
process.env['UV_THREADPOOL_SIZE'] ??= '2';
