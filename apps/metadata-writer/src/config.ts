import { z } from 'zod';
import {
  engineConfig,
  modelConfig,
  env,
  limitsConfig,
  listenerConfig,
  loadConfig,
  systemClientConfig,
  topicConfig,
} from '@strata/config';

/** The writer's own settings, shared by every process that runs it (alone, or in the standalone process). */
export const writerConfig = {
  MONGODB_URI: z
    .string()
    .optional()
    .describe(
      'MongoDB connection string (a replica set). Set: the primary store is MongoDB. Unset: SQLite under DATA_DIR.',
    ),
  MONGODB_DATABASE: z.string().default('strata').describe('MongoDB database of the primary store.'),
  WRITER_MAX_BATCH_SIZE: env
    .integer(1, 10_000)
    .default(500)
    .describe('Most proposals the writer applies in one store commit.'),
  WRITER_GROUP_ID: z
    .string()
    .default('generic-mce-consumer-job-client')
    .describe("Consumer group of the writers (DataHub's mce-consumer group)."),
};

/** Configuration of the metadata-writer running alone. */
export const metadataWriterConfigSchema = z.object({
  ...listenerConfig(8081),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...limitsConfig,
  ...writerConfig,
  ...systemClientConfig,
});

export type MetadataWriterConfig = z.infer<typeof metadataWriterConfigSchema>;

export function loadMetadataWriterConfig(
  environment: Readonly<Record<string, string | undefined>>,
): MetadataWriterConfig {
  return loadConfig(metadataWriterConfigSchema, environment);
}
