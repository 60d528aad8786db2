import {
  countWithShare,
  fieldStatsRows,
  formatBytes,
  formatPercent,
  profileSeries,
  shortDate,
  topByCount,
  usageRangeOf,
  usageSeries,
} from './entity-stats';

describe('usageRangeOf', () => {
  it('reads a known window and defaults to all time', () => {
    expect(usageRangeOf('MONTH')).toBe('MONTH');
    expect(usageRangeOf('bogus')).toBe('ALL');
    expect(usageRangeOf(null)).toBe('ALL');
  });
});

describe('series', () => {
  it('orders profiles oldest first, one point per time, leaving out missing numbers', () => {
    expect(
      profileSeries([
        { timestampMillis: 30, rowCount: 3, columnCount: 2 },
        { timestampMillis: 10, rowCount: 1, sizeInBytes: null },
        { timestampMillis: 30, rowCount: 99 },
      ]),
    ).toEqual([
      { time: 10, rowCount: 1 },
      { time: 30, rowCount: 3, columnCount: 2 },
    ]);
  });

  it('orders usage buckets oldest first and counts missing metrics as 0', () => {
    expect(
      usageSeries([
        { bucket: 20, metrics: { totalSqlQueries: 5, uniqueUserCount: 2 } },
        null,
        { bucket: 10, metrics: null },
        { bucket: null },
      ]),
    ).toEqual([
      { time: 10, queries: 0, users: 0 },
      { time: 20, queries: 5, users: 2 },
    ]);
  });
});

describe('fieldStatsRows', () => {
  it('shows each field with its counts, shares and values', () => {
    expect(
      fieldStatsRows({
        timestampMillis: 1,
        fieldProfiles: [
          {
            fieldPath: '[version=2.0].[type=struct].a.[type=long].b',
            nullCount: 5,
            nullProportion: 0.005,
            uniqueCount: 40,
            min: '0',
            max: '9',
            mean: null,
            sampleValues: ['1'],
          },
        ],
      }),
    ).toEqual([
      {
        fieldPath: '[version=2.0].[type=struct].a.[type=long].b',
        path: 'a.b',
        nulls: '5 (0.5%)',
        distinct: '40',
        min: '0',
        max: '9',
        samples: ['1'],
      },
    ]);
    expect(fieldStatsRows(undefined)).toEqual([]);
  });
});

describe('formatting', () => {
  it('formats counts, shares, sizes and dates', () => {
    expect(countWithShare(1234, 0.25)).toBe('1,234 (25%)');
    expect(countWithShare(null, 0.1)).toBe('10%');
    expect(countWithShare(undefined, undefined)).toBeUndefined();
    expect(formatPercent(0.0123)).toBe('1.2%');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536 * 1024)).toBe('1.5 MB');
    expect(shortDate(Date.UTC(2025, 10, 18))).toBe('18 Nov');
  });
});

describe('topByCount', () => {
  it('keeps the highest counts, highest first', () => {
    expect(
      topByCount(
        [
          { name: 'a', count: 1 },
          { name: 'b', count: 5 },
          { name: 'c', count: 3 },
        ],
        2,
      ),
    ).toEqual([
      { name: 'b', count: 5 },
      { name: 'c', count: 3 },
    ]);
  });
});
