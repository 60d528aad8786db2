import { BadGatewayError, UnavailableError, errorFromCode, type ErrorCode, type StrataError } from '@strata/model';
import type { AnyRoute, RequestContext, RouteAddress } from './route';

/**
 * A request one process makes to a route another service owns, as part of answering its own request (the gateway
 * gathering what `deleteReferences` needs from the search indexer and the writer).
 */
export interface RouteCall {
  readonly method: RouteAddress['method'];
  readonly resource: string;
  readonly action?: string;
  /** The entity key after the resource path (`/entitiesV2/{urn}`), unencoded. */
  readonly key?: string;
  /** Values of the resource's path parameters (`/openapi/v1/tokens/:id`), unencoded. */
  readonly params?: Readonly<Record<string, string>>;
  /** Query parameters as a client writes them; a list repeats the parameter (`ids=a&ids=b`, Rest.li protocol 1). */
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
  /** Sent as JSON. */
  readonly body?: unknown;
}

/** Calls a route of another service and answers its JSON body; a failure is the typed error its status stands for. */
export type RouteCaller = (call: RouteCall, context: RequestContext) => Promise<unknown>;

/**
 * A caller of the routes of the services behind this process, whichever way they are mounted: a route running in this
 * process (standalone) is invoked directly; one another process serves is called over HTTP with the caller's
 * credentials and trace context (see `forwardedRoutes`). Either way an error answer is thrown as the typed error of
 * its status, with the owner's message, so a 404 of the writer is a 404 of the caller.
 */
export function routeCaller(routes: readonly AnyRoute[]): RouteCaller {
  return async (call, context) => {
    const route = routes.find(
      (candidate) =>
        candidate.method === call.method &&
        candidate.resource === call.resource &&
        candidate.action === call.action &&
        (candidate.key !== undefined) === (call.key !== undefined),
    );
    if (route === undefined) {
      // A deployment that leaves the owner out (a gateway without its URL): the operator's to fix, not the client's.
      throw new UnavailableError(
        `No service behind this process serves ${call.method} ${call.resource}${actionOf(call)}`,
      );
    }
    const url = urlOf(call);
    if (route.kind === 'forwarded') return route.call(call, url, context);
    const response = await route.invoke({
      query: { ...call.query },
      body: call.body,
      key: call.key,
      params: { ...call.params },
      context: { ...context, url },
    });
    const status = response.status ?? 200;
    if (status >= 400) throw errorOfAnswer(status, response.body, `${call.method} ${call.resource}`);
    return response.body;
  };
}

/** The path and query of a call, percent-encoded, as a client would send them. */
export function urlOf(call: RouteCall): string {
  const search = new URLSearchParams();
  if (call.action !== undefined) search.append('action', call.action);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    for (const item of typeof value === 'string' ? [value] : value) search.append(name, item);
  }
  const query = search.toString();
  const key = call.key === undefined ? '' : `/${encodeURIComponent(call.key)}`;
  const resource = call.resource.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    encodeURIComponent(call.params?.[name] ?? ''),
  );
  return `${resource}${key}${query === '' ? '' : `?${query}`}`;
}

const codeByStatus: ReadonlyMap<number, ErrorCode> = new Map<number, ErrorCode>([
  [400, 'bad-request'],
  [401, 'unauthorized'],
  [403, 'forbidden'],
  [404, 'not-found'],
  [409, 'conflict'],
  [412, 'precondition-failed'],
  [413, 'payload-too-large'],
  [422, 'validation'],
  [503, 'unavailable'],
  [504, 'timeout'],
]);

/**
 * The typed error an error answer stands for, with the message of its body (any family: Rest.li and schema-registry
 * `message`, OpenAPI `error`). A status without a typed error (a 500) is a 502: what was called failed. `owner` names
 * it in messages that have nothing better.
 */
export function errorOfAnswer(status: number, body: unknown, owner: string): StrataError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const text = [fields['message'], fields['error']].find((value): value is string => typeof value === 'string');
  const code = codeByStatus.get(status);
  if (code === undefined) {
    return new BadGatewayError(`${owner} answered ${status}${text === undefined ? '' : `: ${text}`}`);
  }
  return errorFromCode(code, text ?? `${owner} answered ${status}`);
}

function actionOf(call: RouteCall): string {
  return call.action === undefined ? '' : `?action=${call.action}`;
}
