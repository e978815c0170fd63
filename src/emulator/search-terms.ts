import { LONG_SEARCH } from './long-text.js';
import { mixSeed, mulberry32 } from './prng.js';

/**
 * Search queries that break naive code: unicode, emoji outside the BMP, both quote kinds, SQL
 * text, a backslash, a comma, a percent sign, a pasted paragraph of 864 characters. Served on every day with searches (the service
 * lower-cases queries, which leaves these as they are).
 */
export const ODD_QUERIES: readonly string[] = Object.freeze([
  "'; DROP TABLE x; --",
  'café ☕ setup',
  '日本語 ガイド',
  '🚀 deploy',
  '"exact phrase"',
  "what's new",
  'back\\slash',
  'commas, and; semicolons',
  '100% uptime',
  LONG_SEARCH,
]);

const STARTS = ['how to', 'configure', 'setup', 'API', 'fix', 'Custom', 'add', 'SSO', 'enable', 'what is'];
const TOPICS = [
  'authentication',
  'webhooks',
  'pagination',
  'rate limits',
  'Navigation',
  'themes',
  'custom domain',
  'redirects',
  'versioning',
  'OpenAPI',
  'snippets',
  'code blocks',
  'tabs',
  'Analytics',
  'search',
  'llms.txt',
  'MCP server',
  'feedback',
  'Dark mode',
  'images',
];

/**
 * `count` distinct queries as users type them (mixed case), most popular first: the odd
 * queries at fixed mid-table ranks, the rest from a seeded shuffle of start x topic. Distinct
 * even lower-cased, since the service groups case-insensitively and each is one row.
 */
export function buildSearchVocabulary(seed: number, count: number): string[] {
  const random = mulberry32(mixSeed(seed, 0x5ea4c));
  const combos = STARTS.flatMap((s) => TOPICS.map((t) => `${s} ${t}`));
  for (let i = combos.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [combos[i], combos[j]] = [combos[j] ?? '', combos[i] ?? ''];
  }
  const plain = combos.slice(0, Math.max(0, count - ODD_QUERIES.length));
  ODD_QUERIES.forEach((q, i) => plain.splice(Math.min(2 + 5 * i, plain.length), 0, q));
  return plain.slice(0, count);
}
