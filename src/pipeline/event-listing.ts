import { loadedEventObjects, type LoadedObjects } from '../load/event-objects.js';
import {
  storedSubdomains,
  unmappedEventObjects,
  unmappedSubdomains,
  type UnmappedObjects,
} from '../load/event-unmapped.js';
import type { SqlSession } from '../load/session.js';
import type { EventSource } from '../sources/events/event-source.js';
import { compareKeys, listStart } from '../sources/events/list-start.js';
import type { EventObject } from '../sources/events/types.js';
import type { Logger } from '../util/log.js';
import { untrusted } from '../util/safe-text.js';
import type { EventProjects } from './event-projects.js';

/**
 * Which objects of the event stream a run lists, and for which projects it reads each. Keys sort
 * in time only within one deployment's part of the bucket: two deployments under their own
 * prefixes (`docs/2026/...`, `help/2026/...`), or a key a wrong clock named in 2199, would hide new
 * objects from one listing start. So the keys are grouped by their first path part (a sub-prefix
 * of the source, `docs/`; the keys right under the source form a group of their own) and each
 * group is listed from its own start (list-start.ts). Sub-prefixes are found by one listing with a
 * delimiter: S3 requests ≈ new keys / 1000 + one per sub-prefix + the discovery's pages.
 */

/** What the ledger holds for the source: the objects loaded, and their unmapped events. */
export interface EventLedger {
  readonly loaded: LoadedObjects;
  readonly unmapped: UnmappedObjects;
  /** Set when the run may warn about its mapping at the end of the listing. */
  readonly session?: SqlSession;
  readonly logger?: Logger;
}

export function emptyEventLedger(): EventLedger {
  return { loaded: new Map(), unmapped: new Map() };
}

export async function readEventLedger(
  session: SqlSession,
  source: string,
  projects: readonly string[],
  logger?: Logger,
): Promise<EventLedger> {
  return {
    loaded: await loadedEventObjects(session, source, projects),
    unmapped: await unmappedEventObjects(session, source),
    session,
    ...(logger === undefined ? {} : { logger }),
  };
}

/** What the listing needs of the run's settings (CheckedEvents fits). */
export interface ListingSettings {
  readonly settings: { readonly lookbackMs?: number | undefined; readonly now?: (() => number) | undefined };
  readonly projects: EventProjects;
}

export interface ListedObject {
  readonly obj: EventObject;
  /** The projects to read it for: those whose ledger lacks it at this ETag, or whose mapping now names its unmapped events. */
  readonly wanting: readonly string[];
}

/**
 * The source's objects as a run lists them (each group from its start; everything with
 * `refresh`), in key order, each with the projects that want it. A project wants an object unless
 * its ledger holds it at this ETag (null alike), and also when the object holds unmapped events of
 * a subdomain the mapping now gives it.
 */
export async function* listAgainstLedger(
  source: EventSource,
  ledger: EventLedger,
  checked: ListingSettings,
  refresh: boolean,
): AsyncGenerator<ListedObject> {
  const { targets } = checked.projects;
  const remapped = remappedObjects(ledger.unmapped, checked.projects);
  const starts = refresh
    ? new Map<string, string | undefined>()
    : groupStarts(keysLoadedByAll(ledger.loaded, targets), [...remapped.keys()], {
        lookbackMs: checked.settings.lookbackMs,
        now: (checked.settings.now ?? Date.now)(),
      });
  const wanting = (obj: EventObject): readonly string[] => {
    const again = ledger.unmapped.get(obj.key)?.etag === obj.etag ? remapped.get(obj.key) : undefined;
    return targets.filter((p) => ledger.loaded.get(obj.key)?.get(p) !== obj.etag || again?.has(p) === true);
  };
  for await (const obj of groupedListing(source, starts, knownGroups(ledger)))
    yield { obj, wanting: wanting(obj) };
}

/**
 * Every group's new keys, in key order: the sub-prefixes the ledger knows that sort before the
 * direct keys' start (a listing after that start cannot show them), then the level under the
 * source from that start, each sub-prefix listed from its own start where the listing meets it.
 */
