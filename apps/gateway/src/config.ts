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

/**
 * How the gateway authenticates, shared by every process that runs it. The signing key and the system client's secret
 * are optional here: the standalone process makes and keeps its own; the gateway alone requires both (below).
 */
export const authConfig = {
  METADATA_SERVICE_AUTH_ENABLED: env
    .boolean()
    .default(false)
    .describe(
      'Whether requests need credentials (an access token, or the system client). Off, a request without them acts as the anonymous user; a valid token still names its user either way. Health, metrics, documentation, /config and the schema registry are always open.',
    ),
  DATAHUB_TOKEN_SERVICE_SIGNING_KEY: z
    .string()
    .min(32, 'must be at least 32 characters (HS256 wants 256 bits of secret)')
    .optional()
    .describe(
      'The secret access tokens are signed and verified with (HS256). Every gateway of a deployment needs the same one. Unset in the standalone process: one is generated and kept in DATA_DIR/secrets, readable by its owner only.',
    ),
  DATAHUB_TOKEN_SERVICE_ISSUER: z
    .string()
    .min(1)
    .default('datahub-metadata-service')
    .describe('The issuer (`iss`) access tokens carry and must carry.'),
  DATAHUB_SYSTEM_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, 'letters, digits, ".", "_" and "-" only')
    .default('__datahub_system')
    .describe("The system client's id: `Authorization: Basic <id>:<secret>` acts as the system actor."),
  STRATA_ROOT_PASSWORD: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The root user's (datahub) password, set at every start. Unset in the standalone process: `datahub`, with a warning; a gateway alone requires it.",
    ),
  DATAHUB_SYSTEM_CLIENT_SECRET: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe(
      "The system client's secret. Unset in the standalone process: one is generated and kept in DATA_DIR/secrets, readable by its owner only.",
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
  ...authConfig,
  // Required of a gateway alone: every instance of a deployment must sign, verify and trust the same secrets.
  DATAHUB_TOKEN_SERVICE_SIGNING_KEY: z
    .string({ error: 'is required: every gateway of a deployment must sign and verify tokens with the same key' })
    .min(32, 'must be at least 32 characters (HS256 wants 256 bits of secret)')
    .describe(
      'The secret access tokens are signed and verified with (HS256); required, and the same for every gateway of a deployment.',
    ),
  STRATA_ROOT_PASSWORD: z
    .string({ error: "is required: the root user's password, which a deployment must choose" })
    .min(1)
    .describe("The root user's (datahub) password, set at every start; required."),
  DATAHUB_SYSTEM_CLIENT_SECRET: z
    .string({ error: 'is required: every process of a deployment must trust the same system client' })
    .min(16, 'must be at least 16 characters')
    .describe("The system client's secret; required, and the same for every process of a deployment."),
  SERVICE_URLS: z
    .string()
    .default(
      'http://127.0.0.1:8081,http://127.0.0.1:8082,http://127.0.0.1:8083,http://127.0.0.1:8084,http://127.0.0.1:8085',
    )
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .pipe(z.array(z.url({ error: 'must be a comma-separated list of http(s) URLs' })))
    .describe(
      'Comma-separated base URLs of the services behind the gateway (by default the metadata-writer, the search indexer, the audit service, the timeseries indexer and the operations service, on their default ports). Each tells the gateway its name, the routes it owns and the read models it keeps; a service left out is neither routed to nor waited for.',
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
