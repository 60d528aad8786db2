import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { validateOpenApi } from '@strata/testing';
import { documentedPath, exampleOf, openApiDocument, sampleOf } from './api-docs';
import { createHttpApp } from './create-http-app';
import { prefersJson } from './home-page';
import { listen, type RunningServer } from './http-server';
import { defineRoute, type AnyRoute, type ForwardedRoute } from './route';
import { describeRoute } from './service-table';

const local = [
  defineRoute({
    method: 'POST',
    resource: '/aspects',
    action: 'ingestProposal',
    family: 'restli',
    access: { kind: 'writes' },
    summary: 'Ingest one aspect.',
    body: z.object({ proposal: z.record(z.string(), z.unknown()), async: z.enum(['true', 'false']).optional() }),
    query: z.object({ wait: z.enum(['indexed']).optional() }),
    example: { body: { proposal: { entityType: 'dataset' } } },
    handle: () => Promise.resolve({ body: { value: 'success' } }),
  }),
  defineRoute({
    method: 'GET',
    resource: '/aspects',
    key: { name: 'urn', description: 'Entity URN.' },
    family: 'restli',
    access: { kind: 'resource', group: 'ENTITY', operations: ['READ'], resource: { in: 'key' }, message: 'No.' },
    summary: 'One version of one aspect.',
    query: z.object({ aspect: z.string().min(1), version: z.coerce.number().int().default(0) }),
    handle: () => Promise.resolve({ body: {} }),
  }),
  defineRoute({
    method: 'GET',
    resource: '/schema-registry/api/subjects/:subject/versions',
    family: 'schema-registry',
    access: { kind: 'open' },
    summary: 'Versions of a subject.',
    handle: () => Promise.resolve({ body: [] }),
  }),
];

const forwarded: ForwardedRoute = {
  kind: 'forwarded',
  method: 'POST',
  resource: '/entities',
  key: undefined,
  action: 'search',
  family: 'restli',
  access: { kind: 'caller', always: true },
  summary: 'Search.',
  description: 'Served by the search indexer.',
  query: undefined,
  body: {
    type: 'object',
    properties: { input: { type: 'string' }, entity: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
    required: ['input', 'entity'],
  },
  example: undefined,
  owner: 'search-indexer',
  forward: (_request: IncomingMessage, response: ServerResponse) => {
    response.end();
    return Promise.resolve();
  },
  call: () => Promise.resolve({}),
};

const routes: AnyRoute[] = [...local, forwarded];

describe('generated documentation', () => {
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    const app = createHttpApp({
      routes,
      newId: () => 'id',
      anonymousActor: 'urn:li:corpuser:UNKNOWN',
      maxBodyBytes: 1024,
      logger: { error: () => undefined },
      isReady: () => true,
      documentation: { title: 'Test service', version: '1', description: 'Routes under test.' },
    });
    server = await listen(app, '127.0.0.1', 0);
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server.close(0);
  });

  /** Every route the app mounts: its own (health, metrics, the documentation) and those given. */
  const mounted = [
    'GET /',
    'GET /openapi/swagger-ui',
    'GET /health',
    'GET /metrics',
    'GET /restli/docs',
    'GET /openapi/v3/api-docs',
    'GET /openapi/swagger-ui/index.html',
    'POST /aspects?action=ingestProposal',
    'GET /aspects/{urn}',
    'GET /schema-registry/api/subjects/{subject}/versions',
    'POST /entities?action=search',
  ];

  it('lists every mounted route in the OpenAPI document, which is valid OpenAPI 3.1', async () => {
    const document = (await (await fetch(`${base}/openapi/v3/api-docs`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual([...mounted].sort());
    expect(document.openapi).toBe('3.1.0');
    expect(validateOpenApi(document)).toEqual({ valid: true });
  });

  it('documents a forwarded route from the schemas its owner published, as fully as a local one', async () => {
    const document = (await (await fetch(`${base}/openapi/v3/api-docs`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: unknown; example: unknown }> }; parameters?: unknown[] }
        >
      >;
    };
    const search = document.paths['/entities?action=search']?.['post'];
    expect(search?.requestBody?.content['application/json']).toEqual({
      schema: forwarded.body,
      example: { input: 'string', entity: 'string' },
    });
    // The action is in the path alone: a required `action` parameter is a field Swagger UI refuses to send empty.
    expect(search?.parameters).toBeUndefined();
    const read = document.paths['/aspects/{urn}']?.['get'];
    expect(read?.parameters).toEqual([
      { name: 'urn', in: 'path', required: true, description: 'Entity URN.', schema: { type: 'string' } },
      { name: 'aspect', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
      expect.objectContaining({ name: 'version', in: 'query', required: false }),
    ]);
  });

  it('lists every mounted route in /restli/docs with its parameters, body fields and an example request', async () => {
    const page = await (await fetch(`${base}/restli/docs`)).text();
    for (const route of mounted) {
      const [method, path] = route.split(' ') as [string, string];
      expect(page).toContain(`<span class="method">${method}</span> <code>${path.replace(/&/g, '&#38;')}</code>`);
    }
    expect(page).toContain('<code>proposal</code></td><td>map</td><td>yes</td>');
    expect(page).toContain('<p class="access">Access: Open to everyone, without credentials.</p>');
    expect(page).toContain(
      `curl -X POST &#39;http://127.0.0.1:${server.port}/aspects?action=ingestProposal&#39; \\\n  -H &#39;X-RestLi-Protocol-Version: 2.0.0&#39;`,
    );
    expect(page).toContain(`/aspects/&#60;urn&#62;?aspect=string`);
  });

  it('declares the access token, and on each operation the security, access sentence and declaration of its route', async () => {
    const document = (await (await fetch(`${base}/openapi/v3/api-docs`)).json()) as {
      components: { securitySchemes: Record<string, Record<string, unknown>> };
      paths: Record<
        string,
        Record<string, { security: unknown; description: string; 'x-strata-access': unknown; summary: string }>
      >;
    };
    expect(document.components.securitySchemes).toEqual({
      accessToken: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }) as unknown,
    });
    expect(document.components.securitySchemes['accessToken']?.['description']).toContain(
      '`Authorization: Basic <client id>:<client secret>`',
    );
    const ingest = document.paths['/aspects?action=ingestProposal']?.['post'];
    expect(ingest?.security).toEqual([{ accessToken: [] }]);
    expect(ingest?.['x-strata-access']).toEqual({ kind: 'writes' });
    expect(ingest?.description).toMatch(
      /^\*\*Access:\*\* Any caller; each proposal then needs .* With authentication off, no token is needed: a request without one acts as the anonymous user\.$/,
    );
    const read = document.paths['/aspects/{urn}']?.['get'];
    expect(read?.security).toEqual([{ accessToken: [] }]);
    expect(read?.description).toContain(
      "**Access:** Needs DataHub's ENTITY READ privilege on the entity in the path, with authentication on. With authentication off, no token is needed: a request without one acts as the anonymous user.",
    );
    const search = document.paths['/entities?action=search']?.['post'];
    expect(search?.description).toBe(
      'Served by the search indexer.\n\n**Access:** Any caller; credentials are needed with authentication on or off.',
    );
    const versions = document.paths['/schema-registry/api/subjects/{subject}/versions']?.['get'];
    expect(versions?.security).toEqual([]);
    expect(versions?.['x-strata-access']).toEqual({ kind: 'open' });
    expect(versions?.description).toBe('**Access:** Open to everyone, without credentials.');
  });

  it('serves Swagger UI at its plain path, with or without the trailing slash, and at index.html, with its assets', async () => {
    for (const path of ['/openapi/swagger-ui', '/openapi/swagger-ui/', '/openapi/swagger-ui/index.html']) {
      const page = await fetch(`${base}${path}`, { redirect: 'manual' });
      expect({ path, status: page.status, type: page.headers.get('content-type') }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      expect(await page.text()).toContain("url: '/openapi/v3/api-docs'");
    }
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
      expect((await fetch(`${base}/openapi/swagger-ui/${asset}`)).status).toBe(200);
    }
  });

  it('answers GET / with a page linking the documentation, health and configuration, with example requests', async () => {
    const response = await fetch(`${base}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('vary')).toBe('Accept');
    const page = await response.text();
    for (const href of ['/openapi/swagger-ui', '/restli/docs', '/openapi/v3/api-docs', '/health']) {
      expect(page).toContain(`<a href="${href}">`);
    }
    // Only what this process serves: it has no /config.
    expect(page).not.toContain('/config');
    expect(page).toContain(`curl -X POST &#39;http://127.0.0.1:${server.port}/aspects?action=ingestProposal&#39;`);
    expect(page).toContain(`curl -X POST &#39;http://127.0.0.1:${server.port}/entities?action=search&#39;`);
    // Self-contained: no script, no image, no style sheet; its links are paths of this server (or inline data).
    expect(page).not.toMatch(/<(script|img|iframe)\b|rel="stylesheet"|\ssrc=/);
    for (const [, href] of page.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^(\/|data:)/);
  });

  it('answers GET / with the same links as JSON to a client that asks for JSON', async () => {
    const response = await fetch(`${base}/`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      name: 'Test service',
      version: '1',
      description: 'Routes under test.',
      links: {
        swaggerUi: '/openapi/swagger-ui',
        restliDocs: '/restli/docs',
        openApi: '/openapi/v3/api-docs',
        health: '/health',
      },
    });
  });
});

