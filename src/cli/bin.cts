#!/usr/bin/env node
// The installed command: CommonJS, so that libuv's pool is sized before any ES module loads
// (thread-pool.cts says why); then the CLI itself.
import './thread-pool.cjs';

void import('./main.js');
