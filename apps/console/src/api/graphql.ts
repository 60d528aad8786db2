import { Client, cacheExchange, fetchExchange, type AnyVariables, type TypedDocumentNode } from '@urql/core';
import { useCallback } from 'react';
import { useMutation, useQuery, type UseQueryArgs } from 'urql';
import { ApiError } from './errors';

/**
 * The console's GraphQL client (urql) on the gateway's `/api/graphql`, with the session cookie. Results are cached
 * per document and variables and refreshed from the server each time a page asks again (`cache-and-network`), so a
 * page shows at once what it showed before and then what is current.
 */
export const graphqlClient = new Client({
  url: '/api/graphql',
  exchanges: [cacheExchange, fetchExchange],
  requestPolicy: 'cache-and-network',
  fetchOptions: () => ({ credentials: 'same-origin', headers: { Accept: 'application/json' } }),
});

/** A GraphQL read: its data, whether it is loading, its error, and a way to fetch it again from the server. */
export interface GqlRead<Data> {
  readonly data: Data | undefined;
  readonly fetching: boolean;
  readonly error: unknown;
  readonly refetch: () => void;
}

/** Runs a GraphQL query for a page (paused while `pause` holds). */
export function useGql<Data = Record<string, unknown>, Variables extends AnyVariables = AnyVariables>(
  query: string | TypedDocumentNode<Data, Variables>,
  variables?: Variables,
  options: { pause?: boolean } = {},
): GqlRead<Data> {
  const args = { query, variables, pause: options.pause ?? false } as UseQueryArgs<Variables, Data>;
  const [result, reexecute] = useQuery<Data, Variables>(args);
  const refetch = useCallback(() => {
    reexecute({ requestPolicy: 'network-only' });
  }, [reexecute]);
  return {
    data: result.data,
    fetching: result.fetching,
    error: result.error,
    refetch,
  };
}

/**
 * A GraphQL mutation as a function that resolves to its data or throws an {@link ApiError} with the server's message
 * (and the status in the error's `extensions.code`), for forms to show.
 */
export function useGqlMutation<Data = Record<string, unknown>>(
  mutation: string,
): [(variables: Record<string, unknown>) => Promise<Data>, boolean] {
  const [state, execute] = useMutation<Data, Record<string, unknown>>(mutation);
  const run = useCallback(
    async (variables: Record<string, unknown>) => {
      const result = await execute(variables);
      if (result.error !== undefined) throw toApiError(result.error);
      if (result.data === undefined || result.data === null) throw new ApiError(500, 'The server answered no data');
      return result.data;
    },
    [execute],
  );
  return [run, state.fetching];
}

/** Runs a GraphQL document once, outside a component (sign-in, downloads). */
export async function gqlOnce<Data>(query: string, variables: Record<string, unknown> = {}): Promise<Data> {
  const result = await graphqlClient.query<Data>(query, variables, { requestPolicy: 'network-only' }).toPromise();
  if (result.error !== undefined) throw toApiError(result.error);
  return result.data as Data;
}

function toApiError(error: {
  message: string;
  graphQLErrors: readonly { message: string; extensions?: Record<string, unknown> }[];
  response?: { status?: number } | undefined;
  networkError?: Error | undefined;
}): ApiError {
  const first = error.graphQLErrors[0];
  if (first !== undefined) {
    const code = first.extensions?.code;
    return new ApiError(typeof code === 'number' ? code : (error.response?.status ?? 400), first.message);
  }
  if (error.networkError !== undefined) return new ApiError(error.response?.status ?? 0, error.networkError.message);
  return new ApiError(error.response?.status ?? 500, error.message);
}
