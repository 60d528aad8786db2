import { rangeStart, usageAggregations, usageQueryResult } from './usage-stats';

const NOW = 1_700_000_000_000;
const DAY = 86_400_000;
const resource = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';

describe('rangeStart', () => {
  it('reaches one period further back than the range, and 1 ms more; ALL from the epoch', () => {
    expect(rangeStart('HOUR', NOW)).toBe(NOW - 2 * 3_600_000 - 1);
    expect(rangeStart('DAY', NOW)).toBe(NOW - 2 * DAY - 1);
    expect(rangeStart('WEEK', NOW)).toBe(NOW - 8 * DAY - 1);
    expect(rangeStart('MONTH', NOW)).toBe(NOW - 31 * DAY - 1);
    expect(rangeStart('QUARTER', NOW)).toBe(NOW - 92 * DAY - 1);
    expect(rangeStart('YEAR', NOW)).toBe(NOW - 366 * DAY - 1);
    expect(rangeStart('ALL', NOW)).toBe(0);
  });
});

describe('usageAggregations', () => {
  it('filters on the resource and the inclusive times, and asks DataHub’s three aggregations', () => {
    const { buckets, users, fields } = usageAggregations({ resource, duration: 'WEEK', startTime: 5, endTime: 9 });
    expect(buckets.filter).toEqual([
      [
        { field: 'urn', condition: 'EQUAL', values: [resource], negated: false },
        { field: 'timestampMillis', condition: 'GREATER_THAN_OR_EQUAL_TO', values: ['5'], negated: false },
        { field: 'timestampMillis', condition: 'LESS_THAN_OR_EQUAL_TO', values: ['9'], negated: false },
      ],
    ]);
    expect(buckets.buckets).toEqual([{ kind: 'date', field: 'timestampMillis', unit: 'WEEK', timeZone: 'GMT' }]);
    expect(buckets.metrics.map((metric) => `${metric.kind} ${metric.field}`)).toEqual([
      'LATEST uniqueUserCount',
      'LATEST totalSqlQueries',
      'LATEST topSqlQueries',
    ]);
    expect(users.buckets[0]).toMatchObject({ kind: 'string', field: 'userCounts.user' });
    expect(fields.buckets[0]).toMatchObject({ kind: 'string', field: 'fieldCounts.fieldPath' });
    expect(usageAggregations({ resource, duration: 'DAY' }).buckets.filter).toEqual([
      [{ field: 'urn', condition: 'EQUAL', values: [resource], negated: false }],
    ]);
  });
});

describe('usageQueryResult', () => {
  it('makes buckets of the periods (an empty one without metrics), users, columns and the total of queries', () => {
    const result = usageQueryResult(
      { resource, duration: 'DAY' },
      {
        buckets: [
          { keys: [NOW], values: [2, 5, '["select 1","select 2"]'] },
          { keys: [NOW + DAY], values: [null, null, null] },
          { keys: [NOW + 2 * DAY], values: [1, 3, null] },
        ],
        users: [
          { keys: ['urn:li:corpuser:alice'], values: [4, 'alice@example.com'] },
          { keys: ['not a urn'], values: [1, null] },
        ],
        fields: [{ keys: ['id'], values: [6] }],
      },
    );
    expect(result).toEqual({
      buckets: [
        {
          bucket: NOW,
          duration: 'DAY',
          resource,
          metrics: { uniqueUserCount: 2, totalSqlQueries: 5, topSqlQueries: ['select 1', 'select 2'] },
        },
        { bucket: NOW + DAY, duration: 'DAY', resource, metrics: {} },
        { bucket: NOW + 2 * DAY, duration: 'DAY', resource, metrics: { uniqueUserCount: 1, totalSqlQueries: 3 } },
      ],
      aggregations: {
        uniqueUserCount: 2,
        totalSqlQueries: 8,
        users: [{ user: 'urn:li:corpuser:alice', count: 4, userEmail: 'alice@example.com' }, { count: 1 }],
        fields: [{ fieldName: 'id', count: 6 }],
      },
    });
  });

  it('leaves the total of queries out when no bucket has one', () => {
    const result = usageQueryResult({ resource, duration: 'DAY' }, { buckets: [], users: [], fields: [] });
    expect(result).toEqual({ buckets: [], aggregations: { uniqueUserCount: 0, users: [], fields: [] } });
  });
});
