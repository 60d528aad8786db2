import type { Request } from 'express';
import type { RequestContext } from './route';

const clientIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
const traceparentPattern = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

export interface RequestContextOptions {
  /** Generates request and trace ids (injected: tests pass a deterministic one). */
  readonly newId: () => string;
  /** The actor of a request, from its credentials (rejecting with a 401 when they do not do), or the anonymous actor. */
  readonly actorOf: (request: Request) => string | Promise<string>;
}

/** Builds the context of a request: ids for correlation (taken from the client when valid), actor, origin. */
export function createRequestContextFactory({ newId, actorOf }: RequestContextOptions) {
  return async (request: Request): Promise<RequestContext> => {
    const header = (name: string) => request.get(name);
    // The request id identifies the proposals of this request end to end (outcome correlation, redelivery
    // detection), so only the server mints it: two requests must never share one. A client's own X-Request-Id is
    // kept as the trace id when no trace header is given, so its logs still line up with ours.
    const requestId = newId();
    const traceparent = traceparentPattern.exec(header('traceparent') ?? '');
    const givenTraceId = header('X-Trace-Id') ?? header('X-Request-Id');
    const traceId = traceparent?.[1] ?? (givenTraceId && clientIdPattern.test(givenTraceId) ? givenTraceId : requestId);
    return {
      requestId,
      traceId,
      actor: await actorOf(request),
      sourceIp: request.ip,
      userAgent: header('User-Agent'),
      url: request.originalUrl,
      header,
    };
  };
}
