import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  graphqlErrorBody,
  openapiErrorBody,
  restliErrorBody,
  schemaRegistryErrorBody,
  restliErrorHeader,
} from './errors';
import { familyOfPath } from './mount-routes';

export interface RunningServer {
  /** The port actually bound (useful when 0 was asked for). */
  readonly port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `graceMs`), then closes the rest. Calling it
   * again waits for the same close.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * How long a client may take to send a request before it is answered 408 and its connection closed. Each limit left out
 * keeps Node's default, which guards against clients that open requests and never finish them.
 */
export interface RequestTimeouts {
  /** Time allowed to receive a request's line and headers, in milliseconds. Node's default: 60 000. */
  readonly headersTimeoutMs?: number;
  /** Time allowed to receive a whole request, headers and body, in milliseconds. Node's default: 300 000. */
  readonly requestTimeoutMs?: number;
  /**
   * How often the server looks for requests over those limits, in milliseconds; a late request is answered up to
   * this much after its limit. Node's default: 30 000.
   */
  readonly checkIntervalMs?: number;
}

/** Listens on `host:port`. Resolves once bound; rejects (e.g. EADDRINUSE) instead of crashing the process. */
export async function listen(
  handler: RequestListener,
  host: string,
  port: number,
  timeouts: RequestTimeouts = {},
): Promise<RunningServer> {
  const server: Server = createServer({
    ...(timeouts.headersTimeoutMs === undefined ? {} : { headersTimeout: timeouts.headersTimeoutMs }),
    ...(timeouts.requestTimeoutMs === undefined ? {} : { requestTimeout: timeouts.requestTimeoutMs }),
    ...(timeouts.checkIntervalMs === undefined ? {} : { connectionsCheckingInterval: timeouts.checkIntervalMs }),
  });
  server.keepAliveTimeout = 65_000;
  // A request whose body is late was already handed to a route: its path picks the error body, and a response the
  // route already began must not be interleaved with another.
  const responseInProgress = new WeakMap<Socket, { path: string; response: ServerResponse }>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    if (responseInProgress.has(socket)) return;
    responseInProgress.set(socket, { path: (request.url ?? '/').split('?')[0] ?? '/', response });
    response.once('close', () => {
      if (responseInProgress.get(socket)?.response === response) responseInProgress.delete(socket);
    });
  });
  server.on('request', handler);
  server.on('clientError', (error: ClientSocketError, socket: Socket) => {
    answerUnparsableRequest(error, socket, responseInProgress.get(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    close: (graceMs = 5_000) =>
      (closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}

/** Node's limit on a request's line and headers together (`--max-http-header-size`), for the message. */
const MAX_HEADER_BYTES = 16 * 1024;

/** What Node's 'clientError' event carries: the parser's code, and the bytes it refused when it refused some. */
type ClientSocketError = Error & { code?: string; rawPacket?: unknown };

/**
 * Answers a request Node's HTTP server refused — a URL or headers over Node's size limit (431), headers or a body that
 * did not arrive within the request time-outs (408), or bytes that are not HTTP (400) — in the error body of the
 * endpoint family its path belongs to, as every other error is, instead of Node's bodiless default. The connection is
 * closed after it. A request whose headers never completed has no known path, and gets the default family's body.
 */
function answerUnparsableRequest(
  error: ClientSocketError,
  socket: Socket,
  inProgress: { path: string; response: ServerResponse } | undefined,
): void {
  if (!socket.writable || error.code === 'ECONNRESET' || inProgress?.response.headersSent === true) {
    socket.destroy();
    return;
  }
  // Node 20 reports both time-outs (`headersTimeout`, `requestTimeout`) as ERR_HTTP_REQUEST_TIMEOUT.
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? `The request line and headers are larger than the limit of ${MAX_HEADER_BYTES} bytes (a URN in a path must be at most 512 characters, URL-encoded)`
      : status === 408
        ? 'The request did not arrive in time'
        : 'The request is not valid HTTP';
  const requestLine = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1').split('\r\n')[0] : '';
  const path = inProgress?.path ?? /^[A-Z]+ (\/[^ ?]*)/.exec(requestLine ?? '')?.[1] ?? '/';
  const family = familyOfPath(path);
  const body = JSON.stringify(
    family === 'openapi'
      ? openapiErrorBody({ status, message })
      : family === 'schema-registry'
        ? schemaRegistryErrorBody({ status, message })
        : family === 'graphql'
          ? graphqlErrorBody({ status, message })
          : restliErrorBody({ status, message }),
  );
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...(family === 'restli' ? [`${restliErrorHeader}: true`] : []),
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
