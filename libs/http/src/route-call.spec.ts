import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { z } from 'zod';
import { BadGatewayError, NotFoundError, PreconditionFailedError, UnavailableError } from '@strata/model';
import { createHttpApp } from './create-http-app';
import { restliListParam } from './restli-params';
import { defineRoute, type AnyRoute, type RequestContext } from './route';
import { errorOfAnswer, routeCaller, urlOf } from './route-call';
import { forwardedRoutes } from './route-forwarding';
import { describeService } from './service-table';

const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,a/b c,PROD)';
const systemClient = { id: '__datahub_system', secret: 'a-system-client-secret' };

const context = (headers: Record<string, string> = {}): RequestContext => ({
  requestId: 'request-1',
  traceId: 'trace-1',
  actor: 'urn:li:corpuser:jdoe',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'RESTLI',
  url: '/entities?action=deleteReferences',
  header: (name) => headers[name.toLowerCase()],
});

/** The writer's and indexer's routes as this test needs them: they echo what they were given. */
const owned = [
  defineRoute({
    method: 'GET',
    resource: '/entitiesV2',
    key: { name: 'urn', description: 'URN' },
    family: 'restli',
    access: { kind: 'open' },
    summary: 'read',
    query: z.object({ aspects: restliListParam().optional() }),
    handle: ({ key, query, context: seen }) =>
      Promise.resolve({ body: { urn: key, aspects: query.aspects, actor: seen.actor, url: seen.url } }),
  }),
  defineRoute({
    method: 'GET',
    resource: '/entitiesV2',
    family: 'restli',
    access: { kind: 'open' },
    summary: 'batch read',
    query: z.object({ ids: restliListParam() }),
    handle: ({ query }) => Promise.resolve({ body: { ids: query.ids } }),
  }),
  defineRoute({
    method: 'POST',
    resource: '/entities',
    action: 'missing',
    family: 'restli',
    access: { kind: 'open' },
    summary: 'fails',
    body: z.object({ urn: z.string() }),
    handle: ({ body }) => Promise.reject(new NotFoundError(`No entity ${body.urn}`)),
  }),
  defineRoute({
    method: 'GET',
    resource: '/openapi/gone',
    family: 'openapi',
    access: { kind: 'open' },
    summary: 'answers an error status itself',
    handle: () => Promise.resolve({ status: 412, body: { error: 'Expected version 2, actual version 3' } }),
  }),
];

