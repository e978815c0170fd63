import { describe, expect, it } from 'vitest';
import { pgConnectionString } from '../../src/load/postgres/connect.js';
import { runCli } from '../helpers/cli.js';

/*
 * pg 8 prints a multi-line "SECURITY WARNING" for sslmode=prefer, require or verify-ca on every
 * run (it treats them as verify-full). The tool spells out what pg does, so the meaning is the
 * same and the user's terminal and cron mail stay quiet.
 */
describe('sslmode as pg reads it', () => {
  it('spells prefer, require and verify-ca as the verify-full pg applies to them, keeping the rest of the URL', () => {
    for (const mode of ['prefer', 'require', 'verify-ca'])
      expect(
        pgConnectionString(`postgresql://etl:p%40ss@db.example:5432/wh?sslmode=${mode}&application_name=x`),
      ).toBe('postgresql://etl:p%40ss@db.example:5432/wh?sslmode=verify-full&application_name=x');
  });

  it('leaves disable, verify-full, libpq compatibility and a URL without sslmode as they are', () => {
    for (const url of [
      'postgresql://db.example/wh?sslmode=disable',
      'postgresql://db.example/wh?sslmode=verify-full',
      'postgresql://db.example/wh?uselibpqcompat=true&sslmode=require',
      'postgresql://db.example/wh',
    ])
      expect(pgConnectionString(url)).toBe(url);
  });

  it('prints no SECURITY WARNING for sslmode=require, only the one line about the server', async () => {
    const r = await runCli(['status', '--db', 'postgresql://etl@127.0.0.1:1/wh?sslmode=require']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/SECURITY WARNING|Warning/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
