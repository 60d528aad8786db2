import { SYSTEM_ACTOR_URN } from '@strata/model';
import { createSearchSchema } from '@strata/indices';
import type { MessageLog } from '@strata/log';
import { systemClientAuthenticator, type RunnableService } from '@strata/http';
import { hostServices, type HostContext, type StrataService } from '@strata/runtime';
import type { SearchIndexerConfig } from './config';
import { createSearchIndexerService, SEARCH_INDEXER } from './search-indexer-service';

/** The settings {@link composeSearchIndexer} reads: the search indexer's own, wherever it runs. */
export type SearchIndexerSettings = Pick<
  SearchIndexerConfig,
  'SEARCH_INDEXER_GROUP_ID' | 'SEARCH_INDEXER_MAX_BATCH_SIZE' | 'REST_RESPONSE_SHAPES'
>;

/**
 * Opens the search indexer's read models (as the engines' configuration says: Elasticsearch when ELASTICSEARCH_URL is
 * set, else SQLite files under DATA_DIR) and builds the indexer on the process's log: the one place both the indexer
 * alone and the standalone process turn configuration into an indexer.
 */
export async function composeSearchIndexer(
  context: HostContext,
  settings: SearchIndexerSettings,
  log: MessageLog,
): Promise<StrataService> {
  const schema = createSearchSchema(context.model.registry);
  const search = await context.engines.openSearchIndex(context.scope, SEARCH_INDEXER, schema);
  const graph = await context.engines.openGraphIndex(context.scope, SEARCH_INDEXER);
  return createSearchIndexerService({
    ...context.model,
    log,
    search,
    graph,
    scheduler: context.scheduler,
    logger: context.logger.child({ component: SEARCH_INDEXER }),
    groupId: settings.SEARCH_INDEXER_GROUP_ID,
    maxBatchSize: settings.SEARCH_INDEXER_MAX_BATCH_SIZE,
    defaultShape: settings.REST_RESPONSE_SHAPES,
  });
}

/** The search indexer running alone: consumes versioned change logs and serves its reads, for a gateway in front. */
export function createSearchIndexerApp(config: SearchIndexerConfig): RunnableService {
  return hostServices(SEARCH_INDEXER, config, async (context) => {
    const log = await context.engines.openLog(context.scope, SEARCH_INDEXER);
    const indexer = await composeSearchIndexer(context, config, log);
    return {
      services: [indexer],
      serviceTableOf: indexer,
      maxBodyBytes: 1024 * 1024,
      // Behind a gateway: only the system client (the gateway, the other services) is served.
      authenticate: systemClientAuthenticator(
        { id: config.DATAHUB_SYSTEM_CLIENT_ID, secret: config.DATAHUB_SYSTEM_CLIENT_SECRET },
        SYSTEM_ACTOR_URN,
      ),
    };
  });
}