async function* groupedListing(
  source: EventSource,
  starts: ReadonlyMap<string, string | undefined>,
  known: readonly string[],
): AsyncGenerator<EventObject> {
  const direct = starts.get('');
  const before = direct === undefined ? [] : known.filter((g) => compareKeys(g, direct) <= 0);
  for (const group of before) yield* source.list(starts.get(group), group);
  for await (const entry of source.listTop(direct)) {
    if ('object' in entry) yield entry.object;
    else yield* source.list(starts.get(entry.prefix), entry.prefix);
  }
}

/** The group of a key: its first path part with the `/` (`docs/`), or '' for a key right under the source. */
export function groupOf(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? '' : key.slice(0, i + 1);
}

/** The sub-prefixes the ledger has seen, in key order. */
function knownGroups(ledger: EventLedger): string[] {
  const groups = new Set<string>();
  for (const key of [...ledger.loaded.keys(), ...ledger.unmapped.keys()]) groups.add(groupOf(key));
  groups.delete('');
  return [...groups].sort(compareKeys);
}

/**
 * Each group's listing start (list-start.ts) over the keys every project holds, moved back before
 * any key that must be listed again (`mustList`: objects whose unmapped events a mapping now
 * names), to the group's largest held key before it. A group absent from the map lists whole.
 */
export function groupStarts(
  loadedByAll: readonly string[],
  mustList: readonly string[],
  opts: { readonly lookbackMs?: number | undefined; readonly now?: number },
): Map<string, string | undefined> {
  // Pushed, never copied: a copy per key made a ledger of 13,000 objects cost seconds a run.
  const byGroup = new Map<string, string[]>();
  for (const key of loadedByAll) {
    const g = groupOf(key);
    const keys = byGroup.get(g);
    if (keys === undefined) byGroup.set(g, [key]);
    else keys.push(key);
  }
  const starts = new Map<string, string | undefined>();
  for (const [g, keys] of byGroup) {
    let start = listStart(keys, opts.lookbackMs, opts.now);
    for (const must of mustList) {
      if (start === undefined || groupOf(must) !== g || compareKeys(must, start) > 0) continue;
      start = keys
        .filter((k) => compareKeys(k, must) < 0)
        .sort(compareKeys)
        .at(-1);
    }
    starts.set(g, start);
  }
  return starts;
}

export function keysLoadedByAll(loaded: LoadedObjects, projects: readonly string[]): string[] {
  return [...loaded].filter(([, byProject]) => projects.every((p) => byProject.has(p))).map(([k]) => k);
}

/** The objects with unmapped events the mapping now names, and the projects that take them. */
function remappedObjects(unmapped: UnmappedObjects, projects: EventProjects): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [key, rec] of unmapped) {
    for (const sub of rec.subdomains.keys()) {
      const p = projects.projectOf(sub);
      if (p !== undefined) out.set(key, (out.get(key) ?? new Set()).add(p));
    }
  }
  return out;
}

/**
 * After a whole listing: a mapping that names a subdomain no event has (stored or unmapped) while
 * unmapped events wait is most likely a typo; say so, naming the subdomains that were seen. Called
 * by the reader once it has read the listing to its end, not by the listing: a listing that runs
 * ahead would query the destination in the middle of an object's transaction.
 */
export async function warnMapping(ledger: EventLedger, projects: EventProjects): Promise<void> {
  const { session, logger } = ledger;
  if (session === undefined || logger === undefined || projects.named.length === 0) return;
  const waiting = await unmappedSubdomains(session);
  if (waiting.length === 0) return;
  const seen = new Set([
    ...waiting.map((w) => w.subdomain),
    ...(await storedSubdomains(session, projects.targets)),
  ]);
  const unknown = projects.named.filter((s) => !seen.has(s));
  if (unknown.length === 0) return;
  const list = waiting
    .map(
      (w) => `${untrusted(w.subdomain)} (${w.events.toLocaleString('en-US')} events in ${w.objects} objects)`,
    )
    .join(', ');
  logger.warn(
    `events: --events-project names ${unknown.map(untrusted).join(', ')}, but no event read has that subdomain; events of subdomains no mapping names are waiting: ${list}. Map them (--events-project SUBDOMAIN=PROJECT_ID): the next run reads those objects again for them`,
  );
}
