import { z } from 'zod';
import { env } from './load-config';

/**
 * Configuration keys every Strata service shares: which engines to use and the log's topic names. Spread into a
 * service's own schema (`z.object({ ...engineConfig, ...topicConfig, … })`).
 */
export const engineConfig = {
  DATA_DIR: z.string().default('./data').describe("Directory holding the service's data files (embedded engines)."),
  KAFKA_BROKERS: z
    .string()
    .optional()
    .describe(
      'Comma-separated Kafka bootstrap servers. Set: the log is Kafka. Unset: the embedded SQLite log under DATA_DIR.',
    ),
  KAFKA_CLIENT_ID: z.string().default('strata').describe('Kafka client id prefix.'),
  KAFKA_SESSION_TIMEOUT_MS: env
    .integer(1_000, 300_000)
    .default(30_000)
    .describe('Kafka consumer session timeout: how long a dead consumer holds its partitions.'),
  KAFKA_FETCH_MAX_WAIT_MS: env
    .integer(10, 30_000)
    .default(500)
    .describe(
      'Longest a Kafka fetch waits on the broker for new records (a real broker answers as soon as records arrive).',
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level.'),
};

/** The metadata model every service loads alike. */
export const modelConfig = {
  CUSTOM_MODELS_DIR: z
    .string()
    .optional()
    .describe(
      "Directory of an operator's own aspect and entity schemas (docs/custom-models.md), loaded beside DataHub's model at start. Every service of a deployment needs the same directory.",
    ),
};

/** The log's topics, overridable with DataHub's variable names. */
export const topicConfig = {
  METADATA_CHANGE_PROPOSAL_TOPIC_NAME: z.string().default('MetadataChangeProposal_v1').describe('Proposal topic.'),
  FAILED_METADATA_CHANGE_PROPOSAL_TOPIC_NAME: z
    .string()
    .default('FailedMetadataChangeProposal_v1')
    .describe('Topic of proposals that could not be applied.'),
  METADATA_CHANGE_LOG_VERSIONED_TOPIC_NAME: z
    .string()
    .default('MetadataChangeLog_Versioned_v1')
    .describe('Change logs of versioned aspects.'),
  METADATA_CHANGE_LOG_TIMESERIES_TOPIC_NAME: z
    .string()
    .default('MetadataChangeLog_Timeseries_v1')
    .describe('Change logs of timeseries aspects.'),
  METADATA_CHANGE_PROPOSAL_OUTCOME_TOPIC_NAME: z
    .string()
    .default('MetadataChangeProposalOutcome_v1')
    .describe('Outcomes of proposals that carried a request id.'),
  METADATA_INDEX_ACKNOWLEDGEMENT_TOPIC_NAME: z
    .string()
    .default('MetadataIndexAcknowledgement_v1')
    .describe("Indexers' acknowledgements of writes that wait for indexing."),
  DATAHUB_USAGE_EVENT_NAME: z
    .string()
    .default('DataHubUsageEvent_v1')
    .describe('Events for the audit trail that are not changes of the catalog: logins, kept or refused.'),
  PLATFORM_EVENT_TOPIC_NAME: z
    .string()
    .default('PlatformEvent_v1')
    .describe("DataHub's platform events: written by producePlatformEvent, read by the events API."),
};

/** Limits every service that reads aspects enforces alike. */
export const limitsConfig = {
  INGESTION_MAX_SERIALIZED_STRING_LENGTH: env
    .integer(1024, 256 * 1024 * 1024)
    .default(16_000_000)
    .describe("Largest serialized aspect, in bytes (DataHub's 16 MB row limit)."),
};

/** Shared HTTP listener keys. */
export const listenerConfig = (defaultPort: number) => ({
  HOST: z.string().default('127.0.0.1').describe('Interface to listen on. Use 0.0.0.0 in a container.'),
  PORT: env.port().default(defaultPort).describe('HTTP port (0 picks a free one).'),
  ACCESS_LOG_LEVEL: z
    .enum(['info', 'debug', 'off'])
    .default('info')
    .describe(
      'Access log: one line per HTTP request (method, declared route, path without its query string, status, duration, actor, request id, and why a write was refused): `info`; `debug` (seen only with LOG_LEVEL=debug, except answers 5xx, which stay at warn or error); `off`. Health probes and metric scrapes are logged at debug.',
    ),
});

/** Kafka client settings of a service, from its configuration; undefined when the embedded log is configured. */
export function kafkaSettings(
  config: {
    readonly KAFKA_BROKERS?: string | undefined;
    readonly KAFKA_CLIENT_ID: string;
    readonly KAFKA_SESSION_TIMEOUT_MS: number;
    readonly KAFKA_FETCH_MAX_WAIT_MS: number;
  },
  service: string,
):
  | {
      brokers: string[];
      clientId: string;
      consumer: { sessionTimeoutMs: number; heartbeatIntervalMs: number; maxWaitTimeMs: number };
    }
  | undefined {
  const brokers = kafkaBrokers(config.KAFKA_BROKERS);
  if (!brokers) return undefined;
  return {
    brokers,
    clientId: `${config.KAFKA_CLIENT_ID}-${service}`,
    consumer: {
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      // Several heartbeats per session timeout, as Kafka recommends (at most a third of it).
      heartbeatIntervalMs: Math.max(100, Math.min(3_000, Math.floor(config.KAFKA_SESSION_TIMEOUT_MS / 5))),
      maxWaitTimeMs: config.KAFKA_FETCH_MAX_WAIT_MS,
    },
  };
}

/** Kafka brokers as a list, or undefined when the embedded log is configured. */
export function kafkaBrokers(value: string | undefined): string[] | undefined {
  const brokers = value
    ?.split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker !== '');
  return brokers && brokers.length > 0 ? brokers : undefined;
}

/**
 * The system client a service run alone trusts — the only caller it serves: the gateway forwards every request with
 * these credentials and names the request's actor, and services call each other with them too.
 */
export const systemClientConfig = {
  DATAHUB_SYSTEM_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, 'letters, digits, ".", "_" and "-" only')
    .default('__datahub_system')
    .describe("The system client's id: `Authorization: Basic <id>:<secret>`."),
  DATAHUB_SYSTEM_CLIENT_SECRET: z
    .string({ error: 'is required: this service serves only callers with the system client’s credentials' })
    .min(16, 'must be at least 16 characters')
    .describe("The system client's secret; required, and the same for every process of a deployment."),
};
