import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import {
  BadRequestError,
  InvalidUrnError,
  TIME_RANGE_HEADERS,
  parseUrn,
  validateProposal,
  type EntityRegistry,
} from '@strata/model';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';
import { SYNC_INDEX_HEADER } from './ingest-routes';

export interface DeleteRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
}

const millis = (name: string) =>
  z.number({ error: `${name} must be epoch milliseconds` }).int(`${name} must be epoch milliseconds`);

/**
 * `POST /entities?action=delete`: DataHub's hard delete, as its CLI (`datahub delete --hard`) and Python SDK call it.
 * Without `aspectName` the entity goes for good: every version of every aspect, its timeseries values, its search
 * document and edges — also for a URN never written, which deletes nothing. With the name of a timeseries aspect, only
 * that aspect's values between `startTimeMillis` and `endTimeMillis` (inclusive, each optional) go. Either way it is
 * an ordinary DELETE proposal on the log, answered once the writer applied it, with what it removed.
 */
export function deleteRoutes(options: DeleteRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'delete',
      family: 'restli',
      summary: 'Delete an entity for good, or the values of one of its timeseries aspects in a time range.',
      description:
        'Answers {"value": {"urn", "rows", "timeseriesRows"}}: the aspect versions and timeseries values removed (a ranged timeseries delete answers timeseriesRows only), once the writer applied it; with `X-DataHub-Sync-Index-Update: true`, once search and relationships show it too. References from other entities stay; soft delete is a write of status {"removed": true}.',
      body: z.object({
        urn: z.string({ error: 'urn must be a string' }),
        aspectName: z.string().optional(),
        startTimeMillis: millis('startTimeMillis').optional(),
        endTimeMillis: millis('endTimeMillis').optional(),
      }),
      example: { body: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)' } },
      handle: async ({ body, context }) => {
        const { entity, urn } = resolve(options.registry, body.urn);
        const ranged = body.startTimeMillis !== undefined || body.endTimeMillis !== undefined;
        let aspectName = entity.keyAspect.name;
        if (body.aspectName !== undefined) {
          const aspect = entity.aspect(body.aspectName);
          if (aspect?.kind !== 'timeseries') {
            throw new BadRequestError(`Not supported for non-timeseries aspect ${body.aspectName}.`);
          }
          aspectName = aspect.name;
        } else if (ranged) {
          throw new BadRequestError(
            'startTimeMillis and endTimeMillis bound the delete of a timeseries aspect: name it with aspectName',
          );
        }
        const headers: Record<string, string> = {};
        if (body.startTimeMillis !== undefined) headers[TIME_RANGE_HEADERS.from] = String(body.startTimeMillis);
        if (body.endTimeMillis !== undefined) headers[TIME_RANGE_HEADERS.until] = String(body.endTimeMillis);
        const proposal = validateProposal(options.registry, {
          entityType: entity.name,
          entityUrn: urn,
          changeType: 'DELETE',
          aspectName,
          headers,
        });
        const waitForIndexing = context.header(SYNC_INDEX_HEADER)?.toLowerCase() === 'true';
        const { outcomes } = await options.submitter.submit([proposal], { ...context, wait: true, waitForIndexing });
        const outcome = outcomes[0];
        const timeseriesRows = outcome?.deletedTimeseriesRows ?? 0;
        return {
          body: {
            value:
              body.aspectName === undefined
                ? { urn, rows: outcome?.deletedRows ?? 0, timeseriesRows }
                : { urn, timeseriesRows },
          },
        };
      },
    }),
  ];
}

/** The URN and its entity, or a 400 in DataHub's words. */
function resolve(registry: EntityRegistry, text: string) {
  try {
    const urn = parseUrn(text);
    const entity = registry.entity(urn.entityType);
    if (entity === undefined) {
      throw new BadRequestError(`Failed to find entity with name ${urn.entityType} in EntityRegistry`);
    }
    entity.keyFromUrn(urn);
    return { entity, urn: urn.toString() };
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}
