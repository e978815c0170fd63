import { describe, expect, it } from 'vitest';
import { DiskFullError, EtlError, EXIT, UsageError } from '../../src/errors.js';
import { ConnectionEndedError } from '../../src/load/postgres/ended.js';
import { destinationDown, unchanged } from '../../src/pipeline/destination-down.js';

describe('destinationDown', () => {
  it("takes DuckDB's and Node's words for a full disk, anywhere in the cause chain, as one disk-full line", () => {
    const duck = new Error(
      'TransactionContext Error: Failed to commit: Could not write file "x.wal": No space left on device',
    );
    const node = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const temp = new Error(
      'Out of Memory Error: failed to offload data block (max_temp_directory_size 0 bytes)',
    );
    for (const e of [duck, node, temp, new Error('load failed', { cause: duck })]) {
      const down = destinationDown(e, '/mnt/small/a.duckdb');
      expect(down).toBeInstanceOf(DiskFullError);
      expect(down?.message).toMatch(/^the disk holding \/mnt\/small\/a\.duckdb is full .*free some space/);
      expect(down?.exitCode).toBe(EXIT.windowsFailed);
    }
  });

  it('passes on an error a destination marks as stopping the run (the server ended the connection)', () => {
    const ended = new ConnectionEndedError('the PostgreSQL server ended this run’s connection');
    expect(destinationDown(ended, 'pg')).toBe(ended);
    expect(destinationDown(new Error('window failed', { cause: ended }), 'pg')).toBe(ended);
  });

  it("leaves a window's own failures to the window", () => {
    expect(destinationDown(new Error('Conversion Error: invalid date'), 'db')).toBeUndefined();
    expect(destinationDown(new UsageError('bad'), 'db')).toBeUndefined();
    expect(destinationDown('no space', 'db')).toBeUndefined();
    expect(
      destinationDown(
        new (class extends EtlError {
          code = 'E_X';
          exitCode = 4;
        })('x'),
        'db',
      ),
    ).toBeUndefined();
  });
});

describe('unchanged', () => {
  it("names the window's own unit: a day, an ISO week, a month, a thread", () => {
    expect(unchanged({ day: '2026-03-01', dateTo: '2026-03-02' })).toBe('the day is unchanged');
    expect(unchanged({ day: '2026-03-02', dateTo: '2026-03-09' })).toBe('the week is unchanged');
    expect(unchanged({ day: '2026-02-01', dateTo: '2026-03-01' })).toBe('the month is unchanged');
    expect(unchanged({ day: '2026-01-01', dateTo: '2026-02-01' })).toBe('the month is unchanged');
    expect(unchanged({ day: '2026-01-01', dateTo: '2026-01-04' })).toBe('the 3 days are unchanged');
    expect(unchanged({ day: '2026-01-01', dateTo: '2026-01-02', item: { id: 't', version: 1 } })).toBe(
      'the thread is unchanged',
    );
  });
});
