import type { DuckDBConnection } from '@duckdb/node-api';

/** Rows for the alert rules, written straight into a migrated DuckDB file. */
export class AlertsFixture {
  constructor(private readonly conn: DuckDBConnection) {}

  async run(sql: string): Promise<void> {
    await this.conn.run(sql);
  }

  /** A loaded window [from, to) of a stream, fetched at `fetched` (default: long after). */
  async window(
    p: string,
    stream: string,
    from: string,
    to: string,
    status = 'loaded',
    fetched = '2026-06-01',
  ): Promise<void> {
    await this
      .run(`INSERT OR REPLACE INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows,
        truncated, api_totals_total, attempts, fetched_at, run_id, error)
      VALUES ('${p}', '${stream}', DATE '${from}', DATE '${to}', '${status}', 1, 1, false, NULL, 1,
        TIMESTAMPTZ '${fetched}', 'r', ${status === 'failed' ? "'the server answered 503'" : 'NULL'})`);
  }

  /** One loaded day window per day of [from, to). */
  async dayWindows(p: string, stream: string, from: string, to: string): Promise<void> {
    await this
      .run(`INSERT OR REPLACE INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows,
        truncated, api_totals_total, attempts, fetched_at, run_id, error)
      SELECT '${p}', '${stream}', d::DATE, d::DATE + 1, 'loaded', 1, 1, false, NULL, 1, TIMESTAMPTZ '2026-06-01', 'r', NULL
      FROM range(DATE '${from}', DATE '${to}', INTERVAL 1 DAY) AS r(d)`);
  }

  /**
   * Human visitors of each day of [from, to): `human(dow)` by ISO weekday (1 = Monday), each day
   * complete, with the visitors windows.
   */
  async visitors(p: string, from: string, to: string, human: string): Promise<void> {
    await this.dayWindows(p, 'visitors', from, to);
    await this
      .run(`INSERT OR REPLACE INTO site_daily (project_id, day, human, ai, total, partial, loaded_at, run_id)
      SELECT '${p}', d::DATE, h, 0, h, false, TIMESTAMPTZ '2026-06-01', 'r'
      FROM (SELECT d, (${human.replaceAll('dow', 'isodow(d)')})::BIGINT AS h
            FROM range(DATE '${from}', DATE '${to}', INTERVAL 1 DAY) AS r(d))`);
  }

  async siteDay(p: string, day: string, human: number, partial = false): Promise<void> {
    await this
      .run(`INSERT OR REPLACE INTO site_daily (project_id, day, human, ai, total, partial, loaded_at, run_id)
      VALUES ('${p}', DATE '${day}', ${human}, 0, ${human}, ${partial}, TIMESTAMPTZ '2026-06-01', 'r')`);
  }

  async pageDays(p: string, path: string, from: string, to: string, human: number): Promise<void> {
    await this.run(`INSERT INTO page_daily SELECT '${p}', d::DATE, '${path}', ${human}, 0, ${human}
      FROM range(DATE '${from}', DATE '${to}', INTERVAL 1 DAY) AS r(d)`);
  }

  async search(p: string, day: string, query: string, hits: number, ctr: number): Promise<void> {
    await this.run(
      `INSERT INTO search_daily VALUES ('${p}', DATE '${day}', '${query}', ${hits}, ${ctr}, NULL, NULL)`,
    );
  }

  #feedback = 0;
  /** `n` entries on a page created that day: thumbs-down (helpful false) unless `up`. */
  async feedback(
    p: string,
    day: string,
    path: string,
    n: number,
    opts: { up?: boolean; comment?: string } = {},
  ): Promise<void> {
    for (let i = 0; i < n; i++) {
      this.#feedback++;
      await this
        .run(`INSERT INTO feedback (project_id, id, path, source, status, comment, helpful, contact, created_at,
          first_seen_at, last_seen_at, run_id, window_start)
        VALUES ('${p}', 'f${this.#feedback}', '${path}', 'contextual', 'pending',
          ${opts.comment === undefined ? 'NULL' : `'${opts.comment}'`}, ${opts.up === true}, NULL,
          TIMESTAMPTZ '${day} 10:00:00+00', TIMESTAMPTZ '2026-06-01', TIMESTAMPTZ '2026-06-01', 'r', DATE '${day}')`);
    }
  }

  /** `turns` questions a day over [from, to), `unanswered` of them unanswered, asked `query`. */
  async turns(
    p: string,
    from: string,
    to: string,
    turns: number,
    unanswered: number,
    query = 'how do I rotate a key',
  ): Promise<void> {
    await this.run(`INSERT INTO assistant_turns (project_id, thread_id, ts, query, response, response_type,
        resolution_status, query_category, page_url, sources, loaded_at, run_id, window_start)
      SELECT '${p}', 't-' || strftime(d, '%Y%m%d') || '-' || i, d::TIMESTAMPTZ + INTERVAL (i) MINUTE,
        CASE WHEN i < ${unanswered} THEN '${query}' ELSE 'q ' || i END, 'a', 'answer',
        CASE WHEN i < ${unanswered} THEN 'unanswered' ELSE 'answered' END, NULL, NULL, [], TIMESTAMPTZ '2026-06-01', 'r', d::DATE
      FROM range(DATE '${from}', DATE '${to}', INTERVAL 1 DAY) AS r(d), range(0, ${turns}) AS t(i)`);
  }

  /** A finished sync run on the night of `night`. */
  async syncRun(
    p: string,
    night: string,
    r: { status: string; deferred?: number; error?: string; deferredDays?: string[] },
  ): Promise<void> {
    const days =
      r.deferredDays === undefined ? 'NULL' : `[${r.deferredDays.map((d) => `'${d}'`).join(', ')}]`;
    await this
      .run(`INSERT INTO sync_runs (run_id, project_ids, started_at, finished_at, status, windows_deferred, error, deferred_days)
      VALUES ('run-${p}-${night}', ['${p}'], TIMESTAMPTZ '${night} 02:00:00+00', TIMESTAMPTZ '${night} 03:00:00+00',
        '${r.status}', ${r.deferred ?? 0}, ${r.error === undefined ? 'NULL' : `'${r.error}'`}, ${days})`);
  }
}
