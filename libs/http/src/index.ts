export { CONSOLE_CSP, CONSOLE_PAGE_PATHS, readConsoleAssets, type ConsoleAssets } from './console-assets';
export { createErrorHandler, notFoundHandler, sendError } from './error-handler';
export type { HttpLogger } from './error-handler';
export {
  graphqlErrorBody,
  openapiErrorBody,
  restliErrorBody,
  restliErrorHeader,
  schemaRegistryErrorBody,
  statusOfCode,
  toClientError,
} from './errors';
export type { ClientError, EndpointFamily } from './errors';
export { listen } from './http-server';
export type { RunningServer } from './http-server';
export { familyOfPath, GRAPHQL_PATHS, mountRoutes } from './mount-routes';
export type { ContextFactory, MountOptions, RouteGuard } from './mount-routes';
export { appliesAlways, assertAccessDeclared, describeAccess, routeAccessSchema } from './route-access';
export type { AccessApiGroup, AccessApiOperation, ResourceLocator, RouteAccess } from './route-access';
export { createRequestContextFactory, eventSourceOf } from './request-context';
export type { Caller, RequestContextOptions } from './request-context';
export { booleanParam, parseRestliList, restliListParam } from './restli-params';
export { defineRoute, describeIssues, isInternalRoute, RESPONSE_SHAPE_HEADER } from './route';
export type {
  AnyRoute,
  EventSource,
  ForwardedRoute,
  JsonSchema,
  RawRouteInput,
  RequestContext,
  Route,
  RouteAddress,
  RouteDefinition,
  RouteExample,
  RouteResponse,
} from './route';
export { describeRoute, describeService, fetchServiceTable, jsonSchemaOf, serviceTablePath } from './service-table';
export type { ReadModelDescriptor, RouteDescriptor, ServiceTable } from './service-table';
export { forwardedRoutes, servicesBehind } from './route-forwarding';
export {
  ACTOR_HEADER,
  SOURCE_IP_HEADER,
  isSystemClient,
  systemClientAuthenticator,
  systemClientAuthorization,
  type SystemClient,
} from './system-client';
export { errorOfAnswer, routeCaller } from './route-call';
export type { RouteCall, RouteCaller } from './route-call';
export type { ForwardingOptions, ServiceBehind } from './route-forwarding';
export { documentedPath, exampleRequest, openApiDocument, restliDocsPage } from './api-docs';
export type { ApiInfo } from './api-docs';
export type { AccessLogger, AccessLogLevel, AccessLogOptions } from './access-log';
export { createHttpApp } from './create-http-app';
export type { AuthenticationRequest, Authenticator, HttpAppOptions } from './create-http-app';
export { runService } from './run-service';
export type { RunnableService } from './run-service';
