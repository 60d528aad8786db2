import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { errors as undiciErrors, request as undiciRequest, type Dispatcher } from 'undici';
import { BadGatewayError, TimeoutError, UnavailableError } from '@strata/model';
import type { Scheduler } from '@strata/timing';
import { RESPONSE_SHAPE_HEADER, type ForwardedRoute, type RequestContext } from './route';
import { errorOfAnswer, type RouteCall } from './route-call';
import { ACTOR_HEADER, SOURCE_IP_HEADER, systemClientAuthorization, type SystemClient } from './system-client';
import { fetchServiceTable, type ServiceTable } from './service-table';

/** How a gateway forwards to the services behind it. */
export interface ForwardingOptions {
  /** The connection pool to the services (undici `Agent`), owned and closed by the caller. */
  readonly dispatcher: Dispatcher;
  /** How long a service may take to start answering, and to go silent mid-answer, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * The credentials requests go on with: the system client's, the gateway having authenticated the caller, whose
   * actor goes along in `X-Strata-Actor`. The caller's own `Authorization` never reaches the service.
   */
  readonly systemClient: SystemClient;
}

/**
 * Headers that belong to one hop (RFC 9110 §7.6.1), and those the forwarding sets itself: never passed on. Everything
 * else — `Authorization`, `traceparent`, `Content-Type`, `Accept`, the protocol headers — goes through unchanged.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
  'x-request-id',
  // Replaced: the service is told who asks by the gateway, never by the client (the console's session cookie is a
  // credential too).
  'authorization',
  'cookie',
  ACTOR_HEADER,
  SOURCE_IP_HEADER,
]);

/** Network failures that mean the service is not there (now): the client may retry later. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Routes that forward to the service owning them, as its table describes them: the same method, path and query; the
 * request's headers (credentials and trace context included) and its body streamed through; the service's status,
 * headers and body streamed back whatever they are (its error bodies are already in the right family). A service that
 * cannot be reached is a 503, one that does not answer within `timeoutMs` a 504, and one that breaks off before
 * answering a 502 — each in the route's error body; never a 500. An answer cut off midway ends the client's
 * connection, so the client sees it incomplete rather than short.
 */
export function forwardedRoutes(
  table: ServiceTable,
  ownerBaseUrl: string,
  options: ForwardingOptions,
): ForwardedRoute[] {
  const base = ownerBaseUrl.replace(/\/+$/, '');
  const owner = table.service;
  return table.routes.map((descriptor) => ({
    kind: 'forwarded',
    method: descriptor.method,
    resource: descriptor.resource,
    key: descriptor.key,
    action: descriptor.action,
    family: descriptor.family,
    access: descriptor.access,
    summary: descriptor.summary,
    description: descriptor.description,
    query: descriptor.query,
    body: descriptor.body,
    example: descriptor.example,
    owner,
    forward: (request, response, context, body) => forward(request, response, context, base, owner, options, body),
    call: (call, url, context) => callOwner(call, url, context, base, owner, options),
  }));
}

/**
 * One request of this process to the owner, on behalf of the client request `context` describes: the client's
 * credentials and trace context go along, JSON goes out and comes back, and an error answer is thrown as its typed
 * error (a service out of reach as in {@link forward}).
 */
