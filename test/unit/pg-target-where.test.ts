import { describe, expect, it } from 'vitest';
import { parseDbTarget } from '../../src/load/target.js';

/*
 * A PostgreSQL --db is named in messages and summaries as pg connects to it: pg takes the host and
 * port of the URL's query (`?host=/run/postgresql&port=5433`, how a Unix socket is given) over the
 * URL's own, so the label must too, or it names a server the run never spoke to.
 */

const where = (url: string, env: NodeJS.ProcessEnv = {}): string => {
  const t = parseDbTarget(url, undefined, env);
  if (t.kind !== 'postgres') throw new Error('not postgres');
  return t.label;
};

describe('the name of a PostgreSQL destination', () => {
  it('takes the host and port of the query over the URL, as pg does', () => {
    expect(where('postgresql://etl@localhost/analytics?host=/tmp/pgx&port=55432')).toBe(
      'postgresql://etl@/tmp/pgx:55432/analytics (schema mintlify)',
    );
    expect(where('postgresql://etl@db.example:6000/analytics?port=7000')).toBe(
      'postgresql://etl@db.example:7000/analytics (schema mintlify)',
    );
  });

  it('falls back to the URL, then PGHOST and PGPORT, then localhost:5432', () => {
    expect(where('postgresql://etl@db.example:6000/analytics')).toBe(
      'postgresql://etl@db.example:6000/analytics (schema mintlify)',
    );
    expect(where('postgresql:///analytics', { PGUSER: 'etl', PGHOST: 'pg.internal', PGPORT: '6432' })).toBe(
      'postgresql://etl@pg.internal:6432/analytics (schema mintlify)',
    );
    expect(where('postgresql:///analytics', { PGUSER: 'etl' })).toBe(
      'postgresql://etl@localhost:5432/analytics (schema mintlify)',
    );
  });
});
