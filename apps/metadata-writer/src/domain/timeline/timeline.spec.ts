import type { ChangeEvent, SemanticChangeType } from './change-event';
import {
  assembleTimeline,
  diffVersions,
  rowsInWindow,
  versionStampAt,
  type AspectHistory,
  type VersionDiff,
} from './timeline';
import { aspectsFeeding } from './timeline-registry';

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const event = (semVerChange: SemanticChangeType | undefined, modifier = 'x'): ChangeEvent => ({
  entityUrn: urn,
  category: 'TAG',
  operation: 'ADD',
  modifier,
  ...(semVerChange === undefined ? {} : { semVerChange }),
});
const diff = (timestamp: number, events: ChangeEvent[], actor = 'urn:li:corpuser:a'): VersionDiff => ({
  timestamp,
  actor,
  events,
});
const history = (
  aspect: string,
  diffs: VersionDiff[],
  rows = diffs.map((d) => ({ version: 0, createdOn: d.timestamp })),
) => ({ aspect, rows, diffs }) satisfies AspectHistory;

describe('assembleTimeline: semantic versions', () => {
  it('given changes at successive instants, when assembled, then the first is 0.0.0 and each later one bumps by its largest change', () => {
    const transactions = assembleTimeline([
      history('globalTags', [
        diff(10, [event('MINOR')]),
        diff(20, [event('MINOR')]),
        diff(30, [event('PATCH')]),
        diff(40, [event('MAJOR'), event('MINOR')]),
        diff(50, [event('PATCH')]),
        diff(60, [event('MINOR')]),
      ]),
    ]);
    expect(transactions.map((t) => [t.timestamp, t.semVer, t.semVerChange])).toEqual([
      [10, '0.0.0-computed', 'MINOR'],
      [20, '0.1.0-computed', 'MINOR'],
      [30, '0.1.1-computed', 'PATCH'],
      [40, '1.0.0-computed', 'MAJOR'],
      [50, '1.0.1-computed', 'PATCH'],
      [60, '1.1.0-computed', 'MINOR'],
    ]);
  });

  it('given a first instant without events of the categories, when assembled, then it still sets 0.0.0 and the next change bumps from it', () => {
    const transactions = assembleTimeline([
      history('schemaMetadata', [diff(10, [])]),
      history('globalTags', [diff(20, [event('MINOR')])]),
    ]);
    expect(transactions.map((t) => [t.timestamp, t.semVer])).toEqual([[20, '0.1.0-computed']]);
  });

  it('given instants whose events are unrated or exceptional, when assembled, then the version does not move', () => {
    const transactions = assembleTimeline([
      history('documentInfo', [
        diff(10, [event(undefined)]),
        diff(20, [event(undefined)]),
        diff(30, [event('EXCEPTIONAL')]),
      ]),
    ]);
    expect(transactions.map((t) => [t.semVer, t.semVerChange])).toEqual([
      ['0.0.0-computed', 'NONE'],
      ['0.0.0-computed', 'NONE'],
      ['0.0.0-computed', 'EXCEPTIONAL'],
    ]);
  });
});

describe('assembleTimeline: grouping', () => {
  it('given two aspects changed at the same instant, when assembled, then one transaction holds both, in aspect order, with the larger change', () => {
    const transactions = assembleTimeline([
      history('schemaMetadata', [diff(10, [event('MAJOR', 'field')], 'urn:li:corpuser:first')]),
      history('globalTags', [diff(10, [event('MINOR', 'tag')], 'urn:li:corpuser:second')]),
    ]);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({
      timestamp: 10,
      actor: 'urn:li:corpuser:first',
      semVerChange: 'MAJOR',
      semVer: '0.0.0-computed',
    });
    expect(transactions[0]?.changeEvents.map((e) => e.modifier)).toEqual(['field', 'tag']);
  });

  it('given raw diffs, when assembled, then a transaction carries the raw diff of its first changed aspect', () => {
    const transactions = assembleTimeline([
      history('schemaMetadata', [diff(10, [])]),
      history('globalTags', [{ ...diff(10, [event('MINOR')]), rawDiff: [{ op: 'add', path: '/tags', value: [] }] }]),
    ]);
    expect(transactions[0]?.rawDiff).toEqual([{ op: 'add', path: '/tags', value: [] }]);
  });

  it('given transactions out of order across aspects, when assembled, then they come oldest first', () => {
    const transactions = assembleTimeline([
      history('globalTags', [diff(30, [event('MINOR')])]),
      history('ownership', [diff(20, [event('MINOR')])]),
    ]);
    expect(transactions.map((t) => t.timestamp)).toEqual([20, 30]);
  });
});

