import { z } from 'zod';
import { env, loadConfig } from '@strata/config';

/**
 * Configuration of the standalone process, from environment variables. Every key is documented with its default; names
 * shared with DataHub (topics, limits, async default) keep DataHub's spelling.
 */
export const standaloneConfigSchema = z.object({
  HOST: z.string().default('127.0.0.1').describe('Interface to listen on. Use 0.0.0.0 in a container.'),
  PORT: env.port().default(8080).describe('HTTP port of the public interface (DataHub GMS uses 8080).'),
  DATA_DIR: z.string().default('./data').describe("Directory holding each service's data files."),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level.'),
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
  INGESTION_MAX_SERIALIZED_STRING_LENGTH: env
    .integer(1024, 256 * 1024 * 1024)
    .default(16_000_000)
    .describe("Largest serialized aspect, in bytes (DataHub's 16 MB row limit)."),
  INGEST_MAX_BATCH_PROPOSALS: env
    .integer(1, 100_000)
    .default(1_000)
    .describe('Most proposals in one ingestProposalBatch.'),
  WRITER_MAX_BATCH_SIZE: env
    .integer(1, 10_000)
    .default(500)
    .describe('Most proposals the writer applies in one store commit.'),
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
});

export type StandaloneConfig = z.infer<typeof standaloneConfigSchema>;

export function loadStandaloneConfig(environment: Readonly<Record<string, string | undefined>>): StandaloneConfig {
  return loadConfig(standaloneConfigSchema, environment);
}
