import type { JsonSchema, RouteExample } from './route';
import { appliesAlways, describeAccess, type RouteAccess } from './route-access';
import type { RouteDescriptor } from './service-table';

/**
 * Documentation generated from route descriptors — the same declarations that mount the routes, or the tables
 * services publish for the routes a gateway forwards — so that it lists exactly what is served: an OpenAPI 3.1
 * document and the Rest.li-style HTML index at `/restli/docs`.
 */

/** The OpenAPI document's `info`. */
export interface ApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
}

type OpenApiObject = Record<string, unknown>;

/** The error bodies of the three endpoint families, as OpenAPI components. */
const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  RestliError: {
    type: 'object',
    description: "DataHub's Rest.li error body, sent with `X-RestLi-Error-Response: true`.",
    properties: {
      exceptionClass: { type: 'string' },
      stackTrace: { type: 'string' },
      message: { type: 'string' },
      status: { type: 'integer' },
    },
    required: ['exceptionClass', 'message', 'status'],
  },
  OpenApiError: {
    type: 'object',
    description: 'The error body of the /openapi endpoints.',
    properties: { error: { type: 'string' } },
    required: ['error'],
  },
  SchemaRegistryError: {
    type: 'object',
    description: "Confluent's schema-registry error body.",
    properties: { error_code: { type: 'integer' }, message: { type: 'string' } },
    required: ['error_code', 'message'],
  },
  GraphqlError: {
    type: 'object',
    description: 'The GraphQL-over-HTTP body of a request refused before it is executed.',
    properties: { errors: { type: 'array', items: { type: 'object', properties: { message: { type: 'string' } } } } },
    required: ['errors'],
  },
};

/** The name of the access-token scheme in `components.securitySchemes`. */
const ACCESS_TOKEN_SCHEME = 'accessToken';

/**
 * How a caller authenticates, as OpenAPI security schemes: an access token (Swagger UI's Authorize button sends it as
 * `Authorization: Bearer <token>`). The system client's `Basic <id>:<secret>` is described, not declared: OpenAPI's
 * `basic` scheme is base64 of the pair, which DataHub's convention is not, so a client following it would be refused.
 */
const SECURITY_SCHEMES = {
  [ACCESS_TOKEN_SCHEME]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "A DataHub access token, sent as `Authorization: Bearer <token>`: a session token from logging in, or a personal access token. Routes that need no credentials ignore it. The deployment's system client authenticates instead with `Authorization: Basic <client id>:<client secret>` — the pair itself, not base64-encoded, as DataHub writes it — which this scheme cannot send: use it from curl or DataHub's clients.",
  },
} as const;

const ERROR_SCHEMA_OF_FAMILY = {
  restli: 'RestliError',
  openapi: 'OpenApiError',
  'schema-registry': 'SchemaRegistryError',
  graphql: 'GraphqlError',
} as const;

/**
 * The path a route is documented under: its resource with `{name}` for path parameters (`/entitiesV2/{urn}`,
 * `/subjects/{subject}`), and `?action=<name>` for a Rest.li action, which is how clients address one
 * (`/aspects?action=ingestProposal`) and keeps the actions of one resource apart. The action is part of the path
 * only, not a parameter too: Swagger UI (swagger-client) keeps the query written in a path and appends the parameters
 * to it, whereas a required `action` parameter would be one more field to fill in before a request can be sent.
 */
export function documentedPath(route: RouteDescriptor): string {
  const resource = route.resource.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const path = route.key ? `${resource}/{${route.key.name}}` : resource;
  return route.action === undefined ? path : `${path}?action=${route.action}`;
}

/** An OpenAPI 3.1 document of the routes (JSON Schema 2020-12, the dialect of OpenAPI 3.1). */
export function openApiDocument(routes: readonly RouteDescriptor[], info: ApiInfo): OpenApiObject {
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const item = (paths[documentedPath(route)] ??= {});
    item[route.method.toLowerCase()] = operation(route, uniqueId(operationIdOf(route), operationIds));
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    paths,
    components: { schemas: ERROR_SCHEMAS, securitySchemes: SECURITY_SCHEMES },
  };
}

