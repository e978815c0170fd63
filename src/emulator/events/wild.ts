import type { Random } from '../prng.js';

/**
 * Text a real stream carries and naive code breaks on. `\u0000` and a lone surrogate are valid in
 * JSON (as escapes) but not storable in PostgreSQL text: the stored value has U+FFFD instead.
 */
export const ODD_TEXTS: readonly string[] = [
  'مرحبا بالعالم — إعداد المصادقة', // right-to-left
  'שלום \u202eevil\u202c עולם', // RTL override
  '👩‍💻 deploy 🚀🔥 ✅', // ZWJ sequence, emoji
  'cafe\u0301 nai\u0308ve Z\u0351\u0360a\u0362l\u035bg\u0357o', // combining marks
  'nul\u0000byte', // U+0000
  'lone \ud800 high', // lone high surrogate
  'lone \udfff low', // lone low surrogate
  '𠜎𠜱 ℌ𝔢𝔩𝔩𝔬 \u200bzero\u200bwidth\u00a0nbsp\ttab',
  '"quotes" \'single\' \\backslash\\ {braces} [brackets]',
  '日本語の検索クエリ',
];

const SECTIONS = [
  'guides',
  'api-reference',
  'sdk',
  'integrations',
  'changelog',
  'concepts',
  'cli',
  'ko',
  'ja',
  'es',
];
const WORDS = [
  'authentication',
  'webhooks',
  'rate-limits',
  'pagination',
  'errors',
  'quickstart',
  'deploy',
  'custom-domain',
  'analytics',
  'search',
  'navigation',
  'components',
  'openapi',
  'mcp',
  'assistant',
  'billing',
  'sso',
  'teams',
  'versions',
  'redirects',
  'themes',
  'snippets',
  'cards',
  'tabs',
  'accordions',
  'code-blocks',
  'images',
  'seo',
];

/**
 * `n` distinct page paths: sections, nested slugs, trailing slashes, query strings, percent-escapes
 * and a few raw unicode ones. Pure function of n: paths are the same for every seed.
 */
export function pagePaths(n: number): string[] {
  const out: string[] = ['/', '/introduction', '/quickstart'];
  for (let i = 0; out.length < n; i++) {
    const section = SECTIONS[i % SECTIONS.length]!;
    const a = WORDS[Math.floor(i / SECTIONS.length) % WORDS.length]!;
    const b = WORDS[(i * 7 + 3) % WORDS.length]!;
    const gen = Math.floor(i / (SECTIONS.length * WORDS.length));
    let p = `/${section}/${a}/${b}${gen > 0 ? `-${gen}` : ''}`;
    if (i % 97 === 5) p += '/';
    if (i % 89 === 7) p += '?tab=python&lang=en';
    if (i % 83 === 11) p = `/${section}/%E6%97%A5%E6%9C%AC/${a}-${i}`;
    if (i % 211 === 13) p = `/${section}/ünïcödé-${a}-${i}`;
    if (i % 307 === 17) p = `/${section}/${ODD_TEXTS[i % ODD_TEXTS.length]!.replace(/\s/g, '-')}-${i}`;
    out.push(p);
  }
  return out.slice(0, n);
}

/** A skewed pick in [0, n): a few items get most of the draws, the long tail a few each. */
export function skewedIndex(random: Random, n: number): number {
  return Math.min(n - 1, Math.floor(n * random() ** 3));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** About `n` characters of assistant-like text with odd unicode in it (the longest answers ~30,000). */
export function longText(n: number, salt: number): string {
  const parts: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const part =
      i % 5 === 2
        ? `${ODD_TEXTS[(salt + i) % ODD_TEXTS.length]!} `
        : `Step ${i + 1}: open docs.json and set \`navigation\`; see [the guide](/guides/${WORDS[(salt + i) % WORDS.length]!}).\n`;
    parts.push(part);
    len += part.length;
  }
  return parts.join('').slice(0, n);
}

export const REFERRERS: readonly (string | null)[] = [
  null,
  '',
  'https://www.google.com/',
  'https://www.bing.com/search?q=mintlify+docs',
  'https://chatgpt.com/',
  'https://github.com/acme/sdk/blob/main/README.md',
  'https://news.ycombinator.com/item?id=42000000',
  'https://WWW.Reddit.com/r/programming/',
  'android-app://com.slack/',
  'not a url',
  'https://duckduckgo.com/',
  'https://www.perplexity.ai/search/abc',
];

export const SEARCH_TERMS: readonly string[] = [
  'auth',
  'authentication',
  'webhook retry',
  'rate limit',
  'api key',
  'pagination cursor',
  'sdk python',
  'deploy',
  'custom domain',
  'mcp server',
  'openapi',
  'sso saml',
  ...ODD_TEXTS,
];
