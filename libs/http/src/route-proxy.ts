import { UnavailableError } from '@strata/model';
import type { EndpointFamily } from './errors';
import type { Route, RouteResponse } from './route';

/** A route as another service learns it: its address, not its handler. Served at `/internal/routes`. */
export interface RouteDescriptor {
  readonly method: Route['method'];
  readonly resource: string;
  readonly key: Route['key'];
  readonly action: string | undefined;
  readonly family: EndpointFamily;
  readonly summary: string;
}

/** The path where every service lists the public routes it owns. */
export const routeTablePath = '/internal/routes';

export function describeRoutes(routes: readonly Route[]): RouteDescriptor[] {
  return routes.map(({ method, resource, key, action, family, summary }) => ({
    method,
    resource,
    key,
    action,
    family,
    summary,
  }));
}

/** Response headers a proxied answer keeps (the rest belong to the hop). */
const forwardedHeaders = ['content-type', 'x-restli-error-response', 'x-restli-protocol-version'];

/**
 * Routes that forward to the service owning them: same method, path and query; the JSON body re-sent; the owner's
 * status, body and protocol headers returned as they are (its error bodies are already in the right family). An
 * unreachable owner is a 503.
 */
export function proxyRoutes(descriptors: readonly RouteDescriptor[], ownerBaseUrl: string, ownerName: string): Route[] {
  const base = ownerBaseUrl.replace(/\/+$/, '');
  return descriptors.map((descriptor) => ({
    ...descriptor,
    description: `Served by ${ownerName}.`,
    querySchema: undefined,
    bodySchema: undefined,
    invoke: async ({ body, context }): Promise<RouteResponse> => {
      let response: Response;
      try {
        response = await fetch(`${base}${context.url}`, {
          method: descriptor.method,
          headers: { 'content-type': 'application/json', 'x-trace-id': context.traceId },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (error) {
        throw new UnavailableError(`The ${ownerName} service is unavailable; retry later`, { cause: error });
      }
      const text = await response.text();
      const headers: Record<string, string> = {};
      for (const name of forwardedHeaders) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers };
    },
  }));
}

/**
 * Fetches another service's route table, retrying while it starts (connection refused, 5xx) until `timeoutMs`.
 */
export async function fetchRouteTable(ownerBaseUrl: string, timeoutMs: number): Promise<RouteDescriptor[]> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${ownerBaseUrl.replace(/\/+$/, '')}${routeTablePath}`);
      if (response.ok) return (await response.json()) as RouteDescriptor[];
      lastError = new Error(`HTTP ${response.status}`);
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new UnavailableError(`Could not read the route table of ${ownerBaseUrl} within ${timeoutMs} ms`, {
    cause: lastError,
  });
}
