import { execute, GraphQLError, parse, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createHandler, type Request as GraphqlHttpRequest } from 'graphql-http';
import { z } from 'zod';
import { defineRoute, GRAPHQL_PATHS, toClientError, type RequestContext, type Route } from '@strata/http';
import { createGraphqlContext, type GraphqlContext, type GraphqlContextOptions } from './context';
import { limitRules, type GraphqlLimits } from './limits';
import { adaptingFieldResolver } from './schema';

export interface GraphqlRouteOptions extends Omit<GraphqlContextOptions, 'timeBudgetMs'> {
  readonly schema: GraphQLSchema;
  readonly limits: GraphqlLimits;
  readonly logger: { error(details: object, message: string): void };
}

const ACCESS = { kind: 'caller' } as const;

/**
 * `POST`/`GET /api/graphql` and `/api/v2/graphql` (DataHub's web tier's path): the GraphQL API, served over HTTP as
 * the GraphQL-over-HTTP specification says (graphql-http): a request that is not GraphQL, a document that does not
 * parse or validate, is a 400 with GraphQL's `errors` (a 200 for clients that accept only `application/json`); a
 * field that fails is an error for that field beside the data of the others.
 */
export function graphqlRoutes(options: GraphqlRouteOptions): Route[] {
  const validationRules = limitRules(options.limits);
  const handler = createHandler<unknown, RequestContext, GraphqlContext>({
    schema: options.schema,
    validationRules,
    parse: (source) => parse(source, { maxTokens: options.limits.maxTokens }),
    context: (request) =>
      createGraphqlContext({ ...options, timeBudgetMs: options.limits.timeBudgetMs }, request.context),
    execute: (args) => withinBudget(args, options.limits.timeBudgetMs),
    formatError: (error) => (error instanceof GraphQLError ? masked(error, options.logger) : error),
  });
  const summary = "DataHub's GraphQL API (a subset of its schema): search, lineage, entities, curation";
  const description =
    'Send `{query, variables, operationName}` as JSON (`Content-Type: application/json`), or a query by GET ' +
    '(`?query=…&variables=…`; queries only). Introspection is on. Limits: document tokens, depth, aliases, cost ' +
    'and a time budget per request (see docs/graphql.md).';
  const example = { body: { query: '{ me { corpUser { urn username } } }' } };
  const handle = async (method: 'GET' | 'POST', body: unknown, context: RequestContext) => {
    const request: GraphqlHttpRequest<unknown, RequestContext> = {
      method,
      url: context.url,
      headers: { get: (name: string) => context.header(name) ?? null },
      body: body === undefined ? null : (body as Record<string, unknown>),
      raw: undefined,
      context,
    };
    const [text, init] = await handler(request);
    const headers = Object.fromEntries(
      Object.entries(init.headers ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    if ((text === null || text === '') && init.status >= 400) {
      // graphql-http answers a wrong media type or method with a status alone: say what is wrong in GraphQL's body.
      return { status: init.status, body: { errors: [{ message: refusalOf(init.status, init.statusText, context) }] } };
    }
    return { status: init.status, text: text ?? '', headers };
  };
  return [...GRAPHQL_PATHS].flatMap((resource) => [
    defineRoute({
      method: 'POST',
      resource,
      family: 'graphql',
      access: ACCESS,
      summary,
      description,
      example,
      // Documents the request; graphql-http judges it (any JSON object passes here).
      body: z.looseObject({
        query: z.unknown().optional().describe('The GraphQL document'),
        variables: z.unknown().optional().describe('The values of its variables, an object'),
        operationName: z.unknown().optional().describe('Which operation of the document to run'),
      }),
      handle: ({ body, context }) => handle('POST', body, context),
    }),
    defineRoute({
      method: 'GET',
      resource,
      family: 'graphql',
      access: ACCESS,
      summary,
      description,
      query: z.looseObject({
        query: z.unknown().optional().describe('The GraphQL document (a query)'),
        variables: z.unknown().optional().describe('The values of its variables, as JSON text'),
        operationName: z.unknown().optional().describe('Which operation of the document to run'),
      }),
      example: { query: { query: '{ me { corpUser { urn username } } }' } },
      handle: ({ context }) => handle('GET', undefined, context),
    }),
  ]);
}

/** What a request refused before it is read as GraphQL did wrong, in words. */
function refusalOf(status: number, statusText: string | undefined, context: RequestContext): string {
  switch (status) {
    case 415:
      return `A GraphQL request is JSON: send it with Content-Type: application/json (not ${
        context.header('content-type') ?? 'none'
      })`;
    case 406:
      return `Answers are application/graphql-response+json or application/json; Accept: ${
        context.header('accept') ?? ''
      } allows neither`;
    case 405:
      return 'Only queries may be sent by GET; send mutations by POST';
    default:
      return statusText ?? `The request was refused (${status})`;
  }
}

/**
 * Runs an operation within the time budget: resolvers started after the deadline fail (see the schema's resolver
 * wrapper), and the answer goes out at the deadline with an error even if some resolver is still waiting.
 */
async function withinBudget(args: ExecutionArgs, budgetMs: number): Promise<ExecutionResult> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<ExecutionResult>((resolve) => {
    timer = setTimeout(() => {
      resolve({
        data: null,
        errors: [new GraphQLError(`The request ran out of its time budget of ${budgetMs} ms`)],
      });
    }, budgetMs);
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve(execute({ ...args, fieldResolver: adaptingFieldResolver })), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A field's error as the client sees it: a refusal or bad input with its message and HTTP status (in
 * `extensions.code`), anything unexpected as an internal error whose details are logged, never sent.
 */
function masked(error: GraphQLError, logger: GraphqlRouteOptions['logger']): GraphQLError {
  const original = error.originalError;
  if (original === undefined || original instanceof GraphQLError) return error;
  const client = toClientError(original);
  if (client.status >= 500 && client.status !== 503 && client.status !== 504) {
    logger.error({ err: original, path: error.path }, 'a GraphQL field failed');
  }
  return new GraphQLError(client.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: original,
    extensions: { ...error.extensions, code: client.status },
  });
}