describe('documentation helpers', () => {
  it('addresses Rest.li actions, keys and named parameters as clients write them', () => {
    expect(routes.map((route) => documentedPath(describeRoute(route)))).toEqual([
      '/aspects?action=ingestProposal',
      '/aspects/{urn}',
      '/schema-registry/api/subjects/{subject}/versions',
      '/entities?action=search',
    ]);
  });

  it('makes up an example from the schemas when none is declared, and keeps a declared one', () => {
    expect(exampleOf(describeRoute(local[1]!))).toEqual({ query: { aspect: 'string' } });
    expect(exampleOf(describeRoute(local[0]!))).toEqual({ body: { proposal: { entityType: 'dataset' } } });
    expect(sampleOf({ anyOf: [{ type: 'null' }, { type: 'integer', minimum: 5 }] })).toBe(5);
    expect(sampleOf({ type: 'array', items: { enum: ['a', 'b'] } })).toEqual(['a']);
  });

  it('chooses JSON for the front door only when the client prefers it to HTML', () => {
    expect(prefersJson('application/json')).toBe(true);
    expect(prefersJson('application/json, text/plain, */*')).toBe(true);
    expect(prefersJson('text/html;q=0.5, application/*')).toBe(true);
    expect(prefersJson(undefined)).toBe(false);
    expect(prefersJson('*/*')).toBe(false);
    expect(prefersJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(false);
    expect(prefersJson('application/json;q=0.5, text/html')).toBe(false);
    expect(prefersJson('application/json;q=0, */*')).toBe(false);
  });

  it('keeps operation ids unique', () => {
    const document = openApiDocument([describeRoute(local[1]!), { ...describeRoute(local[1]!), method: 'POST' }], {
      title: 't',
      version: '1',
      description: 'd',
    }) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});
