import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry, UNKNOWN_ACTOR_URN } from '@strata/model';
import { createEventSerde, topicNamesFrom } from '@strata/events';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import {
  createSearchSchema,
  ElasticsearchSearchIndex,
  SqliteGraphIndex,
  SqliteSearchIndex,
  type GraphIndex,
  type SearchIndex,
} from '@strata/indices';
import { createHttpApp, listen, type RunnableService, type RunningServer } from '@strata/http';
import { kafkaSettings } from '@strata/config';
import type { SearchIndexerConfig } from './config';
import {
  createSearchIndexerService,
  type SearchIndexerService,
  type SearchIndexerServiceOptions,
} from './search-indexer-service';

/** The settings {@link openSearchIndexer} reads: the search indexer's own, wherever it runs. */
export type SearchIndexerSettings = Pick<
  SearchIndexerConfig,
  'DATA_DIR' | 'ELASTICSEARCH_URL' | 'INDEX_PREFIX' | 'SEARCH_INDEXER_GROUP_ID' | 'SEARCH_INDEXER_MAX_BATCH_SIZE'
>;

/**
 * Opens the search indexer's read models — the search index on Elasticsearch when ELASTICSEARCH_URL is set, else
 * SQLite under DATA_DIR; the graph in SQLite under DATA_DIR — and builds the indexer on them: the one place both the
 * indexer alone and the standalone process pick its adapters. The caller starts the service and calls `close`.
 */
export async function openSearchIndexer(
  settings: SearchIndexerSettings,
  shared: Pick<SearchIndexerServiceOptions, 'log' | 'registry' | 'serde' | 'topics' | 'logger'>,
): Promise<{ service: SearchIndexerService; close: () => Promise<void> }> {
  const schema = createSearchSchema(shared.registry);
  mkdirSync(settings.DATA_DIR, { recursive: true });
  const search: SearchIndex = settings.ELASTICSEARCH_URL
    ? await ElasticsearchSearchIndex.open({
        node: settings.ELASTICSEARCH_URL,
        schema,
        ...(settings.INDEX_PREFIX === '' ? {} : { indexPrefix: settings.INDEX_PREFIX }),
      })
    : new SqliteSearchIndex({ path: join(settings.DATA_DIR, 'search-indexer.sqlite'), schema });
  const graph: GraphIndex = new SqliteGraphIndex({ path: join(settings.DATA_DIR, 'search-indexer-graph.sqlite') });
  const service = createSearchIndexerService({
    ...shared,
    search,
    graph,
    now: () => Date.now(),
    groupId: settings.SEARCH_INDEXER_GROUP_ID,
    maxBatchSize: settings.SEARCH_INDEXER_MAX_BATCH_SIZE,
  });
  return {
    service,
    close: async () => {
      await search.close();
      await graph.close();
    },
  };
}

/**
 * The composition root of the search indexer running alone: picks the log (Kafka when KAFKA_BROKERS is set) and the
 * search index (Elasticsearch when ELASTICSEARCH_URL is set), consumes versioned change logs, and serves its reads.
 */
export function createSearchIndexerApp(config: SearchIndexerConfig): RunnableService {
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'search-indexer' } });
  const schemas = readSchemas();
  const kafka = kafkaSettings(config, 'search-indexer');
  const onConsumerError = (error: unknown) => {
    logger.warn({ err: error }, 'a change-log batch failed; it will be redelivered');
  };
  mkdirSync(config.DATA_DIR, { recursive: true });
  const log: MessageLog = kafka
    ? new KafkaMessageLog({ ...kafka, onError: onConsumerError })
    : new SqliteMessageLog({ path: join(config.DATA_DIR, 'log.sqlite'), onError: onConsumerError });

  let opened: Awaited<ReturnType<typeof openSearchIndexer>> | undefined;
  let server: RunningServer | undefined;
  let ready = false;
  return {
    async start() {
      opened = await openSearchIndexer(config, {
        log,
        registry: createEntityRegistry(schemas),
        serde: createEventSerde(schemas),
        topics: topicNamesFrom(config),
        logger,
      });
      await opened.service.start();
      const app = createHttpApp({
        routes: opened.service.routes,
        newId: randomUUID,
        anonymousActor: UNKNOWN_ACTOR_URN,
        maxBodyBytes: 1024 * 1024,
        logger,
        isReady: () => ready,
        servesRouteTable: true,
        metrics: [opened.service.metrics],
      });
      server = await listen(app, config.HOST, config.PORT);
      ready = true;
      logger.info(
        {
          host: config.HOST,
          port: server.port,
          log: kafka ? 'kafka' : 'sqlite',
          search: config.ELASTICSEARCH_URL ? 'elasticsearch' : 'sqlite',
        },
        'search-indexer is ready',
      );
    },
    async stop() {
      ready = false;
      await server?.close();
      await opened?.service.stop();
      await log.close();
      await opened?.close();
      logger.info('search-indexer stopped');
    },
  };
}
