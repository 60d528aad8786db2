import { Client, errors } from '@elastic/elasticsearch';
import type { estypes } from '@elastic/elasticsearch';

/**
 * Where the cluster is: `node`, its URL (`ELASTICSEARCH_URL`), for a client the index builds and closes itself; or
 * `client`, one the composition root shares and closes.
 */
export type ElasticsearchConnection =
  { readonly node: string; readonly client?: undefined } | { readonly client: Client; readonly node?: undefined };

/** The client of a connection, and whether the index owns it (closes it when it closes). */
export function clientOf(connection: ElasticsearchConnection): { readonly client: Client; readonly owned: boolean } {
  return connection.client === undefined
    ? { client: new Client({ node: connection.node }), owned: true }
    : { client: connection.client, owned: false };
}

const INDEX_PREFIX = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * DataHub's `INDEX_PREFIX`, lowercased: letters, digits, `.`, `_` and `-`, starting with a letter or digit ('' for none).
 * Throws naming it otherwise.
 */
export function indexPrefixOf(indexPrefix: string | undefined): string {
  const prefix = (indexPrefix ?? '').toLowerCase();
  if (prefix !== '' && !INDEX_PREFIX.test(prefix))
    throw new Error(`Invalid Elasticsearch index prefix "${indexPrefix ?? ''}"`);
  return prefix;
}

/**
 * Creates an index with its settings and mappings when it does not exist, else adds the mappings to it (mappings only
 * grow). Idempotent, and safe when several processes open at once (one's creation is the other's existing index).
 */
export async function ensureIndex(
  client: Client,
  index: string,
  definition: { readonly settings: estypes.IndicesIndexSettings; readonly mappings: estypes.MappingTypeMapping },
): Promise<void> {
  if (!(await client.indices.exists({ index }))) {
    try {
      await client.indices.create({ index, settings: definition.settings, mappings: definition.mappings });
      return;
    } catch (error) {
      if (errorType(error) !== 'resource_already_exists_exception') throw error;
    }
  }
  await client.indices.putMapping({ index, ...definition.mappings });
}

/** The `error.type` of an error the cluster answered (`resource_already_exists_exception`…), if it is one. */
export function errorType(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body: unknown = error.body;
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const cause: unknown = body.error;
  if (typeof cause !== 'object' || cause === null || !('type' in cause)) return undefined;
  return typeof cause.type === 'string' ? cause.type : undefined;
}
