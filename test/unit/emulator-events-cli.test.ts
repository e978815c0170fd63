import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENTS_MARKER, generateEventStream } from '../../src/emulator/events/index.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/** The CLI as a real process (dist/: `npm run build` first), its clock pinned so "today" is known. */
const NOW = '2026-11-27T10:00:00.000Z';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'evem-cli-'));
  dirs.push(d);
  return d;
}

/** Starts `emulator --events-out`, waits for its two lines (banner, then what was written), stops it. */
async function emulatorWithEvents(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCliProcess(['emulator', '--port', '0', ...args], { MINTLIFY_ETL_NOW: NOW });
  let out = '';
  run.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.split('\n').length > 2, {
    what: 'the banner and the events line',
    abortIf: () => (run.child.exitCode !== null ? `it exited ${run.child.exitCode}` : undefined),
  }).catch(() => undefined);
  if (run.child.exitCode === null) run.child.kill('SIGTERM');
  return run;
}

async function filesOf(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map((f) => f.split('\\').join('/')).sort();
}

describe('mintlify-etl emulator --events-out', () => {
  it('writes the seed’s event stream to the folder, says how many and where, then serves the API', async () => {
    const dir = join(await tmp(), 'bucket');
    const r = await emulatorWithEvents(['--events-out', dir, '--seed', '3', '--days', '14']);
    expect(r.code).toBe(0);
    const [banner, line] = r.stdout.split('\n');
    expect(banner).toMatch(/^mintlify emulator on http:\/\/127\.0\.0\.1:\d+ /);
    const expected = generateEventStream({ seed: 3, days: 14, endDay: '2026-11-27' });
    expect(line).toBe(
      `wrote ${expected.objects.length} event objects (${expected.truth.events.length} events, ${expected.objects.reduce((a, o) => a + o.body.length, 0)} bytes) to ${dir}`,
    );
    expect(await filesOf(dir)).toEqual([EVENTS_MARKER, ...expected.objects.map((o) => o.key)].sort());
    for (const o of expected.objects) expect((await readFile(join(dir, o.key))).equals(o.body)).toBe(true);
  });

  it('writes over a stream it wrote before, and refuses a folder holding a file it did not write, leaving it', async () => {
    const dir = await tmp();
    expect((await emulatorWithEvents(['--events-out', dir, '--seed', '1', '--days', '5'])).code).toBe(0);
    expect((await emulatorWithEvents(['--events-out', dir, '--seed', '2', '--days', '4'])).code).toBe(0);
    const second = generateEventStream({ seed: 2, days: 4, endDay: '2026-11-27' });
    expect(await filesOf(dir)).toEqual([EVENTS_MARKER, ...second.objects.map((o) => o.key)].sort());
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const refused = await emulatorWithEvents(['--events-out', dir, '--days', '4']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--events-out .* holds files this tool did not write \(notes\.txt\)/);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(await filesOf(dir)).toEqual(
      [EVENTS_MARKER, ...second.objects.map((o) => o.key), 'notes.txt'].sort(),
    );
  });

  it('explains --events-out in --help', async () => {
    const r = await runCli(['emulator', '--help']);
    expect(r.stdout).toMatch(/--events-out <dir>/);
    expect(r.stdout).toMatch(/--events-scale <n>/);
  });
});

describe("emulator --help's event stream example", () => {
  it('runs as printed: the folder it writes loads with the sync line it shows, no API key needed', async () => {
    const help = (await runCli(['emulator', '--help'])).stdout;
    const examples = [...help.matchAll(/^\s*\$ (mintlify-etl .*?)(?:\s+#.*)?$/gm)].map((m) => m[1] as string);
    const write = examples.find((e) => e.includes('--events-out'));
    const sync = examples.find((e) => e.startsWith('mintlify-etl sync') && e.includes('--events'));
    expect(write).toBeDefined();
    expect(sync).toBeDefined();
    const cwd = await tmp();
    // As printed, but on a free port: the default one may be taken on a test machine.
    const writeArgs = (write as string).split(/\s+/).slice(1);
    const emu = runCliProcess([...writeArgs, '--port', '0'], { MINTLIFY_ETL_NOW: NOW }, { cwd });
    let out = '';
    emu.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('wrote '), { what: 'the events line' });
    emu.child.kill('SIGTERM');
    await emu;
    const r = await runCli((sync as string).split(/\s+/).slice(1), { MINTLIFY_ETL_NOW: NOW }, { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/sync succeeded: events: \d+ object\(s\) loaded .* no API request/);
  });
});
