import { z } from 'zod';
import { apiPrivileges } from '@strata/auth';
import { defineRoute, type RequestContext, type Route, type RouteCaller } from '@strata/http';
import {
  BadGatewayError,
  BadRequestError,
  ForbiddenError,
  StrataError,
  parseUrn,
  type EntityRegistry,
  type EntitySpec,
} from '@strata/model';
import type { Authorizer } from '../auth/authorizer';
import {
  traceIdOfPath,
  traceStatusOf,
  type RecordedWrite,
  type SearchIndexing,
  type TraceStatus,
} from '../domain/write-trace-status';
import type { ReadModel } from '../ingest/proposal-submitter';

export interface WriteTraceRouteOptions {
  readonly registry: EntityRegistry;
  /** Calls the services behind the gateway: the writer's write traces, the search indexer's progress. */
  readonly call: RouteCaller;
  /** The deployment's read models: whether it has a search index (the `search` read model). */
  readonly readModels: readonly ReadModel[];
  /**
   * Refuses, with DataHub's 403, a caller who may not read every entity the request names (DataHub's ENTITY READ),
   * with authentication on. Absent: nothing is checked (a gateway without authentication's parts).
   */
  readonly authorizer?: Authorizer;
}

/** Most (urn, aspect) one trace request may name. */
const MAX_TRACED_ASPECTS = 10_000;

/** DataHub's boolean query parameters: `true` or `false`, any case. */
const booleanParam = (fallback: boolean) =>
  z
    .string()
    .regex(/^(true|false)$/i, 'must be true or false')
    .optional()
    .transform((value) => (value === undefined ? fallback : value.toLowerCase() === 'true'));

/** The writer's answer (`POST /internal/write-traces`). */
const writerAnswer = z.object({
  traces: z.array(
    z.union([
      z.object({ urn: z.string(), aspect: z.string(), seen: z.literal(false) }),
      z.object({
        urn: z.string(),
        aspect: z.string(),
        seen: z.literal(true),
        status: z.enum(['APPLIED', 'UNCHANGED', 'REJECTED']),
        error: z.string().nullable(),
        current: z.boolean(),
        changeLogged: z.boolean(),
        publishedBefore: z.array(z.object({ topic: z.string(), partition: z.number(), end: z.string() })).nullable(),
      }),
    ]),
  ),
});

/** The part of the search indexer's progress a trace reads: its position in each partition. */
const searchProgress = z.object({
  backlog: z.object({
    partitions: z.array(z.object({ topic: z.string(), partition: z.number(), position: z.string() })),
  }),
});

const EXAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/**
 * `POST /openapi/v1/trace/write/{traceId}`: DataHub's trace API, as its emitter calls it to wait for asynchronous
 * writes (`ASYNC_WAIT`). The trace id is the one every write is answered with (`traceparent`). For each (urn, aspect)
 * of the body, where the write of that trace stands in the primary store (the metadata writer's write traces) and in
 * the search index (the search indexer's position beside where the log ended when the write's change logs were
 * published); see `traceStatusOf`.
 */
