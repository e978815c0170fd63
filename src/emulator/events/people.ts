import type { TrafficClass } from '../../load/event-rows.js';
import { mixSeed, mulberry32, type Random } from '../prng.js';
import { pick } from './wild.js';
import { USER_AGENTS } from './user-agents.js';

/** Who sends events: a browser with or without a cookie, an AI agent, a crawler. */
export interface Person {
  readonly cls: TrafficClass;
  readonly userAgent: string | null;
  /** undefined: the events leave ip out. */
  readonly ip: string | undefined;
  /** undefined: the key is absent; null and '' are sent as such (no anon_id for the visitor). */
  readonly anonId: string | null | undefined;
  readonly userId: string | null;
  readonly subdomain: string;
}

/** 128 bits from four draws as a version-4 UUID. */
export function uuidFrom(random: Random): string {
  const hex = [0, 1, 2, 3]
    .map(() => (Math.floor(random() * 4_294_967_296) >>> 0).toString(16).padStart(8, '0'))
    .join('');
  const v = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${v}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function ipFrom(random: Random): string {
  if (random() < 0.15) {
    const g = [0, 1, 2, 3].map(() => Math.floor(random() * 65536).toString(16));
    return `2001:db8:${g.join(':')}::1`;
  }
  const o = () => Math.floor(random() * 254) + 1;
  return `${o()}.${o()}.${o()}.${o()}`;
}

/**
 * How a browser identifies itself: mostly an anon_id cookie; some have none (absent, null or '')
 * and are the pair (ip, user agent); a few send neither anon_id, ip nor user agent (no visitor).
 */
function browserIdentity(random: Random, n: number): Pick<Person, 'anonId' | 'ip' | 'userAgent'> {
  const ua = pick(random, USER_AGENTS.human);
  // The first readers (the most frequent) hold each odd identity for sure, whatever the seed.
  const u = n === 1 ? 0.98 : n === 2 ? 0.92 : n === 3 ? 0.85 : random();
  if (u < 0.78)
    return { anonId: `anon_${uuidFrom(random).replace(/-/g, '')}`, ip: ipFrom(random), userAgent: ua };
  if (u < 0.9) return { anonId: undefined, ip: ipFrom(random), userAgent: ua };
  if (u < 0.94) return { anonId: '', ip: ipFrom(random), userAgent: ua };
  if (u < 0.97) return { anonId: null, ip: ipFrom(random), userAgent: ua };
  return { anonId: undefined, ip: undefined, userAgent: null };
}

/** An agent or crawler: no cookie; a few leave ip out (the visitor is then the user agent alone). */
function botIdentity(random: Random, cls: TrafficClass): Pick<Person, 'anonId' | 'ip' | 'userAgent'> {
  const ua = pick(random, USER_AGENTS[cls]);
  return { anonId: undefined, ip: random() < 0.06 ? undefined : ipFrom(random), userAgent: ua };
}

export interface People {
  readonly humans: readonly Person[];
  readonly agents: readonly Person[];
  readonly crawlers: readonly Person[];
}

/** The site's population, the same every day, so a period's uniques are fewer than the days' sum. */
export function population(seed: number, scale: number, subdomains: readonly string[]): People {
  const random = mulberry32(mixSeed(seed, 0x7e0e1e));
  const sub = (): string => (subdomains.length > 1 && random() < 0.25 ? subdomains[1]! : subdomains[0]!);
  const make = (n: number, f: (i: number) => Omit<Person, 'subdomain'>): Person[] =>
    Array.from({ length: Math.max(4, Math.round(n)) }, (_, i) => ({ ...f(i), subdomain: sub() }));
  const humans = make(150 * scale, (i) => ({
    cls: 'human',
    ...browserIdentity(random, i),
    userId: random() < 0.2 ? `user_${Math.floor(random() * 1e6)}` : null,
  }));
  const agents = make(12 * scale, () => ({
    cls: 'ai_answers',
    ...botIdentity(random, 'ai_answers'),
    userId: null,
  }));
  const bots: TrafficClass[] = ['search_index', 'training', 'other_bot'];
  const crawlers = make(30 * scale, () => {
    const cls = pick(random, bots);
    return { cls, ...botIdentity(random, cls), userId: null };
  });
  return { humans, agents, crawlers };
}
