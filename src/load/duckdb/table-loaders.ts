import type { DuckTableLoader } from './loader.js';
import type { TableSpec } from '../table-spec.js';
import { eventsLoader } from './event-tables.js';
import { jsonDaysLoader } from './json-tables.js';
import { sitePagesLoader } from './site-pages.js';
import { threadsLoader } from './thread-tables.js';

// A spec is a constant of its stream: its loader (its SQL text) is built once.
const loaders = new WeakMap<TableSpec, DuckTableLoader>();

/** The loader of a stream's TableSpec on DuckDB (PostgreSQL's: ../postgres/table-loaders.ts). */
export function duckLoaderOf(spec: TableSpec): DuckTableLoader {
  let loader = loaders.get(spec);
  if (loader === undefined) {
    loader = loaderFor(spec);
    loaders.set(spec, loader);
  }
  return loader;
}

function loaderFor(spec: TableSpec): DuckTableLoader {
  switch (spec.kind) {
    case 'site-pages':
      return sitePagesLoader(spec);
    case 'json-days':
      return jsonDaysLoader(spec.tables);
    case 'events':
      return eventsLoader(spec.table);
    case 'threads':
      return threadsLoader(spec);
  }
}
