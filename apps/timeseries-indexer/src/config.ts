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

/** Where the timeseries indices are, for the indexer run alone (the standalone process has these keys already). */
const timeseriesIndexEngineConfig = {
  ELASTICSEARCH_URL: z
    .string()
    .optional()
    .describe(
      'Elasticsearch URL. Set: one index per timeseries aspect (`<prefix>_<entity>_<aspect>aspect_v1`), truncations are Elasticsearch tasks, and the indexer may run as several instances. Unset: a SQLite file under DATA_DIR, one instance.',
    ),
  INDEX_PREFIX: z
    .string()
    .default('')
    .describe(
      "Prefix of the Elasticsearch index names (`<prefix>_dataset_datasetprofileaspect_v1`), DataHub's INDEX_PREFIX.",
    ),
};

/** The timeseries indexer's own settings, shared by every process that runs it (alone, or in the standalone process). */
export const timeseriesIndexerConfig = {
  TIMESERIES_INDEXER_GROUP_ID: z
    .string()
    .default('datahub-timeseries-consumer-job-client')
    .describe('Consumer group of the timeseries indexers on `MetadataChangeLog_Timeseries_v1`.'),
  TIMESERIES_INDEXER_MAX_BATCH_SIZE: env
    .integer(1, 10_000)
    .default(500)
    .describe('Most timeseries change logs the indexer applies in one index write.'),
};

/** Configuration of the timeseries indexer running alone. */
export const timeseriesIndexerConfigSchema = z.object({
  ...listenerConfig(8084),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...timeseriesIndexEngineConfig,
  ...timeseriesIndexerConfig,
  ...systemClientConfig,
});

export type TimeseriesIndexerConfig = z.infer<typeof timeseriesIndexerConfigSchema>;

export function loadTimeseriesIndexerConfig(
  environment: Readonly<Record<string, string | undefined>>,
): TimeseriesIndexerConfig {
  return loadConfig(timeseriesIndexerConfigSchema, environment);
}