function operation(route: RouteDescriptor, operationId: string): OpenApiObject {
  const parameters = parametersOf(route);
  const body = route.body;
  return {
    operationId,
    summary: route.summary,
    description: [route.description, `**Access:** ${accessText(route.access)}`]
      .filter((part) => part !== undefined)
      .join('\n\n'),
    tags: [tagOf(route)],
    // No requirement for an open route; a token otherwise (whether it is needed with authentication off is said in
    // the description: OpenAPI cannot make a requirement depend on the deployment's configuration).
    security: route.access.kind === 'open' ? [] : [{ [ACCESS_TOKEN_SCHEME]: [] }],
    'x-strata-access': route.access,
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined || route.method === 'GET' || route.method === 'HEAD' || route.method === 'DELETE'
      ? {}
      : {
          requestBody: {
            required: isRequiredBody(body),
            content: {
              'application/json': {
                schema: body,
                example: exampleOf(route).body ?? sampleOf(body),
              },
            },
          },
        }),
    responses: {
      '200': { description: 'Success.' },
      default: {
        description: `An error, in the ${route.family} error body.`,
        content: {
          'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_OF_FAMILY[route.family]}` } },
        },
      },
    },
  };
}

/**
 * Who may call a route ({@link describeAccess}), and, for a check that applies only with authentication on and whose
 * sentence does not say when credentials are needed, what authentication off means for the token.
 */
function accessText(access: RouteAccess): string {
  const sentence = describeAccess(access);
  if (access.kind === 'open' || access.kind === 'internal' || access.kind === 'caller' || appliesAlways(access)) {
    return sentence;
  }
  return `${sentence} With authentication off, no token is needed: a request without one acts as the anonymous user.`;
}

/**
 * Path parameters, then the query parameters the query schema declares (with the route's example value, which
 * Swagger UI fills in). The Rest.li action is in the path (see {@link documentedPath}).
 */
function parametersOf(route: RouteDescriptor): OpenApiObject[] {
  const parameters: OpenApiObject[] = [];
  for (const match of route.resource.matchAll(/:([A-Za-z0-9_]+)/g)) {
    parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.key) {
    parameters.push({
      name: route.key.name,
      in: 'path',
      required: true,
      description: route.key.description,
      schema: { type: 'string' },
    });
  }
  for (const field of fieldsOf(route.query)) {
    const example = route.example?.query?.[field.name];
    parameters.push({
      name: field.name,
      in: 'query',
      required: field.required,
      ...(field.description === undefined ? {} : { description: field.description }),
      schema: field.schema,
      ...(example === undefined ? {} : { example }),
    });
  }
  return parameters;
}

/** One top-level field of an object schema. */
interface Field {
  readonly name: string;
  readonly required: boolean;
  readonly schema: JsonSchema;
  readonly description: string | undefined;
}

/** The top-level fields an object schema declares (none for other schemas). */
export function fieldsOf(schema: JsonSchema | undefined): Field[] {
  const properties = schema?.['properties'];
  if (!isObject(properties)) return [];
  const required = new Set(Array.isArray(schema?.['required']) ? (schema['required'] as unknown[]) : []);
  return Object.entries(properties).map(([name, fieldSchema]) => {
    const field = isObject(fieldSchema) ? fieldSchema : {};
    const description = field['description'];
    return {
      name,
      required: required.has(name),
      schema: field,
      description: typeof description === 'string' ? description : undefined,
    };
  });
}

function isRequiredBody(schema: JsonSchema): boolean {
  return Array.isArray(schema['required']) && (schema['required'] as unknown[]).length > 0;
}

