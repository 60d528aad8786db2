import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { GraphIndex, SearchIndex } from '@strata/indices';
import { ChangeLogProcessor, type ProcessorLogger } from '@strata/change-log';
import type { Scheduler } from '@strata/timing';
import type { StrataService } from '@strata/runtime';
import { graphEdgeHook } from './consumers/graph-edge-hook';
import { searchDocumentHook } from './consumers/search-document-hook';
import { entityNameFields } from './domain/entity-name';
import { searchRoutes } from './http/search-routes';
import { listingRoutes } from './http/listing-routes';
import { lineageRoutes } from './http/lineage-routes';
import { relationshipScrollRoutes } from './http/relationship-scroll-routes';
import { LineageService } from './lineage/lineage-service';
import type { ResponseShape } from './http/response-shapes';

/** The service's name: its progress, metrics, log client, lock and files are named after it. */
export const SEARCH_INDEXER = 'search-indexer';

export interface SearchIndexerServiceOptions {
  readonly log: MessageLog;
  readonly search: SearchIndex;
  readonly graph: GraphIndex;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly scheduler: Scheduler;
  readonly logger: ProcessorLogger;
  /** Consumer group of the search indexers (DataHub's mae-consumer group). */
  readonly groupId: string;
  /** Largest batch of change logs applied in one index write. */
  readonly maxBatchSize: number;
  /** The shape of search, browse and relationships answers when the caller does not choose (`REST_RESPONSE_SHAPES`). */
  readonly defaultShape: ResponseShape;
}

/**
 * The search indexer: a change-log processor with two hooks on the versioned change logs — `search` keeps the search
 * documents (search, browse, autocomplete), `graph` the relationship edges — and the reads they serve, with the
 * processor's progress.
 */
export function createSearchIndexerService(options: SearchIndexerServiceOptions): StrataService {
  const processor = new ChangeLogProcessor({
    name: SEARCH_INDEXER,
    groupId: options.groupId,
    log: options.log,
    serde: options.serde,
    registry: options.registry,
    topics: options.topics,
    hooks: [searchDocumentHook(options.search), graphEdgeHook(options.graph)],
    scheduler: options.scheduler,
    logger: options.logger,
    maxBatchSize: options.maxBatchSize,
  });
  const nameFields = entityNameFields(options.registry);
  return {
    name: SEARCH_INDEXER,
    routes: [
      ...searchRoutes(options.search, options.graph, processor, { defaultShape: options.defaultShape, nameFields }),
      ...listingRoutes(options.search, { defaultShape: options.defaultShape, nameFields }),
      ...lineageRoutes(new LineageService(options)),
      ...relationshipScrollRoutes(options.graph),
    ],
    readModels: processor.readModels,
    metrics: [processor.metrics],
    start: () => processor.start(),
    stop: () => processor.stop(),
  };
}
