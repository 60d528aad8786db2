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

/**
 * Longest comma-joined list of index names one request's path holds: Elasticsearch refuses a request line over 4 KB
 * (`http.max_initial_line_length`), and a registry has dozens of entity types.
 */
export const MAX_INDEX_LIST_LENGTH = 2_000;

/**
 * Removes every document of the indices, which stay with their settings and mappings: what an adapter's `clear`
 * sends. Per list of indices: a refresh, so that documents written without one (`refresh: false`) are seen by the
 * deletion, which reads a snapshot; then one `_delete_by_query` matching everything, waiting for completion, version
 * conflicts proceeding (a document written meanwhile survives or not, the request does not fail), refreshed so that
 * every later read sees the indices empty. Rejects naming the indices (the first few) when the deletion reports failures
 * or timed out, clearing no further list.
 */
export async function deleteAllDocuments(client: Client, indices: readonly string[]): Promise<void> {
  for (const index of indexLists(indices)) {
    await client.indices.refresh({ index });
    const response = await client.deleteByQuery({
      index,
      query: { match_all: {} },
      conflicts: 'proceed',
      refresh: true,
      wait_for_completion: true,
    });
    const failures = response.failures ?? [];
    if (failures.length === 0 && response.timed_out !== true) continue;
    const reasons = failures
      .slice(0, 10)
      .map((failure) => `${failure.cause.type}: ${failure.cause.reason ?? ''}`)
      .join('; ');
    const names = index.length <= 3 ? index.join(', ') : `${index.slice(0, 3).join(', ')} and ${index.length - 3} more`;
    throw new Error(
      `Clearing ${names} failed: ${failures.length === 0 ? 'timed out' : `${failures.length} failures (${reasons})`}`,
    );
  }
}

/** The indices cut into lists of at most {@link MAX_INDEX_LIST_LENGTH} characters once joined (one at least). */
function indexLists(indices: readonly string[]): string[][] {
  const lists: string[][] = [];
  let list: string[] = [];
  let length = 0;
  for (const index of indices) {
    if (list.length > 0 && length + 1 + index.length > MAX_INDEX_LIST_LENGTH) {
      lists.push(list);
      list = [];
      length = 0;
    }
    length += (list.length > 0 ? 1 : 0) + index.length;
    list.push(index);
  }
  if (list.length > 0) lists.push(list);
  return lists;
}