/** A short description of a schema's type, for the HTML tables: `string`, `integer`, `array of string`, `A | B`. */
export function typeOf(schema: JsonSchema): string {
  const anyOf = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(anyOf)) {
    return [...new Set(anyOf.filter(isObject).map((member) => typeOf(member)))].join(' | ');
  }
  if (Array.isArray(schema['enum']))
    return (schema['enum'] as unknown[]).map((value) => JSON.stringify(value)).join(' | ');
  if (schema['const'] !== undefined) return JSON.stringify(schema['const']);
  const type = schema['type'];
  if (type === 'array') {
    const items = schema['items'];
    return isObject(items) ? `array of ${typeOf(items)}` : 'array';
  }
  if (type === 'object' && isObject(schema['additionalProperties']) && schema['properties'] === undefined) {
    return 'map';
  }
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.join(' | ');
  return 'any';
}

/** The route's example: the declared one, else one made up from the schemas. */
export function exampleOf(route: RouteDescriptor): RouteExample {
  if (route.example !== undefined) return route.example;
  const query: Record<string, string> = {};
  for (const field of fieldsOf(route.query)) {
    if (!field.required) continue;
    const sample = sampleOf(field.schema);
    query[field.name] = typeof sample === 'string' ? sample : JSON.stringify(sample);
  }
  return {
    ...(Object.keys(query).length === 0 ? {} : { query }),
    ...(route.body === undefined || route.method === 'GET' || route.method === 'HEAD'
      ? {}
      : { body: sampleOf(route.body) }),
  };
}

/** A value that fits a schema: its default or first allowed value, required object fields only. */
export function sampleOf(schema: JsonSchema, depth = 0): unknown {
  if (schema['default'] !== undefined) return schema['default'];
  if (schema['const'] !== undefined) return schema['const'];
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[])[0];
  const anyOf = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(anyOf)) {
    const member = anyOf.filter(isObject).find((candidate) => candidate['type'] !== 'null');
    return member === undefined ? null : sampleOf(member, depth);
  }
  if (depth > 6) return null;
  switch (schema['type']) {
    case 'object': {
      const sample: Record<string, unknown> = {};
      for (const field of fieldsOf(schema)) if (field.required) sample[field.name] = sampleOf(field.schema, depth + 1);
      return sample;
    }
    case 'array':
      return isObject(schema['items']) ? [sampleOf(schema['items'], depth + 1)] : [];
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' && schema['minimum'] > 0 ? schema['minimum'] : 0;
    case 'boolean':
      return false;
    default:
      return {};
  }
}

/** A curl command making the route's example request against `baseUrl`. */
export function exampleRequest(route: RouteDescriptor, baseUrl: string): string {
  const example = exampleOf(route);
  const path = route.resource
    .replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => `<${name}>`)
    .concat(route.key ? `/<${route.key.name}>` : '');
  const query = new URLSearchParams({
    ...(route.action === undefined ? {} : { action: route.action }),
    ...example.query,
  }).toString();
  const url = `${baseUrl}${path}${query === '' ? '' : `?${query}`}`;
  const parts = [`curl -X ${route.method} '${url}'`];
  if (route.family === 'restli') parts.push(`-H 'X-RestLi-Protocol-Version: 2.0.0'`);
  if (example.body !== undefined) {
    parts.push(
      `-H 'Content-Type: application/json'`,
      `--data '${JSON.stringify(example.body).replace(/'/g, "'\\''")}'`,
    );
  }
  return parts.join(' \\\n  ');
}

/**
 * The HTML index of `/restli/docs`: every resource and action, with method, path, parameters, body fields and an
 * example request.
 */
