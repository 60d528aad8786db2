/**
 * Swagger UI's "Try it out → Execute" on the generated OpenAPI document: the request it sends, built by swagger-client's
 * `buildRequest` (the library Swagger UI builds every request with), reaches the route the operation documents —
 * with the Rest.li action of an action route, the URN of a keyed route, a path parameter, and the query parameters
 * (typed, or filled in from the route's example).
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import { documentedPath, openApiDocument } from './api-docs';
import { createHttpApp } from './create-http-app';
import { listen, type RunningServer } from './http-server';
import { defineRoute, type Route } from './route';
import { describeRoute } from './service-table';

/** The request swagger-client builds (its `body` is handed to `fetch` serialized, as Swagger UI's `http` does). */
interface BuiltRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** The part of swagger-client's interface used here. */
interface SwaggerClient {
  buildRequest(options: {
    readonly spec: unknown;
    readonly operationId: string;
    readonly parameters: Readonly<Record<string, unknown>>;
    readonly requestBody?: unknown;
    readonly contextUrl: string;
  }): BuiltRequest;
}

// swagger-client ships no type declarations: loaded untyped, and given the interface above.
const swaggerClient = createRequire(__filename)('swagger-client') as SwaggerClient;

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly example?: unknown;
  readonly schema?: { readonly example?: unknown; readonly default?: unknown };
}

interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Record<string, { readonly example?: unknown }> };
}

interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
}

/** What every route answers: which route ran, and the inputs it was given. */
function echo(name: string) {
  return ({
    query,
    key,
    params,
  }: {
    query: unknown;
    key: string | undefined;
    params: Readonly<Record<string, string>>;
  }) => Promise.resolve({ body: { route: name, query, key: key ?? null, params } });
}

const URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders with space,PROD)';

const routes: Route[] = [
  defineRoute({
    method: 'POST',
    resource: '/aspects',
    action: 'ingestProposal',
    family: 'restli',
    access: { kind: 'writes' },
    summary: 'Ingest one aspect.',
    body: z.object({ proposal: z.object({ entityType: z.string() }) }),
    query: z.object({ async: z.enum(['true', 'false']).optional(), wait: z.enum(['indexed']).optional() }),
    example: { body: { proposal: { entityType: 'dataset' } } },
    handle: echo('ingestProposal'),
  }),
  defineRoute({
    method: 'POST',
    resource: '/aspects',
    action: 'ingestProposalBatch',
    family: 'restli',
    access: { kind: 'writes' },
    summary: 'Ingest aspects.',
    body: z.object({ proposals: z.array(z.object({ entityType: z.string() })) }),
    handle: echo('ingestProposalBatch'),
  }),
  defineRoute({
    method: 'GET',
    resource: '/aspects',
    key: { name: 'urn', description: 'Entity URN.' },
    family: 'restli',
    access: { kind: 'resource', group: 'ENTITY', operations: ['READ'], resource: { in: 'key' }, message: 'No.' },
    summary: 'One version of one aspect.',
    query: z.object({ aspect: z.string().min(1), version: z.coerce.number().int().default(0) }),
    handle: echo('getAspect'),
  }),
  defineRoute({
    method: 'GET',
    resource: '/relationships',
    family: 'restli',
    access: { kind: 'caller' },
    summary: 'Edges of an entity.',
    query: z.object({ urn: z.string().min(1), direction: z.enum(['INCOMING', 'OUTGOING']) }),
    example: { query: { urn: 'urn:li:corpuser:datahub', direction: 'INCOMING' } },
    handle: echo('relationships'),
  }),
  defineRoute({
    method: 'GET',
    resource: '/schema-registry/api/subjects/:subject/versions',
    family: 'schema-registry',
    access: { kind: 'open' },
    summary: 'Versions of a subject.',
    handle: echo('subjectVersions'),
  }),
];

/**
 * What a person does in Swagger UI for each operation: the values typed into the fields Swagger UI leaves empty (path
 * parameters, and the query parameters the route itself declares), and what the route must then receive.
 */
