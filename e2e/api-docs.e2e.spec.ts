/**
 * The generated documentation, on the standalone process and on a gateway in front of the services (the one whose
 * routes are forwarded: standalone on Kafka serves the same routes in-process as standalone): `/restli/docs` and
 * `/openapi/v3/api-docs` list every public route — those a gateway forwards to the services behind it included, with
 * the schemas those services published — and the OpenAPI document is valid OpenAPI 3.1.
 */
import { sharedDeployment, TestHttpClient, validateOpenApi } from '@strata/testing';

/** The public routes every deployment serves, as the documentation addresses them. */
const publicRoutes = [
  'POST /aspects?action=ingestProposal',
  'POST /aspects?action=ingestProposalBatch',
  'POST /entities?action=ingest',
  'POST /entities?action=batchIngest',
  'GET /entitiesV2/{urn}',
  'GET /entitiesV2',
  'GET /entities/{urn}',
  'GET /aspects/{urn}',
  'POST /entities?action=search',
  'POST /entities?action=browse',
  'POST /entities?action=autocomplete',
  'GET /relationships',
  'DELETE /relationships',
  'GET /openapi/operations/indices/progress',
  'GET /health',
  'GET /metrics',
  'GET /restli/docs',
  'GET /openapi/v3/api-docs',
  'GET /openapi/swagger-ui/index.html',
  'GET /schema-registry/api/subjects',
  'GET /',
  'GET /openapi/swagger-ui',
];

interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
}

describe.each(['standalone', 'distributed'] as const)('%s', (deployment) => {
  let http: TestHttpClient;
  let baseUrl: string;

  beforeAll(async () => {
    baseUrl = (await sharedDeployment(deployment)).baseUrl;
    http = new TestHttpClient(baseUrl);
  });

  it('serves a valid OpenAPI 3.1 document listing every public route', async () => {
    const response = await http.get('/openapi/v3/api-docs');
    expect(response.status).toBe(200);
    const document = response.json as OpenApiDocument;
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(expect.arrayContaining(publicRoutes));
    expect(operations).not.toContain('GET /internal/service');
    expect(validateOpenApi(document)).toEqual({ valid: true });
  });

  it('documents the routes the services own with their schemas, also when the gateway forwards them', async () => {
    const document = (await http.get('/openapi/v3/api-docs')).json as OpenApiDocument;
    const search = document.paths['/entities?action=search']?.['post']?.requestBody?.content['application/json'];
    expect(search?.schema).toMatchObject({
      type: 'object',
      properties: { input: expect.any(Object), entity: expect.any(Object), filter: expect.any(Object) },
    });
    const batch =
      document.paths['/aspects?action=ingestProposalBatch']?.['post']?.requestBody?.content['application/json'];
    expect(batch?.schema).toMatchObject({ properties: { proposals: { type: 'array' } } });
  });

  it('lists every public route in /restli/docs, with an example request', async () => {
    const response = await http.get('/restli/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    for (const route of publicRoutes) {
      const [method, path] = route.split(' ') as [string, string];
      expect(response.text).toContain(
        `<span class="method">${method}</span> <code>${path.replace(/&/g, '&#38;')}</code>`,
      );
    }
    expect(response.text).toContain('curl -X POST &#39;');
  });

  it('leads a browser from / to the documentation, and a client asking for JSON to the same places', async () => {
    const page = await http.get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    for (const link of ['/openapi/swagger-ui', '/restli/docs', '/openapi/v3/api-docs', '/health', '/config']) {
      expect(page.text).toContain(`href="${link}"`);
    }
    expect(page.text).toContain('curl -X POST');
    const json = await http.get('/', { Accept: 'application/json' });
    expect(json.json).toMatchObject({
      links: {
        swaggerUi: expect.any(String),
        restliDocs: expect.any(String),
        openApi: expect.any(String),
        health: expect.any(String),
        config: expect.any(String),
      },
    });
  });

  it('serves Swagger UI at its plain path, with an Authorize button for the routes that need a token', async () => {
    for (const path of ['/openapi/swagger-ui', '/openapi/swagger-ui/', '/openapi/swagger-ui/index.html']) {
      const response = await fetch(`${baseUrl}${path}`, { redirect: 'manual' });
      expect({ path, status: response.status, type: response.headers.get('content-type') }).toMatchObject({
        status: 200,
        type: expect.stringMatching(/^text\/html/),
      });
    }
    expect((await http.get('/openapi/swagger-ui/swagger-ui-bundle.js')).status).toBe(200);
    const document = (await http.get('/openapi/v3/api-docs')).json as {
      components: { securitySchemes: Record<string, { type: string; scheme: string }> };
      paths: Record<string, Record<string, { parameters?: { name: string }[]; security?: unknown[] }>>;
    };
    expect(document.components.securitySchemes['accessToken']).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ingest = document.paths['/aspects?action=ingestProposal']?.['post'];
    expect(ingest?.security).toEqual([{ accessToken: [] }]);
    // Swagger UI sends the action as the path names it: no separate parameter it would ask a person to fill in.
    expect((ingest?.parameters ?? []).map((parameter) => parameter.name)).not.toContain('action');
    expect(document.paths['/health']?.['get']?.security).toEqual([]);
  });
});
