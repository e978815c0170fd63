import { UsageError } from '../errors.js';

/**
 * Which project an event loads into. One project: every event. Several deployments in one bucket:
 * `--events-project SUBDOMAIN=PROJECT_ID,...` maps them, and an event of a subdomain it does not
 * name is counted `unmapped` and not stored (recorded per subdomain: a later mapping that names it
 * reads those objects again, src/load/event-unmapped.ts). Several projects and no mapping: refused before
 * anything is read (a guess would put one site's readers in another's tables).
 */
export interface EventProjects {
  /** The projects that receive events (those a ledger row is kept for). */
  readonly targets: readonly string[];
  /** The project of an event's subdomain, or undefined for one no mapping names. */
  projectOf(subdomain: string | null): string | undefined;
  /** The subdomains --events-project names (lower case); empty without a mapping (one project takes all). */
  readonly named: readonly string[];
}

export function parseEventProjectMap(text: string, flag = '--events-project'): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const m = /^([^=\s]+)=([^=\s]+)$/.exec(item);
    if (!m) {
      throw new UsageError(
        `${flag} "${item}" must be SUBDOMAIN=PROJECT_ID, e.g. ${flag} docs=proj_a,help=proj_b`,
        { value: item },
      );
    }
    const sub = (m[1] as string).toLowerCase();
    if (map.has(sub)) throw new UsageError(`${flag}: subdomain ${sub} is mapped twice: map it once`);
    map.set(sub, m[2] as string);
  }
  if (map.size === 0) throw new UsageError(`${flag} is empty: give SUBDOMAIN=PROJECT_ID pairs`);
  return map;
}

export function eventProjects(
  projects: readonly string[],
  map: ReadonlyMap<string, string> | undefined,
): EventProjects {
  if (map === undefined) {
    const [only] = projects;
    if (projects.length !== 1 || only === undefined) {
      throw new UsageError(
        `the event stream cannot tell which of ${projects.length} projects (${projects.join(', ')}) an event belongs to: map subdomains to projects with --events-project SUBDOMAIN=PROJECT_ID,... (nothing was read)`,
      );
    }
    return { targets: [only], projectOf: () => only, named: [] };
  }
  const known = new Set(projects);
  for (const [sub, project] of map) {
    if (!known.has(project)) {
      throw new UsageError(
        `--events-project ${sub}=${project}: ${project} is not a project of this run (${projects.join(', ')}); add it with --project or fix the mapping`,
      );
    }
  }
  return {
    targets: [...new Set(map.values())],
    projectOf: (subdomain) => (subdomain === null ? undefined : map.get(subdomain.toLowerCase())),
    named: [...map.keys()],
  };
}
