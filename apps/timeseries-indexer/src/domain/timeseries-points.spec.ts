import type { ChangeLogEvent } from '@strata/change-log';
import type { LogRecord } from '@strata/log';
import { timeseriesAspectsOf, timeseriesPointId } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { timeseriesChangeOf } from './timeseries-points';

const registry = testEntityRegistry();
const urn = 'urn:li:dataJob:(urn:li:dataFlow:(datahub,pipeline,prod),job)';
const dataJob = registry.entity('dataJob')!;
const checkpointAspect = dataJob.aspect('datahubIngestionCheckpoint')!;

const event = (fields: Partial<ChangeLogEvent>): ChangeLogEvent => ({
  kind: 'timeseries',
  record: {} as LogRecord,
  entity: dataJob,
  aspect: checkpointAspect,
  urn,
  changeType: 'UPSERT',
  value: undefined,
  previousValue: undefined,
  created: { time: 1, actor: 'urn:li:corpuser:datahub' },
  systemMetadata: { runId: 'run-1', lastObserved: 5 },
  headers: {},
  ...fields,
});

describe('timeseriesAspectsOf', () => {
  it('lists every timeseries aspect of the registry with its entity type, and no versioned one', () => {
    const refs = timeseriesAspectsOf(registry);
    expect(refs).toEqual(
      expect.arrayContaining([
        { entity: 'dataset', aspect: 'datasetProfile' },
        { entity: 'dataset', aspect: 'datasetUsageStatistics' },
        { entity: 'dataset', aspect: 'operation' },
        { entity: 'dataJob', aspect: 'datahubIngestionCheckpoint' },
        { entity: 'dataJob', aspect: 'datahubIngestionRunSummary' },
        { entity: 'dataProcessInstance', aspect: 'dataProcessInstanceRunEvent' },
        { entity: 'assertion', aspect: 'assertionRunEvent' },
      ]),
    );
    expect(refs.some((ref) => ref.aspect === 'status')).toBe(false);
  });
});

describe('timeseriesChangeOf', () => {
  const checkpoint = {
    timestampMillis: 1_700_000_000_000,
    pipelineName: 'pipeline',
    platformInstanceId: 'instance',
    runId: 'run-1',
    config: '',
    state: { formatVersion: '1.0', serde: 'base85-bz2-json' },
  };

  it('given an upsert or a restatement, then it puts the point under its identity, with its filterable fields', () => {
    for (const changeType of ['UPSERT', 'RESTATE']) {
      expect(timeseriesChangeOf(event({ changeType, value: checkpoint }))).toEqual({
        kind: 'put',
        point: {
          entity: 'dataJob',
          aspect: 'datahubIngestionCheckpoint',
          id: timeseriesPointId(urn, checkpoint),
          urn,
          timestampMillis: checkpoint.timestampMillis,
          value: JSON.stringify(checkpoint),
          systemMetadata: JSON.stringify({ runId: 'run-1', lastObserved: 5 }),
          fields: { runId: 'run-1', pipelineName: 'pipeline', platformInstanceId: 'instance' },
        },
      });
    }
  });

  it('given a DELETE with a range in its headers, then the range goes; without one, every point of the aspect', () => {
    expect(
      timeseriesChangeOf(event({ changeType: 'DELETE', headers: { startTimeMillis: '10', endTimeMillis: '20' } })),
    ).toEqual({
      kind: 'deleteRange',
      entity: 'dataJob',
      aspect: 'datahubIngestionCheckpoint',
      urn,
      startTimeMillis: 10,
      endTimeMillis: 20,
    });
    expect(timeseriesChangeOf(event({ changeType: 'DELETE' }))).toMatchObject({
      kind: 'deleteRange',
      startTimeMillis: undefined,
      endTimeMillis: undefined,
    });
  });

  it('given a DELETE naming a run in its headers, then only that run’s points go (in the range, when given)', () => {
    expect(
      timeseriesChangeOf(event({ changeType: 'DELETE', headers: { runId: 'run-1', endTimeMillis: '20' } })),
    ).toEqual({
      kind: 'deleteRange',
      entity: 'dataJob',
      aspect: 'datahubIngestionCheckpoint',
      urn,
      startTimeMillis: undefined,
      endTimeMillis: 20,
      runId: 'run-1',
    });
    expect(timeseriesChangeOf(event({ changeType: 'DELETE', headers: { runId: '' } }))).not.toHaveProperty('runId');
  });

  it('given a value without a numeric timestamp, then nothing changes', () => {
    expect(timeseriesChangeOf(event({ value: { timestampMillis: 'soon' } }))).toBeUndefined();
    expect(timeseriesChangeOf(event({ value: [] }))).toBeUndefined();
  });
});

describe('timeseriesChangeOf, for an aspect with collections', () => {
  const dataset = registry.entity('dataset')!;
  const usageAspect = dataset.aspect('datasetUsageStatistics')!;
  const datasetUrn = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';
  const usage = (value: Record<string, unknown>) =>
    timeseriesChangeOf(event({ entity: dataset, aspect: usageAspect, urn: datasetUrn, value }));

  it('given users and columns, then each is an item of its collection, under its key, with its timeseries fields', () => {
    const change = usage({
      timestampMillis: 1_700_000_000_000,
      eventGranularity: { unit: 'DAY', multiple: 1 },
      uniqueUserCount: 2,
      topSqlQueries: ['select 1'],
      userCounts: [
        { user: 'urn:li:corpuser:alice', count: 3, userEmail: 'alice@example.com' },
        { user: 'urn:li:corpuser:bob', count: 1 },
      ],
      fieldCounts: [{ fieldPath: 'id', count: 4 }],
    });
    expect(change).toMatchObject({
      kind: 'put',
      point: {
        fields: {
          runId: 'run-1',
          uniqueUserCount: 2,
          topSqlQueries: '["select 1"]',
          eventGranularity: '{"multiple":1,"unit":"DAY"}',
        },
        collections: {
          userCounts: [
            {
              key: 'urn:li:corpuser:alice',
              fields: {
                'userCounts.user': 'urn:li:corpuser:alice',
                'userCounts.count': 3,
                'userCounts.userEmail': 'alice@example.com',
              },
            },
            { key: 'urn:li:corpuser:bob', fields: { 'userCounts.user': 'urn:li:corpuser:bob', 'userCounts.count': 1 } },
          ],
          fieldCounts: [{ key: 'id', fields: { 'fieldCounts.fieldPath': 'id', 'fieldCounts.count': 4 } }],
        },
      },
    });
  });

  it('given none, then every collection is there, empty, so that the items a point had are replaced', () => {
    expect(usage({ timestampMillis: 5 })).toMatchObject({
      point: { collections: { userCounts: [], fieldCounts: [] } },
    });
  });

  it('given an aspect without collections, then its points have none', () => {
    const change = timeseriesChangeOf(event({ value: { timestampMillis: 5, pipelineName: 'p', runId: 'r' } }));
    expect(change?.kind === 'put' && 'collections' in change.point).toBe(false);
  });
});
