import { BadRequestError } from '@strata/model';

/**
 * DataHub's legacy usage buckets (`UsageAggregation`, what `emit_usage` and the REST sink send to
 * `/usageStats?action=batchIngest`) as the `datasetUsageStatistics` values DataHub turns them into, so that they are
 * stored and indexed like any timeseries value:
 *
 * - `timestampMillis` is the bucket's start; `eventGranularity` one unit of its duration (`{unit, multiple: 1}`);
 * - `uniqueUserCount`, `totalSqlQueries` and `topSqlQueries` are copied when present;
 * - each user becomes `{user, count}` of `userCounts` (its `userEmail` is dropped, as DataHub drops it), each field
 *   `{fieldPath, count}` of `fieldCounts`.
 */

/** DataHub's `WindowDuration`. */
export const WINDOW_DURATIONS = ['YEAR', 'MONTH', 'WEEK', 'DAY', 'HOUR'] as const;

/** DataHub's `UsageAggregation`, as a client sends it. */
export interface UsageAggregation {
  readonly bucket: number;
  readonly duration: (typeof WINDOW_DURATIONS)[number];
  readonly resource: string;
  readonly metrics: {
    readonly uniqueUserCount?: number | undefined;
    readonly users?:
      | readonly {
          readonly user?: string | undefined;
          readonly count: number;
          readonly userEmail?: string | undefined;
        }[]
      | undefined;
    readonly totalSqlQueries?: number | undefined;
    readonly topSqlQueries?: readonly string[] | undefined;
    readonly fields?: readonly { readonly fieldName: string; readonly count: number }[] | undefined;
  };
}

/** The aspect and entity type legacy usage is stored as. */
export const USAGE_ASPECT = 'datasetUsageStatistics';
export const USAGE_ENTITY = 'dataset';

/**
 * The proposal (DataHub's JSON shape, to validate like any other) of one bucket. A user without its URN is refused:
 * `userCounts` keys its items by user, and DataHub fails on it too.
 */
export function usageProposalOf(bucket: UsageAggregation, index: number): Record<string, unknown> {
  const { metrics } = bucket;
  const users = metrics.users?.map((user, position) => {
    if (user.user === undefined) {
      throw new BadRequestError(`buckets[${index}].metrics.users[${position}]: user is required to record usage`);
    }
    return { user: user.user, count: user.count };
  });
  const value = {
    timestampMillis: bucket.bucket,
    eventGranularity: { unit: bucket.duration, multiple: 1 },
    ...(metrics.uniqueUserCount === undefined ? {} : { uniqueUserCount: metrics.uniqueUserCount }),
    ...(metrics.totalSqlQueries === undefined ? {} : { totalSqlQueries: metrics.totalSqlQueries }),
    ...(metrics.topSqlQueries === undefined ? {} : { topSqlQueries: [...metrics.topSqlQueries] }),
    ...(users === undefined ? {} : { userCounts: users }),
    ...(metrics.fields === undefined
      ? {}
      : { fieldCounts: metrics.fields.map((field) => ({ fieldPath: field.fieldName, count: field.count })) }),
  };
  return {
    entityType: USAGE_ENTITY,
    entityUrn: bucket.resource,
    changeType: 'UPSERT',
    aspectName: USAGE_ASPECT,
    aspect: { value: JSON.stringify(value), contentType: 'application/json' },
  };
}
