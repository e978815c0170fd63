import type { TrafficClass } from '../../load/event-rows.js';

/**
 * The ordered lists (Mintlify's traffic-classification page): the first list with an entry
 * that is a case-insensitive substring of the user agent wins, else `human`. Copied here on purpose
 * and not read from the loader's data file: the truth must be an oracle independent of the loader.
 */
export const TRAFFIC_LISTS: ReadonlyArray<readonly [TrafficClass, readonly string[]]> = [
  [
    'ai_answers',
    [
      'ChatGPT-User',
      'Claude-User',
      'claude-code',
      'Cursor',
      'Perplexity-User',
      'Copilot',
      'Google-Agent',
      'MistralAI-User',
    ],
  ],
  [
    'search_index',
    [
      'Googlebot',
      'Bingbot',
      'OAI-SearchBot',
      'Claude-SearchBot',
      'PerplexityBot',
      'Baiduspider',
      'YandexBot',
    ],
  ],
  ['training', ['GPTBot', 'ClaudeBot', 'Google-Extended', 'Amazonbot', 'Bytespider', 'CCBot', 'Applebot']],
  ['other_bot', ['AhrefsBot', 'SemrushBot', 'facebookexternalhit', 'Scrapy', 'HeadlessChrome', 'PhantomJS']],
];

/** The class of a user agent by the lists above; no user agent is `human`. */
export function classifyUserAgent(ua: string | null | undefined): TrafficClass {
  if (ua === null || ua === undefined) return 'human';
  const low = ua.toLowerCase();
  for (const [cls, entries] of TRAFFIC_LISTS) {
    if (entries.some((e) => low.includes(e.toLowerCase()))) return cls;
  }
  return 'human';
}

/**
 * Real user agents per intended class. Some are traps on purpose: lower case (`bingbot`,
 * `bytespider`), an entry inside a longer token (`Cursor/0.42` in an Electron UA), a browser UA that
 * also names a bot (HeadlessChrome with Googlebot: search_index wins by order), and programs no list
 * names (curl, python-requests), which the lists call human. A test holds intended == classified.
 */
export const USER_AGENTS: Readonly<Record<TrafficClass, readonly string[]>> = {
  human: [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36',
    'Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
    'curl/8.5.0',
    'python-requests/2.32.3',
  ],
  ai_answers: [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    'claude-code/2.0.14',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.42.3 Chrome/124.0.6367.243 Electron/30.5.1 Safari/537.36',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0 copilot/1.0',
    'Mozilla/5.0 (compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
  ],
  search_index: [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)',
    'Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36 (compatible; Googlebot/2.1)',
  ],
  training: [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    'CCBot/2.0 (https://commoncrawl.org/faq/)',
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; bytespider; spider-feedback@bytedance.com)',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'Mozilla/5.0 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)',
  ],
  other_bot: [
    'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
    'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Scrapy/2.11.2 (+https://scrapy.org)',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
    'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
  ],
};
