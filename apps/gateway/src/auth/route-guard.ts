import { apiPrivileges, PLATFORM_PRIVILEGES, type ResourceFacts } from '@strata/auth';
import { appliesAlways, parseRestliList, type AnyRoute, type ResourceLocator, type RouteGuard } from '@strata/http';
import { ForbiddenError, parseUrn, parseVersionedUrnKey } from '@strata/model';
import type { Authorizer } from './authorizer';

/**
 * The gateway's route guard: generic over the access every route declares beside its path and schemas (`RouteAccess`
 * of `@strata/http`), whoever owns the route — the gateway itself, or a service behind it, whose declarations come with
 * its service table. It runs after authentication and before the route parses its inputs, so that a caller without
 * the credentials a route needs gets a 401 whatever else is wrong with the request. It reads the body only for a
 * declaration that finds the resource there.
 */
export function createRouteGuard(authorizer: Authorizer): RouteGuard {
  return {
    admit(routes, context) {
      // Only a caller with credentials could call any of them: tell an anonymous one so, whatever else is wrong.
      if (routes.some((route) => route.access.kind === 'open')) return;
      authorizer.requireCaller(
        context,
        routes.every((route) => appliesAlways(route.access)),
      );
    },
    async check(route, { query, key, body, context }) {
      const access = route.access;
      switch (access.kind) {
        case 'open':
          return;
        case 'internal':
          // Never mounted on the public front: reaching one here is a wiring fault, not a caller's.
          throw new Error(`${route.method} ${route.resource} is internal and must not be served publicly`);
        case 'caller':
        case 'writes':
          authorizer.requireCaller(context, access.kind === 'caller' && access.always === true);
          return;
        case 'privilege': {
          if (access.resource === undefined) {
            await authorizer.require(context, {
              requirement: access.anyOf,
              message: messageOf(access.message, context.actor, ''),
              ...(access.always === true ? { always: true } : {}),
            });
            return;
          }
          // A privilege on the resources the request names (a usage query's dataset).
          if (!authorizer.enabled && access.always !== true) return;
          authorizer.requireCaller(context, access.always === true);
          const { named, resources } = await locate(access.resource, { query, key, body });
          if ((await authorizer.denied(context, access.anyOf, resources)).length > 0) {
            throw new ForbiddenError(messageOf(access.message, context.actor, named));
          }
          return;
        }
        case 'resource': {
          if (!authorizer.enabled) return;
          authorizer.requireCaller(context, false);
          const { named, resources } = await locate(access.resource, { query, key, body });
          const message = messageOf(access.message, context.actor, named);
          for (const operation of access.operations) {
            // One question per entity type: the types' own privileges may differ (users, policies, tokens…).
            for (const type of new Set(resources.map((resource) => resource?.type))) {
              const ofType = resources.filter((resource) => resource?.type === type);
              if ((await authorizer.denied(context, apiPrivileges(access.group, operation, type), ofType)).length) {
                throw new ForbiddenError(message);
              }
            }
          }
          return;
        }
      }
    },
  };
}

/**
 * Refuses, by throwing, declarations that name a privilege no policy can grant (a typo would make a route refuse
 * everyone but the system client). Run at start-up over every route the gateway serves.
 */
export function assertKnownPrivileges(routes: readonly AnyRoute[]): void {
  const known = new Set(PLATFORM_PRIVILEGES);
  const faults = routes.flatMap((route) =>
    // A privilege on a resource (VIEW_DATASET_USAGE) is a metadata privilege, granted by METADATA policies.
    route.access.kind === 'privilege' && route.access.resource === undefined
      ? route.access.anyOf
          .flat()
          .filter((privilege) => !known.has(privilege))
          .map(
            (privilege) =>
              `${route.method} ${route.resource}${route.action ? `?action=${route.action}` : ''}: ${privilege}`,
          )
      : [],
  );
  if (faults.length > 0) throw new Error(`Routes requiring privileges that do not exist:\n  ${faults.join('\n  ')}`);
}

/** DataHub's words of a refusal: `{actor}` is the caller, `{resource}` what the request named. */
function messageOf(template: string, actor: string, named: string): string {
  return template.replaceAll('{actor}', actor).replaceAll('{resource}', named);
}

interface Located {
  /** What the request named, as it named it (for the message). */
  readonly named: string;
  /** The resources to check; `undefined` stands for "any entity" (no type or URN to narrow the question). */
  readonly resources: (ResourceFacts | undefined)[];
}

async function locate(
  locator: ResourceLocator,
  input: {
    readonly query: Readonly<Record<string, unknown>>;
    readonly key: string | undefined;
    readonly body: () => Promise<unknown>;
  },
): Promise<Located> {
  switch (locator.in) {
    case 'key':
      return ofUrns(input.key === undefined ? [] : [input.key]);
    case 'query': {
      const value = input.query[locator.name];
      const named = locator.list === true ? listOf(value) : typeof value === 'string' ? [value] : [];
      return ofUrns(locator.versioned === true ? named.map(urnOfVersionedKey) : named);
    }
    case 'body': {
      const value = fieldsOf(await input.body())[locator.name];
      return ofUrns(typeof value === 'string' ? [value] : []);
    }
    case 'bodyTypes': {
      const fields = fieldsOf(await input.body());
      const types = locator.names.flatMap((name) => {
        const value = fields[name];
        if (typeof value === 'string') return [value];
        return Array.isArray(value) ? value.filter((type): type is string => typeof type === 'string') : [];
      });
      // A search over every type needs the privilege that no type narrows.
      return { named: types.join(','), resources: types.length === 0 ? [undefined] : types.map((type) => ({ type })) };
    }
    case 'type':
      return { named: locator.type, resources: [{ type: locator.type }] };
  }
}

/**
 * The entities the URNs name. URNs that do not parse are left to the route, which refuses them (a batch read answers
 * each in its errors); when none parses, the check asks for the privilege on any entity.
 */
function ofUrns(urns: readonly string[]): Located {
  const resources = urns.flatMap((urn): ResourceFacts[] => {
    try {
      return [{ type: parseUrn(urn).entityType, urn }];
    } catch {
      return [];
    }
  });
  return { named: urns.join(','), resources: resources.length === 0 ? [undefined] : resources };
}

/** The URN of a versioned key `(<urn> , <versionStamp>)`; a key of another shape as it is (the route refuses it). */
function urnOfVersionedKey(key: string): string {
  try {
    return parseVersionedUrnKey(key).urn;
  } catch {
    return key;
  }
}

function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function listOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((item) => (typeof item === 'string' ? (parseRestliList(item) ?? [item]) : []));
}
