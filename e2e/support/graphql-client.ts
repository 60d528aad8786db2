/**
 * A GraphQL client for end-to-end tests that sends what DataHub's Python client sends (`DataHubGraph.execute_graphql`):
 * `POST /api/graphql` with `{query}` (minified), `variables` only when there are any, `operationName` only when the
 * caller names one; an answer with a non-empty `errors` is a failure (the client raises `GraphError`), else `data` is
 * the answer. `send` posts any body as it is, for the callers that bypass `execute_graphql` and for bad requests.
 */
import type { TestHttpClient, TestResponse } from '@strata/testing';
import { minifyGraphql } from './graphql-documents';

/** A GraphQL error as answered. */
export interface GraphqlError {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly locations?: readonly { line: number; column: number }[];
  readonly extensions?: { readonly code?: number } & Record<string, unknown>;
}

/** A GraphQL answer: the HTTP status and the body's parts. */
export interface GraphqlAnswer<T = Record<string, unknown>> {
  readonly status: number;
  readonly data: T | null | undefined;
  readonly errors: readonly GraphqlError[] | undefined;
  readonly response: TestResponse;
}

export interface ExecuteOptions {
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  /** Send the document as written (DataHub's raw callers: `ingest list-source-runs`, `init`); default minified. */
  readonly raw?: boolean;
  /** Where to post: DataHub's GMS path by default; `/api/v2/graphql` is its web tier's. */
  readonly path?: string;
}

export class GraphqlClient {
  constructor(
    private readonly http: TestHttpClient,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** The same client with other (or more) headers. */
  with(headers: Record<string, string>): GraphqlClient {
    return new GraphqlClient(this.http, { ...this.headers, ...headers });
  }

  /** Posts `body` (JSON, or text as it is) to the GraphQL path, with the client's headers and `headers`. */
  async send(body: unknown, headers: Record<string, string> = {}, path = '/api/graphql'): Promise<GraphqlAnswer> {
    const response = await this.http.post(path, body, { ...this.headers, ...headers });
    const json = response.json as { data?: Record<string, unknown> | null; errors?: GraphqlError[] } | undefined;
    return { status: response.status, data: json?.data, errors: json?.errors, response };
  }

  /** The answer to `query`, sent as DataHub's client sends it, errors or not. */
  answer<T = Record<string, unknown>>(query: string, options: ExecuteOptions = {}): Promise<GraphqlAnswer<T>> {
    const variables = options.variables ?? {};
    return this.send(
      {
        query: options.raw === true ? query : minifyGraphql(query),
        ...(Object.keys(variables).length > 0 ? { variables } : {}),
        ...(options.operationName === undefined ? {} : { operationName: options.operationName }),
      },
      {},
      options.path,
    ) as Promise<GraphqlAnswer<T>>;
  }

  /** `data` of a successful answer; anything else throws, with the answer, as DataHub's client raises. */
  async execute<T = Record<string, unknown>>(query: string, options: ExecuteOptions = {}): Promise<T> {
    const answer = await this.answer<T>(query, options);
    if (
      answer.status !== 200 ||
      (answer.errors?.length ?? 0) > 0 ||
      answer.data === undefined ||
      answer.data === null
    ) {
      throw new Error(
        `GraphQL answered ${answer.status}: ${answer.response.text.slice(0, 2_000)}\nto ${query.slice(0, 300)}`,
      );
    }
    return answer.data;
  }
}
