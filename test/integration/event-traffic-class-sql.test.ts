import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  classify,
  foldedAgentSql,
  loadTrafficClasses,
  trafficClassSql,
  type TrafficLists,
} from '../../src/sources/events/traffic-class.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/**
 * `reclassify` runs trafficClassSql() in the database; the loader stored classify()'s answer.
 * Both must agree on every user agent, on both destinations, or a reclassify would move rows.
 */
const packaged = loadTrafficClasses();
const lists: TrafficLists = {
  source: 'test',
  classes: packaged.classes.map((c) =>
    c.class === 'other_bot'
      ? { ...c, agents: [...c.agents, "O'Reilly-Bot", 'Ünï-Bot', '100%_bot', 'a\\b'] }
      : c,
  ),
};

const agents: (string | null)[] = [
  null,
  '',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
  ...packaged.classes.flatMap((c) =>
    c.agents.flatMap((a) => [a, a.toUpperCase(), `Mozilla/5.0 (compatible; ${a.toLowerCase()}/1.0)`]),
  ),
  'GPTBot Cursor', // two lists: the earlier wins
  "o'reilly-bot/2",
  'ÜNÏ-BOT', // non-ASCII letters are not folded: no match
  'ünï-bot x',
  '100%_BOT',
  '100x-bot',
  'A\\B',
  'faceboo\u212Aexternalhit', // KELVIN SIGN: JavaScript's toLowerCase would make it "k"
  'HEADLESS\u0130CHROME HeadlessChrome',
  '😀 ClaudeBot 😀',
  'é'.repeat(30_000) + 'bytespider',
];

const literal = (s: string | null): string => (s === null ? 'NULL' : `'${s.replaceAll("'", "''")}'`);
const values = agents.map((a, i) => `(${i}, ${literal(a)})`).join(', ');
const query = `SELECT i, ${trafficClassSql('ua', lists)} AS cls FROM (VALUES ${values}) AS t(i, ua) ORDER BY i`;
// reclassify's form: each agent folded once in a subquery, the CASE over the folded text.
const foldedQuery = `SELECT i, ${trafficClassSql('f.agent', lists, { folded: true })} AS cls
FROM (SELECT i, ${foldedAgentSql('ua')} AS agent FROM (VALUES ${values}) AS t(i, ua) OFFSET 0) AS f ORDER BY i`;
const expected = agents.map((a) => classify(a, lists));

describe('the traffic-class SQL expression', () => {
  let duck: DuckDBConnection;
  beforeAll(async () => {
    duck = await (await DuckDBInstance.create(':memory:')).connect();
  });
  afterAll(() => duck?.closeSync());

  it("gives classify()'s class for every user agent on DuckDB", async () => {
    const rows = (await duck.runAndReadAll(query)).getRowObjectsJS();
    expect(rows.map((r) => r['cls'])).toEqual(expected);
    const folded = (await duck.runAndReadAll(foldedQuery)).getRowObjectsJS();
    expect(folded.map((r) => r['cls'])).toEqual(expected);
    expect(new Set(expected)).toEqual(
      new Set(['human', 'ai_answers', 'search_index', 'training', 'other_bot']),
    );
  });

  describe.skipIf(!hasPostgres())('and on PostgreSQL', () => {
    let server: PostgresServer;
    let client: pg.Client;
    beforeAll(async () => {
      server = await startPostgres();
      client = new pg.Client({ connectionString: server.url });
      await client.connect();
    });
    afterAll(async () => {
      await client?.end();
      await server?.stop();
    });

    it('gives the same class on PostgreSQL', async () => {
      const rows = (await client.query<{ cls: string }>(query)).rows;
      expect(rows.map((r) => r.cls)).toEqual(expected);
      const folded = (await client.query<{ cls: string }>(foldedQuery)).rows;
      expect(folded.map((r) => r.cls)).toEqual(expected);
    });
  });
});
