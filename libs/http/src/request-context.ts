import type { Request } from 'express';
import type { EventSource, RequestContext } from './route';

/**
 * Who a request acts as, from its credentials: the actor, or — for a request a gateway forwards on a client's
 * behalf — the actor with the client's address, as the gateway saw it.
 */
export type Caller =
  | string
  | {
      readonly actor: string;
      readonly sourceIp?: string | undefined;
      /** What authenticating learnt, kept for the request's authorization (see {@link RequestContext.session}). */
      readonly session?: unknown;
    };

const clientIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
const traceparentPattern = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

export interface RequestContextOptions {
  /** Generates request and trace ids (injected: tests pass a deterministic one). */
  readonly newId: () => string;
  /**
   * The actor of a request, from its credentials (rejecting with a 401 when they do not do), or the anonymous actor.
   * `open`: the route needs no credentials (bad ones are ignored there).
   */
  readonly actorOf: (request: Request, open: boolean) => Caller | Promise<Caller>;
}

/** Builds the context of a request: ids for correlation (taken from the client when valid), actor, origin. */
export function createRequestContextFactory({ newId, actorOf }: RequestContextOptions) {
  return async (request: Request, open: boolean): Promise<RequestContext> => {
    const header = (name: string) => request.get(name);
    // The request id identifies the proposals of this request end to end (outcome correlation, redelivery
    // detection), so only the server mints it: two requests must never share one. A client's own X-Request-Id is
    // kept as the trace id when no trace header is given, so its logs still line up with ours.
    const requestId = newId();
    const traceparent = traceparentPattern.exec(header('traceparent') ?? '');
    const givenTraceId = header('X-Trace-Id') ?? header('X-Request-Id');
    const traceId = traceparent?.[1] ?? (givenTraceId && clientIdPattern.test(givenTraceId) ? givenTraceId : requestId);
    const caller = await actorOf(request, open);
    return {
      requestId,
      traceId,
      actor: typeof caller === 'string' ? caller : caller.actor,
      sourceIp: (typeof caller === 'string' ? undefined : caller.sourceIp) ?? request.ip,
      session: typeof caller === 'string' ? undefined : caller.session,
      eventSource: eventSourceOf(request.path),
      userAgent: header('User-Agent'),
      url: request.originalUrl,
      header,
    };
  };
}

/** DataHub's event source of a request: its OpenAPI interface under `/openapi`, else its Rest.li one. */
export function eventSourceOf(path: string): EventSource {
  return path === '/openapi' || path.startsWith('/openapi/') ? 'OPENAPI' : 'RESTLI';
}
