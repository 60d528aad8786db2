import { apiPrivileges, PlatformPrivilege, type PrivilegeRequirement, type ResourceFacts } from '@strata/auth';
import { parseRestliList, type AnyRoute, type RequestContext, type RouteGuard } from '@strata/http';
import { ForbiddenError, parseUrn } from '@strata/model';
import type { Authorizer } from './authorizer';

/**
 * Reading the audit trail: DataHub's ANALYTICS READ, less `VIEW_ANALYTICS` (which every user holds by default, and which
 * is about the UI's charts, not who did what).
 */
const AUDIT_SEARCH: PrivilegeRequirement = [
  [PlatformPrivilege.GET_ANALYTICS_PRIVILEGE],
  [PlatformPrivilege.MANAGE_SYSTEM_OPERATIONS],
];

/**
 * The operations, by action: what each needs and DataHub's words for a refusal. Index sizes and task status accept
 * `MANAGE_SYSTEM_OPERATIONS` too (DataHub's `isAPIOperationsAuthorized`); truncation and restore need their own.
 */
const OPERATIONS: Readonly<Record<string, { requirement: PrivilegeRequirement; message: string }>> = {
  getIndexSizes: {
    requirement: [
      [PlatformPrivilege.GET_TIMESERIES_INDEX_SIZES_PRIVILEGE],
      [PlatformPrivilege.MANAGE_SYSTEM_OPERATIONS],
    ],
    message: 'User is unauthorized to get index sizes.',
  },
  getEsTaskStatus: {
    requirement: [[PlatformPrivilege.GET_ES_TASK_STATUS_PRIVILEGE], [PlatformPrivilege.MANAGE_SYSTEM_OPERATIONS]],
    message: 'User is unauthorized to get ES task status',
  },
  truncateTimeseriesAspect: {
    requirement: [[PlatformPrivilege.TRUNCATE_TIMESERIES_INDEX_PRIVILEGE]],
    message: 'User is unauthorized to truncate timeseries index',
  },
  restoreIndices: {
    requirement: [[PlatformPrivilege.RESTORE_INDICES_PRIVILEGE]],
    message: 'User is unauthorized to restore indices.',
  },
  rebuildIndices: {
    requirement: [[PlatformPrivilege.RESTORE_INDICES_PRIVILEGE]],
    message: 'User is unauthorized to restore indices.',
  },
};

/** Where the operations answer: DataHub's path, its Cloud docs' and its frontend proxy's. */
const OPERATIONS_RESOURCES = new Set(['/operations', '/gms/operations', '/api/gms/operations']);

/** Search-like actions, whose entity types are in the body. */
const SEARCHES = new Set(['search', 'browse', 'autocomplete', 'searchAcrossEntities']);

/**
 * What the services behind the gateway serve, checked by the gateway before a request is forwarded (or, in the
 * standalone process, before the route runs), with authentication on, as DataHub checks them: reading an entity or an
 * aspect needs READ on it; searching, browsing and autocompleting need READ on the entity types searched;
 * relationships need LINEAGE READ on the entity; rolling back an ingestion run needs to manage ingestion sources; the
 * indexers' progress needs `MANAGE_SYSTEM_OPERATIONS`; reading timeseries values needs TIMESERIES READ on the entity;
 * the audit search needs `GET_ANALYTICS_PRIVILEGE` or `MANAGE_SYSTEM_OPERATIONS`, and each operation its privilege
 * ({@link OPERATIONS}), even with authentication off. The gateway's own routes check what they do themselves.
 */
