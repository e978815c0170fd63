import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('sync --dry-run estimates the expected cost (issue 27, item 16)', () => {
  it('on a new database: the typical cost of the default streams (about 270 requests for 30 days), not 1 a window', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'mintlify-etl-estimate-')), 'a.duckdb');
    const r = await runCli(['sync', '--dry-run', '--db', db], {
      MINTLIFY_PROJECT_ID: 'docs',
      MINTLIFY_ETL_NOW: '2026-11-27T08:00:00Z',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/at least/);
    const m = /estimated requests: about (\d+) \(typical sizes of a busy site; no history yet\)/.exec(
      r.stdout,
    );
    expect(m, r.stdout).not.toBeNull();
    const n = Number(m?.[1]);
    // getting-started.md: the 30 days cost 273 requests on the emulator's busy site.
    expect(n).toBeGreaterThanOrEqual(250);
    expect(n).toBeLessThanOrEqual(300);
    expect(r.stdout).toMatch(/ETA about 2h/);
    expect(r.stdout).toMatch(/visitors +30 day\(s\), about 75 request\(s\)/);
  });
});
