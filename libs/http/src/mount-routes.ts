import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { BadRequestError, decodeUrnPathSegment } from '@strata/model';
import { documentedPath } from './api-docs';
import type { EndpointFamily } from './errors';
import type { AnyRoute, RequestContext } from './route';
import { assertAccessDeclared } from './route-access';

/**
 * What the public front checks before a route runs (or is forwarded), from the route's access declaration: whether its
 * caller may call it with these inputs. It throws the typed error to answer (401, 403). It reads the body only when
 * its declaration finds the resource there (`body()` reads it once; the route then gets the same bytes).
 */
export interface RouteGuard {
  /**
   * Before a route of `routes` (those of one path) is chosen by method and action: refuses a caller who may call none
   * of them, so that a wrong action or method is not answered to someone who could not call the right one either.
   */
  admit(routes: readonly AnyRoute[], context: RequestContext): void;
  check(
    route: AnyRoute,
    input: {
      readonly query: Readonly<Record<string, unknown>>;
      readonly key: string | undefined;
      /** The JSON body as received (undefined when absent or not JSON). */
      readonly body: () => Promise<unknown>;
      readonly context: RequestContext;
    },
  ): Promise<void>;
}

/** Builds a request's context: who asks (`open`: the route needs no credentials, so bad ones are ignored). */
export type ContextFactory = (request: Request, open: boolean) => Promise<RequestContext>;

export interface MountOptions {
  readonly maxBodyBytes: number;
  readonly guard?: RouteGuard;
}

/** Where a request's declared route is kept for the metrics and the access log (`response.locals`). */
const routeLocal = 'route';

/**
 * The declared route that handled a request, as documented (`/entitiesV2/{urn}`, `/aspects?action=ingestProposal`);
 * undefined when no route claimed it. Never the request's own path: its cardinality is unbounded.
 */
export function declaredRouteOf(response: Response): string | undefined {
  const route: unknown = response.locals[routeLocal];
  return typeof route === 'string' ? route : undefined;
}

/** Response header naming the Rest.li protocol version Strata speaks. */
const restliProtocolHeader = 'X-RestLi-Protocol-Version';

/**
 * Mounts declared routes on a router. Routes sharing a method and resource are told apart by their Rest.li `action`
 * (`POST /aspects?action=ingestProposal`); a resource with a key takes the rest of the path as a URN, raw or
 * percent-encoded, slashes included. The body is read only once a route is chosen: as JSON for a route handled here
 * (at most `maxBodyBytes`), not at all for a forwarded route, which streams it to its owner. Errors go to `next` for
 * the error handler of {@link createErrorHandler}.
 */
export function mountRoutes(
  router: Router,
  routes: readonly AnyRoute[],
  contextFor: ContextFactory,
  options: MountOptions,
): Router {
  assertAccessDeclared(routes);
  const readRaw = rawBodyReader(options.maxBodyBytes);
  const groups = new Map<string, AnyRoute[]>();
  for (const route of routes) {
    const path = route.key ? `${route.resource}/*${route.key.name}` : route.resource;
    const group = groups.get(path) ?? [];
    group.push(route);
    groups.set(path, group);
  }
  for (const [path, group] of groups) {
    router.all(path, (request, response, next) => {
      const family = group[0]?.family ?? 'restli';
      response.locals['family'] = family;
      // Until its action is known, a request is of its path's routes (`/aspects`, `/entitiesV2/{urn}`).
      if (group[0] !== undefined) response.locals[routeLocal] = documentedPath({ ...group[0], action: undefined });
      dispatch(group, request, response, contextFor, readRaw, options)
        .then(() => undefined)
        .catch(next);
    });
  }
  return router;
}