export function createRouteGuard(authorizer: Authorizer): RouteGuard {
  return {
    needsBody: (route) =>
      route.method === 'POST' &&
      ((route.resource === '/entities' && SEARCHES.has(route.action ?? '')) ||
        (route.resource === '/aspects' && route.action === 'getTimeseriesAspectValues')),
    async check(route, { query, key, body, context }) {
      // The operations are never open to an anonymous caller either.
      const operation = OPERATIONS[route.action ?? ''];
      if (route.method === 'POST' && operation !== undefined) {
        if (OPERATIONS_RESOURCES.has(route.resource)) {
          await authorizer.require(context, { always: true, ...operation });
          return;
        }
        if (route.resource === '/aspects' && route.action === 'restoreIndices') {
          await authorizer.require(context, {
            always: true,
            requirement: operation.requirement,
            message: 'User is unauthorized to update entities.',
          });
          return;
        }
      }
      // The audit trail is never open to an anonymous caller, whether authentication is on or off.
      if (addressOf(route, key) === 'POST /openapi/v1/events/audit/search') {
        await authorizer.require(context, {
          always: true,
          requirement: AUDIT_SEARCH,
          message: `${context.actor} is unauthorized to READ ANALYTICS.`,
        });
        return;
      }
      // Neither are the re-evaluations of metadata tests.
      if (addressOf(route, key) === 'GET /openapi/operations/tests/evaluations') {
        await authorizer.require(context, {
          always: true,
          requirement: [[PlatformPrivilege.MANAGE_TESTS], [PlatformPrivilege.MANAGE_SYSTEM_OPERATIONS]],
          message: 'User is unauthorized to view the evaluations of tests.',
        });
        return;
      }
      if (!authorizer.enabled) return;
      const require = (requirement: PrivilegeRequirement, message: string, resources: (ResourceFacts | undefined)[]) =>
        requireOn(authorizer, context, requirement, message, resources);
      const read = (type: string | undefined) => apiPrivileges('ENTITY', 'READ', type);
      switch (addressOf(route, key)) {
        case 'GET /entitiesV2 {urn}':
        case 'GET /entities {urn}': {
          const resource = entity(key);
          await require(read(resource?.type), `User is unauthorized to get entity ${key ?? ''}`, [resource]);
          return;
        }
        case 'GET /aspects {urn}': {
          const resource = entity(key);
          await require(read(resource?.type), `User is unauthorized to get aspect for ${key ?? ''}`, [resource]);
          return;
        }
        case 'GET /entitiesV2': {
          const ids = listOf(query['ids']);
          const resources = ids.map(entity).filter((resource) => resource !== undefined);
          for (const type of new Set(resources.map((resource) => resource.type))) {
            await require(read(type), `User is unauthorized to get entities ${ids.join(',')}`, [
              ...resources.filter((resource) => resource.type === type),
            ]);
          }
          return;
        }
        case 'POST /entities?action=search':
        case 'POST /entities?action=browse':
        case 'POST /entities?action=autocomplete':
        case 'POST /entities?action=searchAcrossEntities': {
          const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
          const types = [
            ...(typeof fields['entity'] === 'string' ? [fields['entity']] : []),
            ...(Array.isArray(fields['entities'])
              ? fields['entities'].filter((type): type is string => typeof type === 'string')
              : []),
          ];
          // Every type searched; a search over all types needs READ that no type filter limits.
          for (const type of types.length === 0 ? [undefined] : types) {
            await require(read(type), 'User is unauthorized to search.', [type === undefined ? undefined : { type }]);
          }
          return;
        }
        case 'GET /relationships': {
          const urn = typeof query['urn'] === 'string' ? query['urn'] : undefined;
          const resource = entity(urn);
          await require(apiPrivileges(
            'LINEAGE',
            'READ',
            resource?.type,
          ), `User is unauthorized to get entity lineage: ${urn ?? ''}`, [resource]);
          return;
        }
        case 'POST /runs?action=rollback':
          for (const operation of ['UPDATE', 'DELETE'] as const) {
            await require(apiPrivileges(
              'ENTITY',
              operation,
              'dataHubIngestionSource',
            ), 'User is unauthorized to update entity', [{ type: 'dataHubIngestionSource' }]);
          }
          return;
        case 'POST /aspects?action=getTimeseriesAspectValues': {
          const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
          const urn = typeof fields['urn'] === 'string' ? fields['urn'] : undefined;
          const resource = entity(urn);
          await require(apiPrivileges(
            'TIMESERIES',
            'READ',
            resource?.type,
          ), `User is unauthorized to get timeseries aspect for ${urn ?? ''}`, [resource]);
          return;
        }
        case 'GET /openapi/operations/indices/timeseries/progress':
        case 'GET /openapi/operations/indices/progress':
          await require([
            [PlatformPrivilege.MANAGE_SYSTEM_OPERATIONS],
          ], `${context.actor} is not authorized for system operations.`, [undefined]);
          return;
        default:
          return; // authenticated already: nothing more is asked
      }
    },
  };
}

async function requireOn(
  authorizer: Authorizer,
  context: RequestContext,
  requirement: PrivilegeRequirement,
  message: string,
  resources: (ResourceFacts | undefined)[],
): Promise<void> {
  authorizer.requireCredentials(context);
  if ((await authorizer.denied(context.actor, requirement, resources)).length > 0) throw new ForbiddenError(message);
}

function addressOf(route: AnyRoute, key: string | undefined): string {
  const action = route.action === undefined ? '' : `?action=${route.action}`;
  return `${route.method} ${route.resource}${action}${route.key !== undefined && key !== undefined ? ' {urn}' : ''}`;
}

/** The entity a URN names, for a check; undefined when it does not parse (the route answers that 400). */
function entity(urn: string | undefined): ResourceFacts | undefined {
  if (urn === undefined) return undefined;
  try {
    return { type: parseUrn(urn).entityType, urn };
  } catch {
    return undefined;
  }
}

function listOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((item) => (typeof item === 'string' ? (parseRestliList(item) ?? [item]) : []));
}