export function restliDocsPage(routes: readonly RouteDescriptor[], title: string, baseUrl: string): string {
  const byResource = new Map<string, RouteDescriptor[]>();
  for (const route of [...routes].sort((a, b) => a.resource.localeCompare(b.resource))) {
    const list = byResource.get(route.resource) ?? [];
    list.push(route);
    byResource.set(route.resource, list);
  }
  const sections = [...byResource].map(([resource, list]) => {
    const entries = list.map((route) => {
      const parameters = [
        ...(route.key
          ? [{ name: route.key.name, in: 'path', type: 'string', required: true, note: route.key.description }]
          : []),
        ...(route.action === undefined
          ? []
          : [
              {
                name: 'action',
                in: 'query',
                type: JSON.stringify(route.action),
                required: true,
                note: 'The Rest.li action.',
              },
            ]),
        ...fieldsOf(route.query).map((field) => ({
          name: field.name,
          in: 'query',
          type: typeOf(field.schema),
          required: field.required,
          note: field.description ?? '',
        })),
      ];
      const fields = fieldsOf(route.body);
      return `
    <section class="route" id="${escape(anchorOf(route))}">
      <h3><span class="method">${route.method}</span> <code>${escape(documentedPath(route))}</code></h3>
      <p>${escape(route.summary)}</p>
      ${route.description === undefined ? '' : `<p class="description">${escape(route.description)}</p>`}
      <p class="access">Access: ${escape(accessText(route.access))}</p>
      ${table(
        'Parameters',
        ['Name', 'In', 'Type', 'Required', ''],
        parameters.map((p) => [p.name, p.in, p.type, p.required ? 'yes' : 'no', p.note]),
      )}
      ${table(
        'Body fields',
        ['Field', 'Type', 'Required', ''],
        fields.map((f) => [f.name, typeOf(f.schema), f.required ? 'yes' : 'no', f.description ?? '']),
      )}
      <h4>Example request</h4>
      <pre>${escape(exampleRequest(route, baseUrl))}</pre>
    </section>`;
    });
    return `
  <section class="resource">
    <h2><code>${escape(resource)}</code></h2>${entries.join('')}
  </section>`;
  });
  const index = [...byResource.values()]
    .flat()
    .map(
      (route) => `<li><a href="#${escape(anchorOf(route))}">${route.method} ${escape(documentedPath(route))}</a></li>`,
    )
    .join('\n      ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escape(title)}</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 2rem; max-width: 70rem; }
    code, pre { font-family: ui-monospace, monospace; }
    pre { background: #f5f5f5; padding: 0.75rem; overflow-x: auto; }
    table { border-collapse: collapse; margin: 0.5rem 0; }
    th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
    .method { font-weight: bold; }
    .route { border-top: 1px solid #eee; padding-top: 0.5rem; }
  </style>
</head>
<body>
  <h1>${escape(title)}</h1>
  <p>Every resource and action this server answers, generated from the route declarations. The OpenAPI document is at
  <a href="/openapi/v3/api-docs"><code>/openapi/v3/api-docs</code></a>.</p>
  <nav>
    <ul>
      ${index}
    </ul>
  </nav>${sections.join('')}
</body>
</html>
`;
}

function table(caption: string, headings: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const head = headings.map((heading) => `<th>${escape(heading)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell, index) => `<td>${index === 0 ? `<code>${escape(cell)}</code>` : escape(cell)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<h4>${escape(caption)}</h4><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function anchorOf(route: RouteDescriptor): string {
  return `${route.method}-${documentedPath(route)}`.replace(/[^A-Za-z0-9_-]+/g, '-');
}

function tagOf(route: RouteDescriptor): string {
  return route.resource.split('/').filter((segment) => segment !== '')[0] ?? 'root';
}

function operationIdOf(route: RouteDescriptor): string {
  const words = [
    route.method.toLowerCase(),
    ...route.resource.split(/[^A-Za-z0-9]+/),
    route.key ? 'by' : '',
    route.key?.name ?? '',
    route.action ?? '',
  ];
  return words
    .filter((word) => word !== '')
    .map((word, index) => (index === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('');
}

function uniqueId(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let suffix = 2; taken.has(candidate); suffix += 1) candidate = `${id}${suffix}`;
  taken.add(candidate);
  return candidate;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
