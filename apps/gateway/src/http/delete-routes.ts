import { z } from 'zod';
import { booleanParam, defineRoute, type RequestContext, type Route, type RouteCaller } from '@strata/http';
import {
  BadGatewayError,
  BadRequestError,
  InvalidUrnError,
  TIME_RANGE_HEADERS,
  parseUrn,
  validateProposal,
  type EntityRegistry,
} from '@strata/model';
import {
  cleanReferences,
  proposalOf,
  type LatestAspect,
  type ReferenceEdit,
  type ReferenceReads,
} from '../domain/reference-cleanup';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';
import { SYNC_INDEX_HEADER } from './ingest-routes';

export interface DeleteRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  /** Calls the routes of the services behind the gateway: the graph's edges, the writer's latest values. */
  readonly call: RouteCaller;
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
      access: { kind: 'writes' },
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
        const { outcomes } = await options.submitter.submit([proposal], {
          ...context,
          authorization: { kind: 'caller', context },
          wait: true,
          waitForIndexing,
        });
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
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'deleteReferences',
      family: 'restli',
      access: { kind: 'writes' },
      summary:
        'Remove every reference to an entity from the aspects of other entities, or (dryRun) say where they are.',
      description:
        'Answers {"value": {"total", "relatedAspects": [{"relationship", "entity", "aspect"}]}}: the relationships into the URN, and up to 10 of the aspects holding them. Not a dry run (the default), each such aspect is rewritten without the references — an owner, tag or term association, lineage edge or array item naming the URN goes; an aspect that is nothing but the reference (a container) is deleted — and the call answers once search and relationships show it. References inside other entities\' URNs (their keys) stay.',
      body: z.object({
        urn: z.string({ error: 'urn must be a string' }),
        dryRun: booleanParam().optional(),
      }),
      example: { body: { urn: 'urn:li:tag:NeedsDocs', dryRun: true } },
      handle: async ({ body, context }) => {
        const { entity, urn } = resolve(options.registry, body.urn);
        // The right to clean references is the right to delete what they name.
        const deletion = validateProposal(options.registry, {
          entityType: entity.name,
          entityUrn: urn,
          changeType: 'DELETE',
          aspectName: entity.keyAspect.name,
        });
        // Nothing is deleted: the policies are asked, the guard of deleting a user or a group is not.
        await options.submitter.authorize({ kind: 'policies', context }, [deletion]);
        let submissions = 0;
        const apply = async (edits: readonly ReferenceEdit[]) => {
          const proposals = edits.map((edit) => proposalOf(options.registry, edit));
          // A request id of its own per submission: the writer applies a request id once. The edits are allowed by
          // the right to delete their target, as in DataHub — but the security inputs only to those they guard.
          const requestId = `${context.requestId}/references-${++submissions}`;
          await options.submitter.submit(proposals, {
            ...context,
            requestId,
            authorization: { kind: 'guards', context },
            wait: true,
            waitForIndexing: true,
          });
        };
        const cleanup = await cleanReferences(
          options.registry,
          urn,
          { dryRun: body.dryRun ?? false },
          peerReads(options.call, context),
          apply,
        );
        return { body: { value: { total: cleanup.total, relatedAspects: cleanup.relatedAspects } } };
      },
    }),
  ];
}

const relationshipsAnswer = z.object({
  total: z.number(),
  relationships: z.array(z.object({ type: z.string(), entity: z.string() })),
});

const entitiesAnswer = z.object({
  results: z.record(
    z.string(),
    z.object({
      aspects: z.record(
        z.string(),
        z.object({
          value: z.record(z.string(), z.unknown()),
          systemMetadata: z.object({ version: z.string().optional() }).loose().optional(),
        }),
      ),
    }),
  ),
});

/** Reference cleanup's reads, from the search indexer's graph and the writer's batch read, on the caller's behalf. */
function peerReads(call: RouteCaller, context: RequestContext): ReferenceReads {
  const answer = <T>(schema: z.ZodType<T>, body: unknown, what: string): T => {
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new BadGatewayError(`The ${what} answered in an unexpected shape`);
    return parsed.data;
  };
  return {
    async incoming(urn, start, count) {
      const body = await call(
        {
          method: 'GET',
          resource: '/relationships',
          query: { urn, direction: 'INCOMING', start: String(start), count: String(count) },
        },
        context,
      );
      const page = answer(relationshipsAnswer, body, 'graph');
      return {
        total: page.total,
        edges: page.relationships.map((relationship) => ({ type: relationship.type, source: relationship.entity })),
      };
    },
    async latest(urns, aspects) {
      const body = await call({ method: 'GET', resource: '/entitiesV2', query: { ids: urns, aspects } }, context);
      const found = new Map<string, Map<string, LatestAspect>>();
      for (const [urn, entity] of Object.entries(answer(entitiesAnswer, body, 'metadata writer').results)) {
        const values = new Map<string, LatestAspect>();
        for (const [name, aspect] of Object.entries(entity.aspects)) {
          values.set(name, { value: aspect.value, version: aspect.systemMetadata?.version });
        }
        found.set(urn, values);
      }
      return found;
    },
  };
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
