export { createErrorHandler, notFoundHandler, sendError } from './error-handler';
export type { HttpLogger } from './error-handler';
export {
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
export { familyOfPath, jsonBody, mountRoutes } from './mount-routes';
export { createRequestContextFactory } from './request-context';
export type { RequestContextOptions } from './request-context';
export { booleanParam, parseRestliList, restliListParam } from './restli-params';
export { defineRoute, describeIssues } from './route';
export type { RawRouteInput, RequestContext, Route, RouteDefinition, RouteResponse } from './route';
export { describeRoutes, fetchRouteTable, proxyRoutes, routeTablePath } from './route-proxy';
export type { RouteDescriptor } from './route-proxy';
export { createHttpApp } from './create-http-app';
export type { HttpAppOptions } from './create-http-app';
export { runService } from './run-service';
export type { RunnableService } from './run-service';
