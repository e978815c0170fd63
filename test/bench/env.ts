import { cpus, totalmem, platform, release } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly duckdb: string;
}

export async function machine(): Promise<Machine> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const reader = await conn.runAndReadAll('SELECT version() AS v');
  const duckdb = String(reader.getRowObjects()[0]?.['v']);
  conn.closeSync();
  instance.closeSync();
  const c = cpus();
  return {
    cpu: c[0]?.model.trim() ?? 'unknown',
    cores: c.length,
    memoryGiB: totalmem() / 2 ** 30,
    os: `${platform()} ${release()}`,
    node: process.version,
    duckdb,
  };
}
