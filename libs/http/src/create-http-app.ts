import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import { dirname } from 'node:path';
import { openApiDocument, restliDocsPage, type ApiInfo } from './api-docs';
import type { AccessLogOptions } from './access-log';
import { consoleHandlers, type ConsoleAssets } from './console-assets';
import { createErrorHandler, notFoundHandler, type HttpLogger } from './error-handler';
import { homeResponse } from './home-page';
import { HttpMetrics } from './http-metrics';
import { mergeExpositions } from './metrics-exposition';
import { mountRoutes, type ContextFactory, type RouteGuard } from './mount-routes';
import { processMetrics } from './process-metrics';
import { RequestObserver } from './request-observer';
import { createRequestContextFactory, type Caller } from './request-context';
import { defineRoute, isInternalRoute, type AnyRoute, type Route } from './route';
import { describeRoute, describeService, serviceTablePath, type ReadModelDescriptor } from './service-table';

/** What authentication reads of a request: its path (for the log), its headers, and whether its route is open. */
export interface AuthenticationRequest {
  readonly method: string;
  readonly path: string;
  /** The route needs no credentials: credentials that do not verify are ignored rather than refused. */
  readonly open: boolean;
  header(name: string): string | undefined;
}

/**
 * Resolves the actor of a request from its credentials (with, for a request forwarded by a gateway, the client's
 * address), or rejects with `UnauthorizedError`.
 */
export type Authenticator = (request: AuthenticationRequest) => Promise<Caller>;

export interface HttpAppOptions {
  /** Public routes of the process: its own, and those it forwards. */
  readonly routes: readonly AnyRoute[];
  readonly newId: () => string;
  /** Actor of requests without credentials (when they may go without). */
  readonly anonymousActor: string;
  /**
   * Who a request acts as, from its credentials: the actor, or a rejection with `UnauthorizedError` (401, in the
   * route's error body). Absent: every request is anonymous.
   */
  readonly authenticate?: Authenticator;
  /** Checks each request against what its caller may do, before the route runs or is forwarded. */
  readonly guard?: RouteGuard;
  /** Largest JSON body a route handled here accepts, in bytes (forwarded routes stream theirs to the owner). */
  readonly maxBodyBytes: number;
  readonly logger: HttpLogger;
  /** Whether the process is ready; `/health` answers 200 only then. */
  readonly isReady: () => boolean;
  /**
   * Serve the service table at `/internal/service`, for a gateway to forward to this service and wait for its read
   * models. Only services behind a gateway do; the public front (gateway, standalone process) has no one to tell.
   */
  readonly serviceTable?: { readonly service: string; readonly readModels: readonly ReadModelDescriptor[] };
  /** Serve documentation of every mounted route (`/restli/docs`, `/openapi/v3/api-docs`, Swagger UI). */
  readonly documentation?: ApiInfo;
  /**
   * The services' Prometheus metrics, served at `/metrics` beside the process's own (CPU, memory, event loop) and its
   * HTTP server's (`strata_http_*`), which every process serves. The registries are merged at each scrape into one
   * valid exposition (see {@link mergeExpositions}).
   */
  readonly metrics?: readonly Registry[];
  /** One line per request answered (see {@link AccessLogOptions}); absent, requests are measured but not logged. */
  readonly accessLog?: AccessLogOptions;
  /** The built Strata console, served to browsers at `/` and at its own paths (the public front serves it). */
  readonly console?: ConsoleAssets;
  /** A monotonic clock in milliseconds, timing requests (injected: tests pass their own). Default `performance.now`. */
  readonly monotonicNow?: () => number;
}

/**
 * A process's HTTP app: its routes, `/health`, `/metrics`, optionally its service table and its documentation,
 * DataHub's 404 for unknown paths, and every error mapped once to its family's body. A route handled here reads its
 * body as JSON whatever its Content-Type; a forwarded one streams it.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const httpMetrics = new HttpMetrics();
  const observer = new RequestObserver({
    metrics: httpMetrics,
    ...(options.accessLog === undefined ? {} : { accessLog: options.accessLog }),
    monotonicNow: options.monotonicNow ?? (() => performance.now()),
    quietRoutes: [HEALTH_PATH, METRICS_PATH],
  });
  const routes: AnyRoute[] = [...ownRoutes(options, httpMetrics), ...options.routes];
  if (options.documentation !== undefined) {
    routes.push(...documentationRoutes(options.documentation, () => routes.filter((route) => !isInternalRoute(route))));
  }
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  // First, so that every request is measured and logged, whatever answers it, with the path as the client sent it.
  app.use(observer.observe);
  app.use(frontendPrefix);
  const authenticate = options.authenticate;
  const buildContext = createRequestContextFactory({
    newId: options.newId,
    actorOf: (request, open) =>
      authenticate === undefined
        ? options.anonymousActor
        : authenticate({ method: request.method, path: request.path, open, header: (name) => request.get(name) }),
  });
  const contextFor: ContextFactory = async (request, open) => {
    const context = await buildContext(request, open);
    observer.identified(request, context);
    return context;
  };
  const consoleApp = options.console === undefined ? undefined : consoleHandlers(options.console);
  if (consoleApp !== undefined) app.use(consoleApp.pages);
  app.use(
    mountRoutes(express.Router(), routes, contextFor, {
      maxBodyBytes: options.maxBodyBytes,
      ...(options.guard === undefined ? {} : { guard: options.guard }),
    }),
  );
  // Swagger UI's scripts and styles, beside its page (a documented route).
  if (options.documentation !== undefined) app.use(SWAGGER_UI, express.static(swaggerUiAssets(), { index: false }));
  if (consoleApp !== undefined) app.use(consoleApp.files);
  app.use(notFoundHandler);
  app.use(observer.recordError);
  app.use(createErrorHandler(options.logger));
  return app;
}

/**
 * The prefix under which DataHub's frontend proxies its metadata service, and which DataHub's documentation writes in
 * its examples (`/api/gms/entities?action=search`). Every path is also served beneath it, as if called directly.
 */
