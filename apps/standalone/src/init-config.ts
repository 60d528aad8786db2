import { z } from 'zod';
import { engineConfig, env, loadConfig, modelConfig, topicConfig } from '@strata/config';

/** A retention in milliseconds: -1 keeps records forever; otherwise at least a minute. */
const retention = () =>
  env
    .integer(-1, Number.MAX_SAFE_INTEGER)
    .refine((value) => value === -1 || value >= 60_000, 'must be -1 (keep forever) or at least 60000 (a minute)');

/** How the initialisation creates the topics (`planTopics` of `@strata/events`). Read by the initialisation only. */
export const topicSettingsConfig = {
  KAFKA_TOPIC_PARTITIONS: env
    .integer(1, 10_000)
    .default(6)
    .describe(
      'Partitions of every topic: the most instances of one consumer group (writers, indexers, audit) that share the work. Chosen once: an existing topic keeps its count, which is never changed (keys would move and lose their order).',
    ),
  KAFKA_TOPIC_REPLICATION_FACTOR: env
    .integer(1, 32)
    .default(1)
    .describe(
      'Copies of every partition, on different brokers; at most the number of brokers. With 3 or more, a write is acknowledged once 2 hold it (`min.insync.replicas`).',
    ),
  KAFKA_TOPIC_RETENTION_MS: retention()
    .default(604_800_000)
    .describe(
      'How long the proposals, change logs, failed proposals and usage events are kept, in milliseconds (-1: forever). A consumer stopped for longer misses what expired; the indices can be rebuilt from the primary store, the audit trail of logins cannot.',
    ),
  KAFKA_REPLY_TOPIC_RETENTION_MS: retention()
    .default(3_600_000)
    .describe(
      "How long the outcomes and index acknowledgements, which only gateways read while a request waits, are kept, in milliseconds (-1: forever). Keep it above the gateways' INGEST_TIMEOUT_MS.",
    ),
  KAFKA_TOPIC_MAX_MESSAGE_BYTES: env
    .integer(1_048_576, 1_073_741_824)
    .default(67_108_864)
    .describe(
      "Largest record batch a topic accepts, in bytes (`max.message.bytes`). A publish sends its records for one partition as one batch, so the default is the gateway's MAX_BODY_BYTES: the largest batch of proposals a gateway accepts fits.",
    ),
};

/**
 * Configuration of the initialisation (`node apps/standalone/dist/init.js`). It takes the engine, model and topic keys
 * every process takes, so that one environment shared by a deployment's processes serves it too, and reads the Kafka
 * keys, the topic names and {@link topicSettingsConfig}.
 */
export const initConfigSchema = z.object({
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  KAFKA_BROKERS: z
    .string({ error: 'is required: the Kafka cluster whose topics to create' })
    .min(1)
    .describe('Comma-separated Kafka bootstrap servers of the cluster whose topics to create; required.'),
  ...topicSettingsConfig,
});

export type InitConfig = z.infer<typeof initConfigSchema>;

export function loadInitConfig(environment: Readonly<Record<string, string | undefined>>): InitConfig {
  return loadConfig(initConfigSchema, environment);
}
