import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseFiles, isWithin, realTarget } from '../../src/cli/target-path.js';

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'mintlify-etl-target-')));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'analytics.duckdb'), '');
  symlinkSync(join(dir, 'data'), join(dir, 'data-link'));
  writeFileSync(join(dir, 'afile'), '');
});

describe('realTarget', () => {
  it('resolves a symbolic link in the existing part and keeps the missing rest as given', () => {
    expect(realTarget(join(dir, 'data-link', 'new', 'r.html'), '--html')).toBe(
      join(dir, 'data', 'new', 'r.html'),
    );
  });

  it('names the file a path goes through', () => {
    expect(() => realTarget(join(dir, 'afile', 'sub'), '--out')).toThrow(/afile is a file, not a folder/);
  });

  it('names a symbolic link to nowhere', () => {
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
    expect(() => realTarget(join(dir, 'dangling', 'x'), '--out')).toThrow(
      /dangling is a symbolic link to .*gone, which does not exist/,
    );
  });
});

describe('databaseFiles', () => {
  it('holds the database and its siblings under their real paths, whichever spelling was given', () => {
    const files = databaseFiles(join(dir, 'data-link', 'analytics.duckdb'));
    expect(files.get(join(dir, 'data', 'analytics.duckdb'))).toBe('the database');
    expect(files.get(join(dir, 'data', 'analytics.duckdb.wal'))).toBe("the database's .wal file");
    expect(files.get(join(dir, 'data', 'analytics.duckdb.requests.jsonl'))).toBeDefined();
  });
});

describe('isWithin', () => {
  it('is true for the folder itself and below it, not for a sibling sharing its prefix', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b/c', '/a/b')).toBe(true);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
  });
});
