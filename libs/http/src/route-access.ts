import { z } from 'zod';

/**
 * Who may call a route, declared beside its path and schemas (`defineRoute`'s `access`) and published with it in the
 * service table, so that the public front — the gateway, or the standalone process — checks every route the same way,
 * whoever owns it (docs/adr/0025). A route without a declaration does not start.
 *
 * - `open`: anyone, with or without credentials, whether authentication is on or off (health, documentation, logging
 *   in, the server's configuration, the schema registry).
 * - `internal`: what the services serve each other, under `/internal/`: the system client only, never forwarded.
 * - `caller`: any caller; with authentication on, one with valid credentials.
 * - `writes`: any caller, as `caller`; the proposals the request makes are then checked one by one, once parsed, on
 *   their entities (`docs/http-interface.md`, "Who may write what").
 * - `privilege`: a platform privilege — any one set of `anyOf` — on no resource; with `resource`, a privilege on the
 *   resources the request names there (DataHub's `VIEW_DATASET_USAGE` on the dataset a usage query names).
 * - `resource`: DataHub's API privilege of `group` for each of `operations`, on the resources `resource` finds in the
 *   request (its URN, or just its entity type).
 *
 * A check marked `always` holds whether authentication is on or off: the operations, the audit trail, tokens,
 * passwords and metadata tests are never open to an anonymous caller. Without it, a check applies only with
 * authentication on. A refusal is a 401 for an anonymous caller and a 403 with `message` for anyone else, where
 * `{actor}` stands for the caller's URN and `{resource}` for what the request named.
 */
export type RouteAccess =
  | { readonly kind: 'open' }
  | { readonly kind: 'internal' }
  | { readonly kind: 'caller'; readonly always?: true }
  | { readonly kind: 'writes' }
  | {
      readonly kind: 'privilege';
      readonly anyOf: readonly (readonly string[])[];
      readonly message: string;
      readonly always?: true;
      /** Where the request names the resources the privilege is asked on; none: the platform. */
      readonly resource?: ResourceLocator;
    }
  | {
      readonly kind: 'resource';
      readonly group: AccessApiGroup;
      /** Every one of them is required (rolling back a run both updates and deletes). */
      readonly operations: readonly [AccessApiOperation, ...AccessApiOperation[]];
      readonly resource: ResourceLocator;
      readonly message: string;
    };

/** DataHub's API groups a resource privilege is asked in. */
export type AccessApiGroup = 'ENTITY' | 'LINEAGE' | 'RELATIONSHIP' | 'TIMESERIES' | 'COUNTS';
/** DataHub's API operations. */
export type AccessApiOperation = 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'EXISTS';

/**
 * Where a request names what a `resource` check concerns:
 * - `key`: the URN after the resource path (`/entitiesV2/{urn}`);
 * - `query` / `body`: the URN in a query parameter or body field; with `list`, several (`ids=List(a,b)`, repeated);
 *   with `versioned` too, each item is a versioned key `(<urn> , <versionStamp>)` and its URN is the one checked;
 * - `bodyTypes`: entity types in the body's fields (`entity`, `entities`); none named means every type;
 * - `type`: a fixed entity type, no URN (rolling back an ingestion run concerns `dataHubIngestionSource`).
 * A URN that does not parse concerns no entity in particular: the check asks for the privilege on every entity, and
 * the route then answers what is wrong with it.
 */
export type ResourceLocator =
  | { readonly in: 'key' }
  | { readonly in: 'query'; readonly name: string; readonly list?: true; readonly versioned?: true }
  | { readonly in: 'body'; readonly name: string }
  | { readonly in: 'bodyTypes'; readonly names: readonly string[] }
  | { readonly in: 'type'; readonly type: string };

const message = z.string().min(1);
const privileges = z.array(z.array(z.string().min(1)).min(1)).min(1);

const resourceLocatorSchema = z.discriminatedUnion('in', [
  z.object({ in: z.literal('key') }).strict(),
  z
    .object({
      in: z.literal('query'),
      name: z.string().min(1),
      list: z.literal(true).optional(),
      versioned: z.literal(true).optional(),
    })
    .strict(),
  z.object({ in: z.literal('body'), name: z.string().min(1) }).strict(),
  z.object({ in: z.literal('bodyTypes'), names: z.array(z.string().min(1)).min(1) }).strict(),
  z.object({ in: z.literal('type'), type: z.string().min(1) }).strict(),
]);

