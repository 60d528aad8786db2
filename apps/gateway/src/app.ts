import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry } from '@strata/model';
import { createEventSerde, topicNamesFrom } from '@strata/events';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import { fetchRouteTable, listen, proxyRoutes, type RunnableService, type RunningServer } from '@strata/http';
import { kafkaSettings } from '@strata/config';
import type { GatewayConfig } from './config';
import { createGatewayService, type GatewayService } from './gateway-service';

/**
 * The composition root of the gateway running alone: picks the log (Kafka when KAFKA_BROKERS is set), learns the
 * routes the metadata-writer owns from its route table, and forwards them.
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
      const writerRoutes = await fetchRouteTable(config.METADATA_WRITER_URL, config.SERVICE_DISCOVERY_TIMEOUT_MS);
      gateway = createGatewayService({
        log,
        registry: createEntityRegistry(schemas),
        serde: createEventSerde(schemas),
        topics: topicNamesFrom(config),
        ownedElsewhere: proxyRoutes(writerRoutes, config.METADATA_WRITER_URL, 'metadata-writer'),
        newId: randomUUID,
        logger,
        anonymousActor: 'urn:li:corpuser:UNKNOWN',
        asyncIngestByDefault: config.ASYNC_INGEST_DEFAULT,
        outcomeTimeoutMs: config.INGEST_TIMEOUT_MS,
        maxBodyBytes: config.MAX_BODY_BYTES,
        maxAspectBytes: config.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
        maxBatchProposals: config.INGEST_MAX_BATCH_PROPOSALS,
      });
      await gateway.start();
      server = await listen(gateway.app, config.HOST, config.PORT);
      logger.info(
        {
          host: config.HOST,
          port: server.port,
          log: kafka ? 'kafka' : 'sqlite',
          metadataWriter: config.METADATA_WRITER_URL,
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
