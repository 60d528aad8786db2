import {
  aspectHistoryRows,
  aspectOfVersionedRead,
  comparedOrdinals,
  historyStateOf,
  latestOrdinalOf,
  ordinalOf,
  readVersionOf,
  restliEncode,
  urlVersionOf,
  versionOrdinals,
  versionedReadPath,
  writeOf,
} from './entity-history';

describe('the history URL', () => {
  it('reads the aspect, the two versions and the page', () => {
    expect(historyStateOf(new URLSearchParams('aspect=datasetProperties&left=0&right=1&start=10'))).toEqual({
      aspect: 'datasetProperties',
      left: 0,
      right: 1,
      start: 10,
    });
    expect(historyStateOf(new URLSearchParams('left=x&right=-2'))).toEqual({ start: 0 });
  });

  it('defaults to the version before the latest against the latest', () => {
    expect(comparedOrdinals({ aspect: 'a', start: 0 }, 3)).toEqual({ left: 2, right: 3 });
    expect(comparedOrdinals({ aspect: 'a', start: 0 }, 1)).toBeUndefined();
  });

  it('maps 0 and the latest ordinal to the latest, and ignores versions out of range', () => {
    expect(comparedOrdinals({ left: 0, right: 1, start: 0 }, 3)).toEqual({ left: 3, right: 1 });
    expect(comparedOrdinals({ left: 3, right: 9, start: 0 }, 3)).toEqual({ left: 3, right: 3 });
    expect(comparedOrdinals({ left: 1, start: 0 }, 1)).toEqual({ left: 1, right: 1 });
    expect(ordinalOf(0, 4)).toBe(4);
    expect(ordinalOf(5, 4)).toBeUndefined();
    expect(urlVersionOf(4, 4)).toBe(0);
    expect(urlVersionOf(2, 4)).toBe(2);
  });
});

describe('versions', () => {
  it('reads the latest ordinal from system metadata', () => {
    expect(latestOrdinalOf('3')).toBe(3);
    expect(latestOrdinalOf(undefined)).toBe(1);
    expect(latestOrdinalOf('abc')).toBe(1);
  });

  it('lists a page of ordinals newest first', () => {
    expect(versionOrdinals(5, 0, 3)).toEqual([5, 4, 3]);
    expect(versionOrdinals(5, 3, 3)).toEqual([2, 1]);
    expect(versionOrdinals(1, 0, 10)).toEqual([1]);
  });

  it('reads the latest as version 0', () => {
    expect(readVersionOf(5, 5)).toBe(0);
    expect(readVersionOf(2, 5)).toBe(2);
  });

  it('builds the versioned read of one aspect, encoded as Rest.li lists are', () => {
    expect(restliEncode('(a , b:1)')).toBe('%28a%20%2C%20b%3A1%29');
    expect(versionedReadPath('urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)', 'dataset', 'schemaMetadata', 2)).toBe(
      '/entitiesVersionedV2?ids=List(%28urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Cx%2CPROD%29%20%2C%20schemaMetadata%3A2%29)&entityType=dataset&aspects=List(schemaMetadata)',
    );
  });
});

describe('writes', () => {
  const aspects = {
    status: {
      value: { removed: false },
      created: { time: 5, actor: 'urn:li:corpuser:a' },
      systemMetadata: { version: '1', runId: 'no-run-id-provided' },
    },
    datasetProperties: {
      value: {},
      created: { time: 9, actor: 'urn:li:corpuser:b' },
      systemMetadata: { version: '3', runId: 'ingest-1' },
    },
  };

  it('lists the aspects by name with their version count and latest write', () => {
    expect(aspectHistoryRows(aspects)).toEqual([
      { name: 'datasetProperties', versions: 3, actor: 'urn:li:corpuser:b', time: 9, runId: 'ingest-1' },
      { name: 'status', versions: 1, actor: 'urn:li:corpuser:a', time: 5 },
    ]);
    expect(writeOf(undefined)).toEqual({});
  });

  it('finds the aspect in a versioned read answer', () => {
    const body = { results: { 'urn:x': { aspects: { status: aspects.status } } } };
    expect(aspectOfVersionedRead(body, 'urn:x', 'status')).toBe(aspects.status);
    expect(aspectOfVersionedRead(body, 'urn:x', 'other')).toBeUndefined();
    expect(aspectOfVersionedRead(undefined, 'urn:x', 'status')).toBeUndefined();
  });
});
