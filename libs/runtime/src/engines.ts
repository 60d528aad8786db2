import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { kafkaSettings } from '@strata/config';
import { KafkaMessageLog, SqliteMessageLog, type MessageLog } from '@strata/log';
import { MongoAspectStore, SqliteAspectStore, type AspectStore } from '@strata/store';
import {
  ElasticsearchAuditIndex,
  ElasticsearchGraphIndex,
  ElasticsearchSearchIndex,
  ElasticsearchTimeseriesIndex,
  SqliteGraphIndex,
  SqliteTimeseriesIndex,
  SqliteAuditIndex,
  SqliteSearchIndex,
  type AuditIndex,
  type GraphIndex,
  type SearchIndex,
  type SearchSchema,
  type TimeseriesAspectRef,
  type TimeseriesIndex,
} from '@strata/indices';
import { lockDataDirectory } from './data-directory-lock';
import type { LifecycleScope } from './lifecycle';

/**
 * The configuration that chooses the engines: each scale engine where its variable is set, the embedded one (SQLite
 * files under `DATA_DIR`) otherwise. Services pass the keys they have; a missing key means "not configured".
 */
export interface EngineSettings {
  readonly DATA_DIR: string;
  readonly KAFKA_BROKERS?: string | undefined;
  readonly KAFKA_CLIENT_ID: string;
  readonly KAFKA_SESSION_TIMEOUT_MS: number;
  readonly KAFKA_FETCH_MAX_WAIT_MS: number;
  readonly MONGODB_URI?: string | undefined;
  readonly MONGODB_DATABASE?: string | undefined;
  readonly ELASTICSEARCH_URL?: string | undefined;
  readonly INDEX_PREFIX?: string | undefined;
}

/** The part of a logger the engines need (pino's signature). */
export interface EngineLogger {
  warn(details: object, message: string): void;
}

/** Which engine each port runs on, for the process's "ready" line. */
export interface EngineChoice {
  readonly log: 'kafka' | 'sqlite';
  readonly store: 'mongodb' | 'sqlite';
  readonly search: 'elasticsearch' | 'sqlite';
  readonly graph: 'elasticsearch' | 'sqlite';
}

/**
 * The one place where configuration picks engines, for every process: the message log (Kafka or SQLite), the primary
 * store (MongoDB or SQLite), and the search, graph and audit indices (Elasticsearch or SQLite). Every open is registered
 * with the caller's lifecycle scope, so that a failed start closes what was opened and a stop closes it last.
 *
 * A service whose data lives in embedded files locks them (`<DATA_DIR>/<service>.lock`) when it opens the first: a
 * second instance of that service on the same data fails at start with a message saying why. The SQLite log is shared
 * by the services of one data directory and is not locked.
 */
export class Engines {
  private log: Promise<MessageLog> | undefined;
  private elasticsearch: Promise<Client> | undefined;
  private readonly locked = new Set<string>();

  constructor(
    private readonly settings: EngineSettings,
    private readonly logger: EngineLogger,
  ) {}

  /** Which engine each port runs on under these settings. */
  choice(): EngineChoice {
    const elasticsearch = isSet(this.settings.ELASTICSEARCH_URL) ? 'elasticsearch' : 'sqlite';
    return {
      log: isSet(this.settings.KAFKA_BROKERS) ? 'kafka' : 'sqlite',
      store: isSet(this.settings.MONGODB_URI) ? 'mongodb' : 'sqlite',
      search: elasticsearch,
      graph: elasticsearch,
    };
  }

  /** The process's message log, opened once; `clientName` names the process to the Kafka brokers. */
  openLog(scope: LifecycleScope, clientName: string): Promise<MessageLog> {
    this.log ??= scope.open(
      'message log',
      () => {
        const onError = (error: unknown) => {
          this.logger.warn({ err: error }, 'a log consumer failed a batch; it will be redelivered');
        };
        const kafka = kafkaSettings(this.settings, clientName);
        if (kafka) return new KafkaMessageLog({ ...kafka, onError });
        return new SqliteMessageLog({ path: join(this.dataDir(), 'log.sqlite'), onError });
      },
      (log) => log.close(),
    );
    return this.log;
  }

  /** The primary store of `service` (the metadata-writer). */
  openStore(
    scope: LifecycleScope,
    service: string,
    options: { readonly listedAspects: readonly string[] },
  ): Promise<AspectStore> {
    const { MONGODB_URI: uri, MONGODB_DATABASE: database } = this.settings;
    const { listedAspects } = options;
    if (isSet(uri)) {
      return scope.open(
        'primary store',
        () => MongoAspectStore.connect({ uri, database: database ?? 'strata', listedAspects }),
        (store) => store.close(),
      );
    }
    return this.openEmbedded(scope, service, 'primary store', () => {
      return new SqliteAspectStore({ path: join(this.dataDir(), `${service}.sqlite`), listedAspects });
    });
  }

