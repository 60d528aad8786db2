import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry, SYSTEM_ACTOR_URN, UNKNOWN_ACTOR_URN } from '@strata/model';
import { createEventSerde, topicNamesFrom } from '@strata/events';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import { MongoAspectStore, SqliteAspectStore, type AspectStore } from '@strata/store';
import { createHttpApp, listen, type RunnableService, type RunningServer } from '@strata/http';
import { kafkaSettings } from '@strata/config';
import type { MetadataWriterConfig } from './config';
import {
  createMetadataWriterService,
  type MetadataWriterService,
  type MetadataWriterServiceOptions,
} from './metadata-writer-service';

/** The settings {@link openMetadataWriter} reads: the writer's own, wherever it runs. */
export type MetadataWriterSettings = Pick<
  MetadataWriterConfig,
  | 'DATA_DIR'
  | 'MONGODB_URI'
  | 'MONGODB_DATABASE'
  | 'WRITER_GROUP_ID'
  | 'WRITER_MAX_BATCH_SIZE'
  | 'INGESTION_MAX_SERIALIZED_STRING_LENGTH'
>;

/**
 * Opens the writer's primary store — MongoDB when MONGODB_URI is set, else SQLite under DATA_DIR — and builds the
 * writer on it, with the clients its process shares (the one place both the writer alone and the standalone process
 * pick the writer's adapter and options). The caller starts the service and closes the store.
 */
export async function openMetadataWriter(
  settings: MetadataWriterSettings,
  shared: Pick<MetadataWriterServiceOptions, 'log' | 'registry' | 'serde' | 'topics' | 'logger'>,
): Promise<{ service: MetadataWriterService; store: AspectStore }> {
  const store = settings.MONGODB_URI
    ? await MongoAspectStore.connect({ uri: settings.MONGODB_URI, database: settings.MONGODB_DATABASE })
    : new SqliteAspectStore({ path: join(settings.DATA_DIR, 'metadata-writer.sqlite') });
  const service = createMetadataWriterService({
    ...shared,
    store,
    now: () => Date.now(),
    groupId: settings.WRITER_GROUP_ID,
    systemActor: SYSTEM_ACTOR_URN,
    maxAspectBytes: settings.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
    maxBatchSize: settings.WRITER_MAX_BATCH_SIZE,
  });
  return { service, store };
}

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
      const opened = await openMetadataWriter(config, {
        log,
        registry: createEntityRegistry(schemas),
        serde: createEventSerde(schemas),
        topics: topicNamesFrom(config),
        logger,
      });
      store = opened.store;
      writer = opened.service;
      await writer.start();
      const app = createHttpApp({
        routes: writer.routes,
        newId: randomUUID,
        anonymousActor: UNKNOWN_ACTOR_URN,
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
