import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry, UNKNOWN_ACTOR_URN } from '@strata/model';
import { createEventSerde, topicNamesFrom } from '@strata/events';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import { fetchRouteTable, listen, proxyRoutes, type RunnableService, type RunningServer } from '@strata/http';
import { kafkaSettings } from '@strata/config';
import type { GatewayConfig } from './config';
import { createGatewayService, type GatewayService, type GatewayServiceOptions } from './gateway-service';

/** The settings {@link gatewayServiceFrom} reads: the gateway's own, wherever it runs. */
export type GatewaySettings = Pick<
  GatewayConfig,
  | 'ASYNC_INGEST_DEFAULT'
  | 'INGEST_TIMEOUT_MS'
  | 'MAX_BODY_BYTES'
  | 'INGESTION_MAX_SERIALIZED_STRING_LENGTH'
  | 'INGEST_MAX_BATCH_PROPOSALS'
>;

/**
 * Builds the gateway from its settings and the clients its process shares: the one place both the gateway alone and
 * the standalone process turn configuration into gateway options.
 */
export function gatewayServiceFrom(
  settings: GatewaySettings,
  shared: Pick<
    GatewayServiceOptions,
    'log' | 'registry' | 'serde' | 'topics' | 'ownedElsewhere' | 'metrics' | 'logger'
  >,
): GatewayService {
  return createGatewayService({
    ...shared,
    newId: randomUUID,
    anonymousActor: UNKNOWN_ACTOR_URN,
    asyncIngestByDefault: settings.ASYNC_INGEST_DEFAULT,
    outcomeTimeoutMs: settings.INGEST_TIMEOUT_MS,
    maxBodyBytes: settings.MAX_BODY_BYTES,
    maxAspectBytes: settings.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
    maxBatchProposals: settings.INGEST_MAX_BATCH_PROPOSALS,
  });
}

/**
 * The composition root of the gateway running alone: picks the log (Kafka when KAFKA_BROKERS is set), learns the
 * routes the metadata-writer and the search indexer own from their route tables, and forwards them.
 */
export function createGatewayApp(config: GatewayConfig): RunnableService {
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'gateway' } });
  const schemas = readSchemas();
  const kafka = kafkaSettings(config, 'gateway');
  mkdirSync(config.DATA_DIR, { recursive: true });
  const onConsumerError = (error: unknown) => {
    logger.warn({ err: error }, 'the outcome consumer failed a batch; it will be redelivered');
  };
  const log: MessageLog = kafka
    ? new KafkaMessageLog({ ...kafka, onError: onConsumerError })
    : new SqliteMessageLog({ path: join(config.DATA_DIR, 'log.sqlite'), onError: onConsumerError });

  let gateway: GatewayService | undefined;
  let server: RunningServer | undefined;
  return {
    async start() {
      const [writerRoutes, indexerRoutes] = await Promise.all([
        fetchRouteTable(config.METADATA_WRITER_URL, config.SERVICE_DISCOVERY_TIMEOUT_MS),
        fetchRouteTable(config.SEARCH_INDEXER_URL, config.SERVICE_DISCOVERY_TIMEOUT_MS),
      ]);
      gateway = gatewayServiceFrom(config, {
        log,
        registry: createEntityRegistry(schemas),
        serde: createEventSerde(schemas),
        topics: topicNamesFrom(config),
        ownedElsewhere: [
          ...proxyRoutes(writerRoutes, config.METADATA_WRITER_URL, 'metadata-writer'),
          ...proxyRoutes(indexerRoutes, config.SEARCH_INDEXER_URL, 'search-indexer'),
        ],
        logger,
      });
      await gateway.start();
      server = await listen(gateway.app, config.HOST, config.PORT);
      logger.info(
        {
          host: config.HOST,
          port: server.port,
          log: kafka ? 'kafka' : 'sqlite',
          metadataWriter: config.METADATA_WRITER_URL,
          searchIndexer: config.SEARCH_INDEXER_URL,
        },
        'gateway is ready',
      );
    },
    async stop() {
      await server?.close();
      await gateway?.stop();
      await log.close();
      logger.info('gateway stopped');
    },
  };
}
