import { z } from 'zod';
import { BadRequestError, timeseriesAspectNamed, ValidationError, type EntityRegistry } from '@strata/model';
import { defineRoute, type Route } from '@strata/http';
import { filterSchema, TIMESERIES_MAX_BUCKETS, type Filter, type TimeseriesIndex } from '@strata/indices';
import { genericTableOf, planAggregation } from '../domain/aggregated-stats';

/** DataHub's `AggregationSpec`. */
const aggregationSpec = z.object({
  fieldPath: z.string({ error: 'fieldPath must be a string' }).min(1, 'fieldPath must not be empty'),
  aggregationType: z.enum(['LATEST', 'SUM', 'CARDINALITY'], {
    error: 'aggregationType must be LATEST, SUM or CARDINALITY',
  }),
});

/** DataHub's `GroupingBucket` (its later fields included: the time zone, the order, the size). */
const groupingBucket = z.object({
  type: z.enum(['DATE_GROUPING_BUCKET', 'STRING_GROUPING_BUCKET'], {
    error: 'type must be DATE_GROUPING_BUCKET or STRING_GROUPING_BUCKET',
  }),
  key: z.string({ error: 'key must be a string' }).min(1, 'key must not be empty'),
  timeWindowSize: z
    .object({
      unit: z.enum(['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'], {
        error: 'unit must be a CalendarInterval (MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR)',
      }),
      multiple: z.number().int('multiple must be an integer').default(1),
    })
    .optional(),
  timeZone: z.string().min(1).optional(),
  ascending: z.boolean().optional(),
  size: z
    .number()
    .int('size must be an integer')
    .min(1, 'size must be at least 1')
    .max(TIMESERIES_MAX_BUCKETS, `size must be at most ${TIMESERIES_MAX_BUCKETS}`)
    .optional(),
  orderByMetric: z.boolean().optional(),
});

const statsBody = z.object({
  entityName: z.string({ error: 'entityName must be a string' }),
  aspectName: z.string({ error: 'aspectName must be a string' }),
  metrics: z.array(aggregationSpec, { error: 'metrics must be an array of AggregationSpec' }).max(20),
  filter: filterSchema.nullish(),
  buckets: z.array(groupingBucket, { error: 'buckets must be an array of GroupingBucket' }).max(5).nullish(),
});

/**
 * `POST /analytics?action=getTimeseriesStats`: DataHub's aggregated statistics of a timeseries aspect, over its
 * index (the points and the items of their collections), answered as DataHub's `GetTimeseriesAggregatedStatsResponse`.
 */
export function analyticsRoutes(index: TimeseriesIndex, registry: EntityRegistry): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/analytics',
      action: 'getTimeseriesStats',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'TIMESERIES',
        operations: ['READ'],
        resource: { in: 'bodyTypes', names: ['entityName'] },
        message: 'User is unauthorized to get entity {resource}',
      },
      summary: 'Aggregates a timeseries aspect: metrics (LATEST, SUM, CARDINALITY) grouped by date and string buckets.',
      description:
        'Over every document of the aspect’s index that `filter` keeps — the values, and the items of their collections ' +
        '(`userCounts.user`, `fieldCounts.fieldPath`…) — grouped by the `buckets` in order: a DATE_GROUPING_BUCKET cuts ' +
        '`timestampMillis` by a calendar `timeWindowSize` (multiple 1) in `timeZone` (default GMT), the empty periods ' +
        'between two groups answered too; a STRING_GROUPING_BUCKET groups by a field’s value, `ascending` (default ' +
        'true), at most `size` groups (default 1440). Every cell of the table is a string; a metric without a value is ' +
        '`NULL`. Without buckets, one row covers every document.',
      body: statsBody,
      example: {
        body: {
          entityName: 'dataset',
          aspectName: 'datasetProfile',
          metrics: [
            { fieldPath: 'rowCount', aggregationType: 'LATEST' },
            { fieldPath: 'columnCount', aggregationType: 'SUM' },
          ],
          filter: {
            or: [
              {
                and: [
                  {
                    field: 'urn',
                    condition: 'EQUAL',
                    values: ['urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'],
                  },
                ],
              },
            ],
          },
          buckets: [
            { type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'DAY', multiple: 1 } },
          ],
        },
      },
      handle: async ({ body }) => {
        const { entity, aspect } = timeseriesAspectNamed(registry, body.entityName, body.aspectName);
        const plan = planAggregation(aspect, body.metrics, body.buckets ?? []);
        const filter = body.filter ?? undefined;
        let rows;
        try {
          rows = await index.aggregate({
            entity: entity.name,
            aspect: aspect.name,
            filter,
            buckets: plan.buckets,
            metrics: plan.metrics,
          });
        } catch (error) {
          // The index's refusal of a request (a filter over its limits, an unknown time zone) is the client's mistake.
          if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
          throw error;
        }
        return {
          body: {
            value: {
              entityName: body.entityName,
              aspectName: body.aspectName,
              ...(filter === undefined ? {} : { filter: filterRecord(filter) }),
              aggregationSpecs: body.metrics,
              ...(body.buckets === undefined || body.buckets === null ? {} : { groupingBuckets: body.buckets }),
              table: genericTableOf(plan, rows),
            },
          },
        };
      },
    }),
  ];
}

/** A filter as DataHub echoes it once converted: `or` groups of `and` criteria, each with its `values`. */
function filterRecord(filter: Filter): unknown {
  return {
    or: filter.map((group) => ({
      and: group.map((criterion) => ({
        field: criterion.field,
        condition: criterion.condition,
        values: criterion.values,
        ...(criterion.negated ? { negated: true } : {}),
      })),
    })),
  };
}
