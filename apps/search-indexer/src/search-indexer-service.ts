import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog, Subscription } from '@strata/log';
import type { GraphIndex, SearchIndex } from '@strata/indices';
import type { Route } from '@strata/http';
import type { Registry } from 'prom-client';
import { ChangeLogIndexer } from './consumers/change-log-indexer';
import { IndexProgress } from './consumers/index-progress';
import { searchRoutes } from './http/search-routes';

/** The name the search indexer acknowledges writes under and reports its progress as. */
export const SEARCH_INDEXER = 'search-indexer';

export interface SearchIndexerServiceOptions {
  readonly log: MessageLog;
  readonly search: SearchIndex;
  readonly graph: GraphIndex;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly now: () => number;
  readonly logger: { warn(details: object, message: string): void };
  /** Consumer group of the search indexers (DataHub's mae-consumer group). */
  readonly groupId: string;
  /** Largest batch of change logs applied in one index write. */
  readonly maxBatchSize: number;
}

export interface SearchIndexerService {
  /** Search, browse, autocomplete, relationships, and the indexer's progress. */
  readonly routes: readonly Route[];
  /** Prometheus metrics of the indexer. */
  readonly metrics: Registry;
  /** Starts consuming versioned change logs (from the beginning of the log for a new group). */
  start(): Promise<void>;
  /** Stops consuming, finishing the batch in hand. */
  stop(): Promise<void>;
}

/**
 * The search indexer: consumes `MetadataChangeLog_Versioned_v1`, keeps the search documents and the relationship
 * graph, and serves their reads.
 */
export function createSearchIndexerService(options: SearchIndexerServiceOptions): SearchIndexerService {
  const progress = new IndexProgress(SEARCH_INDEXER);
  const indexer = new ChangeLogIndexer({
    search: options.search,
    graph: options.graph,
    registry: options.registry,
    serde: options.serde,
    log: options.log,
    topics: options.topics,
    progress,
    indexerName: SEARCH_INDEXER,
    now: options.now,
    logger: options.logger,
  });
  let subscription: Subscription | undefined;
  return {
    routes: searchRoutes(options.search, options.graph, progress),
    metrics: progress.registry,
    async start() {
      subscription = await options.log.subscribe({
        groupId: options.groupId,
        topics: [options.topics.metadataChangeLogVersioned],
        fromBeginning: true,
        maxBatchSize: options.maxBatchSize,
        handleBatch: (records) => indexer.handleBatch(records),
      });
    },
    async stop() {
      await subscription?.stop();
      subscription = undefined;
    },
  };
}