describe('routeCaller', () => {
  describe('of routes in this process', () => {
    const call = routeCaller(owned);

    it('invokes the route with the key, the query (lists repeated) and the caller’s context', async () => {
      expect(
        await call(
          { method: 'GET', resource: '/entitiesV2', key: dataset, query: { aspects: ['status', 'ownership'] } },
          context(),
        ),
      ).toEqual({
        urn: dataset,
        aspects: ['status', 'ownership'],
        actor: 'urn:li:corpuser:jdoe',
        url: `/entitiesV2/${encodeURIComponent(dataset)}?aspects=status&aspects=ownership`,
      });
      expect(await call({ method: 'GET', resource: '/entitiesV2', query: { ids: [dataset, 'x'] } }, context())).toEqual(
        { ids: [dataset, 'x'] },
      );
    });

    it('throws what the route throws, and the typed error of an error status it answers', async () => {
      await expect(
        call({ method: 'POST', resource: '/entities', action: 'missing', body: { urn: dataset } }, context()),
      ).rejects.toThrow(new NotFoundError(`No entity ${dataset}`));
      await expect(call({ method: 'GET', resource: '/openapi/gone' }, context())).rejects.toThrow(
        new PreconditionFailedError('Expected version 2, actual version 3'),
      );
    });

    it('answers 503 for a route no service behind it serves: the deployment’s to fix, not the client’s', async () => {
      await expect(call({ method: 'POST', resource: '/entities', action: 'other' }, context())).rejects.toThrow(
        new UnavailableError('No service behind this process serves POST /entities?action=other'),
      );
    });
  });

  describe('of routes another process serves', () => {
    let server: Server;
    let base: string;
    let dispatcher: Agent;
    let seen: IncomingMessage | undefined;
    let routes: AnyRoute[];

    beforeAll(async () => {
      // The owner: the same routes, served over HTTP the way every service serves them.
      const app = createHttpApp({
        routes: owned,
        newId: () => 'service-request',
        anonymousActor: 'urn:li:corpuser:UNKNOWN',
        maxBodyBytes: 10_000,
        logger: { error: () => undefined },
        isReady: () => true,
      });
      server = createServer((request, response) => {
        seen = request;
        app(request, response);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      dispatcher = new Agent();
      routes = forwardedRoutes(describeService('metadata-writer', owned, []), base, {
        dispatcher,
        timeoutMs: 2_000,
        systemClient,
      });
    });

    afterAll(async () => {
      await dispatcher.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    });

    it('sends the call over HTTP as the system client naming the caller, with its trace context, and answers the JSON body', async () => {
      const call = routeCaller(routes);
      const answer = await call(
        { method: 'GET', resource: '/entitiesV2', key: dataset, query: { aspects: ['status'] } },
        context({
          authorization: 'Bearer token-1',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        }),
      );
      expect(answer).toMatchObject({ urn: dataset, aspects: ['status'] });
      expect(seen?.headers).toMatchObject({
        authorization: 'Basic __datahub_system:a-system-client-secret',
        'x-strata-actor': 'urn:li:corpuser:jdoe',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'x-request-id': 'request-1',
      });
    });

    it('throws the typed error of an error answer, with the owner’s message', async () => {
      const call = routeCaller(routes);
      await expect(
        call({ method: 'POST', resource: '/entities', action: 'missing', body: { urn: dataset } }, context()),
      ).rejects.toThrow(new NotFoundError(`No entity ${dataset}`));
      await expect(call({ method: 'GET', resource: '/openapi/gone' }, context())).rejects.toThrow(
        new PreconditionFailedError('Expected version 2, actual version 3'),
      );
    });

    it('throws 503 when the owner cannot be reached', async () => {
      const gone = forwardedRoutes(describeService('metadata-writer', owned, []), 'http://127.0.0.1:1', {
        dispatcher,
        timeoutMs: 2_000,
        systemClient,
      });
      await expect(
        routeCaller(gone)({ method: 'GET', resource: '/entitiesV2', key: dataset }, context()),
      ).rejects.toThrow(UnavailableError);
    });
  });
});

describe('urlOf', () => {
  it('percent-encodes the key and the query, the action first', () => {
    expect(urlOf({ method: 'POST', resource: '/entities', action: 'search', query: { q: 'a b&c' } })).toBe(
      '/entities?action=search&q=a+b%26c',
    );
    expect(urlOf({ method: 'GET', resource: '/aspects', key: 'urn:li:tag:x/y' })).toBe(
      '/aspects/urn%3Ali%3Atag%3Ax%2Fy',
    );
  });
});

describe('errorOfAnswer', () => {
  it('keeps the status’s typed error and the body’s message, of any family', () => {
    expect(errorOfAnswer(404, { message: 'gone', status: 404 }, 'The writer')).toEqual(new NotFoundError('gone'));
    expect(errorOfAnswer(404, { error: 'gone' }, 'The writer')).toEqual(new NotFoundError('gone'));
    expect(errorOfAnswer(404, undefined, 'The writer')).toEqual(new NotFoundError('The writer answered 404'));
  });

  it('makes a failure of the owner (a 500) a 502', () => {
    expect(errorOfAnswer(500, { message: 'Internal server error occurred' }, 'The writer')).toEqual(
      new BadGatewayError('The writer answered 500: Internal server error occurred'),
    );
  });
});
