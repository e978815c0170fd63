import { emulatorBanner, startEmulator, type EmulatorOptions } from '../../src/emulator/index.js';

/*
 * An emulator in its own process with options the CLI's `emulator` command does not offer (its
 * own API key: the command serves the demo key). Benchmarks start one per organization, so two
 * organizations are two API servers on their own CPU, as they are at the service.
 * Usage: node dist/test/bench/emulator-process.js '<EmulatorOptions as JSON>'
 */
const opts = JSON.parse(process.argv[2] ?? '{}') as EmulatorOptions;
const emu = await startEmulator({ port: 0, ...opts });
process.once('SIGTERM', () => {
  void emu.close().then(() => process.exit(0));
});
process.stdout.write(`${emulatorBanner(emu)}\n`);
