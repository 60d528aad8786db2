import { z } from 'zod';
import { engineConfig, modelConfig, env, limitsConfig, listenerConfig, loadConfig, topicConfig } from '@strata/config';

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
  GATEWAY_INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'letters, digits, ".", "_" and "-" only')
    .optional()
    .describe(
      "This gateway's identity, unique among the deployment's gateways and kept across restarts: it names the consumer group the gateway reads outcomes in (`gateway-outcomes-<id>`). Unset: the host name and the port listened on.",
    ),
};

/** Configuration of the gateway running alone. */
export const gatewayConfigSchema = z.object({
  ...listenerConfig(8080),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...limitsConfig,
  ...ingestConfig,
  SERVICE_URLS: z
    .string()
    .default('http://127.0.0.1:8081,http://127.0.0.1:8082')
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .pipe(z.array(z.url({ error: 'must be a comma-separated list of http(s) URLs' })))
    .describe(
      'Comma-separated base URLs of the services behind the gateway (by default the metadata-writer, then the search indexer). Each tells the gateway its name, the routes it owns and the read models it keeps; a service left out is neither routed to nor waited for.',
    ),
  FORWARD_TIMEOUT_MS: env
    .integer(100, 600_000)
    .default(60_000)
    .describe(
      'How long a service behind the gateway may take to start answering a forwarded request (and may go silent mid-answer) before the gateway answers 504.',
    ),
  SERVICE_DISCOVERY_TIMEOUT_MS: env
    .integer(1_000, 600_000)
    .default(60_000)
    .describe('How long the gateway waits at start-up for the services it routes to to publish their routes.'),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function loadGatewayConfig(environment: Readonly<Record<string, string | undefined>>): GatewayConfig {
  return loadConfig(gatewayConfigSchema, environment);
}