async function callOwner(
  call: RouteCall,
  url: string,
  context: RequestContext,
  base: string,
  owner: string,
  options: ForwardingOptions,
): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': context.requestId };
  const traceparent = context.header('traceparent');
  if (traceparent === undefined) headers['x-trace-id'] = context.traceId;
  else headers['traceparent'] = traceparent;
  headers['authorization'] = systemClientAuthorization(options.systemClient);
  headers[ACTOR_HEADER] = context.actor;
  if (context.sourceIp !== undefined) headers[SOURCE_IP_HEADER] = context.sourceIp;
  if (context.userAgent !== undefined) headers['user-agent'] = context.userAgent;
  // The response shape a caller inside the gateway pinned (the GraphQL API reads DataHub's current shapes).
  const shape = context.header(RESPONSE_SHAPE_HEADER);
  if (shape !== undefined) headers[RESPONSE_SHAPE_HEADER] = shape;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let text: string;
  let status: number;
  try {
    const answer = await undiciRequest(`${base}${url}`, {
      method: call.method,
      headers,
      body: call.body === undefined ? null : JSON.stringify(call.body),
      dispatcher: options.dispatcher,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    status = answer.statusCode;
    text = await answer.body.text();
  } catch (error) {
    throw failureOf(error, owner, options.timeoutMs);
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch (error) {
    throw new BadGatewayError(`The ${owner} service answered ${status} with a body that is not JSON`, { cause: error });
  }
  if (status >= 400) throw errorOfAnswer(status, body, `The ${owner} service`);
  return body;
}

async function forward(
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
  base: string,
  owner: string,
  options: ForwardingOptions,
  body?: Buffer,
): Promise<void> {
  // The client going away ends the request to the service too.
  const clientGone = new AbortController();
  const abandon = () => {
    if (!response.writableFinished) clientGone.abort();
  };
  response.once('close', abandon);
  let upstream: Dispatcher.ResponseData;
  try {
    upstream = await undiciRequest(`${base}${context.url}`, {
      method: request.method as Dispatcher.HttpMethod,
      headers: forwardedRequestHeaders(request, context, options.systemClient),
      body: body ?? (hasBody(request.headers) ? request : null),
      dispatcher: options.dispatcher,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal: clientGone.signal,
    });
  } catch (error) {
    response.off('close', abandon);
    throw failureOf(error, owner, options.timeoutMs);
  }
  response.statusCode = upstream.statusCode;
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) response.setHeader(name, value);
  }
  try {
    await pipeline(upstream.body, response);
  } catch {
    // The status and headers are gone already: the only honest signal left is a connection ended early.
    response.destroy();
  } finally {
    response.off('close', abandon);
  }
}

function forwardedRequestHeaders(
  request: IncomingMessage,
  context: RequestContext,
  systemClient: SystemClient,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  const listedInConnection = new Set(
    (request.headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listedInConnection.has(name)) continue;
    headers[name] = value;
  }
  const client = request.socket.remoteAddress;
  const forwardedFor = request.headers['x-forwarded-for'];
  if (client !== undefined) {
    const earlier = Array.isArray(forwardedFor) ? forwardedFor.join(', ') : forwardedFor;
    headers['x-forwarded-for'] = earlier === undefined ? client : `${earlier}, ${client}`;
  }
  headers['x-forwarded-proto'] ??= 'http';
  if (request.headers.host !== undefined) headers['x-forwarded-host'] ??= request.headers.host;
  // The gateway's request id, so that the service's logs name it (services keep a client's id as the trace id).
  headers['x-request-id'] = context.requestId;
  headers['authorization'] = systemClientAuthorization(systemClient);
  headers[ACTOR_HEADER] = context.actor;
  if (context.sourceIp !== undefined) headers[SOURCE_IP_HEADER] = context.sourceIp;
  if (request.headers.traceparent === undefined) headers['x-trace-id'] = context.traceId;
  return headers;
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = Number(headers['content-length'] ?? 0);
  return Number.isFinite(length) && length > 0;
}

function failureOf(error: unknown, owner: string, timeoutMs: number): Error {
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return new TimeoutError(`The ${owner} service did not answer within ${timeoutMs} ms; retry later`, {
      cause: error,
    });
  }
  if (error instanceof undiciErrors.ConnectTimeoutError || UNREACHABLE.has(codeOf(error) ?? '')) {
    return new UnavailableError(`The ${owner} service is unavailable; retry later`, { cause: error });
  }
  if (error instanceof undiciErrors.RequestAbortedError) return error;
  return new BadGatewayError(`The ${owner} service broke off without answering; retry later`, { cause: error });
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause === undefined || cause === error ? undefined : codeOf(cause);
}

/** A service behind this process: where it is, its table, and its routes as this process forwards them. */
export interface ServiceBehind {
  readonly url: string;
  readonly table: ServiceTable;
  readonly routes: readonly ForwardedRoute[];
}

/**
 * The services at `urls`, as a process in front of them (a gateway, the operations service) sees them: each one's
 * table, read at start and waited for as {@link fetchServiceTable} waits, and its routes, forwarded to it.
 */
export async function servicesBehind(
  urls: readonly string[],
  options: ForwardingOptions & { readonly discoveryTimeoutMs: number; readonly scheduler: Scheduler },
): Promise<ServiceBehind[]> {
  return Promise.all(
    urls.map(async (url) => {
      const table = await fetchServiceTable(url, {
        timeoutMs: options.discoveryTimeoutMs,
        scheduler: options.scheduler,
        authorization: systemClientAuthorization(options.systemClient),
      });
      return { url, table, routes: forwardedRoutes(table, url, options) };
    }),
  );
}
