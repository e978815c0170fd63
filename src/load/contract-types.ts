import { readDuckContractTypes, type ContractTypes } from './duckdb/contract-types.js';

export type { ContractTypes };

/**
 * Every table's columns and their DuckDB types, as the migrations make them, without a database:
 * the types export's files carry from either destination (both write them with DuckDB's COPY).
 */
export function readContractTypes(): Promise<ContractTypes> {
  return readDuckContractTypes();
}
