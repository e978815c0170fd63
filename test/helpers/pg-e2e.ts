import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { startPostgres, type PostgresServer } from './postgres.js';

/** What the CLI-against-PostgreSQL tests of one describe block share. */
export interface PgE2e {
  readonly server: PostgresServer;
  readonly emu: Emulator;
  /** A connection of the server's superuser, for planting, terminating and checking. */
  readonly admin: pg.Client;
  /** The CLI's environment against the emulator, with `extra` on top. */
  env(extra?: Record<string, string>): Record<string, string>;
}

/**
 * A real PostgreSQL server, an emulator and an admin connection, started before the describe
 * block's tests and stopped after them. Call it inside the (skipIf-guarded) describe block.
 */
export function pgWithEmulator(emulator: EmulatorOptions): PgE2e {
  let server: PostgresServer | undefined;
  let emu: Emulator | undefined;
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    [server, emu] = await Promise.all([startPostgres(), startEmulator(emulator)]);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await emu?.close();
    await server?.stop();
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('pgWithEmulator: used before its beforeAll ran');
    return v;
  };
  return {
    get server() {
      return started(server);
    },
    get emu() {
      return started(emu);
    },
    get admin() {
      return started(admin);
    },
    env: (extra = {}) => ({
      MINTLIFY_API_URL: started(emu).url,
      MINTLIFY_API_KEY: started(emu).apiKey,
      MINTLIFY_PROJECT_ID: started(emu).projectId,
      ...extra,
    }),
  };
}
