import { z } from 'zod';
import { UnauthorizedError } from '@strata/model';
import { createHttpApp } from './create-http-app';
import { listen, type RunningServer } from './http-server';
import type { RouteGuard } from './mount-routes';
import { defineRoute, type AnyRoute, type Route } from './route';

const anonymous = 'urn:li:corpuser:UNKNOWN';

/** A guard that wants a caller for every route that is not open, and says which bodies it read. */
function callerGuard(bodies: unknown[]): RouteGuard {
  return {
    admit(routes, context) {
      if (routes.every((route) => route.access.kind !== 'open') && context.actor === anonymous) {
        throw new UnauthorizedError('Unauthorized to perform this action.');
      }
    },
    async check(route, { context, body }) {
      if (route.access.kind === 'open') return;
      if (context.actor === anonymous) throw new UnauthorizedError('Unauthorized to perform this action.');
      if (route.access.kind === 'resource') bodies.push(await body());
    },
  };
}

const ingest = defineRoute({
  method: 'POST',
  resource: '/aspects',
  action: 'ingestProposal',
  family: 'restli',
  access: { kind: 'writes' },
  summary: 'ingest',
  body: z.object({ proposal: z.record(z.string(), z.unknown()) }),
  handle: () => Promise.resolve({ body: { value: 'success' } }),
});
const search = defineRoute({
  method: 'POST',
  resource: '/entities',
  action: 'search',
  family: 'restli',
  access: {
    kind: 'resource',
    group: 'ENTITY',
    operations: ['READ'],
    resource: { in: 'bodyTypes', names: ['entity'] },
    message: 'no',
  },
  summary: 'search',
  body: z.object({ input: z.string() }).loose(),
  handle: ({ body }) => Promise.resolve({ body: { value: body } }),
});

/** Routes of a resource with a path parameter and a key, in the methods HEAD and PATCH too. */
const keyed = (['GET', 'HEAD', 'PATCH'] as const).map((method) =>
  defineRoute({
    method,
    resource: '/things/:kind',
    key: { name: 'urn', description: 'a URN' },
    family: 'openapi',
    access: { kind: 'open' },
    summary: `${method} a thing`,
    handle: ({ key, params }) =>
      Promise.resolve(method === 'HEAD' ? { status: 204 } : { body: { method, kind: params['kind'], key } }),
  }),
);

describe('mounting routes', () => {
  let server: RunningServer;
  let base: string;
  const bodies: unknown[] = [];

  beforeAll(async () => {
    const app = createHttpApp({
      routes: [ingest, search, ...keyed],
      newId: () => 'request-1',
      anonymousActor: anonymous,
      authenticate: (request) =>
        Promise.resolve(request.header('authorization') === 'Bearer good' ? 'urn:li:corpuser:jdoe' : anonymous),
      guard: callerGuard(bodies),
      maxBodyBytes: 1024,
      logger: { error: () => undefined },
      isReady: () => true,
    });
    server = await listen(app, '127.0.0.1', 0);
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server.close(0);
  });

  const post = (path: string, body: string, authorization?: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      body,
      headers: authorization === undefined ? {} : { authorization },
    });

  it('answers a caller without the credentials a route needs 401, whatever is wrong with the request', async () => {
    for (const body of ['{not json', '{"proposal": 3}', '']) {
      const response = await post('/aspects?action=ingestProposal', body);
      expect(response.status).toBe(401);
    }
    // The action is chosen after the caller is known: no schema of the resource leaks to an anonymous caller.
    expect((await post('/aspects?action=nothing', '{}')).status).toBe(401);
    expect((await post('/aspects', '{}')).status).toBe(401);
  });

  it('validates once the caller may call the route', async () => {
    expect((await post('/aspects?action=ingestProposal', '{not json', 'Bearer good')).status).toBe(400);
    expect((await post('/aspects?action=ingestProposal', '{"proposal": 3}', 'Bearer good')).status).toBe(400);
    expect((await post('/aspects?action=ingestProposal', '{"proposal": {}}', 'Bearer good')).status).toBe(200);
  });

  it('lets the guard read the body it needs, and gives the route the same body', async () => {
    const response = await post('/entities?action=search', '{"input": "x", "entity": "dataset"}', 'Bearer good');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ value: { input: 'x', entity: 'dataset' } });
    expect(bodies).toEqual([{ input: 'x', entity: 'dataset' }]);
  });

  it('takes the key after the path parameters of its resource, slashes and percent-encoding included', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:s3,bucket/raw,PROD)';
    for (const path of [`/things/dataset/${urn}/status`, `/things/dataset/${encodeURIComponent(urn)}/status`]) {
      const response = await fetch(`${base}${path}`);
      expect(await response.json()).toEqual({ method: 'GET', kind: 'dataset', key: `${urn}/status` });
    }
    const patched = await fetch(`${base}/things/chart/urn:li:chart:(looker,c1)`, { method: 'PATCH', body: '[]' });
    expect(await patched.json()).toEqual({ method: 'PATCH', kind: 'chart', key: 'urn:li:chart:(looker,c1)' });
    const head = await fetch(`${base}/things/chart/urn:li:chart:(looker,c1)`, { method: 'HEAD' });
    expect(head.status).toBe(204);
    const wrong = await fetch(`${base}/things/chart/urn:li:chart:(looker,c1)`, { method: 'DELETE' });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET, HEAD, PATCH']);
  });

  it('refuses at start-up to serve a route whose access is not declared, or an internal route declared otherwise', () => {
    const { access: _access, ...undeclared } = ingest;
    const serve = (routes: readonly AnyRoute[]) =>
      createHttpApp({
        routes,
        newId: () => 'id',
        anonymousActor: anonymous,
        maxBodyBytes: 1024,
        logger: { error: () => undefined },
        isReady: () => true,
      });
    expect(() => serve([undeclared as unknown as Route])).toThrow(
      'POST /aspects?action=ingestProposal: no access declared',
    );
    expect(() => serve([{ ...ingest, resource: '/internal/writes' }])).toThrow('must be declared internal');
    expect(() => serve([{ ...ingest, access: { kind: 'internal' } }])).toThrow('only routes under /internal/');
    expect(() => serve([{ ...ingest, access: { kind: 'whatever' } } as unknown as Route])).toThrow('malformed');
  });
});
