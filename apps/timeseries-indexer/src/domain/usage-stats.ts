import type { Filter, TimeseriesAggregation, TimeseriesAggregationRow } from '@strata/indices';

/**
 * DataHub's legacy usage query (`/usageStats`), as pure functions over the `datasetUsageStatistics` index: the three
 * aggregations it runs for one resource and time range, and the `UsageQueryResult` made of their rows.
 *
 * - Buckets: per period of the requested duration (calendar, UTC), the latest `uniqueUserCount`, `totalSqlQueries`
 *   and `topSqlQueries`; an empty period between two others is a bucket with no metrics. Per-bucket users and fields
 *   are left out, as DataHub leaves them out.
 * - Aggregations: per user (the items of `userCounts`), the sum of its counts and its latest email; per column (the
 *   items of `fieldCounts`), the sum of its counts; the number of users; and the sum of the buckets' query counts,
 *   when one of them has one.
 */

export const USAGE_ENTITY = 'dataset';
export const USAGE_ASPECT = 'datasetUsageStatistics';

/** DataHub's `WindowDuration`: a bucket's length. */
export const WINDOW_DURATIONS = ['YEAR', 'MONTH', 'WEEK', 'DAY', 'HOUR'] as const;
export type WindowDuration = (typeof WINDOW_DURATIONS)[number];

/** DataHub's `UsageTimeRange`: how far back `queryRange` reaches from now. */
export const USAGE_TIME_RANGES = ['HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR', 'ALL'] as const;
export type UsageTimeRange = (typeof USAGE_TIME_RANGES)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Where `queryRange` starts: DataHub's rule, which reaches one period further back than the range (and 1 ms more) so
 * that the bucket holding its start is whole: 2 hours for HOUR, 2 days for DAY, 8 for WEEK, 31 for MONTH, 92 for
 * QUARTER, 366 for YEAR; ALL from the epoch.
 */
export function rangeStart(range: UsageTimeRange, now: number): number {
  switch (range) {
    case 'HOUR':
      return now - (2 * HOUR + 1);
    case 'DAY':
      return now - (2 * DAY + 1);
    case 'WEEK':
      return now - (8 * DAY + 1);
    case 'MONTH':
      return now - (31 * DAY + 1);
    case 'QUARTER':
      return now - (92 * DAY + 1);
    case 'YEAR':
      return now - (366 * DAY + 1);
    case 'ALL':
      return 0;
  }
}

export interface UsageQuery {
  readonly resource: string;
  readonly duration: WindowDuration;
  /** Inclusive, epoch milliseconds. */
  readonly startTime?: number | undefined;
  /** Inclusive, epoch milliseconds. */
  readonly endTime?: number | undefined;
}

/** The three aggregations of a usage query, over the resource's documents within the times. */
export function usageAggregations(query: UsageQuery): {
  buckets: TimeseriesAggregation;
  users: TimeseriesAggregation;
  fields: TimeseriesAggregation;
} {
  const filter: Filter = [
    [
      { field: 'urn', condition: 'EQUAL', values: [query.resource], negated: false },
      ...(query.startTime === undefined
        ? []
        : [
            {
              field: 'timestampMillis',
              condition: 'GREATER_THAN_OR_EQUAL_TO' as const,
              values: [String(query.startTime)],
              negated: false,
            },
          ]),
      ...(query.endTime === undefined
        ? []
        : [
            {
              field: 'timestampMillis',
              condition: 'LESS_THAN_OR_EQUAL_TO' as const,
              values: [String(query.endTime)],
              negated: false,
            },
          ]),
    ],
  ];
  const base = { entity: USAGE_ENTITY, aspect: USAGE_ASPECT, filter };
  return {
    buckets: {
      ...base,
      buckets: [{ kind: 'date', field: 'timestampMillis', unit: query.duration, timeZone: 'GMT' }],
      metrics: [
        { kind: 'LATEST', field: 'uniqueUserCount' },
        { kind: 'LATEST', field: 'totalSqlQueries' },
        { kind: 'LATEST', field: 'topSqlQueries' },
      ],
    },
    users: {
      ...base,
      buckets: [{ kind: 'string', field: 'userCounts.user', ascending: true, size: 24 * 60 }],
      metrics: [
        { kind: 'SUM', field: 'userCounts.count' },
        { kind: 'LATEST', field: 'userCounts.userEmail' },
      ],
    },
    fields: {
      ...base,
      buckets: [{ kind: 'string', field: 'fieldCounts.fieldPath', ascending: true, size: 24 * 60 }],
      metrics: [{ kind: 'SUM', field: 'fieldCounts.count' }],
    },
  };
}

