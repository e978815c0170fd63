import { describe, expect, it } from 'vitest';
import { keyTime, listStart } from '../../src/sources/events/list-start.js';
import { groupOf, groupStarts } from '../../src/pipeline/event-listing.js';

const t = (iso: string): number => Date.parse(iso);

describe('keyTime', () => {
  it('reads ISO-like timestamps in a key, with or without milliseconds and colons', () => {
    expect(keyTime('events/2026-11-27T08:15:00Z.jsonl')).toBe(t('2026-11-27T08:15:00Z'));
    expect(keyTime('2026-11-27T08:15:00.250Z-abc.jsonl.gz')).toBe(t('2026-11-27T08:15:00.250Z'));
    expect(keyTime('p/2026-11-27T08-15-00.jsonl')).toBe(t('2026-11-27T08:15:00Z'));
    expect(keyTime('p/20261127T081500Z.jsonl')).toBe(t('2026-11-27T08:15:00Z'));
  });

  it('reads a time from path parts YYYY/MM/DD/HH', () => {
    expect(keyTime('mintlify/2026/11/27/08/part-0001.jsonl')).toBe(t('2026-11-27T08:00:00Z'));
    expect(keyTime('2026/11/27/x.jsonl')).toBe(t('2026-11-27T00:00:00Z'));
  });

  it('takes the last timestamp of a key', () => {
    expect(keyTime('2026/11/26/23/events-2026-11-27T00:01:02Z.jsonl')).toBe(t('2026-11-27T00:01:02Z'));
  });

  it('gives undefined for a key without a time, or with an impossible one', () => {
    expect(keyTime('events/part-0001.jsonl')).toBeUndefined();
    expect(keyTime('2026-13-45T99:00:00Z.jsonl')).toBeUndefined();
  });
});

describe('listStart', () => {
  const day = 86_400_000;

  it('lists everything when nothing is loaded or no key has a time', () => {
    expect(listStart([])).toBeUndefined();
    expect(listStart(['a.jsonl', 'b.jsonl'])).toBeUndefined();
  });

  it('starts after the largest loaded key at least the lookback older than the newest', () => {
    const keys = [
      '2026-11-20T00:00:00Z.jsonl',
      '2026-11-24T23:00:00Z.jsonl',
      '2026-11-25T00:00:00Z.jsonl',
      '2026-11-25T06:00:00Z.jsonl',
      '2026-11-27T00:00:00Z.jsonl',
    ];
    // newest 11-27T00:00, minus 2 days = 11-25T00:00: the key before that time is the start, so a
    // late key named exactly two days before the newest (whatever follows its timestamp) is listed.
    expect(listStart(keys)).toBe('2026-11-24T23:00:00Z.jsonl');
    expect(listStart([...keys].reverse())).toBe('2026-11-24T23:00:00Z.jsonl');
    expect(listStart(keys, 6 * day)).toBe('2026-11-20T00:00:00Z.jsonl');
  });

  it('lists everything when every loaded key is within the lookback of the newest', () => {
    expect(listStart(['2026-11-26T00:00:00Z.jsonl', '2026-11-27T00:00:00Z.jsonl'])).toBeUndefined();
  });

  it('lists a late object named exactly the lookback before the newest, sorting before a loaded one of that time', () => {
    const loaded = [
      '2026-11-20T00:00:00Z.jsonl',
      '2026-11-25T00:00:00Z-b.jsonl',
      '2026-11-27T00:00:00Z.jsonl',
    ];
    const late = '2026-11-25T00:00:00Z-a.jsonl';
    expect(Buffer.compare(Buffer.from(late), Buffer.from(listStart(loaded)!))).toBeGreaterThan(0);
  });

  it('picks a late object named up to the lookback before the newest', () => {
    const loaded = ['2026-11-20T00:00:00Z.jsonl', '2026-11-27T00:00:00Z.jsonl'];
    const late = '2026-11-25T12:00:00Z.jsonl';
    const start = listStart(loaded)!;
    expect(Buffer.compare(Buffer.from(late), Buffer.from(start))).toBeGreaterThan(0);
  });

  it('compares keys by UTF-8 bytes, as S3 lists them', () => {
    // U+FF5E sorts after U+1F600 in UTF-16 code units but before it in UTF-8 bytes.
    const keys = [
      '2026-11-01T00:00:00Z/\u{1F600}.jsonl',
      '2026-11-01T00:00:00Z/\uff5e.jsonl',
      '2026-11-10T00:00:00Z.jsonl',
    ];
    expect(listStart(keys)).toBe('2026-11-01T00:00:00Z/\u{1F600}.jsonl');
  });
});

describe('a key named far in the future (a sender clock gone wrong)', () => {
  const keys = [
    '2026/11/18/a.jsonl',
    '2026/11/19/a.jsonl',
    '2026/11/21/a.jsonl',
    '2026/11/21/21991231T000000Z-x.jsonl',
  ];
  it('moves no start: the threshold follows the newest key named in time', () => {
    expect(listStart(keys, undefined, t('2026-11-22T00:00:00Z'))).toBe('2026/11/18/a.jsonl');
  });
  it('is timed again within a day of the clock', () => {
    expect(listStart(keys, undefined, t('2199-12-30T12:00:00Z'))).toBe('2026/11/21/a.jsonl');
  });
});

describe('groupStarts: one start per sub-prefix', () => {
  const loaded = [
    'docs/2026/11/10/a.jsonl',
    'docs/2026/11/20/a.jsonl',
    'help/2026/11/10/a.jsonl',
    'help/2026/11/25/a.jsonl',
    '2026-11-10T00:00:00Z.jsonl',
    '2026-11-25T00:00:00Z.jsonl',
  ];
  const now = t('2026-11-26T00:00:00Z');
  it('starts each group from its own newest key minus the lookback; the keys right under the source are a group', () => {
    expect(groupStarts(loaded, [], { now })).toEqual(
      new Map([
        ['docs/', 'docs/2026/11/10/a.jsonl'],
        ['help/', 'help/2026/11/10/a.jsonl'],
        ['', '2026-11-10T00:00:00Z.jsonl'],
      ]),
    );
    expect(groupOf('docs/2026/x.jsonl')).toBe('docs/');
    expect(groupOf('x.jsonl')).toBe('');
  });
  it('moves a start back before a key that must be read again, to the largest loaded key before it', () => {
    const many = [
      'docs/2026/11/01/a.jsonl',
      'docs/2026/11/05/a.jsonl',
      'docs/2026/11/10/a.jsonl',
      'docs/2026/11/20/a.jsonl',
    ];
    expect(groupStarts(many, ['docs/2026/11/05/a.jsonl'], { now }).get('docs/')).toBe(
      'docs/2026/11/01/a.jsonl',
    );
    expect(groupStarts(many, ['docs/2026/11/01/a.jsonl'], { now }).get('docs/')).toBeUndefined();
    expect(groupStarts(many, ['help/2026/11/01/a.jsonl'], { now }).get('docs/')).toBe(
      'docs/2026/11/10/a.jsonl',
    );
  });
});
