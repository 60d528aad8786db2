/**
 * The generated documentation, on every deployment: `/restli/docs` and `/openapi/v3/api-docs` list every public route
 * — those a gateway forwards to the services behind it included, with the schemas those services published — and the
 * OpenAPI document is valid OpenAPI 3.1.
 */
import {
  deploymentNames,
  startDeployment,
  startKafkaTestBroker,
  TestHttpClient,
  type KafkaTestBroker,
  type RunningDeployment,
  validateOpenApi,
} from '@strata/testing';

/** The public routes every deployment serves, as the documentation addresses them. */
const publicRoutes = [
  'POST /aspects?action=ingestProposal',
  'POST /aspects?action=ingestProposalBatch',
  'POST /entities?action=ingest',
  'GET /entitiesV2/{urn}',
  'GET /entitiesV2',
  'GET /entities/{urn}',
  'GET /aspects/{urn}',
  'POST /entities?action=search',
  'POST /entities?action=browse',
  'POST /entities?action=autocomplete',
  'GET /relationships',
  'GET /openapi/operations/indices/progress',
  'GET /health',
  'GET /metrics',
  'GET /restli/docs',
  'GET /openapi/v3/api-docs',
  'GET /openapi/swagger-ui/index.html',
  'GET /schema-registry/api/subjects',
];

interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
}

let broker: KafkaTestBroker;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

describe.each(deploymentNames)('%s', (deployment) => {
  let strata: RunningDeployment;
  let http: TestHttpClient;

  beforeAll(async () => {
    strata = await startDeployment(deployment, { kafkaBrokers: broker.brokers });
    http = new TestHttpClient(strata.baseUrl);
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
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
});
