import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import { dirname } from 'node:path';
import { openApiDocument, restliDocsPage, type ApiInfo } from './api-docs';
import { createErrorHandler, notFoundHandler, type HttpLogger } from './error-handler';
import { mountRoutes, type RouteGuard } from './mount-routes';
import { createRequestContextFactory, type Caller } from './request-context';
import { defineRoute, isInternalRoute, type AnyRoute, type Route } from './route';
import { describeRoute, describeService, serviceTablePath, type ReadModelDescriptor } from './service-table';

/** What authentication reads of a request: its path (for the log), its headers, and whether its route is open. */
export interface AuthenticationRequest {
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
  /** Prometheus metrics served at `/metrics` (several registries are merged at each scrape). */
  readonly metrics?: readonly Registry[];
}

/**
 * A process's HTTP app: its routes, `/health`, `/metrics`, optionally its service table and its documentation,
 * DataHub's 404 for unknown paths, and every error mapped once to its family's body. A route handled here reads its
 * body as JSON whatever its Content-Type; a forwarded one streams it.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const routes: AnyRoute[] = [...ownRoutes(options), ...options.routes];
  if (options.documentation !== undefined) {
    routes.push(...documentationRoutes(options.documentation, () => routes.filter((route) => !isInternalRoute(route))));
  }
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(frontendPrefix);
  const authenticate = options.authenticate;
  const contextFor = createRequestContextFactory({
    newId: options.newId,
    actorOf: (request, open) =>
      authenticate === undefined
        ? options.anonymousActor
        : authenticate({ path: request.path, open, header: (name) => request.get(name) }),
  });
  app.use(
    mountRoutes(express.Router(), routes, contextFor, {
      maxBodyBytes: options.maxBodyBytes,
      ...(options.guard === undefined ? {} : { guard: options.guard }),
    }),
  );
  // Swagger UI's scripts and styles, beside its page (a documented route).
  if (options.documentation !== undefined) app.use(SWAGGER_UI, express.static(swaggerUiAssets(), { index: false }));
  app.use(notFoundHandler);
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

function ownRoutes(options: HttpAppOptions): Route[] {
  const health = defineRoute({
    method: 'GET',
    resource: '/health',
    family: 'restli',
    access: { kind: 'open' },
    summary: 'Readiness: 200 once the process accepts work, 503 before and while stopping.',
    handle: () =>
      Promise.resolve(
        options.isReady() ? { body: { status: 'ok' } } : { status: 503, body: { status: 'unavailable' } },
      ),
  });
  const metrics = defineRoute({
    method: 'GET',
    resource: '/metrics',
    family: 'restli',
    access: { kind: 'open' },
    summary: "The process's Prometheus metrics, in the text exposition format.",
    handle: async () => {
      const texts = await Promise.all((options.metrics ?? []).map((registry) => registry.metrics()));
      return {
        text: texts.filter((text) => text !== '').join('\n'),
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

/** `/restli/docs`, `/openapi/v3/api-docs` and Swagger UI's page, describing `routes()` (themselves included). */
function documentationRoutes(info: ApiInfo, routes: () => readonly AnyRoute[]): Route[] {
  return [
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
    defineRoute({
      method: 'GET',
      resource: `${SWAGGER_UI}/index.html`,
      family: 'openapi',
      access: { kind: 'open' },
      summary: 'Swagger UI on the OpenAPI document.',
      handle: () =>
        Promise.resolve({ text: swaggerUiPage(info.title), headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
    }),
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
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${SWAGGER_UI}/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: '/openapi/v3/api-docs', dom_id: '#swagger-ui' });</script>
</body>
</html>
`;
}