async function dispatch(
  group: readonly AnyRoute[],
  request: Request,
  response: Response,
  contextFor: ContextFactory,
  readRaw: (request: Request, response: Response) => Promise<Buffer | undefined>,
  options: MountOptions,
): Promise<void> {
  // Who asks comes first: a request without the credentials it needs is a 401, whatever else is wrong with it — its
  // action, its parameters, its body. Credentials that do not verify are a 401 too, except on an open route.
  const context = await contextFor(
    request,
    group.every((route) => route.access.kind === 'open'),
  );
  // Set before the handler runs, so that error responses (a 504 above all) carry the request id too.
  response.setHeader('X-Request-Id', context.requestId);
  options.guard?.admit(group, context);
  const route = select(group, request, response);
  if (!route) return;
  response.locals[routeLocal] = documentedPath(route);
  if (route.family === 'restli') response.setHeader(restliProtocolHeader, '2.0.0');
  const { action: _action, ...query } = request.query as Record<string, unknown>;
  const first = group[0];
  const key = first?.key ? decodeUrnPathSegment(pathAfter(request.path, first.resource)) : undefined;
  let raw: Promise<Buffer | undefined> | undefined;
  const rawBody = () => (raw ??= readRaw(request, response));
  await options.guard?.check(route, {
    query,
    key,
    context,
    body: async () => parsedOrUndefined(await rawBody()),
  });
  if (route.kind === 'forwarded') {
    // A body read to be checked is sent on as it came; otherwise it is streamed.
    await route.forward(request, response, context, raw === undefined ? undefined : ((await raw) ?? Buffer.alloc(0)));
    return;
  }
  const body = parseJsonBody(await rawBody());
  const params = Object.fromEntries(
    Object.entries(request.params as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  const result = await route.invoke({ query, body, key, params, context });
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, value);
  response.status(result.status ?? 200);
  if (result.text !== undefined) response.send(result.text);
  else if (result.body === undefined) response.end();
  else response.json(result.body);
}

/**
 * The rest of a request's path after a resource's segments (`/openapi/v3/entity/:entityName` is three segments and a
 * parameter), slashes included: counted in segments, so that a resource with path parameters takes as much of the
 * path as the parameters matched.
 */
function pathAfter(path: string, resource: string): string {
  return path.split('/').slice(resource.split('/').length).join('/');
}

function select(group: readonly AnyRoute[], request: Request, response: Response): AnyRoute | undefined {
  const byMethod = group.filter((route) => route.method === request.method);
  if (byMethod.length === 0) {
    const allowed = [...new Set(group.map((route) => route.method))].join(', ');
    response.setHeader('Allow', allowed);
    throw new MethodNotAllowedError(`Method ${request.method} is not supported here; use ${allowed}`);
  }
  const actions = byMethod.filter((route) => route.action !== undefined);
  if (actions.length === 0) return byMethod[0];
  const requested = request.query['action'];
  const names = actions.map((route) => route.action).join(', ');
  if (typeof requested !== 'string' || requested === '') {
    throw new BadRequestError(`Missing required query parameter 'action'; one of: ${names}`);
  }
  const route = actions.find((candidate) => candidate.action === requested);
  if (!route) throw new BadRequestError(`Unknown action '${requested}'; one of: ${names}`);
  return route;
}

/** 405: the resource exists but not with this method. */
class MethodNotAllowedError extends Error {
  readonly status = 405;
}

/** Reads a request body as bytes (at most `limitBytes`, else a 413); undefined when empty. */
function rawBodyReader(limitBytes: number): (request: Request, response: Response) => Promise<Buffer | undefined> {
  const raw: RequestHandler = express.raw({ type: () => true, limit: limitBytes });
  return (request, response) =>
    new Promise<Buffer | undefined>((resolve, reject) => {
      raw(request, response, (error?: unknown) => {
        if (error !== undefined) {
          reject(error instanceof Error ? error : new Error('The request body could not be read'));
          return;
        }
        const buffer: unknown = request.body;
        resolve(Buffer.isBuffer(buffer) && buffer.length > 0 ? buffer : undefined);
      });
    });
}

function parsedOrUndefined(raw: Buffer | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined; // the owner answers what is wrong with it
  }
}

/**
 * A request body as JSON, whatever its Content-Type (Rest.li falls back to JSON, and curl's `--data` sends
 * `application/x-www-form-urlencoded`). An empty body is `undefined`; bad JSON a 400.
 */
function parseJsonBody(raw: Buffer | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (parseError) {
    const detail = parseError instanceof Error ? parseError.message : String(parseError);
    throw new BadRequestError(`Request body is not valid JSON: ${detail}`);
  }
}

/** Where the GraphQL API answers: DataHub's metadata service path, and its web tier's. */
export const GRAPHQL_PATHS: ReadonlySet<string> = new Set(['/api/graphql', '/api/v2/graphql']);

/** Which error body a path answers with when no route claimed it. */
export function familyOfPath(path: string): EndpointFamily {
  if (path.startsWith('/openapi/')) return 'openapi';
  if (path.startsWith('/schema-registry/')) return 'schema-registry';
  if (GRAPHQL_PATHS.has(path)) return 'graphql';
  return 'restli';
}
