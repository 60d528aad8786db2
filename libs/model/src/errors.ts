/**
 * Typed errors. Domain and adapter code throws these; the HTTP edge maps each class to a status and to the error body
 * of the endpoint family, once (`@strata/http`). Messages are written for the client that sent the request.
 */
export abstract class StrataError extends Error {
  abstract readonly code: ErrorCode;
  /**
   * Structured detail for clients that read more than the message (a batch's per-proposal outcomes); sent as the
   * Rest.li body's `errorDetails`, the OpenAPI body's `details`. JSON only.
   */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(message: string, options?: { cause?: unknown; details?: Readonly<Record<string, unknown>> }) {
    super(message, options);
    this.name = new.target.name;
    this.details = options?.details;
  }
}

export type ErrorCode =
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'payload-too-large'
  | 'precondition-failed'
  | 'validation'
  | 'bad-gateway'
  | 'unavailable'
  | 'timeout';

/** The request is malformed: unparseable JSON, a missing or mistyped parameter, an unknown action. HTTP 400. */
export class BadRequestError extends StrataError {
  readonly code = 'bad-request';
}

/** Missing or invalid credentials. HTTP 401. */
export class UnauthorizedError extends StrataError {
  readonly code = 'unauthorized';
}

/** Authenticated, but not permitted. HTTP 403. */
export class ForbiddenError extends StrataError {
  readonly code = 'forbidden';
}

/** An unknown resource, entity or aspect version. HTTP 404. */
export class NotFoundError extends StrataError {
  readonly code = 'not-found';
}

/** A concurrent write changed what a write expected (optimistic concurrency). Retried internally; HTTP 409. */
export class ConflictError extends StrataError {
  readonly code = 'conflict';
}

/** A body or aspect over its stated limit. HTTP 413. */
export class PayloadTooLargeError extends StrataError {
  readonly code = 'payload-too-large';
}

/**
 * A conditional write whose condition does not hold (`If-Version-Match` names another version): nothing was written.
 * HTTP 412.
 */
export class PreconditionFailedError extends StrataError {
  readonly code = 'precondition-failed';
}

/** A well-formed proposal that fails validation: unknown entity or aspect, URN mismatch, schema violation. HTTP 422. */
export class ValidationError extends StrataError {
  readonly code = 'validation';
}

/** A service behind the gateway answered with something that is not an answer (a connection cut short). HTTP 502. */
export class BadGatewayError extends StrataError {
  readonly code = 'bad-gateway';
}

/** A dependency is unavailable or overloaded; the client may retry. HTTP 503. */
export class UnavailableError extends StrataError {
  readonly code = 'unavailable';
}

/** A write was accepted but its outcome did not arrive in time; it may still apply. HTTP 504. */
export class TimeoutError extends StrataError {
  readonly code = 'timeout';
}

const errorClassByCode: Record<
  ErrorCode,
  new (message: string, options?: { details?: Readonly<Record<string, unknown>> }) => StrataError
> = {
  'bad-request': BadRequestError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  'not-found': NotFoundError,
  conflict: ConflictError,
  'payload-too-large': PayloadTooLargeError,
  'precondition-failed': PreconditionFailedError,
  validation: ValidationError,
  'bad-gateway': BadGatewayError,
  unavailable: UnavailableError,
  timeout: TimeoutError,
};

/** Rebuilds a typed error from its code, e.g. a rejection reported by another service. Unknown codes are validation errors. */
export function errorFromCode(code: string, message: string, details?: Readonly<Record<string, unknown>>): StrataError {
  const ErrorClass = isErrorCode(code) ? errorClassByCode[code] : ValidationError;
  return new ErrorClass(message, details === undefined ? undefined : { details });
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorClassByCode, code);
}
