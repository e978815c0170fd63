import { join } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import type { TrafficClass } from '../../load/event-rows.js';
import { packageRoot } from '../../paths.js';
import { readSmallFile } from '../../util/small-file.js';

/**
 * The dashboard's traffic classes: ordered lists of user-agent substrings, kept in one data file
 * (config/traffic-classes.json) so a user can update them and re-classify what is loaded. The first
 * list with an entry inside the user agent wins; no match is `human`.
 *
 * Case is folded for ASCII letters only, on both sides: JavaScript's toLowerCase folds U+212A
 * (Kelvin) to `k` and U+0130 to two characters, and PostgreSQL's lower() depends on the server's
 * collation, so only an ASCII fold gives the same class in TypeScript, DuckDB and PostgreSQL.
 */

/** The classes a list may name (human is what no list matches). */
export type BotClass = Exclude<TrafficClass, 'human'>;
const BOT_CLASSES = ['ai_answers', 'search_index', 'training', 'other_bot'] as const;

export interface TrafficLists {
  /** Where the lists come from, as the file says. */
  readonly source: string;
  readonly classes: ReadonlyArray<{ readonly class: BotClass; readonly agents: readonly string[] }>;
}

/** Entries are SQL literals on both destinations: no NUL, no lone surrogate, no control character. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const UNFIT = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const schema = z
  .object({
    source: z.string(),
    classes: z.array(
      z.object({
        class: z.enum(BOT_CLASSES, { error: (iss) => `unknown class ${JSON.stringify(iss.input)}` }),
        agents: z
          .array(
            z
              .string()
              .min(1, 'an entry is empty')
              .refine((s) => !UNFIT.test(s), 'an entry holds a control character or a lone surrogate'),
          )
          .min(1, 'a list is empty'),
      }),
    ),
  })
  .refine((v) => new Set(v.classes.map((c) => c.class)).size === v.classes.length, {
    message: 'a class is listed twice',
  });

/** The packaged lists, as Mintlify's traffic-classification page publishes them. */
export function defaultTrafficClassesFile(): string {
  return join(packageRoot(), 'config', 'traffic-classes.json');
}

/** Reads and checks a traffic-class file (default: the packaged one). Refusals name the file. */
export function loadTrafficClasses(file: string = defaultTrafficClassesFile()): TrafficLists {
  const advice = 'give a JSON file like config/traffic-classes.json';
  const text = readSmallFile(file, {
    subject: `the traffic-class file ${file}`,
    maxBytes: 1 << 20,
    what: 'a traffic-class file',
    advice,
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(
      `the traffic-class file ${file} is not JSON: ${advice}`,
      { path: file },
      { cause: e },
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`);
    throw new UsageError(
      `the traffic-class file ${file} is not valid (${issues.join('; ')}); the classes are ${BOT_CLASSES.join(', ')} (human is what no list matches), each with at least one non-empty entry`,
      { path: file, issues },
    );
  }
  return parsed.data;
}

const NON_ASCII = /[^\u0000-\u007f]/; // eslint-disable-line no-control-regex -- a range, not a control

/** Lower case for A-Z only (see the module comment). */
export function asciiLower(s: string): string {
  return NON_ASCII.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s.toLowerCase();
}

/** A compiled form: entries lower-cased once, and the classes of agents already seen (bounded). */
interface Compiled {
  readonly entries: ReadonlyArray<readonly [BotClass, readonly string[]]>;
  readonly seen: Map<string, TrafficClass>;
}
const SEEN_SIZE = 10_000;
const compiled = new WeakMap<TrafficLists, Compiled>();

function compile(lists: TrafficLists): Compiled {
  let c = compiled.get(lists);
  if (c === undefined) {
    c = { entries: lists.classes.map((k) => [k.class, k.agents.map(asciiLower)] as const), seen: new Map() };
    compiled.set(lists, c);
  }
  return c;
}

/** The class of a user agent: the first list with an entry inside it; none (or no agent) is human. */
export function classify(ua: string | null, lists: TrafficLists): TrafficClass {
  if (ua === null || ua === '') return 'human';
  // Agents repeat from event to event: a page view's class is a map lookup.
  const c = compile(lists);
  let cls = c.seen.get(ua);
  if (cls === undefined) {
    cls = firstMatch(asciiLower(ua), c.entries);
    if (c.seen.size >= SEEN_SIZE) c.seen.clear();
    c.seen.set(ua, cls);
  }
  return cls;
}

function firstMatch(lower: string, entries: Compiled['entries']): TrafficClass {
  for (const [cls, agents] of entries) {
    for (const a of agents) if (lower.includes(a)) return cls;
  }
  return 'human';
}

/** A column reference: `name`, `"name"`, optionally qualified (`e.user_agent`). */
const COLUMN = /^(?:[A-Za-z_][A-Za-z0-9_]*|"[^"\u0000]+")(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|"[^"\u0000]+"))*$/; // eslint-disable-line no-control-regex -- NUL is refused

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A column's text with A-Z folded to a-z, as asciiLower folds it (NULL stays NULL). */
export function foldedAgentSql(column: string): string {
  if (!COLUMN.test(column)) throw new Error(`foldedAgentSql: not a column reference: ${column}`);
  return `translate(${column}, '${UPPER}', '${UPPER.toLowerCase()}')`;
}

/**
 * The same classification as classify(), as one SQL expression both DuckDB and PostgreSQL run
 * (for `reclassify`): translate() folds A-Z exactly as asciiLower does, strpos finds the entry.
 * NULL and '' match nothing, so they fall to 'human' like in classify(). With `folded`, the column
 * holds foldedAgentSql's text already: a statement over many rows folds each once, not once per
 * list entry (28 folds a row cost PostgreSQL ~0.7 ms).
 */
export function trafficClassSql(
  column: string,
  lists: TrafficLists,
  opts: { folded?: boolean } = {},
): string {
  if (!COLUMN.test(column)) throw new Error(`trafficClassSql: not a column reference: ${column}`);
  const folded = opts.folded === true ? column : foldedAgentSql(column);
  const whens = compile(lists).entries.map(([cls, agents]) => {
    const tests = agents.map((a) => `strpos(${folded}, '${a.replaceAll("'", "''")}') > 0`);
    return `WHEN ${tests.join(' OR ')} THEN '${cls}'`;
  });
  return whens.length === 0 ? `'human'` : `CASE ${whens.join(' ')} ELSE 'human' END`;
}
