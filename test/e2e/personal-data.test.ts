import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { addDays } from '../../src/util/day.js';
import { runCli } from '../helpers/cli.js';
import { readRows, tempDbPath } from '../helpers/db.js';

let emu: Emulator;
let db: string;
let syncOutput: string;
/** A fixed today for the service and every command (MINTLIFY_ETL_NOW). */
const today = '2027-03-04';
const clock = { MINTLIFY_ETL_NOW: `${today}T09:00:00Z` };

/** Every file below `dir`, as bytes, so an email in a Parquet page or a CSV line is found alike. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesBelow(p) : [p];
  });
}

function contacts(): string[] {
  return emu.dataset
    .feedbackEvents(addDays(today, -30), today)
    .flatMap((f) => ('contact' in f && typeof f.contact === 'string' ? [f.contact] : []));
}

beforeAll(async () => {
  // Faults make the run log retries and errors too: none of those lines may carry an email.
  emu = await startEmulator({
    seed: 21,
    days: 40,
    paths: 80,
    faults: 0.2,
    faultKinds: ['server-error', 'connection-reset'],
    today,
  });
  db = tempDbPath();
  const env = {
    MINTLIFY_API_URL: emu.url,
    MINTLIFY_API_KEY: emu.apiKey,
    MINTLIFY_PROJECT_ID: emu.projectId,
    ...clock,
  };
  const r = await runCli(['sync', '--db', db, '--streams', 'visitors,feedback,assistant', '--verbose'], env);
  expect(r.code, r.stderr).toBe(0);
  syncOutput = r.stdout + r.stderr;
});
afterAll(async () => {
  await emu.close();
});

describe("readers' email addresses and the API key", () => {
  it('are stored for the user (feedback.contact) but never in the sync output, retries and errors included', async () => {
    expect(contacts().length).toBeGreaterThan(3);
    const stored = await readRows<{ n: number }>(db, 'SELECT count(contact)::INT AS n FROM feedback');
    expect(stored[0]?.n).toBeGreaterThan(3);
    expect(syncOutput).toMatch(/retry/);
    for (const c of contacts()) expect(syncOutput).not.toContain(c);
    expect(syncOutput).not.toMatch(/@example\.com/);
    expect(syncOutput).not.toContain(emu.apiKey);
  });

  it('are left out of the report, text and HTML, unless --include-personal-data', async () => {
    const html = join(dirname(db), 'report.html');
    const r = await runCli(['report', '--db', db, '--html', html], clock);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/feedback/i);
    const page = readFileSync(html, 'utf8');
    expect(r.stdout + r.stderr + page).not.toMatch(/@example\.com/);
    expect(page).not.toContain(emu.apiKey);
    const asked = await runCli(['report', '--db', db, '--include-personal-data', '--html', html], clock);
    expect(asked.code, asked.stderr).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/@example\.com/);
  });

  it('are left out of the export unless --include-personal-data', async () => {
    const out = join(dirname(db), 'export-csv');
    const r = await runCli(['export', '--db', db, '--out', out, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const files = filesBelow(out);
    expect(files.some((f) => f.includes('feedback'))).toBe(true);
    for (const f of files) expect(readFileSync(f, 'latin1')).not.toMatch(/@example\.com/);
    const withIt = join(dirname(db), 'export-personal');
    const asked = await runCli([
      'export',
      '--db',
      db,
      '--out',
      withIt,
      '--format',
      'csv',
      '--include-personal-data',
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/personal data included: feedback's contact/);
    expect(filesBelow(withIt).some((f) => readFileSync(f, 'latin1').includes('@example.com'))).toBe(true);
  });
});
