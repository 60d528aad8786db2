import type { NextFunction, Request, Response } from 'express';
import {
  openapiErrorBody,
  restliErrorBody,
  schemaRegistryErrorBody,
  graphqlErrorBody,
  restliErrorHeader,
  toClientError,
  type ClientError,
  type EndpointFamily,
} from './errors';
import { familyOfPath } from './mount-routes';

/** The part of a logger the HTTP kit needs (pino's signature). */
export interface HttpLogger {
  error(details: object, message: string): void;
}

/** Sends an error in its endpoint family's body. */
export function sendError(response: Response, family: EndpointFamily, error: ClientError): void {
  switch (family) {
    case 'restli':
      response.setHeader(restliErrorHeader, 'true');
      response.status(error.status).json(restliErrorBody(error));
      break;
    case 'openapi':
      response.status(error.status).json(openapiErrorBody(error));
      break;
    case 'schema-registry':
      response.status(error.status).json(schemaRegistryErrorBody(error));
      break;
    case 'graphql':
      response.status(error.status).json(graphqlErrorBody(error));
      break;
  }
}

/**
 * The one place errors become HTTP responses. Typed errors map to their status; anything unexpected is a 500 whose
 * details are logged, never sent.
 */
export function createErrorHandler(logger: HttpLogger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    const clientError = toClientError(error);
    if (clientError.status >= 500 && clientError.status !== 503 && clientError.status !== 504) {
      logger.error({ err: error, method: request.method, path: request.path }, 'request failed');
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    const family = (response.locals['family'] as EndpointFamily | undefined) ?? familyOfPath(request.path);
    sendError(response, family, clientError);
  };
}

/** The answer for paths no route claims: DataHub's Rest.li text, or the OpenAPI family's body. */
export function notFoundHandler(request: Request, response: Response): void {
  const family = familyOfPath(request.path);
  const message =
    family === 'restli' ? `No root resource defined for path '${request.path}'` : `No endpoint at ${request.path}`;
  sendError(response, family, { status: 404, message });
}