export function writeTraceRoutes(options: WriteTraceRouteOptions): Route[] {
  const hasSearchIndex = options.readModels.some((model) => model.name === 'search');
  return [
    defineRoute({
      method: 'POST',
      resource: '/openapi/v1/trace/write/:traceId',
      family: 'openapi',
      access: { kind: 'caller' },
      summary: 'Trace an async write to the underlying storage.',
      description:
        "Per URN and aspect of the body, what became of the write of this trace (the trace id of a write's `traceparent` answer header, or that header's whole value): `primaryStorage` and `searchStorage`, each `{writeStatus, writeMessage?, writeExceptions?}` with writeStatus one of ACTIVE_STATE, HISTORIC_STATE, ERROR, PENDING, NO_OP, UNKNOWN, TRACE_NOT_IMPLEMENTED, and `success` (no ERROR in either). `onlyIncludeErrors` (default true) leaves out every aspect without an ERROR; `detailed` adds a refusal's reason as `writeExceptions`; `skipCache` is accepted and changes nothing (nothing is cached). An empty aspect list stands for every aspect of the entity; unknown aspect names are left out. With authentication on, the caller needs DataHub's ENTITY READ privilege on every URN.",
      query: z.object({
        onlyIncludeErrors: booleanParam(true),
        detailed: booleanParam(false),
        skipCache: booleanParam(false),
      }),
      body: z.record(z.string(), z.array(z.string(), { error: 'must be a list of aspect names' }), {
        error: 'must be an object of URNs to lists of aspect names',
      }),
      example: {
        query: { onlyIncludeErrors: 'false', detailed: 'true' },
        body: { [EXAMPLE_URN]: ['status', 'datasetProperties'] },
      },
      handle: async ({ params, query, body, context }) => {
        const traceId = traceIdOfPath(params['traceId'] ?? '');
        if (traceId === undefined) {
          throw new BadRequestError(
            `Invalid trace id "${params['traceId'] ?? ''}": expected 32 hexadecimal digits, or a traceparent header value`,
          );
        }
        const requested = requestedAspects(options.registry, body);
        await authorizeRead(options.authorizer, context, [...requested.keys()]);
        const keys = [...requested].flatMap(([urn, { aspects }]) => aspects.map((aspect) => ({ urn, aspect })));
        const recorded = keys.length === 0 ? new Map<string, RecordedWrite>() : await writerTraces(traceId, keys);
        const search = await searchIndexing([...recorded.values()]);
        const answer: Record<string, Record<string, TraceStatus>> = {};
        for (const [urn, { entity, aspects }] of requested) {
          const statuses: Record<string, TraceStatus> = {};
          for (const aspect of aspects) {
            const status = traceStatusOf(recorded.get(keyOf(urn, aspect)) ?? { seen: false }, {
              timeseries: entity.aspect(aspect)?.kind === 'timeseries',
              search,
              detailed: query.detailed,
            });
            const failed =
              status.primaryStorage.writeStatus === 'ERROR' || status.searchStorage.writeStatus === 'ERROR';
            if (!query.onlyIncludeErrors || failed) statuses[aspect] = status;
          }
          if (Object.keys(statuses).length > 0) answer[urn] = statuses;
        }
        return { body: answer };

        async function writerTraces(
          id: string,
          asked: readonly { urn: string; aspect: string }[],
        ): Promise<Map<string, RecordedWrite>> {
          const parsed = writerAnswer.safeParse(
            await options.call(
              { method: 'POST', resource: '/internal/write-traces', body: { traceId: id, keys: asked } },
              context,
            ),
          );
          if (!parsed.success)
            throw new BadGatewayError('The metadata writer answered its write traces in an unexpected shape');
          return new Map(parsed.data.traces.map((trace) => [keyOf(trace.urn, trace.aspect), trace]));
        }

        /** The search indexer's positions, read only when an active write may be in the search index. */
        async function searchIndexing(writes: readonly RecordedWrite[]): Promise<SearchIndexing> {
          if (!hasSearchIndex) return { kind: 'absent' };
          const asks = writes.some((write) => write.seen && write.current && write.publishedBefore !== null);
          if (!asks) return { kind: 'positions', positions: [] };
          try {
            const progress = searchProgress.parse(
              await options.call({ method: 'GET', resource: '/openapi/operations/indices/progress' }, context),
            );
            return {
              kind: 'positions',
              positions: progress.backlog.partitions.map(({ topic, partition, position }) => ({
                topic,
                partition,
                end: position,
              })),
            };
          } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            return { kind: 'unreadable', reason: `The search indexer's progress could not be read: ${reason}` };
          }
        }
      },
    }),
  ];
}

/**
 * The (urn, aspects) a trace request names, in request order: each URN parsed (400 when it does not, or names an
 * unknown entity type), each aspect name resolved as DataHub does — exactly, else ignoring case; unknown names left
 * out; an empty list (or one holding "") for every aspect of the entity.
 */
export function requestedAspects(
  registry: EntityRegistry,
  body: Readonly<Record<string, readonly string[]>>,
): Map<string, { entity: EntitySpec; aspects: string[] }> {
  const requested = new Map<string, { entity: EntitySpec; aspects: string[] }>();
  let count = 0;
  for (const [text, names] of Object.entries(body)) {
    let urn;
    try {
      urn = parseUrn(text);
    } catch (error) {
      throw new BadRequestError(error instanceof StrataError ? error.message : `Invalid URN "${text}"`);
    }
    const entity = registry.entity(urn.entityType);
    if (entity === undefined) throw new BadRequestError(`Unknown entity type ${urn.entityType} of ${text}`);
    const every = names.length === 0 || names.includes('');
    const aspects = every
      ? entity.aspects.map((aspect) => aspect.name)
      : [...new Set(names.flatMap((name) => resolvedAspect(entity, name) ?? []))];
    count += aspects.length;
    if (count > MAX_TRACED_ASPECTS) {
      throw new BadRequestError(`A trace request may name at most ${MAX_TRACED_ASPECTS} aspects`);
    }
    requested.set(urn.toString(), { entity, aspects });
  }
  return requested;
}

function resolvedAspect(entity: EntitySpec, name: string): string | undefined {
  const lower = name.toLowerCase();
  return (entity.aspect(name) ?? entity.aspects.find((aspect) => aspect.name.toLowerCase() === lower))?.name;
}

/** DataHub's check: ENTITY READ on every URN named, one question per entity type. */
async function authorizeRead(
  authorizer: Authorizer | undefined,
  context: RequestContext,
  urns: readonly string[],
): Promise<void> {
  if (authorizer === undefined || !authorizer.enabled || urns.length === 0) return;
  const byType = new Map<string, { type: string; urn: string }[]>();
  for (const urn of urns) {
    const type = parseUrn(urn).entityType;
    byType.set(type, [...(byType.get(type) ?? []), { type, urn }]);
  }
  for (const [type, resources] of byType) {
    if ((await authorizer.denied(context, apiPrivileges('ENTITY', 'READ', type), resources)).length > 0) {
      throw new ForbiddenError(`${context.actor} is unauthorized to READ as least one of the requested URNs.`);
    }
  }
}

function keyOf(urn: string, aspect: string): string {
  return JSON.stringify([urn, aspect]);
}
