import { z } from 'zod';
import {
  errorFromCode,
  StrataError,
  validateProposal,
  type EntityRegistry,
  type ValidatedProposal,
} from '@strata/model';
import { defineRoute, type Route } from '@strata/http';
import { TimeSlice } from '@strata/timing';
import { usageProposalOf, WINDOW_DURATIONS } from '../domain/usage-proposals';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';
import { SYNC_INDEX_HEADER } from './ingest-routes';

export interface UsageIngestRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  readonly maxAspectBytes: number;
  /** Most buckets one request takes (the batch limit of proposals). */
  readonly maxBuckets: number;
}

const count = (name: string) => z.number({ error: `${name} must be an integer` }).int(`${name} must be an integer`);

/** DataHub's `UsageAggregation`. */
const usageAggregation = z.object({
  bucket: count('bucket'),
  duration: z.enum(WINDOW_DURATIONS, { error: `duration must be one of ${WINDOW_DURATIONS.join(', ')}` }),
  resource: z.string({ error: 'resource must be a string (a URN)' }),
  metrics: z.object(
    {
      uniqueUserCount: count('uniqueUserCount').optional(),
      users: z
        .array(z.object({ user: z.string().optional(), count: count('count'), userEmail: z.string().optional() }))
        .optional(),
      totalSqlQueries: count('totalSqlQueries').optional(),
      topSqlQueries: z.array(z.string()).optional(),
      fields: z.array(z.object({ fieldName: z.string(), count: count('count') })).optional(),
    },
    { error: 'metrics must be an object' },
  ),
});

/**
 * `POST /usageStats?action=batchIngest`: DataHub's deprecated ingest of legacy usage buckets (`emit_usage`, the REST
 * sink's `UsageAggregation` work units). Each bucket becomes the `datasetUsageStatistics` value DataHub makes of it
 * (`domain/usage-proposals.ts`); all are validated before any is published, then submitted as the caller's proposals
 * — checked like any write (EDIT_ENTITY on each dataset, as DataHub asks UPDATE on each resource), stored by the
 * writer and indexed by the timeseries indexer — and answered once stored (and indexed, with
 * `X-DataHub-Sync-Index-Update: true`).
 */
export function usageIngestRoutes(options: UsageIngestRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/usageStats',
      action: 'batchIngest',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Ingest legacy usage buckets (UsageAggregation) as datasetUsageStatistics values (deprecated).',
      description:
        'Each bucket becomes a `datasetUsageStatistics` value of its `resource` (a dataset): `timestampMillis` its ' +
        '`bucket`, `eventGranularity` one `duration`, its counts and top queries copied, its users as `userCounts` ' +
        '(their `userEmail` dropped, as DataHub drops it) and its fields as `fieldCounts`. Answers (no body) once every ' +
        'value is stored.',
      body: z.object({
        buckets: z
          .array(usageAggregation, { error: 'buckets must be an array of UsageAggregation' })
          .max(options.maxBuckets, `buckets must hold at most ${options.maxBuckets} UsageAggregation`),
      }),
      example: {
        body: {
          buckets: [
            {
              bucket: 1_700_006_400_000,
              duration: 'DAY',
              resource: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
              metrics: {
                uniqueUserCount: 1,
                users: [{ user: 'urn:li:corpuser:datahub', count: 3 }],
                totalSqlQueries: 3,
                topSqlQueries: ['SELECT * FROM SampleHiveDataset'],
                fields: [{ fieldName: 'field_foo', count: 2 }],
              },
            },
          ],
        },
      },
      handle: async ({ body, context }) => {
        const proposals: ValidatedProposal[] = [];
        const slice = new TimeSlice();
        for (const [index, bucket] of body.buckets.entries()) {
          try {
            proposals.push(
              validateProposal(options.registry, usageProposalOf(bucket, index), {
                maxAspectBytes: options.maxAspectBytes,
              }),
            );
          } catch (error) {
            // Which bucket is wrong, in the refusal DataHub's validation gives.
            if (error instanceof StrataError && !error.message.startsWith('buckets[')) {
              throw errorFromCode(error.code, `buckets[${index}]: ${error.message}`, error.details);
            }
            throw error;
          }
          await slice.pause();
        }
        if (proposals.length > 0) {
          await options.submitter.submit(proposals, {
            ...context,
            authorization: { kind: 'caller', context },
            wait: true,
            waitForIndexing: context.header(SYNC_INDEX_HEADER)?.toLowerCase() === 'true',
          });
        }
        return {};
      },
    }),
  ];
}
