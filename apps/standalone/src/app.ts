import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry } from '@strata/model';
import { createEventSerde, topicNamesFrom } from '@strata/events';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import type { AspectStore } from '@strata/store';
import { listen, type RunnableService, type RunningServer } from '@strata/http';
import { kafkaSettings } from '@strata/config';
import { gatewayServiceFrom, type GatewayService } from '@strata/gateway';
import { openMetadataWriter, type MetadataWriterService } from '@strata/metadata-writer';
import { openSearchIndexer } from '@strata/search-indexer';
import type { StandaloneConfig } from './config';

/**
 * The composition root of the standalone process: every service in one process. The embedded engines by default, each
 * service's data in its own file under DATA_DIR; Kafka when KAFKA_BROKERS is set, MongoDB when MONGODB_URI is set.
 * The only place that builds clients and picks adapters for this deployment.
 */
export function createStandaloneApp(config: StandaloneConfig): RunnableService {
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'strata-standalone' } });
  mkdirSync(config.DATA_DIR, { recursive: true });
  const schemas = readSchemas();
  const registry = createEntityRegistry(schemas);
  const serde = createEventSerde(schemas);
  const topics = topicNamesFrom(config);
  const kafka = kafkaSettings(config, 'standalone');
  const onConsumerError = (error: unknown) => {
    logger.warn({ err: error }, 'a log consumer failed a batch; it will be redelivered');
  };
  const log: MessageLog = kafka
    ? new KafkaMessageLog({ ...kafka, onError: onConsumerError })
    : new SqliteMessageLog({ path: join(config.DATA_DIR, 'log.sqlite'), onError: onConsumerError });

  let store: AspectStore | undefined;
  let writer: MetadataWriterService | undefined;
  let indexer: Awaited<ReturnType<typeof openSearchIndexer>> | undefined;
  let gateway: GatewayService | undefined;
  let server: RunningServer | undefined;
  return {
    async start() {
      const opened = await openMetadataWriter(config, {
        log,
        registry,
        serde,
        topics,
        logger: logger.child({ component: 'metadata-writer' }),
      });
      store = opened.store;
      writer = opened.service;
      indexer = await openSearchIndexer(config, {
        log,
        registry,
        serde,
        topics,
        logger: logger.child({ component: 'search-indexer' }),
      });
      gateway = gatewayServiceFrom(config, {
        log,
        registry,
        serde,
        topics,
        ownedElsewhere: [...writer.routes, ...indexer.service.routes],
        metrics: [indexer.service.metrics],
        logger: logger.child({ component: 'gateway' }),
      });
      await writer.start();
      await indexer.service.start();
      await gateway.start();
      server = await listen(gateway.app, config.HOST, config.PORT);
      logger.info(
        {
          host: config.HOST,
          port: server.port,
          dataDir: config.DATA_DIR,
          log: kafka ? 'kafka' : 'sqlite',
          store: config.MONGODB_URI ? 'mongodb' : 'sqlite',
          search: config.ELASTICSEARCH_URL ? 'elasticsearch' : 'sqlite',
        },
        'Strata is ready',
      );
      return { port: server.port };
    },
    async stop() {
      await server?.close();
      await gateway?.stop();
      await indexer?.service.stop();
      await writer?.stop();
      await log.close();
      await indexer?.close();
      await store?.close();
      logger.info('Strata stopped');
    },
  };
}
