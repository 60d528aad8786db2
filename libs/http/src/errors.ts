import { StrataError, type ErrorCode } from '@strata/model';

/**
 * The error-body families of the public interface: Rest.li and OpenAPI (`docs/http-interface.md`), and Confluent's schema
 * registry, whose clients read `error_code`.
 */
export type EndpointFamily = 'restli' | 'openapi' | 'schema-registry' | 'graphql';

const statusByCode: Record<ErrorCode, number> = {
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'payload-too-large': 413,
  'precondition-failed': 412,
  validation: 422,
  'bad-gateway': 502,
  unavailable: 503,
  timeout: 504,
};

/** HTTP status of a typed error. */
export function statusOfCode(code: ErrorCode): number {
  return statusByCode[code];
}

/**
 * Errors the HTTP libraries raise for bad input (body parsing, the router's percent-decoding of paths) carry a 4xx
 * `status`; their message describes the input.
 */
interface HttpLibraryError {
  status: number;
  type?: string;
  limit?: number;
  message: string;
}

function isHttpLibraryError(error: unknown): error is HttpLibraryError {
  if (!(error instanceof Error)) return false;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** What a client is told about an error: its status and a message fit to show it. */
export interface ClientError {
  readonly status: number;
  readonly message: string;
  /** A finer code some families report (Confluent's `error_code`, e.g. 40401), when the error carries one. */
  readonly detailCode?: number;
  /** Structured detail the error carries (see `StrataError.details`). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * Maps any error to what the client sees. Typed errors keep their message; errors raised by the HTTP libraries for bad
 * input keep their 4xx status; anything else is a 500 whose details stay in the server log.
 */
export function toClientError(error: unknown): ClientError {
  if (error instanceof StrataError) {
    const detailCode = (error as { detailCode?: unknown }).detailCode;
    return {
      status: statusOfCode(error.code),
      message: error.message,
      ...(typeof detailCode === 'number' ? { detailCode } : {}),
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  if (isHttpLibraryError(error)) {
    if (error.type === 'entity.too.large') {
      return { status: 413, message: `Request body is larger than the limit of ${error.limit ?? '?'} bytes` };
    }
    return { status: error.status, message: error.message };
  }
  return { status: 500, message: 'Internal server error occurred' };
}

const restliExceptionClass = 'com.linkedin.restli.server.RestLiServiceException';

/** DataHub's Rest.li error body. `stackTrace` holds only the one-line summary clients print; no server internals. */
export function restliErrorBody({ status, message, details }: ClientError): Record<string, unknown> {
  return {
    exceptionClass: restliExceptionClass,
    stackTrace: `${restliExceptionClass} [HTTP Status:${status}]: ${message}`,
    message,
    status,
    ...(details === undefined ? {} : { errorDetails: details }),
  };
}

/** The OpenAPI family's error body. */
export function openapiErrorBody({ message, details }: ClientError): Record<string, unknown> {
  return { error: message, ...(details === undefined ? {} : { details }) };
}

/** Confluent's schema-registry error body; `error_code` defaults to the status followed by 01 (40401, 42201…). */
export function schemaRegistryErrorBody({ status, message, detailCode }: ClientError): Record<string, unknown> {
  return { error_code: detailCode ?? (status === 409 ? 409 : status * 100 + 1), message };
}

/**
 * The GraphQL-over-HTTP error body, for what is refused before a GraphQL request is executed (credentials, size):
 * `errors` with one message, the HTTP status in its `extensions`.
 */
export function graphqlErrorBody({ status, message }: ClientError): Record<string, unknown> {
  return { errors: [{ message, extensions: { code: status } }] };
}

/** Header Rest.li clients check to recognise an error response. */
export const restliErrorHeader = 'X-RestLi-Error-Response';
