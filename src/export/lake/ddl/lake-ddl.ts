import type { LakeTable } from '../lake-schema.js';
import { athenaDdl } from './athena.js';
import { bigqueryDdl } from './bigquery.js';
import type { DdlDialect } from './dialects.js';
import { duckdbDdl } from './duckdb.js';
import type { LakeLocation } from './location.js';
import { snowflakeDdl } from './snowflake.js';

const WRITERS: Readonly<
  Record<DdlDialect, (tables: readonly LakeTable[], location: LakeLocation) => string[]>
> = {
  athena: athenaDdl,
  bigquery: bigqueryDdl,
  snowflake: snowflakeDdl,
  duckdb: duckdbDdl,
};

/** The statements that mount the lake's tables in `dialect`, each ending with `;`. */
export function lakeDdl(dialect: DdlDialect, tables: readonly LakeTable[], location: LakeLocation): string[] {
  return WRITERS[dialect](tables, location);
}
