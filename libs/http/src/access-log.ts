/** The part of a logger the access log needs (pino's signature). */
export interface AccessLogger {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * How much the access log says: `info`, a line per request; `debug`, the same lines at debug level (shown only with
 * `LOG_LEVEL=debug`), except answers 5xx, which stay at warn or error; `off`, none.
 */
export type AccessLogLevel = 'info' | 'debug' | 'off';

export interface AccessLogOptions {
  readonly logger: AccessLogger;
  readonly level: AccessLogLevel;
}

/** A request as it ended, as far as the access log tells it. */
export interface FinishedRequest {
  readonly method: string;
  /** The declared route (`/entitiesV2/{urn}`), absent when none claimed the request. */
  readonly route: string | undefined;
  /** The path as the client sent it, without its query string. */
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  /** Absent when the request was refused before its caller was known (bad credentials, say). */
  readonly actor: string | undefined;
  readonly requestId: string | undefined;
  readonly traceId: string | undefined;
  /** The body's length as sent in Content-Length; absent when streamed without one. */
  readonly responseBytes: number | undefined;
  /** The error message the answer carried, when it was an error. */
  readonly error: string | undefined;
  /** The client went away before the answer was sent whole. */
  readonly aborted: boolean;
  /** A probe or scrape (`/health`, `/metrics`): logged at debug whatever its answer, not to drown the log. */
  readonly quiet: boolean;
}

/** One access-log line: the level it is logged at, its fields and message. */
export interface AccessLogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/**
 * The access-log line of a request, or undefined when the level says none. The line never carries what may be secret:
 * no header (Authorization above all), no body, no query string (the path is the client's, cut at `?`). The error
 * message is given as `reason` for error answers to requests that change something (any method but GET and HEAD:
 * why a write was refused — a validation 4xx, a 401 or 403) and for 5xx answers; it is the message the client
 * received, which the typed errors word for the client.
 */
export function accessLogLine(request: FinishedRequest, level: AccessLogLevel): AccessLogLine | undefined {
  if (level === 'off') return undefined;
  const reads = request.method === 'GET' || request.method === 'HEAD';
  const withReason = request.error !== undefined && request.status >= 400 && (!reads || request.status >= 500);
  const fields: Record<string, unknown> = {
    method: request.method,
    route: request.route,
    path: request.path,
    status: request.status,
    durationMs: request.durationMs,
    actor: request.actor,
    requestId: request.requestId,
    traceId: request.traceId,
    responseBytes: request.responseBytes,
    ...(withReason ? { reason: request.error } : {}),
    ...(request.aborted ? { aborted: true } : {}),
  };
  return { level: lineLevel(request, level), fields: withoutUndefined(fields), message: 'request' };
}

/** Writes a request's access-log line, if the level says one. */
export function logAccess(options: AccessLogOptions, request: FinishedRequest): void {
  const line = accessLogLine(request, options.level);
  if (line === undefined) return;
  options.logger[line.level](line.fields, line.message);
}

function lineLevel(request: FinishedRequest, level: 'info' | 'debug'): AccessLogLine['level'] {
  if (request.quiet) return 'debug';
  // A service unavailable or too slow (503, 504) is the state of another process; any other 5xx is a fault here.
  if (request.status >= 500) return request.status === 503 || request.status === 504 ? 'warn' : 'error';
  return level;
}

function withoutUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
