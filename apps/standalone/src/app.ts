import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry } from '@strata/model';
import { createEventSerde, type TopicNames } from '@strata/events';
import { SqliteMessageLog } from '@strata/log';
import { SqliteAspectStore } from '@strata/store';
import { listen, type RunningServer } from '@strata/http';
import { createGatewayService } from '@strata/gateway';
import { createMetadataWriterService } from '@strata/metadata-writer';
import type { StandaloneConfig } from './config';

/** Actor of requests while authentication is off, and of default aspects (DataHub shows `urn:li:corpuser:UNKNOWN`). */
const anonymousActor = 'urn:li:corpuser:UNKNOWN';
/** Actor recorded for proposals produced straight onto the log without one. */
const systemActor = 'urn:li:corpuser:__datahub_system';

export interface StandaloneApp {
  start(): Promise<{ port: number }>;
  stop(): Promise<void>;
}

/**
 * The composition root of the standalone process: every service in one process on the embedded engines, each with its
 * own data file under DATA_DIR. The only place that builds clients and picks adapters.
 */
export function createStandaloneApp(config: StandaloneConfig): StandaloneApp {
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'strata-standalone' } });
  mkdirSync(config.DATA_DIR, { recursive: true });
  const schemas = readSchemas();
  const registry = createEntityRegistry(schemas);
  const serde = createEventSerde(schemas);
  const topics: TopicNames = {
    metadataChangeProposal: config.METADATA_CHANGE_PROPOSAL_TOPIC_NAME,
    failedMetadataChangeProposal: config.FAILED_METADATA_CHANGE_PROPOSAL_TOPIC_NAME,
    metadataChangeLogVersioned: config.METADATA_CHANGE_LOG_VERSIONED_TOPIC_NAME,
    metadataChangeLogTimeseries: config.METADATA_CHANGE_LOG_TIMESERIES_TOPIC_NAME,
    metadataChangeProposalOutcome: config.METADATA_CHANGE_PROPOSAL_OUTCOME_TOPIC_NAME,
  };
  const log = new SqliteMessageLog({
    path: join(config.DATA_DIR, 'log.sqlite'),
    onError: (error: unknown) => {
      logger.warn({ err: error }, 'a log consumer failed a batch; it will be redelivered');
    },
  });
  const store = new SqliteAspectStore({ path: join(config.DATA_DIR, 'metadata-writer.sqlite') });

  const writer = createMetadataWriterService({
    log,
    store,
    registry,
    serde,
    topics,
    now: () => Date.now(),
    logger: logger.child({ component: 'metadata-writer' }),
    groupId: 'generic-mce-consumer-job-client',
    systemActor,
    maxAspectBytes: config.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
    maxBatchSize: config.WRITER_MAX_BATCH_SIZE,
  });
  const gateway = createGatewayService({
    log,
    registry,
    serde,
    topics,
    ownedElsewhere: writer.routes,
    newId: randomUUID,
    logger: logger.child({ component: 'gateway' }),
    anonymousActor,
    asyncIngestByDefault: config.ASYNC_INGEST_DEFAULT,
    outcomeTimeoutMs: config.INGEST_TIMEOUT_MS,
    maxBodyBytes: config.MAX_BODY_BYTES,
    maxAspectBytes: config.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
    maxBatchProposals: config.INGEST_MAX_BATCH_PROPOSALS,
  });

  let server: RunningServer | undefined;
  return {
    async start() {
      await writer.start();
      await gateway.start();
      server = await listen(gateway.app, config.HOST, config.PORT);
      logger.info({ host: config.HOST, port: server.port, dataDir: config.DATA_DIR }, 'Strata is ready');
      return { port: server.port };
    },
    async stop() {
      await server?.close();
      await gateway.stop();
      await writer.stop();
      await log.close();
      await store.close();
      logger.info('Strata stopped');
    },
  };
}
