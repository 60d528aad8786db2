import DataLoader from 'dataloader';
import { apiPrivileges } from '@strata/auth';
import {
  RESPONSE_SHAPE_HEADER,
  routeCaller,
  type AnyRoute,
  type RequestContext,
  type RouteCall,
  type RouteCaller,
  type RouteGuard,
} from '@strata/http';
import { ForbiddenError, parseUrn, UnauthorizedError, type EntityRegistry } from '@strata/model';
import type { Authorizer } from '../auth/authorizer';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';

/** One aspect of an entity as the writer answers it (`GET /entitiesV2`). */
export interface LoadedAspect {
  readonly value: Record<string, unknown>;
  readonly version?: number;
  readonly created?: { readonly time?: number; readonly actor?: string };
  readonly systemMetadata?: Record<string, unknown>;
}

/** The latest aspects of one entity, the key aspect among them. */
export interface LoadedEntity {
  readonly urn: string;
  readonly entityName: string;
  readonly aspects: Readonly<Record<string, LoadedAspect | undefined>>;
}

/**
 * What every resolver of one GraphQL request works with. Reads go through the same routes as the REST interface and
 * with the same checks, so that both deployments answer alike and GraphQL never shows what REST would not.
 */
// graphql-http asks of a context that it be a record.
export interface GraphqlContext extends Record<PropertyKey, unknown> {
  /** The caller's request, answered in DataHub's current response shapes. */
  readonly request: RequestContext;
  /**
   * Calls a public route as the caller: the route's declared access is checked first, exactly as the public front
   * checks it (401, 403), then the route runs (here or in the service that owns it).
   */
  readonly call: (call: RouteCall, context?: RequestContext) => Promise<unknown>;
  /** Calls a route as the gateway itself, unchecked: only after the resolver has checked what the caller may see. */
  readonly system: (call: RouteCall, context?: RequestContext) => Promise<unknown>;
  /** The latest aspects of entities, batched per request; an entity the caller may not read is a 403 for it alone. */
  readonly entities: DataLoader<string, LoadedEntity | null>;
  readonly registry: EntityRegistry;
  /** Absent where nothing is checked (a gateway without authentication, in tests of something else). */
  readonly authorizer: Authorizer | undefined;
  readonly submitter: ProposalSubmitter;
  readonly now: () => number;
  /** When the request's time budget ends (epoch milliseconds); resolvers started after it fail. */
  readonly deadline: number;
}

export interface GraphqlContextOptions {
  readonly routes: () => readonly AnyRoute[];
  readonly guard: RouteGuard | undefined;
  readonly internalContext: RequestContext | undefined;
  readonly registry: EntityRegistry;
  readonly authorizer: Authorizer | undefined;
  readonly submitter: ProposalSubmitter;
  readonly now: () => number;
  readonly timeBudgetMs: number;
}

/** Entities read from the writer per call. */
const ENTITY_BATCH = 100;

/** Builds the context of one GraphQL request made by `request`'s caller. */
export function createGraphqlContext(options: GraphqlContextOptions, request: RequestContext): GraphqlContext {
  const routes = options.routes();
  const invoke = routeCaller(routes);
  const caller = pinnedShape(request);
  const call: RouteCaller = async (routeCall, context) => {
    const asked = pinnedShape(context);
    if (options.guard !== undefined) {
      const route = routeOf(routes, routeCall);
      if (route !== undefined) {
        options.guard.admit([route], asked);
        await options.guard.check(route, {
          query: { ...routeCall.query },
          key: routeCall.key,
          body: () => Promise.resolve(routeCall.body),
          context: asked,
        });
      }
    }
    return invoke(routeCall, asked);
  };
  const internal = options.internalContext === undefined ? caller : pinnedShape(options.internalContext);
  const system = (routeCall: RouteCall): Promise<unknown> => invoke(routeCall, internal);
  const entities = new DataLoader<string, LoadedEntity | null>(
    async (urns) => {
      const refused = await refusedReads(options.authorizer, caller, urns);
      const readable = urns.filter((urn) => !refused.has(urn));
      const found = new Map<string, LoadedEntity>();
      for (let index = 0; index < readable.length; index += ENTITY_BATCH) {
        const ids = readable.slice(index, index + ENTITY_BATCH);
        const body = (await system({ method: 'GET', resource: '/entitiesV2', query: { ids } })) as {
          results?: Record<string, LoadedEntity>;
        };
        for (const [urn, entity] of Object.entries(body.results ?? {})) found.set(urn, entity);
      }
      return urns.map((urn) => refused.get(urn) ?? found.get(urn) ?? null);
    },
    { maxBatchSize: 1000 },
  );
  return {
    request: caller,
    call: (routeCall, context) => call(routeCall, context ?? caller),
    system,
    entities,
    registry: options.registry,
    authorizer: options.authorizer,
    submitter: options.submitter,
    now: options.now,
    deadline: options.now() + options.timeBudgetMs,
  };
}

/** The caller's context answering in DataHub's current shapes, whatever client the caller is. */
function pinnedShape(context: RequestContext): RequestContext {
  return {
    ...context,
    header: (name) => (name.toLowerCase() === RESPONSE_SHAPE_HEADER ? 'current' : context.header(name)),
  };
}

function routeOf(routes: readonly AnyRoute[], call: RouteCall): AnyRoute | undefined {
  return routes.find(
    (route) =>
      route.method === call.method &&
      route.resource === call.resource &&
      route.action === call.action &&
      (route.key !== undefined) === (call.key !== undefined),
  );
}

/**
 * The entities of `urns` the caller may not read (DataHub's READ of the entity API, as `GET /entitiesV2` asks it),
 * each with the error to answer for it. URNs that do not parse are left to the read, which answers nothing for them.
 */
async function refusedReads(
  authorizer: Authorizer | undefined,
  context: RequestContext,
  urns: readonly string[],
): Promise<Map<string, Error>> {
  const refused = new Map<string, Error>();
  if (authorizer === undefined || !authorizer.enabled) return refused;
  try {
    authorizer.requireCaller(context, false);
  } catch (error) {
    for (const urn of urns) refused.set(urn, error instanceof Error ? error : new UnauthorizedError(String(error)));
    return refused;
  }
  const byType = new Map<string, string[]>();
  for (const urn of urns) {
    try {
      const type = parseUrn(urn).entityType;
      byType.set(type, [...(byType.get(type) ?? []), urn]);
    } catch {
      // answered as not found by the read
    }
  }
  for (const [type, ofType] of byType) {
    const denied = await authorizer.denied(
      context,
      apiPrivileges('ENTITY', 'READ', type),
      ofType.map((urn) => ({ type, urn })),
    );
    for (const resource of denied) {
      if (resource?.urn !== undefined) {
        refused.set(resource.urn, new ForbiddenError(`User is unauthorized to get entity ${resource.urn}`));
      }
    }
  }
  return refused;
}
