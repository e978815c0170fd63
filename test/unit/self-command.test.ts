import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfCommand } from '../../src/cli/self-command.js';
import { CLI } from '../helpers/cli.js';

describe('the command a hint prints to run this install', () => {
  it('is mintlify-etl when that name on PATH is this install', () => {
    const bin = mkdtempSync(join(tmpdir(), 'mintlify-etl-bin-'));
    symlinkSync(CLI, join(bin, 'mintlify-etl'));
    expect(selfCommand({ PATH: `/nowhere:${bin}` })).toBe('mintlify-etl');
  });

  it('is node with the absolute path of the built CLI when mintlify-etl on PATH is another program', () => {
    const bin = mkdtempSync(join(tmpdir(), 'mintlify-etl-bin-'));
    writeFileSync(join(bin, 'mintlify-etl'), '#!/bin/sh\n');
    expect(selfCommand({ PATH: bin })).toBe(`node ${CLI}`);
    expect(selfCommand({})).toBe(`node ${CLI}`);
  });
});
