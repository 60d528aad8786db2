import { z } from 'zod';
import {
  engineConfig,
  modelConfig,
  env,
  listenerConfig,
  loadConfig,
  systemClientConfig,
  topicConfig,
} from '@strata/config';

/** The search indexer's own settings, shared by every process that runs it (alone, or in the standalone process). */
export const searchIndexerConfig = {
  ELASTICSEARCH_URL: z
    .string()
    .optional()
    .describe(
      'Elasticsearch URL. Set: the search index (one index per entity type) and the relationship graph (graph_service_v1) are on Elasticsearch, and the indexer may run as several instances. Unset: SQLite files under DATA_DIR, one instance.',
    ),
  INDEX_PREFIX: z
    .string()
    .default('')
    .describe(
      "Prefix of the Elasticsearch index names (`<prefix>_datasetindex_v2`, `<prefix>_graph_service_v1`), DataHub's INDEX_PREFIX.",
    ),
  SEARCH_INDEXER_GROUP_ID: z
    .string()
    .default('generic-mae-consumer-job-client')
    .describe("Consumer group of the search indexers (DataHub's mae-consumer group)."),
  REST_RESPONSE_SHAPES: z
    .enum(['interface', 'current'])
    .default('interface')
    .describe(
      "The shape of search, browse and relationships answers for callers that neither ask for one (`X-Strata-Response-Shape`) nor are DataHub's own clients (which always get `current`): `interface`, the interface document's (a search's `entities` a list of URNs, `metadata.searchResultMetadatas`), or `current`, what DataHub's metadata service answers today (`entities` of `{entity, matchedFields}`, `metadata.aggregations`; browse `groups` at the top).",
    ),
  SEARCH_INDEXER_MAX_BATCH_SIZE: env
    .integer(1, 10_000)
    .default(250)
    .describe(
      'Most change logs the search indexer applies in one index write. Larger batches work off a backlog (a restore, heavy ingest) faster, with fewer, larger commits; the embedded index writes in steps between which the process answers other requests.',
    ),
};

/** Configuration of the search indexer running alone. */
export const searchIndexerConfigSchema = z.object({
  ...listenerConfig(8082),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...searchIndexerConfig,
  ...systemClientConfig,
});

export type SearchIndexerConfig = z.infer<typeof searchIndexerConfigSchema>;

export function loadSearchIndexerConfig(
  environment: Readonly<Record<string, string | undefined>>,
): SearchIndexerConfig {
  return loadConfig(searchIndexerConfigSchema, environment);
}