  /** The search index of `service` (the search indexer). */
  async openSearchIndex(scope: LifecycleScope, service: string, schema: SearchSchema): Promise<SearchIndex> {
    if (isSet(this.settings.ELASTICSEARCH_URL)) {
      const client = await this.elasticsearchClient(scope);
      return scope.open(
        'search index',
        () => ElasticsearchSearchIndex.open({ client, schema, ...this.indexPrefix() }),
        (index) => index.close(),
      );
    }
    return this.openEmbedded(scope, service, 'search index', () => {
      return new SqliteSearchIndex({ path: join(this.dataDir(), `${service}.sqlite`), schema });
    });
  }

  /** The relationship graph of `service` (the search indexer). */
  async openGraphIndex(scope: LifecycleScope, service: string): Promise<GraphIndex> {
    if (isSet(this.settings.ELASTICSEARCH_URL)) {
      const client = await this.elasticsearchClient(scope);
      return scope.open(
        'graph index',
        () => ElasticsearchGraphIndex.open({ client, ...this.indexPrefix() }),
        (index) => index.close(),
      );
    }
    return this.openEmbedded(scope, service, 'graph index', () => {
      return new SqliteGraphIndex({ path: join(this.dataDir(), `${service}-graph.sqlite`) });
    });
  }

  /**
   * The audit index of `service` (the audit service). On Elasticsearch, events are searchable within the index's
   * refresh interval of being recorded (`refresh: false`), so that the trail keeps up with heavy ingest.
   */
  async openAuditIndex(scope: LifecycleScope, service: string): Promise<AuditIndex> {
    if (isSet(this.settings.ELASTICSEARCH_URL)) {
      const client = await this.elasticsearchClient(scope);
      return scope.open(
        'audit index',
        () => ElasticsearchAuditIndex.open({ client, refresh: false, ...this.indexPrefix() }),
        (index) => index.close(),
      );
    }
    return this.openEmbedded(scope, service, 'audit index', () => {
      return new SqliteAuditIndex({ path: join(this.dataDir(), `${service}.sqlite`) });
    });
  }

  /**
   * The timeseries indices of `service` (the timeseries indexer), one per (entity type, aspect) of `aspects`: a read
   * model, so a point is readable once its write resolves.
   */
  async openTimeseriesIndex(
    scope: LifecycleScope,
    service: string,
    aspects: readonly TimeseriesAspectRef[],
  ): Promise<TimeseriesIndex> {
    if (isSet(this.settings.ELASTICSEARCH_URL)) {
      const client = await this.elasticsearchClient(scope);
      return scope.open(
        'timeseries indices',
        () => ElasticsearchTimeseriesIndex.open({ client, aspects, ...this.indexPrefix() }),
        (index) => index.close(),
      );
    }
    return this.openEmbedded(scope, service, 'timeseries indices', () => {
      return new SqliteTimeseriesIndex({ path: join(this.dataDir(), `${service}.sqlite`), aspects });
    });
  }

  /**
   * A file of `service`'s own under DATA_DIR, whatever the engines (the operations service's task ledger), opened by
   * `open` with the directory's path once the service's lock on it is taken.
   */
  openServiceFile<T extends { close(): Promise<void> }>(
    scope: LifecycleScope,
    service: string,
    name: string,
    open: (directory: string) => T,
  ): Promise<T> {
    return this.openEmbedded(scope, service, name, () => open(this.dataDir()));
  }

  /** Opens an embedded engine's file, first taking the service's lock on the data directory. */
  private async openEmbedded<T extends { close(): Promise<void> }>(
    scope: LifecycleScope,
    service: string,
    name: string,
    open: () => T,
  ): Promise<T> {
    if (!this.locked.has(service)) {
      this.locked.add(service);
      await scope.open(
        `${service} data lock`,
        () => lockDataDirectory(this.dataDir(), service),
        (lock) => {
          lock.release();
        },
      );
    }
    return scope.open(name, open, (engine) => engine.close());
  }

  /** One client for every Elasticsearch index of the process, closed after them. */
  private elasticsearchClient(scope: LifecycleScope): Promise<Client> {
    const node = this.settings.ELASTICSEARCH_URL ?? '';
    this.elasticsearch ??= scope.open(
      'Elasticsearch client',
      () => new Client({ node }),
      (client) => client.close(),
    );
    return this.elasticsearch;
  }

  private indexPrefix(): { indexPrefix?: string } {
    const prefix = this.settings.INDEX_PREFIX;
    return isSet(prefix) ? { indexPrefix: prefix } : {};
  }

  private dataDir(): string {
    mkdirSync(this.settings.DATA_DIR, { recursive: true });
    return this.settings.DATA_DIR;
  }
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
