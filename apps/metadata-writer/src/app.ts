import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry } from '@strata/model';
import { createEventSerde, topicNamesFrom } from '@strata/events';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import { MongoAspectStore, SqliteAspectStore, type AspectStore } from '@strata/store';
import { createHttpApp, listen, type RunnableService, type RunningServer } from '@strata/http';
import { kafkaSettings } from '@strata/config';
import type { MetadataWriterConfig } from './config';
import { createMetadataWriterService, type MetadataWriterService } from './metadata-writer-service';

/**
 * The composition root of the metadata-writer running alone: picks the log (Kafka when KAFKA_BROKERS is set) and the
 * store (MongoDB when MONGODB_URI is set), consumes proposals, and serves its reads over HTTP.
 */
export function createMetadataWriterApp(config: MetadataWriterConfig): RunnableService {
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'metadata-writer' } });
  const schemas = readSchemas();
  const kafka = kafkaSettings(config, 'metadata-writer');
  const onConsumerError = (error: unknown) => {
    logger.warn({ err: error }, 'a proposal batch failed; it will be redelivered');
  };
  mkdirSync(config.DATA_DIR, { recursive: true });
  const log: MessageLog = kafka
    ? new KafkaMessageLog({ ...kafka, onError: onConsumerError })
    : new SqliteMessageLog({ path: join(config.DATA_DIR, 'log.sqlite'), onError: onConsumerError });

  let store: AspectStore | undefined;
  let writer: MetadataWriterService | undefined;
  let server: RunningServer | undefined;
  let ready = false;
  return {
    async start() {
      const openedStore = config.MONGODB_URI
        ? await MongoAspectStore.connect({ uri: config.MONGODB_URI, database: config.MONGODB_DATABASE })
        : new SqliteAspectStore({ path: join(config.DATA_DIR, 'metadata-writer.sqlite') });
      store = openedStore;
      writer = createMetadataWriterService({
        log,
        store: openedStore,
        registry: createEntityRegistry(schemas),
        serde: createEventSerde(schemas),
        topics: topicNamesFrom(config),
        now: () => Date.now(),
        logger,
        groupId: config.WRITER_GROUP_ID,
        systemActor: 'urn:li:corpuser:__datahub_system',
        maxAspectBytes: config.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
        maxBatchSize: config.WRITER_MAX_BATCH_SIZE,
      });
      await writer.start();
      const app = createHttpApp({
        routes: writer.routes,
        newId: randomUUID,
        anonymousActor: 'urn:li:corpuser:UNKNOWN',
        maxBodyBytes: 1024 * 1024,
        logger,
        isReady: () => ready,
        servesRouteTable: true,
      });
      server = await listen(app, config.HOST, config.PORT);
      ready = true;
      logger.info(
        {
          host: config.HOST,
          port: server.port,
          log: kafka ? 'kafka' : 'sqlite',
          store: config.MONGODB_URI ? 'mongodb' : 'sqlite',
        },
        'metadata-writer is ready',
      );
    },
    async stop() {
      ready = false;
      await server?.close();
      await writer?.stop();
      await log.close();
      await store?.close();
      logger.info('metadata-writer stopped');
    },
  };
}
