import { z } from 'zod';
import {
  engineConfig,
  env,
  listenerConfig,
  loadConfig,
  modelConfig,
  systemClientConfig,
  topicConfig,
} from '@strata/config';

/** Metadata tests' settings, shared by every process that runs the operations service (alone, or standalone). */
export const metadataTestsConfig = {
  METADATA_TESTS_AUTO_EVALUATION: env
    .boolean()
    .default(false)
    .describe(
      "Keep every entity's testResults current by itself: re-evaluate an entity when it changes, and every entity a test selects when the test changes (as a task), pushing testResults as the system actor when the outcome changes. Off: tests are evaluated only when asked (evaluate, batchEvaluate).",
    ),
  METADATA_TESTS_GROUP_ID: z
    .string()
    .default('strata-metadata-tests')
    .describe('Consumer group of automatic test evaluation on `MetadataChangeLog_Versioned_v1`.'),
  METADATA_TESTS_MAX_BATCH_SIZE: env
    .integer(1, 10_000)
    .default(250)
    .describe('Most change logs automatic test evaluation handles at once (one read of their entities).'),
};

/**
 * Configuration of the operations service running alone. It reads the versioned change logs and publishes proposals only
 * with automatic test evaluation on; its one file (the ledger of its tasks) is under DATA_DIR; the other engine and
 * topic keys are those every process takes.
 */
export const operationsConfigSchema = z.object({
  ...listenerConfig(8085),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...systemClientConfig,
  ...metadataTestsConfig,
  OPERATIONS_SERVICE_URLS: z
    .string()
    .default('http://127.0.0.1:8081,http://127.0.0.1:8082,http://127.0.0.1:8084')
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .pipe(z.array(z.url({ error: 'must be a comma-separated list of http(s) URLs' })).min(1))
    .describe(
      'Comma-separated base URLs of the services the operations service works through: the metadata-writer (restore, the durable timeseries points), the search indexer (emptied before a full rebuild) and the timeseries indexer (sizes, truncation tasks).',
    ),
  SERVICE_DISCOVERY_TIMEOUT_MS: env
    .integer(0, 600_000)
    .default(60_000)
    .describe('How long the operations service waits at start for the services of OPERATIONS_SERVICE_URLS to answer.'),
  FORWARD_TIMEOUT_MS: env
    .integer(1_000, 3_600_000)
    .default(600_000)
    .describe(
      'How long the operations service waits for an answer of a service it calls (a restore of many rows takes a while).',
    ),
});

export type OperationsConfig = z.infer<typeof operationsConfigSchema>;

export function loadOperationsConfig(environment: Readonly<Record<string, string | undefined>>): OperationsConfig {
  return loadConfig(operationsConfigSchema, environment);
}
