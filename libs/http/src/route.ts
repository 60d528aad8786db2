import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { BadRequestError } from '@strata/model';
import type { EndpointFamily } from './errors';
import type { RouteAccess } from './route-access';
import type { RouteCall } from './route-call';

/** The request header naming the response shape a caller asks for (`legacy`, `current`; see the search indexer). */
export const RESPONSE_SHAPE_HEADER = 'x-strata-response-shape';

/** Who is asking, and how to correlate what they cause. Built once per request by the service's composition root. */
/** DataHub's names of the interfaces a request may come through (`RESTLI` for everything not under `/openapi`). */
export type EventSource = 'RESTLI' | 'OPENAPI';

export interface RequestContext {
  /** Minted by the server for every request (never taken from the client); echoed in `X-Request-Id`. */
  readonly requestId: string;
  /** From `traceparent`, else the client's `X-Trace-Id` or `X-Request-Id`, else the request id. */
  readonly traceId: string;
  /** URN of the authenticated actor (or the anonymous actor when authentication is off). */
  readonly actor: string;
  /** The client's address: the peer's, or, behind a gateway, the one the gateway saw. */
  readonly sourceIp: string | undefined;
  readonly userAgent: string | undefined;
  /** The interface the request came through, as DataHub names it in audit events. */
  readonly eventSource: EventSource;
  /** The path and query as received, e.g. `/entitiesV2/urn%3Ali%3A…?aspects=List(status)` (for forwarding). */
  readonly url: string;
  /** A request header, case-insensitive. */
  header(name: string): string | undefined;
  /**
   * What the authenticator learnt of the caller, for the same request's authorization — the catalog's security state
   * as read once for this request. Opaque here: only the public front's authentication and authorization use it.
   */
  readonly session?: unknown;
}

export interface RouteResponse {
  /** Default 200. */
  readonly status?: number;
  /** Serialized as JSON; undefined sends an empty body (Rest.li void actions). */
  readonly body?: unknown;
  /** A text body instead (`/metrics`), sent as is with `headers`' Content-Type. */
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The raw parts of a request, before the route's schemas parse them. */
export interface RawRouteInput {
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  /** The URN key after the resource path (`/entitiesV2/<urn>`), percent-decoded once. */
  readonly key: string | undefined;
  /** Named path parameters of the resource (`/subjects/:subject`), percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly context: RequestContext;
}

/** Where a route answers: method, path, Rest.li action, and which error body it speaks. */
export interface RouteAddress {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The resource path, e.g. `/aspects`. */
  readonly resource: string;
  /** Present when the path continues with an entity key: `/entitiesV2/{urn}`. */
  readonly key: { readonly name: string; readonly description: string } | undefined;
  /** The Rest.li action (`?action=`), when the resource dispatches on it. */
  readonly action: string | undefined;
  readonly family: EndpointFamily;
  /** Who may call it (see {@link RouteAccess}): checked by the public front before the route runs or is forwarded. */
  readonly access: RouteAccess;
}

/** A request to show in the documentation: query parameters and a JSON body. */
export interface RouteExample {
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/**
 * One endpoint a process handles itself, declared once: its address, its inputs' schemas, an example, and its handler.
 * The declarations mount the routes and carry everything needed to document them, so generated documentation
 * (`/restli/docs`, OpenAPI) cannot drift.
 */
export interface Route extends RouteAddress {
  readonly kind: 'local';
  readonly summary: string;
  readonly description: string | undefined;
  readonly querySchema: z.ZodType | undefined;
  readonly bodySchema: z.ZodType | undefined;
  readonly example: RouteExample | undefined;
  /** Parses the raw input with the declared schemas (400 naming the offending parameter) and runs the handler. */
  invoke(input: RawRouteInput): Promise<RouteResponse>;
}

/** JSON Schema, as route tables carry a route's inputs between processes. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * One endpoint another service owns, which this process (a gateway) forwards to it: the request streamed through
 * untouched, the owner's answer streamed back. Documented from the JSON schemas the owner published.
 */
export interface ForwardedRoute extends RouteAddress {
  readonly kind: 'forwarded';
  readonly summary: string;
  readonly description: string | undefined;
  readonly query: JsonSchema | undefined;
  readonly body: JsonSchema | undefined;
  readonly example: RouteExample | undefined;
  /** The owning service's name. */
  readonly owner: string;
  /** Sends the request on and the answer back; rejects with a typed error when the owner cannot be reached in time. */
  /** `body`: the request's body, when it was read already (to be checked); otherwise it is streamed. */
  forward(request: IncomingMessage, response: ServerResponse, context: RequestContext, body?: Buffer): Promise<void>;
  /**
   * Calls the route on behalf of `context`'s request, at `url` (its path and query, see `routeCaller`): answers the
   * JSON body, or rejects with the typed error of the owner's answer or of its absence.
   */
  call(call: RouteCall, url: string, context: RequestContext): Promise<unknown>;
}

/** Anything a process mounts. */
export type AnyRoute = Route | ForwardedRoute;

/**
 * Whether a route is one services serve each other (under `/internal/`): a gateway calls it (`routeCaller`) but never
 * forwards it to clients, and documentation leaves it out.
 */
export function isInternalRoute(route: Pick<RouteAddress, 'resource'>): boolean {
  return route.resource.startsWith('/internal/');
}

export interface RouteDefinition<Query extends z.ZodType, Body extends z.ZodType> {
  readonly method: Route['method'];
  readonly resource: string;
  readonly key?: Route['key'];
  readonly action?: string;
  readonly family: EndpointFamily;
  /** Who may call it: required, so that no route is served without saying. */
  readonly access: RouteAccess;
  readonly summary: string;
  readonly description?: string;
  readonly query?: Query;
  readonly body?: Body;
  /** A typical request, for the documentation (otherwise one is made up from the schemas). */
  readonly example?: RouteExample;
  handle(input: {
    query: z.output<Query>;
    body: z.output<Body>;
    key: string | undefined;
    params: Readonly<Record<string, string>>;
    context: RequestContext;
  }): Promise<RouteResponse>;
}

/** Declares a route. Query and body are parsed with the given schemas before the handler runs. */
export function defineRoute<Query extends z.ZodType = z.ZodUnknown, Body extends z.ZodType = z.ZodUnknown>(
  definition: RouteDefinition<Query, Body>,
): Route {
  return {
    kind: 'local',
    method: definition.method,
    resource: definition.resource,
    key: definition.key,
    action: definition.action,
    family: definition.family,
    access: definition.access,
    summary: definition.summary,
    description: definition.description,
    querySchema: definition.query,
    bodySchema: definition.body,
    example: definition.example,
    invoke: async ({ query, body, key, params, context }) =>
      definition.handle({
        query: parseInput(definition.query, query, 'query parameter') as z.output<Query>,
        body: parseInput(definition.body, body, 'body field') as z.output<Body>,
        key,
        params,
        context,
      }),
  };
}

function parseInput(schema: z.ZodType | undefined, value: unknown, what: string): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new BadRequestError(describeIssues(result.error.issues, what));
}

/** Turns schema issues into one client-facing sentence per problem, naming the parameter. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], what: string): string {
  return issues
    .slice(0, 10)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const subject = path === '' ? (what === 'body field' ? 'Request body' : 'Query') : `Invalid ${what} '${path}'`;
      const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
      return missing && path !== '' ? `Missing required ${what} '${path}'` : `${subject}: ${issue.message}`;
    })
    .join('; ');
}