export const FRONTEND_PREFIX = '/api/gms';

function frontendPrefix(request: Request, _response: Response, next: NextFunction): void {
  const url = request.url;
  if (url === FRONTEND_PREFIX || url.startsWith(`${FRONTEND_PREFIX}/`) || url.startsWith(`${FRONTEND_PREFIX}?`)) {
    request.url = url.slice(FRONTEND_PREFIX.length) || '/';
    if (request.url.startsWith('?')) request.url = `/${request.url}`;
    request.originalUrl = request.url;
  }
  next();
}

const HEALTH_PATH = '/health';
const METRICS_PATH = '/metrics';

function ownRoutes(options: HttpAppOptions, httpMetrics: HttpMetrics): Route[] {
  const health = defineRoute({
    method: 'GET',
    resource: HEALTH_PATH,
    family: 'restli',
    access: { kind: 'open' },
    summary: 'Readiness: 200 once the process accepts work, 503 before and while stopping.',
    handle: () =>
      Promise.resolve(
        options.isReady() ? { body: { status: 'ok' } } : { status: 503, body: { status: 'unavailable' } },
      ),
  });
  // The process's own metrics first, then its HTTP server's, then its services'; a registry given twice is read once.
  const registries = [...new Set([processMetrics(), httpMetrics.registry, ...(options.metrics ?? [])])];
  // A collision is reported once per family: it recurs at every scrape, and is a bug of the registries, not the scrape.
  const reported = new Set<string>();
  const metrics = defineRoute({
    method: 'GET',
    resource: METRICS_PATH,
    family: 'restli',
    access: { kind: 'open' },
    summary: "The process's Prometheus metrics, in the text exposition format.",
    handle: async () => {
      const texts = await Promise.all(registries.map((registry) => registry.metrics()));
      return {
        text: mergeExpositions(texts, ({ family, problem }) => {
          if (reported.has(family)) return;
          reported.add(family);
          options.logger.error(
            { metric: family, problem },
            problem === 'type'
              ? 'two metric registries declare this metric with different types; /metrics serves the first only'
              : 'two metric registries give the same series of this metric; /metrics serves the first only',
          );
        }),
        headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' },
      };
    },
  });
  const table = options.serviceTable;
  if (table === undefined) return [health, metrics];
  const serviceTable = defineRoute({
    method: 'GET',
    resource: serviceTablePath,
    family: 'restli',
    access: { kind: 'internal' },
    summary: 'The service table: this service, the public routes it owns, and the read models it keeps.',
    handle: () => Promise.resolve({ body: describeService(table.service, options.routes, table.readModels) }),
  });
  return [health, metrics, serviceTable];
}

const SWAGGER_UI = '/openapi/swagger-ui';

/** Where the swagger-ui-dist package keeps Swagger UI's built files. */
function swaggerUiAssets(): string {
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

/**
 * The front door (`/`), `/restli/docs`, `/openapi/v3/api-docs` and Swagger UI's page, describing `routes()`
 * (themselves included).
 */
function documentationRoutes(info: ApiInfo, routes: () => readonly AnyRoute[]): Route[] {
  return [
    defineRoute({
      method: 'GET',
      resource: '/',
      family: 'restli',
      access: { kind: 'open' },
      summary:
        'What this server is, with links to its documentation, health and configuration and example requests: an HTML page, or JSON for a client that asks for it (`Accept: application/json`).',
      handle: ({ context }) =>
        Promise.resolve(
          homeResponse(info, routes().map(describeRoute), {
            accept: context.header('accept'),
            baseUrl: baseUrlOf(context.header('host')),
          }),
        ),
    }),
    defineRoute({
      method: 'GET',
      resource: '/restli/docs',
      family: 'restli',
      access: { kind: 'open' },
      summary: 'An HTML index of every resource and action, with parameters, body fields and an example request.',
      handle: ({ context }) =>
        Promise.resolve({
          text: restliDocsPage(routes().map(describeRoute), info.title, baseUrlOf(context.header('host'))),
          headers: { 'Content-Type': 'text/html; charset=utf-8' },
        }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/v3/api-docs',
      family: 'openapi',
      access: { kind: 'open' },
      summary: 'The OpenAPI 3.1 document of every route.',
      handle: () => Promise.resolve({ body: openApiDocument(routes().map(describeRoute), info) }),
    }),
    // At its plain path (with or without the trailing slash) and at index.html: the page loads its assets by absolute
    // paths, so it is the same page at either.
    ...[SWAGGER_UI, `${SWAGGER_UI}/index.html`].map((resource) =>
      defineRoute({
        method: 'GET',
        resource,
        family: 'openapi',
        access: { kind: 'open' },
        summary: 'Swagger UI on the OpenAPI document.',
        handle: () =>
          Promise.resolve({
            text: swaggerUiPage(info.title),
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
          }),
      }),
    ),
  ];
}

function baseUrlOf(host: string | undefined): string {
  return `http://${host !== undefined && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : 'localhost:8080'}`;
}

function swaggerUiPage(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title.replace(/[&<>"']/g, '')}</title>
  <link rel="stylesheet" href="${SWAGGER_UI}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${SWAGGER_UI}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${SWAGGER_UI}/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: '/openapi/v3/api-docs', dom_id: '#swagger-ui' });</script>
</body>
</html>
`;
}
