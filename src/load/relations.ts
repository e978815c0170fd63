import type { SqlSession } from './session.js';

/**
 * Whether every one of `names` exists in the schema the session reads (optionally only as that
 * kind): a destination an older version made, or a file that is not this tool's, may lack them,
 * and readers do not migrate.
 */
export async function hasRelations(
  session: SqlSession,
  names: readonly string[],
  kind?: 'BASE TABLE' | 'VIEW',
): Promise<boolean> {
  const [row] = await session.rows(
    `SELECT count(*) AS n FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_name = ANY($1::VARCHAR[])
        AND ($2::VARCHAR IS NULL OR table_type = $2::VARCHAR)`,
    [[...names], kind ?? null],
  );
  return Number(row?.['n']) === names.length;
}
