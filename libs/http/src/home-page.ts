import { exampleRequest, type ApiInfo } from './api-docs';
import type { RouteResponse } from './route';
import type { RouteDescriptor } from './service-table';

/**
 * The front door (`GET /`) of a process that serves documentation: what the server is, where its documentation, health
 * and configuration are, and how a first write and a first search look — as a small HTML page with no external
 * assets, or as JSON for a client that asks for it. Everything it points to is taken from the mounted routes, so it
 * never names an endpoint this process does not serve.
 */

/** A link of the front door. */
interface HomeLink {
  /** Its key in the JSON answer. */
  readonly name: string;
  readonly href: string;
  readonly title: string;
  readonly description: string;
}

/** The candidates, in the order shown; each is listed only when a `GET` route serves its path. */
const LINKS: readonly HomeLink[] = [
  {
    name: 'swaggerUi',
    href: '/openapi/swagger-ui',
    title: 'Swagger UI',
    description: 'every endpoint, to read and to try from the browser',
  },
  {
    name: 'restliDocs',
    href: '/restli/docs',
    title: 'Rest.li resources',
    description: 'every resource and action, with its parameters, body fields and an example request',
  },
  {
    name: 'openApi',
    href: '/openapi/v3/api-docs',
    title: 'OpenAPI document',
    description: 'OpenAPI 3.1, for code generators and other tools',
  },
  { name: 'health', href: '/health', title: 'Health', description: '200 once the server accepts work' },
  {
    name: 'config',
    href: '/config',
    title: 'Configuration',
    description: "the server's description and capabilities, as DataHub's clients read them",
  },
];

/** The requests shown as examples, each only when it is served: a write, then a search. */
const EXAMPLES = [
  { title: 'Write an aspect', method: 'POST', resource: '/aspects', action: 'ingestProposal' },
  { title: 'Search', method: 'POST', resource: '/entities', action: 'search' },
] as const;

function linksOf(routes: readonly RouteDescriptor[]): HomeLink[] {
  return LINKS.filter((link) =>
    routes.some(
      (route) =>
        route.method === 'GET' && route.resource === link.href && route.key === undefined && route.action === undefined,
    ),
  );
}

/**
 * The answer to `GET /`: the page, or the JSON for a client that prefers it ({@link prefersJson}). `baseUrl` is the
 * address the page's examples are written against.
 */
export function homeResponse(
  info: ApiInfo,
  routes: readonly RouteDescriptor[],
  request: { readonly accept: string | undefined; readonly baseUrl: string },
): RouteResponse {
  // The answer depends on Accept: caches must keep the page and the JSON apart.
  if (prefersJson(request.accept)) return { body: homeDocument(info, routes), headers: { Vary: 'Accept' } };
  return {
    text: homePage(info, routes, request.baseUrl),
    headers: { 'Content-Type': 'text/html; charset=utf-8', Vary: 'Accept' },
  };
}

/** The front door as JSON: the server's name, version and description, and its links by name. */
function homeDocument(info: ApiInfo, routes: readonly RouteDescriptor[]): Record<string, unknown> {
  return {
    name: info.title,
    version: info.version,
    description: info.description,
    links: Object.fromEntries(linksOf(routes).map((link) => [link.name, link.href])),
  };
}

/** The front door as a page; `baseUrl` is the address the examples are written against. */
function homePage(info: ApiInfo, routes: readonly RouteDescriptor[], baseUrl: string): string {
  const links = linksOf(routes)
    .map(
      (link) =>
        `<li><a href="${escape(link.href)}">${escape(link.title)}</a> <code>${escape(link.href)}</code>: ${escape(link.description)}</li>`,
    )
    .join('\n      ');
  const examples = EXAMPLES.flatMap((example) => {
    const route = routes.find(
      (candidate) =>
        candidate.method === example.method &&
        candidate.resource === example.resource &&
        candidate.action === example.action,
    );
    return route === undefined
      ? []
      : [`<h3>${escape(example.title)}</h3>\n  <pre>${escape(exampleRequest(route, baseUrl))}</pre>`];
  });
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(info.title)}</title>
  <link rel="icon" href="data:,">
  <style>
    body { font-family: system-ui, sans-serif; margin: 2rem; max-width: 60rem; line-height: 1.4; }
    code, pre { font-family: ui-monospace, monospace; }
    pre { background: #f5f5f5; padding: 0.75rem; white-space: pre-wrap; overflow-wrap: anywhere; }
    li { margin: 0.25rem 0; }
  </style>
</head>
<body>
  <h1>${escape(info.title)}</h1>
  <p>Strata ${escape(info.version)}, a metadata catalog serving the REST interface of DataHub's metadata service
  (GMS). DataHub's CLI, emitters and ingestion recipes take this server's address, <code>${escape(baseUrl)}</code>, as
  their GMS server.</p>
  <h2>Documentation and status</h2>
  <ul>
      ${links}
  </ul>${
    examples.length === 0
      ? ''
      : `
  <h2>Try it with curl</h2>
  <p>When this server requires authentication, add <code>-H 'Authorization: Bearer &lt;access token&gt;'</code> to
  each request (the same token Swagger UI's Authorize button takes).</p>
  ${examples.join('\n  ')}`
  }
</body>
</html>
`;
}

/**
 * Whether a client prefers JSON to HTML by its `Accept` header. Each type takes the quality of the most specific range
 * that matches it (`application/json`, then `application/*`, then the wildcard); at equal quality, the type the client
 * named outright wins (axios's `application/json, text/plain` and the wildcard asks for JSON), and otherwise HTML: a
 * browser, and a client that states no preference, get the page.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    const value = quality === undefined ? 1 : Number(quality.slice(2));
    return { range, quality: Number.isFinite(value) ? value : 0 };
  });
  /** The quality of a type, and how specific the range that gave it is (2: the type itself, 0: the wildcard). */
  const preferenceOf = (type: string): { quality: number; specificity: number } => {
    const [major] = type.split('/');
    const candidates = [type, `${major}/*`, '*/*'];
    for (const [index, candidate] of candidates.entries()) {
      const match = ranges.find((entry) => entry.range === candidate);
      if (match !== undefined) return { quality: match.quality, specificity: candidates.length - 1 - index };
    }
    return { quality: 0, specificity: 0 };
  };
  const json = preferenceOf('application/json');
  const html = preferenceOf('text/html');
  if (json.quality === 0) return false;
  return json.quality > html.quality || (json.quality === html.quality && json.specificity > html.specificity);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
