import { z } from 'zod';
import { BadRequestError, InvalidUrnError, parseUrn, ValidationError } from '@strata/model';
import { defineRoute, type Route, type RouteAccess } from '@strata/http';
import type { TimeseriesAggregation, TimeseriesIndex } from '@strata/indices';
import {
  rangeStart,
  USAGE_TIME_RANGES,
  usageAggregations,
  usageQueryResult,
  WINDOW_DURATIONS,
  type UsageQuery,
} from '../domain/usage-stats';

/** DataHub's check of a usage query: `VIEW_DATASET_USAGE` on the resource it names. */
const USAGE_ACCESS: RouteAccess = {
  kind: 'privilege',
  anyOf: [['VIEW_DATASET_USAGE']],
  resource: { in: 'body', name: 'resource' },
  message: 'User is unauthorized to query usage.',
};

const epochMillis = (name: string) =>
  z.number({ error: `${name} must be an integer (epoch milliseconds)` }).int(`${name} must be an integer`);

const resource = z.string({ error: 'resource must be a string (a URN)' });
const duration = z.enum(WINDOW_DURATIONS, { error: `duration must be one of ${WINDOW_DURATIONS.join(', ')}` });

const RESOURCE_EXAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/**
 * The read actions of DataHub's deprecated `/usageStats` resource, over the `datasetUsageStatistics` index (the
 * gateway owns `batchIngest`, which writes those values): `query` and `queryRange`, answering a `UsageQueryResult`
 * made of three aggregations (see `domain/usage-stats.ts`).
 */
export function usageRoutes(index: TimeseriesIndex, now: () => number): Route[] {
  const answer = async (query: UsageQuery) => {
    checkResource(query.resource);
    const aggregations = usageAggregations(query);
    const [buckets, users, fields] = await Promise.all([
      aggregate(index, aggregations.buckets),
      aggregate(index, aggregations.users),
      aggregate(index, aggregations.fields),
    ]);
    return { body: { value: usageQueryResult(query, { buckets, users, fields }) } };
  };
  return [
    defineRoute({
      method: 'POST',
      resource: '/usageStats',
      action: 'query',
      family: 'restli',
      access: USAGE_ACCESS,
      summary: 'Usage of a dataset: per period, and aggregated over users and columns (deprecated).',
      description:
        '`startTime` and `endTime` are inclusive and optional; periods are calendar periods of `duration` in UTC, the ' +
        'empty ones between two others answered without metrics. `maxBuckets` is accepted and ignored, as DataHub ' +
        'ignores it.',
      body: z.object({
        resource,
        duration,
        startTime: epochMillis('startTime').nullish(),
        endTime: epochMillis('endTime').nullish(),
        maxBuckets: z.number().int('maxBuckets must be an integer').nullish(),
      }),
      example: { body: { resource: RESOURCE_EXAMPLE, duration: 'DAY', startTime: 1_700_000_000_000 } },
      handle: ({ body }) =>
        answer({
          resource: body.resource,
          duration: body.duration,
          startTime: body.startTime ?? undefined,
          endTime: body.endTime ?? undefined,
        }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/usageStats',
      action: 'queryRange',
      family: 'restli',
      access: USAGE_ACCESS,
      summary: 'Usage of a dataset over a range back from now (deprecated).',
      description:
        'As `query`, from now back over `rangeFromEnd` (HOUR, DAY, WEEK, MONTH, QUARTER, YEAR, ALL), reaching one ' +
        'period further back (2 hours, 2, 8, 31, 92 or 366 days, and 1 ms) so that the first bucket is whole.',
      body: z.object({
        resource,
        duration,
        rangeFromEnd: z.enum(USAGE_TIME_RANGES, {
          error: `rangeFromEnd must be one of ${USAGE_TIME_RANGES.join(', ')}`,
        }),
      }),
      example: { body: { resource: RESOURCE_EXAMPLE, duration: 'DAY', rangeFromEnd: 'WEEK' } },
      handle: ({ body }) => {
        const end = now();
        return answer({
          resource: body.resource,
          duration: body.duration,
          startTime: rangeStart(body.rangeFromEnd, end),
          endTime: end,
        });
      },
    }),
  ];
}

function checkResource(urn: string): void {
  try {
    parseUrn(urn);
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(`Invalid resource: ${error.message}`);
    throw error;
  }
}

async function aggregate(index: TimeseriesIndex, aggregation: TimeseriesAggregation) {
  try {
    return await index.aggregate(aggregation);
  } catch (error) {
    if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}
