import { testEntityRegistry } from './testing';
import {
  partitionSpecOf,
  timeseriesAspectNamed,
  timeseriesAspectsOf,
  timeseriesFieldsOf,
  timeseriesPointId,
} from './timeseries-points';

const registry = testEntityRegistry();
const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';

describe('timeseriesPointId', () => {
  it("given DataHub's worked example, when identified, then the id is the MD5 of its concatenated parts", () => {
    const value = {
      timestampMillis: 1626912000000,
      partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
    };
    // MD5 of 1626912000000"urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)"{"partition":"FULL_TABLE_SNAPSHOT"}
    expect(timeseriesPointId(dataset, value)).toBe('1950387bd3110458968826d55dc486ec');
  });

  it('given two values that differ only in what is not identity, when identified, then they are the same point', () => {
    const a = { timestampMillis: 5, rowCount: 1, eventGranularity: { unit: 'DAY', multiple: 1 } };
    const b = { timestampMillis: 5, rowCount: 2, eventGranularity: { multiple: 1, unit: 'DAY' } };
    expect(timeseriesPointId(dataset, a)).toBe(timeseriesPointId(dataset, b));
  });

  it.each([
    ['timestamp', { timestampMillis: 6 }],
    ['granularity', { timestampMillis: 5, eventGranularity: { unit: 'HOUR', multiple: 1 } }],
    ['message id', { timestampMillis: 5, messageId: 'm1' }],
    ['partition', { timestampMillis: 5, partitionSpec: { partition: 'p=1' } }],
    [
      'time partition',
      {
        timestampMillis: 5,
        partitionSpec: { timePartition: { startTimeMillis: 1, length: { unit: 'DAY', multiple: 1 } } },
      },
    ],
  ])('given a value differing in its %s, when identified, then it is another point', (_what, value) => {
    expect(timeseriesPointId(dataset, value)).not.toBe(timeseriesPointId(dataset, { timestampMillis: 5 }));
  });

  it('given another entity, when identified, then it is another point', () => {
    expect(timeseriesPointId(`${dataset}x`, { timestampMillis: 5 })).not.toBe(
      timeseriesPointId(dataset, { timestampMillis: 5 }),
    );
  });
});

describe('partitionSpecOf', () => {
  it('given a named partition, then its type is dropped; given none, then undefined', () => {
    expect(partitionSpecOf({ partitionSpec: { type: 'PARTITION', partition: 'ds=1' } })).toEqual({ partition: 'ds=1' });
    expect(partitionSpecOf({ partitionSpec: { type: 'FULL_TABLE' } })).toBeUndefined();
    expect(partitionSpecOf({})).toBeUndefined();
  });
});

describe('timeseriesFieldsOf', () => {
  it('given a checkpoint, when its fields are taken, then the annotated fields are there and its own runId wins', () => {
    const aspect = registry.entity('dataJob')!.aspect('datahubIngestionCheckpoint')!;
    const value = {
      timestampMillis: 1,
      pipelineName: 'pipe',
      platformInstanceId: 'inst',
      runId: 'own-run',
      config: '{}',
      state: { formatVersion: '1.0', serde: 'utf-8' },
      partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
    };
    expect(timeseriesFieldsOf(aspect, value, { runId: 'system-run' })).toEqual({
      runId: 'own-run',
      pipelineName: 'pipe',
      platformInstanceId: 'inst',
      'partitionSpec.partition': 'FULL_TABLE_SNAPSHOT',
    });
  });

  it('given usage statistics, when their fields are taken, then numbers stay numbers and the run comes from system metadata', () => {
    const aspect = registry.entity('dataset')!.aspect('datasetUsageStatistics')!;
    const value = { timestampMillis: 1, uniqueUserCount: 10, totalSqlQueries: 2, topSqlQueries: ['select 1'] };
    expect(timeseriesFieldsOf(aspect, value, { runId: 'r' })).toEqual({
      runId: 'r',
      uniqueUserCount: 10,
      totalSqlQueries: 2,
      topSqlQueries: '["select 1"]',
    });
  });
});

describe('timeseriesAspectNamed', () => {
  it('given names in any case, then the timeseries aspect is found; otherwise a 400 with the reason', () => {
    const { entity, aspect } = timeseriesAspectNamed(registry, 'DATASET', 'datasetusagestatistics');
    expect([entity.name, aspect.name]).toEqual(['dataset', 'datasetUsageStatistics']);
    expect(timeseriesAspectNamed(registry, 'datajob', 'DatahubIngestionCheckpoint').entity.name).toBe('dataJob');
    expect(() => timeseriesAspectNamed(registry, 'spaceship', 'x')).toThrow(
      'Failed to find entity with name spaceship in EntityRegistry',
    );
    expect(() => timeseriesAspectNamed(registry, 'dataset', 'nothing')).toThrow(
      'Unknown aspect nothing for entity dataset',
    );
    expect(() => timeseriesAspectNamed(registry, 'dataset', 'status')).toThrow('is not a timeseries aspect');
  });
});

describe('timeseriesAspectsOf', () => {
  it('lists every timeseries aspect of the registry with its entity type, and no versioned one', () => {
    const refs = timeseriesAspectsOf(registry);
    expect(refs).toContainEqual({ entity: 'dataset', aspect: 'datasetProfile' });
    expect(refs).toContainEqual({ entity: 'dataJob', aspect: 'datahubIngestionCheckpoint' });
    expect(refs.every(({ entity, aspect }) => registry.entity(entity)?.aspect(aspect)?.kind === 'timeseries')).toBe(
      true,
    );
  });
});
