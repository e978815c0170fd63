import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  classify,
  loadTrafficClasses,
  trafficClassSql,
  type TrafficLists,
} from '../../src/sources/events/traffic-class.js';

const dir = mkdtempSync(join(tmpdir(), 'mintlify-etl-tc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

describe('the packaged traffic classes', () => {
  const lists = loadTrafficClasses();

  it('are the four lists of the issue, in order', () => {
    expect(lists.classes.map((c) => c.class)).toEqual([
      'ai_answers',
      'search_index',
      'training',
      'other_bot',
    ]);
    expect(lists.classes[0]!.agents).toContain('ChatGPT-User');
    expect(lists.classes[3]!.agents).toContain('HeadlessChrome');
  });

  it('classify a user agent by the first list holding a case-insensitive substring of it', () => {
    expect(
      classify('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; chatgpt-user/1.0)', lists),
    ).toBe('ai_answers');
    expect(classify('Mozilla/5.0 (compatible; GOOGLEBOT/2.1; +http://www.google.com/bot.html)', lists)).toBe(
      'search_index',
    );
    expect(classify('Mozilla/5.0 (compatible; GPTBot/1.2)', lists)).toBe('training');
    expect(classify('Mozilla/5.0 HeadlessChrome/120.0', lists)).toBe('other_bot');
    // Claude-SearchBot holds no ai_answers entry, ClaudeBot is training: search_index comes first.
    expect(classify('Claude-SearchBot/1.0', lists)).toBe('search_index');
    // An agent on two lists takes the earlier: Cursor (ai_answers) beats GPTBot (training).
    expect(classify('GPTBot Cursor/1.0', lists)).toBe('ai_answers');
  });

  it('call no user agent, an empty one and an ordinary browser human', () => {
    expect(classify(null, lists)).toBe('human');
    expect(classify('', lists)).toBe('human');
    expect(classify('Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', lists)).toBe('human');
  });

  it('lower-case only ASCII letters, so the SQL expression agrees on any text', () => {
    // U+212A KELVIN SIGN lower-cases to "k" in JavaScript; no destination's lower() is trusted to agree.
    expect(classify('faceboo\u212Aexternalhit', lists)).toBe('human');
    expect(classify('x\u0130 AHREFSBOT \ud800', lists)).toBe('other_bot');
  });
});

describe('a traffic-class file given by the user', () => {
  it('is read in its own order', () => {
    const lists = loadTrafficClasses(
      file('order.json', {
        source: 'mine',
        classes: [
          { class: 'training', agents: ['Bot'] },
          { class: 'ai_answers', agents: ['bot'] },
        ],
      }),
    );
    expect(classify('robot', lists)).toBe('training');
  });

  it('is refused naming the file when a class name is unknown', () => {
    const path = file('unknown.json', { source: 's', classes: [{ class: 'robots', agents: ['x'] }] });
    expect(() => loadTrafficClasses(path)).toThrow(UsageError);
    expect(() => loadTrafficClasses(path)).toThrow(/unknown\.json.*robots|robots.*unknown\.json/s);
  });

  it('is refused when a list is empty, an entry is empty, a class repeats or is human', () => {
    for (const [name, classes] of [
      ['empty-list.json', [{ class: 'training', agents: [] }]],
      ['empty-entry.json', [{ class: 'training', agents: [''] }]],
      [
        'twice.json',
        [
          { class: 'training', agents: ['a'] },
          { class: 'training', agents: ['b'] },
        ],
      ],
      ['human.json', [{ class: 'human', agents: ['a'] }]],
    ] as const) {
      const path = file(name, { source: 's', classes });
      expect(() => loadTrafficClasses(path), name).toThrow(UsageError);
      expect(() => loadTrafficClasses(path), name).toThrow(name);
    }
  });

  it('is refused when missing or not JSON, naming it', () => {
    expect(() => loadTrafficClasses(join(dir, 'nothing.json'))).toThrow(/nothing\.json/);
    expect(() => loadTrafficClasses(file('bad.json', '{"source":'))).toThrow(/bad\.json.*JSON/);
  });
});

describe('the SQL expression of the traffic classes', () => {
  it('lower-cases entries in TypeScript, escapes quotes and keeps the order', () => {
    const lists: TrafficLists = {
      source: 's',
      classes: [
        { class: 'ai_answers', agents: ["O'Neil-Bot"] },
        { class: 'training', agents: ['GPTBot'] },
      ],
    };
    const sql = trafficClassSql('user_agent', lists);
    expect(sql).toContain("'o''neil-bot'");
    expect(sql).toContain("'gptbot'");
    expect(sql.indexOf("o''neil")).toBeLessThan(sql.indexOf('gptbot'));
    expect(sql).toMatch(/ELSE 'human'/);
  });

  it('refuses a column that is not a plain or quoted identifier', () => {
    expect(() => trafficClassSql('ua; DROP TABLE x', loadTrafficClasses())).toThrow();
    expect(trafficClassSql('e."user_agent"', loadTrafficClasses())).toContain('e."user_agent"');
  });
});