describe('versionStampAt', () => {
  const histories: AspectHistory[] = [
    history(
      'schemaMetadata',
      [],
      [
        { version: 1, createdOn: 10 },
        { version: 0, createdOn: 30 },
      ],
    ),
    history('datasetKey', [], [{ version: 0, createdOn: 10 }]),
    history('globalTags', [], [{ version: 0, createdOn: 20 }]),
  ];

  it('given rows of several aspects, when stamped at an instant, then each aspect gives its row then current, by aspect name', () => {
    expect(versionStampAt(histories, 10)).toBe('datasetKey:0;schemaMetadata:1');
    expect(versionStampAt(histories, 25)).toBe('datasetKey:0;globalTags:0;schemaMetadata:1');
    expect(versionStampAt(histories, 30)).toBe('datasetKey:0;globalTags:0;schemaMetadata:0');
  });
});

describe('rowsInWindow', () => {
  const read = [
    { version: 4, createdOn: 400, latest: true },
    { version: 3, createdOn: 300, latest: false },
    { version: 2, createdOn: 200, latest: false },
    { version: 1, createdOn: 100, latest: false },
  ];

  it('given versions in the window, when selected, then they come with the version before the oldest, the latest as 0', () => {
    expect(rowsInWindow(read, { start: 250, end: 1000 })).toEqual([
      { version: 2, createdOn: 200 },
      { version: 3, createdOn: 300 },
      { version: 0, createdOn: 400 },
    ]);
  });

  it('given the first version in the window, when selected, then nothing comes before it', () => {
    expect(rowsInWindow(read, { start: 0, end: 250 })).toEqual([
      { version: 1, createdOn: 100 },
      { version: 2, createdOn: 200 },
    ]);
  });

  it('given no version in the window, when selected, then the latest alone', () => {
    expect(rowsInWindow(read, { start: 500, end: 1000 })).toEqual([{ version: 0, createdOn: 400 }]);
  });
});

describe('diffVersions', () => {
  const [tags] = aspectsFeeding('dataset', ['globalTags'], ['TAG']);
  const current = {
    version: 2,
    value: { tags: [{ tag: 'urn:li:tag:b' }] },
    createdOn: 50,
    createdBy: 'urn:li:corpuser:w',
  };

  it('given two versions and raw asked for, when compared, then events, instant, actor and the raw diff', () => {
    const compared = diffVersions(tags!, { tags: [{ tag: 'urn:li:tag:a' }] }, current, { entityUrn: urn, raw: true });
    expect(compared).toMatchObject({ timestamp: 50, actor: 'urn:li:corpuser:w' });
    expect(compared.events.map((e) => e.operation)).toEqual(['REMOVE', 'ADD']);
    expect(compared.rawDiff).toEqual([{ op: 'replace', path: '/tags/0/tag', value: 'urn:li:tag:b' }]);
  });

  it('given raw not asked for, or no event, when compared, then no raw diff', () => {
    expect(diffVersions(tags!, undefined, current, { entityUrn: urn, raw: false }).rawDiff).toBeUndefined();
    expect(diffVersions(tags!, current.value, current, { entityUrn: urn, raw: true }).rawDiff).toBeUndefined();
  });
});
