import { z } from 'zod';
import { engineConfig, env, limitsConfig, listenerConfig, loadConfig, topicConfig } from '@strata/config';

/** How the gateway takes writes, shared by every process that runs it (alone, or in the standalone process). */
export const ingestConfig = {
  ASYNC_INGEST_DEFAULT: env
    .boolean()
    .default(false)
    .describe("What an ingest without `async` does: false waits for the write to be stored (DataHub's default)."),
  INGEST_TIMEOUT_MS: env
    .integer(100, 600_000)
    .default(30_000)
    .describe('How long a synchronous ingest waits for its outcome before answering 504 (the write may still apply).'),
  MAX_BODY_BYTES: env
    .integer(1024, 512 * 1024 * 1024)
    .default(64 * 1024 * 1024)
    .describe('Largest request body, in bytes.'),
  INGEST_MAX_BATCH_PROPOSALS: env
    .integer(1, 100_000)
    .default(1_000)
    .describe('Most proposals in one ingestProposalBatch.'),
};

/** Configuration of the gateway running alone. */
export const gatewayConfigSchema = z.object({
  ...listenerConfig(8080),
  ...engineConfig,
  ...topicConfig,
  ...limitsConfig,
  ...ingestConfig,
  METADATA_WRITER_URL: z
    .url()
    .default('http://127.0.0.1:8081')
    .describe('Base URL of the metadata-writer, which serves the primary-store reads.'),
  SEARCH_INDEXER_URL: z
    .url()
    .default('http://127.0.0.1:8082')
    .describe('Base URL of the search indexer, which serves search, browse, autocomplete and relationships.'),
  SERVICE_DISCOVERY_TIMEOUT_MS: env
    .integer(1_000, 600_000)
    .default(60_000)
    .describe('How long the gateway waits at start-up for the services it routes to to publish their routes.'),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function loadGatewayConfig(environment: Readonly<Record<string, string | undefined>>): GatewayConfig {
  return loadConfig(gatewayConfigSchema, environment);
}
