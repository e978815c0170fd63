import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRules, type AlertRules } from '../../src/insights/alert-rules.js';
import { evaluateAlerts } from '../../src/insights/alerts.js';
import { readGaps } from '../../src/insights/gaps.js';
import { openDatabase, type Database } from '../../src/load/duckdb/database.js';
import { migratePostgres } from '../../src/load/postgres/migrate.js';
import { PLAIN_TYPES, pgSession } from '../../src/load/postgres/session.js';
import type { SqlSession } from '../../src/load/session.js';
import { gatherAssistant } from '../../src/report/events.js';
import { addDays } from '../../src/util/day.js';
import { tempDbPath } from '../helpers/db.js';
import { hasPostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/*
 * "The same question" is one rule (question_key, docs/gaps.md): the report's unanswered questions,
 * the content gaps and the assistant alert's top questions group one set of spellings alike, on
 * both destinations. The spellings differ in case, ASCII and Unicode punctuation (full-width,
 * CJK, Arabic, em dash, curly quotes), white space of any script (NBSP, U+3000), an emoji, and
 * readers' e-mail addresses.
 */

const PROJECT = 'qk-project';
const DAY = '2026-03-10';

/** Each group, the spellings asked: the counts (9, 3, 2) tell the groups apart. */
const GROUPS: Record<string, readonly string[]> = {
  reset: [
    'How do I reset my API key?',
    'how do i reset my api key',
    '  How do I  reset my API key!!',
    'How do I reset my API key？',
    'How\u00a0do I reset my API\u00a0key?',
    'How do I\u3000reset my API key。',
    '「How do I reset my API key」',
    'How do I reset my API key؟',
    'How — do I reset “my” API key 🙏',
  ],
  cjk: ['如何重置密钥？', '如何重置密钥！', '「如何重置密钥」、'],
  email: ['Can ann.lee@example.com get an invoice?', 'can bob@corp.example.io get an invoice'],
};

const BASELINE_DAYS = 7;

function rules(): AlertRules {
  const r = defaultRules();
  return {
    ...r,
    traffic: { ...r.traffic, enabled: false },
    search: { ...r.search, enabled: false },
    feedback: { ...r.feedback, enabled: false },
    pipeline: { ...r.pipeline, enabled: false },
    assistant: { ...r.assistant, minTurns: 1, increasePoints: 0, minHistoryDays: 1, topQuestions: 10 },
  };
}

/**
 * The same rows on either destination: a loaded assistant window per day (fetched the morning
 * after), the spellings unanswered on DAY (each its own thread), answered turns on the days before.
 */
async function seed(s: SqlSession): Promise<void> {
  const sources = s.dialect === 'postgres' ? "'[]'::jsonb" : '[]';
  const turn = `INSERT INTO assistant_turns (project_id, thread_id, ts, query, response, response_type,
      resolution_status, query_category, page_url, sources, loaded_at, run_id, window_start)
    VALUES ($1::VARCHAR, $2::VARCHAR, $3::TIMESTAMPTZ, $4::VARCHAR, 'Sorry', 'answer', $5::VARCHAR, NULL,
      NULL, ${sources}, $3::TIMESTAMPTZ, 'seed', $6::DATE)`;
  for (let i = BASELINE_DAYS; i >= 0; i--) {
    const day = addDays(DAY, -i);
    await s.run(
      `INSERT INTO sync_windows (project_id, stream, window_start, window_end, status, pages, rows, truncated,
         attempts, fetched_at, run_id)
       VALUES ($1::VARCHAR, 'assistant', $2::DATE, $3::DATE, 'loaded', 1, 1, false, 1, $4::TIMESTAMPTZ, 'seed')`,
      [PROJECT, day, addDays(day, 1), `${addDays(day, 1)}T06:00:00Z`],
    );
    if (i > 0) {
      for (let t = 0; t < 4; t++) {
        await s.run(turn, [
          PROJECT,
          `base-${i}-${t}`,
          `${day}T12:0${t}:00Z`,
          'Where is the changelog?',
          t === 0 ? 'unanswered' : 'answered',
          day,
        ]);
      }
    }
  }
  let n = 0;
  for (const spellings of Object.values(GROUPS)) {
    for (const q of spellings) {
      n += 1;
      await s.run(turn, [
        PROJECT,
        `t-${n}`,
        `${DAY}T10:${String(n).padStart(2, '0')}:00Z`,
        q,
        'unanswered',
        DAY,
      ]);
    }
  }
}

/** Group sizes a reader reports, largest first: [9, 3, 2] when it groups as question_key does. */
const sizes = (counts: readonly number[]): number[] => [...counts].sort((a, b) => b - a);

async function reportGroups(s: SqlSession): Promise<number[]> {
  const section = await gatherAssistant(s, {
    projectId: PROJECT,
    from: DAY,
    to: DAY,
    topPages: 10,
    topTerms: 10,
    now: new Date(`${addDays(DAY, 2)}T00:00:00Z`),
    personalData: false,
    topItems: 20,
  });
  return sizes((section?.unanswered ?? []).map((q) => q.count));
}

async function gapGroups(s: SqlSession): Promise<number[]> {
  const gaps = await readGaps(s, { days: 1, to: addDays(DAY, 1), limit: 50, projectId: PROJECT });
  return sizes(gaps.filter((g) => g.kind === 'unanswered').map((g) => g.currentCount));
}

async function alertGroups(s: SqlSession): Promise<number[]> {
  const [evaluation] = await evaluateAlerts(s, {
    rules: rules(),
    today: addDays(DAY, 2),
    day: DAY,
    projectId: PROJECT,
  });
  const alert = evaluation?.alerts.find((a) => a.rule === 'assistant');
  // The message names each question with its count: `"How do I ..." (9), ...`.
  return sizes([...(alert?.message ?? '').matchAll(/" \((\d+)\)/g)].map((m) => Number(m[1])));
}

const runIf = hasPostgres();

describe.skipIf(!runIf)('one rule for "the same question"', () => {
  let server: PostgresServer | undefined;
  let client: pg.Client | undefined;
  let db: Database | undefined;
  const sessions: Record<string, SqlSession> = {};

  beforeAll(async () => {
    server = await startPostgres();
    client = new pg.Client({ connectionString: server.url, types: PLAIN_TYPES });
    await client.connect();
    await migratePostgres(client, { schema: 'qk' });
    db = await openDatabase(tempDbPath());
    sessions['duckdb'] = db.session;
    sessions['postgres'] = pgSession(client);
    for (const s of Object.values(sessions)) await seed(s);
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    db?.close();
    await server?.stop();
  });

  it.each(['duckdb', 'postgres'])(
    'the report, the gaps and the alerts group the spellings of a question alike on %s',
    async (name) => {
      const s = sessions[name]!;
      const expected = sizes(Object.values(GROUPS).map((g) => g.length));
      expect({
        report: await reportGroups(s),
        gaps: await gapGroups(s),
        alerts: await alertGroups(s),
      }).toEqual({ report: expected, gaps: expected, alerts: expected });
    },
  );

  it('names each question by the same key on both destinations (v_assistant_unanswered, v_content_gaps)', async () => {
    const read = async (s: SqlSession): Promise<unknown> => ({
      unanswered: await s.rows(
        `SELECT question_key, times_asked FROM v_assistant_unanswered WHERE project_id = $1::VARCHAR
          ORDER BY times_asked DESC, question_key COLLATE "C"`,
        [PROJECT],
      ),
      gaps: await s.rows(
        `SELECT subject_key, current_count FROM content_gaps(1, $1::DATE) WHERE kind = 'unanswered'
          ORDER BY current_count DESC`,
        [addDays(DAY, 1)],
      ),
    });
    const duck = await read(sessions['duckdb']!);
    expect(await read(sessions['postgres']!)).toEqual(duck);
    expect(duck).toMatchObject({
      gaps: [
        { subject_key: 'how do i reset my api key', current_count: 9 },
        { subject_key: '如何重置密钥', current_count: 3 },
        { subject_key: 'can email get an invoice', current_count: 2 },
      ],
    });
  });

  it('gives the same key on both destinations for text of any script', async () => {
    const texts = [
      'ΟΔΟΣ ΚΑΙ Σ;',
      'İstanbul’da IŞIK?',
      'Straße ẞ — „Zitat“',
      'a\u200bb\u00adc\u2060d',
      'tab\tvertical\u000bform\ffeed\r\nline\u2028sep',
      'كيف أعيد تعيين المفتاح؟',
      'どうやって　キーを　リセット？！',
      'करें कैसे?',
      '👩🏽‍💻 c++ / c# ≠ c',
      '¿Cómo? ¡Así!',
      '',
    ];
    const read = async (s: SqlSession): Promise<unknown[]> => {
      const out: unknown[] = [];
      for (const t of texts) out.push((await s.rows('SELECT question_key($1::VARCHAR) AS k', [t]))[0]?.['k']);
      return out;
    };
    const duck = await read(sessions['duckdb']!);
    expect(await read(sessions['postgres']!)).toEqual(duck);
    expect(duck).toEqual([
      'οδοσ και σ',
      'istanbul da işik',
      'straße ß zitat',
      'a b c d',
      'tab vertical form feed line sep',
      'كيف أعيد تعيين المفتاح',
      'どうやって キーを リセット',
      'करें कैसे',
      'c c c',
      'cómo así',
      '',
    ]);
  });
});