/** The shape of a declaration, as a service table carries it between processes. */
export const routeAccessSchema: z.ZodType<RouteAccess> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('open') }).strict(),
  z.object({ kind: z.literal('internal') }).strict(),
  z.object({ kind: z.literal('caller'), always: z.literal(true).optional() }).strict(),
  z.object({ kind: z.literal('writes') }).strict(),
  z
    .object({
      kind: z.literal('privilege'),
      anyOf: privileges,
      message,
      always: z.literal(true).optional(),
      resource: resourceLocatorSchema.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('resource'),
      group: z.enum(['ENTITY', 'LINEAGE', 'RELATIONSHIP', 'TIMESERIES', 'COUNTS']),
      operations: z.tuple(
        [z.enum(['CREATE', 'READ', 'UPDATE', 'DELETE', 'EXISTS'])],
        z.enum(['CREATE', 'READ', 'UPDATE', 'DELETE', 'EXISTS']),
      ),
      resource: resourceLocatorSchema,
      message,
    })
    .strict(),
]);

/** A route as the access check sees it: where it answers, and its declaration. */
interface DeclaringRoute {
  readonly method: string;
  readonly resource: string;
  readonly action: string | undefined;
  readonly access?: unknown;
}

/**
 * Refuses, by throwing, routes whose access is not declared (or declared in a shape no check knows), naming every
 * one: a process must not start serving a route nobody said who may call. Internal routes must be `internal`, and
 * only they.
 */
export function assertAccessDeclared(routes: readonly DeclaringRoute[]): void {
  const faults: string[] = [];
  for (const route of routes) {
    const name = `${route.method} ${route.resource}${route.action === undefined ? '' : `?action=${route.action}`}`;
    const parsed = routeAccessSchema.safeParse(route.access);
    if (!parsed.success) {
      faults.push(
        `${name}: ${route.access === undefined ? 'no access declared' : 'its access declaration is malformed'}`,
      );
      continue;
    }
    const internal = route.resource.startsWith('/internal/');
    if (internal !== (parsed.data.kind === 'internal')) {
      faults.push(
        `${name}: ${internal ? 'an internal route must be declared internal' : 'only routes under /internal/ are internal'}`,
      );
    }
  }
  if (faults.length > 0) {
    throw new Error(`Routes without a valid access declaration, refused at start-up:\n  ${faults.join('\n  ')}`);
  }
}

/** Whether a declaration's checks apply with authentication off too. */
export function appliesAlways(access: RouteAccess): boolean {
  return (access.kind === 'caller' || access.kind === 'privilege') && access.always === true;
}

/** One sentence saying who may call a route, for the documentation. */
export function describeAccess(access: RouteAccess): string {
  const always = appliesAlways(access) ? ', whether authentication is on or off' : '';
  switch (access.kind) {
    case 'open':
      return 'Open to everyone, without credentials.';
    case 'internal':
      return 'Internal: the system client only.';
    case 'caller':
      return `Any caller; credentials are needed with authentication on${always === '' ? '' : ' or off'}.`;
    case 'writes':
      return 'Any caller; each proposal then needs the privilege its change asks for on its entity (EDIT_ENTITY, DELETE_ENTITY, or the platform privilege guarding users, groups, roles, policies, tokens and secrets).';
    case 'privilege':
      return `Needs ${access.anyOf.map((set) => set.join(' and ')).join(' or ')}${
        access.resource === undefined ? '' : ` on ${resourceText(access.resource)}`
      }${always}.`;
    case 'resource':
      return `Needs DataHub's ${access.group} ${access.operations.join(' and ')} privilege on ${resourceText(access.resource)}, with authentication on.`;
  }
}

function resourceText(locator: ResourceLocator): string {
  switch (locator.in) {
    case 'key':
      return 'the entity in the path';
    case 'query':
      return `the ${locator.list === true ? 'entities' : 'entity'} of the \`${locator.name}\` parameter${
        locator.versioned === true ? ' (the URN of each versioned key)' : ''
      }`;
    case 'body':
      return `the entity of the body's \`${locator.name}\``;
    case 'bodyTypes':
      return `the entity types of the body's ${locator.names.map((name) => `\`${name}\``).join(' or ')} (every type when none is named)`;
    case 'type':
      return `${locator.type} entities`;
  }
}
