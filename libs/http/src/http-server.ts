import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

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
