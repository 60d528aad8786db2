import { BadRequestError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { fieldTypeOf, genericTableOf, javaDouble, planAggregation, type AggregationSpec } from './aggregated-stats';

const registry = testEntityRegistry();
const usage = registry.entity('dataset')!.aspect('datasetUsageStatistics')!;
const profile = registry.entity('dataset')!.aspect('datasetProfile')!;

describe('fieldTypeOf', () => {
  it('resolves the paths DataHub resolves, with their Pegasus types', () => {
    expect(fieldTypeOf(usage, 'timestampMillis')).toBe('long');
    expect(fieldTypeOf(usage, 'urn')).toBe('string');
    expect(fieldTypeOf(usage, 'eventGranularity')).toBe('record');
    expect(fieldTypeOf(usage, 'uniqueUserCount')).toBe('int');
    expect(fieldTypeOf(usage, 'topSqlQueries')).toBe('array');
    expect(fieldTypeOf(usage, 'userCounts')).toBe('array');
    expect(fieldTypeOf(usage, 'userCounts.user')).toBe('string');
    expect(fieldTypeOf(usage, 'userCounts.count')).toBe('int');
    expect(fieldTypeOf(usage, 'userCounts.userEmail')).toBe('string');
    expect(fieldTypeOf(usage, 'fieldCounts.fieldPath.keyword')).toBe('string');
    expect(fieldTypeOf(usage, 'partitionSpec.partition')).toBe('string');
    expect(fieldTypeOf(profile, 'messageId')).toBe('string');
  });

  it('refuses a path that names no timeseries field, with DataHub’s words', () => {
    expect(() => fieldTypeOf(usage, 'noSuchField')).toThrow(
      new BadRequestError('Unknown TimeseriesField or TimeseriesFieldCollection: noSuchField'),
    );
    expect(() => fieldTypeOf(usage, 'userCounts.nothing')).toThrow(BadRequestError);
    // DataHub indexes no field of a profile but the common ones: its row count is no timeseries field.
    expect(() => fieldTypeOf(profile, 'rowCount')).toThrow(BadRequestError);
    expect(() => fieldTypeOf(usage, 'partitionSpec.type')).toThrow('Unknown partitionSpec member type');
  });
});

describe('planAggregation', () => {
  const sum: AggregationSpec = { fieldPath: 'totalSqlQueries', aggregationType: 'SUM' };

  it('names and types the columns as DataHub does: buckets, then metrics by their aggregation', () => {
    const plan = planAggregation(
      usage,
      [
        { fieldPath: 'uniqueUserCount', aggregationType: 'LATEST' },
        sum,
        { fieldPath: 'userCounts.user', aggregationType: 'CARDINALITY' },
      ],
      [
        { type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'DAY', multiple: 1 } },
        { type: 'STRING_GROUPING_BUCKET', key: 'userCounts.user' },
      ],
    );
    expect(plan.columnNames).toEqual([
      'timestampMillis',
      'userCounts.user',
      'latest_uniqueUserCount',
      'sum_totalSqlQueries',
      'cardinality_userCounts.user',
    ]);
    expect(plan.columnTypes).toEqual(['long', 'string', 'int', 'double', 'long']);
    expect(plan.buckets).toEqual([
      { kind: 'date', field: 'timestampMillis', unit: 'DAY', timeZone: 'GMT' },
      { kind: 'string', field: 'userCounts.user', ascending: true, size: 1440 },
    ]);
  });

  it('refuses a SUM of text, a date bucket of another field, without a window, of SECOND or of several units', () => {
    const refused = (metrics: AggregationSpec[], buckets: Parameters<typeof planAggregation>[2]) => {
      expect(() => planAggregation(usage, metrics, buckets)).toThrow(BadRequestError);
    };
    refused([{ fieldPath: 'userCounts.user', aggregationType: 'SUM' }], []);
    refused([], []);
    refused([sum], [{ type: 'DATE_GROUPING_BUCKET', key: 'uniqueUserCount', timeWindowSize: { unit: 'DAY' } }]);
    refused([sum], [{ type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis' }]);
    refused([sum], [{ type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'SECOND' } }]);
    refused(
      [sum],
      [{ type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'DAY', multiple: 2 } }],
    );
  });
});

describe('genericTableOf', () => {
  it('writes every cell as DataHub does: longs whole, doubles as Java writes them, times as dates, missing as NULL', () => {
    const plan = planAggregation(
      usage,
      [
        { fieldPath: 'totalSqlQueries', aggregationType: 'SUM' },
        { fieldPath: 'uniqueUserCount', aggregationType: 'LATEST' },
        { fieldPath: 'timestampMillis', aggregationType: 'LATEST' },
        { fieldPath: 'partitionSpec.partition', aggregationType: 'LATEST' },
        { fieldPath: 'urn', aggregationType: 'CARDINALITY' },
      ],
      [{ type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'DAY' } }],
    );
    expect(
      genericTableOf(plan, [
        { keys: [1_700_006_400_000], values: [12.9, 7, 1_700_006_400_123, 'FULL_TABLE', 1] },
        { keys: [1_700_092_800_000], values: [0, null, null, null, 0] },
      ]).rows,
    ).toEqual([
      ['1700006400000', '12', '7', '2023-11-15T00:00:00.123Z', 'FULL_TABLE', '1'],
      ['1700092800000', '0', 'NULL', 'NULL', 'NULL', '0'],
    ]);
  });

  it('writes doubles as Java’s Double.toString', () => {
    expect([3, 1.5, 0.001, 1e7, 1.5e-4, 0, -2.25, 123456789.5].map(javaDouble)).toEqual([
      '3.0',
      '1.5',
      '0.001',
      '1.0E7',
      '1.5E-4',
      '0.0',
      '-2.25',
      '1.234567895E8',
    ]);
  });
});
