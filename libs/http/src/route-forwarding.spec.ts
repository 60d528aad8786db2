import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { createHttpApp } from './create-http-app';
import { listen, type RunningServer } from './http-server';
import { forwardedRoutes } from './route-forwarding';
import type { ServiceTable } from './service-table';

/** The service behind the gateway: a plain HTTP server whose answer each test chooses. */
interface Upstream {
  readonly url: string;
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  close(): Promise<void>;
}

async function upstream(): Promise<Upstream> {
  const state: Pick<Upstream, 'handle'> = {
    handle: (_request, response) => {
      response.end('{}');
    },
  };
  const server: Server = createServer((request, response) => {
    state.handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get handle() {
      return state.handle;
    },
    set handle(handler) {
      state.handle = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const table: ServiceTable = {
  service: 'search-indexer',
  routes: [
    {
      method: 'GET',
      resource: '/entitiesV2',
      key: { name: 'urn', description: 'URN' },
      action: undefined,
      family: 'restli',
      access: { kind: 'open' },
      summary: 'read',
    },
    {
      method: 'POST',
      resource: '/entities',
      key: undefined,
      action: 'search',
      family: 'restli',
      access: { kind: 'open' },
      summary: 'search',
    },
    {
      method: 'GET',
      resource: '/openapi/thing',
      key: undefined,
      action: undefined,
      family: 'openapi',
      access: { kind: 'open' },
      summary: 'thing',
    },
  ],
  readModels: [],
};

describe('forwarded routes', () => {
  let service: Upstream;
  let gateway: RunningServer;
  let dispatcher: Agent;

  async function startGateway(owner: string, timeoutMs = 5_000): Promise<string> {
    dispatcher = new Agent();
    const app = createHttpApp({
      routes: forwardedRoutes(table, owner, {
        dispatcher,
        timeoutMs,
        systemClient: { id: '__datahub_system', secret: 'a-system-client-secret' },
      }),
      newId: () => 'gateway-request-1',
      anonymousActor: 'urn:li:corpuser:UNKNOWN',
      // Far below what the tests forward: a forwarded body is streamed, not read here.
      maxBodyBytes: 1024,
      logger: { error: () => undefined },
      isReady: () => true,
    });
    gateway = await listen(app, '127.0.0.1', 0);
    return `http://127.0.0.1:${gateway.port}`;
  }

  beforeEach(async () => {
    service = await upstream();
  });

  afterEach(async () => {
    await gateway.close(0);
    await dispatcher.close();
    await service.close();
  });

  it('sends the method, the path and query as received, and the caller’s headers — trace context included, credentials replaced', async () => {
    let seen: { method?: string; url?: string; headers: IncomingMessage['headers'] } = { headers: {} };
    service.handle = (request, response) => {
      seen = { method: request.method, url: request.url, headers: request.headers };
      response.setHeader('content-type', 'application/json');
      response.end('{"value":1}');
    };
    const base = await startGateway(service.url);
    const path = '/entitiesV2/urn%3Ali%3Adataset%3A(urn%3Ali%3AdataPlatform%3Ahive%2Ct%2CPROD)?aspects=List(status)';
    // node:http rather than fetch, which refuses to send a Connection header naming others.
    const answer = await new Promise<{ status: number; body: string; headers: IncomingMessage['headers'] }>(
      (resolve, reject) => {
        const sent = httpRequest(
          `${base}${path}`,
          {
            headers: {
              Authorization: 'Bearer token-1',
              traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
              'X-Custom': 'kept',
              'X-Strata-Source-Ip': '6.6.6.6',
              Connection: 'keep-alive, X-Hop',
              'X-Hop': 'dropped',
            },
          },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => {
              body += chunk.toString();
            });
            response.on('end', () => {
              resolve({ status: response.statusCode ?? 0, body, headers: response.headers });
            });
          },
        );
        sent.on('error', reject);
        sent.end();
      },
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ value: 1 });
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe(path);
    expect(seen.headers).toMatchObject({
      // The client's credentials stay at the gateway: the service hears the system client, naming the actor.
      authorization: 'Basic __datahub_system:a-system-client-secret',
      'x-strata-actor': 'urn:li:corpuser:UNKNOWN',
      // The client's address as the gateway saw it, never as the client claims it.
      'x-strata-source-ip': '127.0.0.1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'x-custom': 'kept',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-request-id': 'gateway-request-1',
    });
    expect(seen.headers['x-hop']).toBeUndefined();
    expect(answer.headers['x-request-id']).toBe('gateway-request-1');
  });

  it('streams the request body to the service and its answer back, whatever their size and type', async () => {
    service.handle = (request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      request.on('end', () => {
        response.setHeader('content-type', 'text/plain');
        response.write(`received ${bytes} bytes of ${String(request.headers['content-type'])}\n`);
        response.end('x'.repeat(3_000_000));
      });
    };
    const base = await startGateway(service.url);
    const body = 'not json '.repeat(500_000);
    const answer = await fetch(`${base}/entities?action=search`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body,
    });
    const text = await answer.text();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain');
    expect(text.split('\n')[0]).toBe(`received ${Buffer.byteLength(body)} bytes of text/csv`);
    expect(text.length).toBe(text.indexOf('\n') + 1 + 3_000_000);
  });

  it('passes the service’s status and body through, a non-JSON error included', async () => {
    service.handle = (_request, response) => {
      response.statusCode = 500;
      response.setHeader('content-type', 'text/html');
      response.end('<h1>upstream failure</h1>');
    };
    const base = await startGateway(service.url);
    const answer = await fetch(`${base}/openapi/thing`);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('content-type')).toBe('text/html');
    expect(await answer.text()).toBe('<h1>upstream failure</h1>');
  });

  it('answers 503 in the route’s error body when the service cannot be reached', async () => {
    await service.close();
    const base = await startGateway(service.url);
    const restli = await fetch(`${base}/entities?action=search`, { method: 'POST', body: '{}' });
    expect(restli.status).toBe(503);
    expect(restli.headers.get('x-restli-error-response')).toBe('true');
    expect(await restli.json()).toMatchObject({
      status: 503,
      message: 'The search-indexer service is unavailable; retry later',
    });
    const openapi = await fetch(`${base}/openapi/thing`);
    expect(openapi.status).toBe(503);
    expect(await openapi.json()).toEqual({ error: 'The search-indexer service is unavailable; retry later' });
  });

  it('answers 504 when the service does not start answering in time', async () => {
    service.handle = () => undefined; // never answers
    const base = await startGateway(service.url, 200);
    const answer = await fetch(`${base}/openapi/thing`);
    expect(answer.status).toBe(504);
    expect(await answer.json()).toEqual({
      error: 'The search-indexer service did not answer within 200 ms; retry later',
    });
  });

  it('answers 502 when the service breaks off before answering, and cuts the answer when it breaks off midway', async () => {
    service.handle = (request) => {
      request.socket.destroy();
    };
    const base = await startGateway(service.url);
    const answer = await fetch(`${base}/openapi/thing`);
    expect(answer.status).toBe(502);
    expect(await answer.json()).toEqual({
      error: 'The search-indexer service broke off without answering; retry later',
    });

    service.handle = (_request, response) => {
      response.setHeader('content-length', '1000');
      response.write('partial');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    const cut = await fetch(`${base}/openapi/thing`);
    expect(cut.status).toBe(200);
    await expect(cut.text()).rejects.toThrow();
  });
});