const cases: readonly {
  readonly route: Route;
  readonly typed: Readonly<Record<string, string>>;
  readonly expected: {
    readonly method: string;
    readonly path: string;
    /** Every query parameter of the URL, in order, repeated ones as often as they appear. */
    readonly query: readonly (readonly [string, string])[];
    readonly received: unknown;
  };
}[] = [
  {
    route: routes[0]!,
    typed: { wait: 'indexed' },
    expected: {
      method: 'POST',
      path: '/aspects',
      query: [
        ['action', 'ingestProposal'],
        ['wait', 'indexed'],
      ],
      received: { route: 'ingestProposal', query: { wait: 'indexed' }, key: null, params: {} },
    },
  },
  {
    route: routes[1]!,
    typed: {},
    expected: {
      method: 'POST',
      path: '/aspects',
      query: [['action', 'ingestProposalBatch']],
      received: { route: 'ingestProposalBatch', query: {}, key: null, params: {} },
    },
  },
  {
    route: routes[2]!,
    typed: { urn: URN, aspect: 'status' },
    expected: {
      method: 'GET',
      // The URN percent-encoded as one path segment, parentheses included.
      path: '/aspects/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Cdb.orders%20with%20space%2CPROD%29',
      query: [
        ['aspect', 'status'],
        ['version', '0'],
      ],
      received: { route: 'getAspect', query: { aspect: 'status', version: 0 }, key: URN, params: {} },
    },
  },
  {
    route: routes[3]!,
    // Nothing typed: the declared example fills the required parameters in.
    typed: {},
    expected: {
      method: 'GET',
      path: '/relationships',
      query: [
        ['urn', 'urn:li:corpuser:datahub'],
        ['direction', 'INCOMING'],
      ],
      received: {
        route: 'relationships',
        query: { urn: 'urn:li:corpuser:datahub', direction: 'INCOMING' },
        key: null,
        params: {},
      },
    },
  },
  {
    route: routes[4]!,
    typed: { subject: 'orders-value' },
    expected: {
      method: 'GET',
      path: '/schema-registry/api/subjects/orders-value/versions',
      query: [],
      received: { route: 'subjectVersions', query: {}, key: null, params: { subject: 'orders-value' } },
    },
  },
];

/**
 * The value Swagger UI puts in a parameter's field by itself, as its parameter row does for OpenAPI 3: the parameter's
 * example, else its schema's example, else its schema's default — as text.
 */
function prefilled(parameter: Parameter): string | undefined {
  const value = parameter.example ?? parameter.schema?.example ?? parameter.schema?.default;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

describe("Swagger UI's Execute on the generated document", () => {
  const document = openApiDocument(routes.map(describeRoute), {
    title: 'Test service',
    version: '1',
    description: 'Routes under test.',
  }) as unknown as Document;
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    const app = createHttpApp({
      routes,
      newId: () => 'id',
      anonymousActor: 'urn:li:corpuser:UNKNOWN',
      maxBodyBytes: 10_000,
      logger: { error: () => undefined },
      isReady: () => true,
    });
    server = await listen(app, '127.0.0.1', 0);
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await server.close(0);
  });

  it('covers every operation of the document', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const covered = cases.map(({ route }) => `${route.method} ${documentedPath(describeRoute(route))}`);
    expect(operations.sort()).toEqual(covered.sort());
  });

  it.each(
    cases.map(
      (testCase) => [`${testCase.route.method} ${documentedPath(describeRoute(testCase.route))}`, testCase] as const,
    ),
  )(
    'sends %s to its route, with the values Swagger UI fills in and those typed',
    async (_name, { route, typed, expected }) => {
      const operation = document.paths[documentedPath(describeRoute(route))]?.[route.method.toLowerCase()];
      if (operation === undefined) throw new Error(`${route.method} ${documentedPath(route)} is not documented`);
      const parameters: Record<string, string> = {};
      for (const parameter of operation.parameters ?? []) {
        const value = typed[parameter.name] ?? prefilled(parameter);
        if (value !== undefined) parameters[parameter.name] = value;
      }
      // Swagger UI sends the body it shows: the media type's example.
      const requestBody = operation.requestBody?.content['application/json']?.example;

      // Throws, as Swagger UI refuses to execute, when a required parameter has no value.
      const request = swaggerClient.buildRequest({
        spec: document,
        operationId: operation.operationId,
        parameters,
        ...(requestBody === undefined ? {} : { requestBody }),
        contextUrl: `${base}/openapi/v3/api-docs`,
      });

      const url = new URL(request.url);
      expect({ method: request.method, origin: url.origin, path: url.pathname, query: [...url.searchParams] }).toEqual({
        method: expected.method,
        origin: base,
        path: expected.path,
        query: expected.query,
      });
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined
          ? {}
          : { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }),
      });
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 200,
        body: expected.received,
      });
    },
  );
});
