import { describe, expect, it } from 'vitest';
import { syncSelection } from '../../src/cli/event-flags.js';
import { eventProjects, parseEventProjectMap } from '../../src/pipeline/event-projects.js';

const names = (r: ReturnType<typeof syncSelection>): string[] => r.streams.map((s) => s.name);

describe('which streams a sync loads, with the event stream', () => {
  it('adds the event stream to the default streams when a source is given and --streams is not', () => {
    const r = syncSelection({ events: 's3://b/p' }, {});
    expect(names(r)).toContain('visitors');
    expect(r.events?.source).toBe('s3://b/p');
  });

  it('loads only the event stream for --streams events: no API stream', () => {
    const r = syncSelection({ streams: 'events', events: './mirror' }, {});
    expect(names(r)).toEqual([]);
    expect(r.events?.source).toBe('./mirror');
  });

  it('takes the source from MINTLIFY_ETL_EVENTS, and leaves it alone for a --streams without events', () => {
    expect(syncSelection({}, { MINTLIFY_ETL_EVENTS: 's3://b' }).events?.source).toBe('s3://b');
    expect(syncSelection({ streams: 'visitors' }, { MINTLIFY_ETL_EVENTS: 's3://b' }).events).toBeUndefined();
  });

  it('refuses --streams events without a source, --events left out by --streams, and a mapping without events', () => {
    expect(() => syncSelection({ streams: 'events' }, {})).toThrow(/needs the event stream: --events/);
    expect(() => syncSelection({ streams: 'visitors', events: 's3://b' }, {})).toThrow(
      /--streams visitors,events/,
    );
    expect(() => syncSelection({ eventsProject: 'docs=a' }, {})).toThrow(/give --events too/);
  });
});

describe('which project an event loads into', () => {
  it('puts every event of a one-project run into that project', () => {
    const p = eventProjects(['a'], undefined);
    expect(p.targets).toEqual(['a']);
    expect(p.projectOf('anything')).toBe('a');
    expect(p.projectOf(null)).toBe('a');
  });

  it('refuses several projects without a mapping, before anything is read', () => {
    expect(() => eventProjects(['a', 'b'], undefined)).toThrow(/--events-project SUBDOMAIN=PROJECT_ID/);
  });

  it('maps subdomains case-insensitively and leaves other subdomains unmapped', () => {
    const p = eventProjects(['a', 'b'], parseEventProjectMap('Docs=a, help=b'));
    expect(p.targets).toEqual(['a', 'b']);
    expect(p.projectOf('docs')).toBe('a');
    expect(p.projectOf('HELP')).toBe('b');
    expect(p.projectOf('other')).toBeUndefined();
    expect(p.projectOf(null)).toBeUndefined();
  });

  it('refuses a mapping to a project the run does not have, a subdomain mapped twice, and a malformed pair', () => {
    expect(() => eventProjects(['a'], parseEventProjectMap('docs=z'))).toThrow(
      /z is not a project of this run/,
    );
    expect(() => parseEventProjectMap('docs=a,DOCS=b')).toThrow(/mapped twice/);
    expect(() => parseEventProjectMap('docs')).toThrow(/must be SUBDOMAIN=PROJECT_ID/);
  });
});

describe('a stream list from the environment', () => {
  it('names MINTLIFY_ETL_STREAMS in its error, with or without events in it', () => {
    expect(() => syncSelection({}, { MINTLIFY_ETL_STREAMS: 'feedback,bogus' })).toThrow(
      /^MINTLIFY_ETL_STREAMS: unknown stream "bogus"/,
    );
    expect(() => syncSelection({ events: 'x' }, { MINTLIFY_ETL_STREAMS: 'events,bogus' })).toThrow(
      /^MINTLIFY_ETL_STREAMS: unknown stream "bogus"/,
    );
  });
});

describe('a mistyped stream name', () => {
  it('lists every stream the run can load, events included, and suggests the closest name', () => {
    expect(() => syncSelection({ streams: 'event' }, {})).toThrow(
      /unknown stream "event": did you mean events\? The streams are visitors, .*visitors_monthly, events/,
    );
    expect(() => syncSelection({ streams: 'vistors' }, {})).toThrow(/did you mean visitors\?/);
    expect(() => syncSelection({ streams: 'feedbak,views' }, {})).toThrow(/did you mean feedback\?/);
  });

  it('suggests nothing for a name far from every stream', () => {
    expect(() => syncSelection({ streams: 'bogus' }, {})).toThrow(/^unknown stream "bogus": the streams are/);
  });
});
