import { mixSeed, mulberry32, randomInt } from './prng.js';

/**
 * Paths that break naive code: unicode (two- and three-byte UTF-8, and an emoji outside the
 * BMP whose UTF-16 order differs from its code-point order), both quote kinds, a space, a
 * query-looking `?`, an already-percent-encoded `%25`, a backslash, a comma for CSV, and two
 * paths that differ only by case. They are in every non-empty day of every dataset.
 */
export const ODD_PATHS: readonly string[] = Object.freeze([
  '/docs/café-☕',
  '/docs/日本語/ガイド',
  "/docs/it's-quoted",
  '/docs/say-"hello"',
  '/docs/with space',
  '/docs/what?x=1',
  '/docs/100%25-off',
  '/docs/back\\slash',
  '/docs/API',
  '/docs/api',
  '/docs/commas,and;semicolons',
  '/docs/🚀-launch',
]);

/** The case pair: the same page to a case-insensitive store, two rows to the API. */
export const CASE_PAIR = Object.freeze({ upper: '/docs/API', lower: '/docs/api' });

// Popularity ranks (0 = most visited) the odd paths take: popular enough to appear every day.
const ODD_RANKS = [3, 5, 8, 12, 16, 21, 27, 34, 41, 49, 58, 68];

const HEAD = ['/', '/introduction', '/quickstart'];
const SECTIONS = [
  'getting-started',
  'guides',
  'api-reference',
  'integrations',
  'concepts',
  'sdks',
  'cli',
  'deploy',
  'components',
  'settings',
  'analytics',
  'changelog',
];
const TOPICS = [
  'overview',
  'install',
  'authentication',
  'webhooks',
  'pagination',
  'errors',
  'rate-limits',
  'migration',
  'configuration',
  'themes',
  'navigation',
  'search',
  'custom-domain',
  'redirects',
  'versioning',
  'localization',
  'access-control',
  'openapi',
  'snippets',
  'images',
  'code-blocks',
  'tabs',
  'cards',
  'callouts',
  'sso',
  'monorepo',
  'preview',
  'feedback',
  'ai-assistant',
  'llms-txt',
];

/**
 * `count` distinct paths ordered by popularity rank. Deterministic for a seed; the odd paths
 * sit at fixed mid-table ranks (pushed to the end when the catalogue is short).
 */
export function buildCatalogue(seed: number, count: number): string[] {
  const odd = ODD_PATHS.slice(0, Math.min(count, ODD_PATHS.length));
  const random = mulberry32(mixSeed(seed, 0xc47a1));
  const seen = new Set<string>(odd);
  const generated: string[] = [];
  const want = count - odd.length;
  for (const p of HEAD.slice(0, Math.max(0, want))) {
    seen.add(p);
    generated.push(p);
  }
  while (generated.length < want) {
    const section = SECTIONS[randomInt(random, 0, SECTIONS.length - 1)] ?? 'guides';
    const topic = TOPICS[randomInt(random, 0, TOPICS.length - 1)] ?? 'overview';
    let path = `/${section}/${topic}`;
    for (let n = 2; seen.has(path); n++) path = `/${section}/${topic}-${n}`;
    seen.add(path);
    generated.push(path);
  }
  const ranked = [...generated];
  odd.forEach((p, i) => {
    const rank = ODD_RANKS[i] ?? ranked.length;
    ranked.splice(Math.min(rank, ranked.length), 0, p);
  });
  return ranked;
}
