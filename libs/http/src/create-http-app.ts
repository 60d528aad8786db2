import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import { createErrorHandler, notFoundHandler, type HttpLogger } from './error-handler';
import { jsonBody, mountRoutes } from './mount-routes';
import { createRequestContextFactory } from './request-context';
import { defineRoute, type Route } from './route';
import { describeRoutes, routeTablePath } from './route-proxy';

export interface HttpAppOptions {
  /** Public routes of the service (documented, listed at `/internal/routes`). */
  readonly routes: readonly Route[];
  readonly newId: () => string;
  /** Actor of requests while authentication is off. */
  readonly anonymousActor: string;
  readonly maxBodyBytes: number;
  readonly logger: HttpLogger;
  /** Whether the service is ready; `/health` answers 200 only then. */
  readonly isReady: () => boolean;
  /**
   * Serve the route table at `/internal/routes`, for a gateway to forward to this service. Only services behind the
   * gateway do; the public front (gateway, standalone process) has no one to tell.
   */
  readonly servesRouteTable: boolean;
  /** Prometheus metrics served at `/metrics` (several registries are merged at each scrape). */
  readonly metrics?: readonly Registry[];
}

/**
 * A service's HTTP app: JSON bodies whatever their Content-Type, its routes, `/health`, optionally its route table for
 * the gateway, DataHub's 404 for unknown paths, and every error mapped once to its family's body.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const health = defineRoute({
    method: 'GET',
    resource: '/health',
    family: 'restli',
    summary: 'Readiness: 200 once the service accepts work, 503 before and while stopping.',
    handle: () =>
      Promise.resolve(
        options.isReady() ? { body: { status: 'ok' } } : { status: 503, body: { status: 'unavailable' } },
      ),
  });
  const routeTable = defineRoute({
    method: 'GET',
    resource: routeTablePath,
    family: 'restli',
    summary: "The service's public routes, for the gateway to forward to.",
    handle: () => Promise.resolve({ body: describeRoutes(options.routes) }),
  });
  const metrics = defineRoute({
    method: 'GET',
    resource: '/metrics',
    family: 'restli',
    summary: "The service's Prometheus metrics, in the text exposition format.",
    handle: async () => {
      const texts = await Promise.all((options.metrics ?? []).map((registry) => registry.metrics()));
      return {
        text: texts.filter((text) => text !== '').join('\n'),
        headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' },
      };
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(jsonBody(options.maxBodyBytes));
  const contextFor = createRequestContextFactory({ newId: options.newId, actorOf: () => options.anonymousActor });
  const ownRoutes = options.servesRouteTable ? [health, metrics, routeTable] : [health, metrics];
  app.use(mountRoutes(express.Router(), [...ownRoutes, ...options.routes], contextFor));
  app.use(notFoundHandler);
  app.use(createErrorHandler(options.logger));
  return app;
}
