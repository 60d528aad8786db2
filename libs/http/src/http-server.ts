import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { openapiErrorBody, restliErrorBody, schemaRegistryErrorBody, restliErrorHeader } from './errors';
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

/** Listens on `host:port`. Resolves once bound; rejects (e.g. EADDRINUSE) instead of crashing the process. */
export async function listen(handler: RequestListener, host: string, port: number): Promise<RunningServer> {
  const server: Server = createServer(handler);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerUnparsableRequest);
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

/**
 * Answers a request Node's HTTP parser refused before any route saw it — a URL or headers over Node's size limit (431),
 * or bytes that are not HTTP (400) — in the error body of the endpoint family its path belongs to, as every other error
 * is, instead of Node's bodiless default. The connection is closed after it.
 */
function answerUnparsableRequest(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'HPE_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? `The request line and headers are larger than the limit of ${MAX_HEADER_BYTES} bytes (a URN in a path must be at most 512 characters, URL-encoded)`
      : status === 408
        ? 'The request did not arrive in time'
        : 'The request is not valid HTTP';
  const requestLine = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1').split('\r\n')[0] : '';
  const path = /^[A-Z]+ (\/[^ ?]*)/.exec(requestLine ?? '')?.[1] ?? '/';
  const family = familyOfPath(path);
  const body = JSON.stringify(
    family === 'openapi'
      ? openapiErrorBody({ status, message })
      : family === 'schema-registry'
        ? schemaRegistryErrorBody({ status, message })
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