/** One bucket of a `UsageQueryResult`. */
export interface UsageAggregation {
  readonly bucket: number;
  readonly duration: WindowDuration;
  readonly resource: string;
  readonly metrics: {
    readonly uniqueUserCount?: number;
    readonly totalSqlQueries?: number;
    readonly topSqlQueries?: string[];
  };
}

export interface UserUsageCounts {
  readonly user?: string;
  readonly count: number;
  readonly userEmail?: string;
}

export interface FieldUsageCounts {
  readonly fieldName: string;
  readonly count: number;
}

export interface UsageQueryResult {
  readonly buckets: UsageAggregation[];
  readonly aggregations: {
    readonly uniqueUserCount: number;
    readonly totalSqlQueries?: number;
    readonly users: UserUsageCounts[];
    readonly fields: FieldUsageCounts[];
  };
}

/** The result of a usage query from the rows of its three aggregations. */
export function usageQueryResult(
  query: UsageQuery,
  rows: {
    readonly buckets: readonly TimeseriesAggregationRow[];
    readonly users: readonly TimeseriesAggregationRow[];
    readonly fields: readonly TimeseriesAggregationRow[];
  },
): UsageQueryResult {
  const buckets = rows.buckets.map((row): UsageAggregation => {
    const [uniqueUserCount, totalSqlQueries, topSqlQueries] = row.values;
    const queries = topSqlQueriesOf(topSqlQueries);
    return {
      bucket: Number(row.keys[0]),
      duration: query.duration,
      resource: query.resource,
      metrics: {
        ...(typeof uniqueUserCount === 'number' ? { uniqueUserCount: Math.trunc(uniqueUserCount) } : {}),
        ...(typeof totalSqlQueries === 'number' ? { totalSqlQueries: Math.trunc(totalSqlQueries) } : {}),
        ...(queries === undefined ? {} : { topSqlQueries: queries }),
      },
    };
  });
  const users = rows.users.map((row): UserUsageCounts => {
    const [user] = row.keys;
    const [count, email] = row.values;
    return {
      // A key that is no URN is left out, as DataHub leaves out what does not parse.
      ...(typeof user === 'string' && user.startsWith('urn:li:') ? { user } : {}),
      count: Math.trunc(Number(count ?? 0)),
      ...(typeof email === 'string' ? { userEmail: email } : {}),
    };
  });
  const fields = rows.fields.map((row): FieldUsageCounts => ({
    fieldName: String(row.keys[0]),
    count: Math.trunc(Number(row.values[0] ?? 0)),
  }));
  const counted = buckets.flatMap((bucket) =>
    bucket.metrics.totalSqlQueries === undefined ? [] : [bucket.metrics.totalSqlQueries],
  );
  return {
    buckets,
    aggregations: {
      uniqueUserCount: users.length,
      ...(counted.length === 0 ? {} : { totalSqlQueries: counted.reduce((sum, count) => sum + count, 0) }),
      users,
      fields,
    },
  };
}

/** `topSqlQueries` as the index holds it: the JSON of the list. Anything else is left out. */
function topSqlQueriesOf(value: string | number | boolean | null | undefined): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}
