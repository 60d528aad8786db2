import { z } from 'zod';
import { engineConfig, modelConfig, limitsConfig, listenerConfig, loadConfig, topicConfig } from '@strata/config';
import { authConfig, ingestConfig } from '@strata/gateway';
import { writerConfig } from '@strata/metadata-writer';
import { searchIndexerConfig } from '@strata/search-indexer';
import { auditConfig } from '@strata/audit';
import { timeseriesIndexerConfig } from '@strata/timeseries-indexer';
import { metadataTestsConfig } from '@strata/operations';

/**
 * Configuration of the standalone process, from environment variables: the services' own settings, composed. Every
 * key is documented with its default; names shared with DataHub (topics, limits, async default) keep its spelling.
 */
export const standaloneConfigSchema = z.object({
  ...listenerConfig(8080),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...limitsConfig,
  ...ingestConfig,
  ...authConfig,
  ...writerConfig,
  ...searchIndexerConfig,
  ...auditConfig,
  ...timeseriesIndexerConfig,
  ...metadataTestsConfig,
});

export type StandaloneConfig = z.infer<typeof standaloneConfigSchema>;

export function loadStandaloneConfig(environment: Readonly<Record<string, string | undefined>>): StandaloneConfig {
  return loadConfig(standaloneConfigSchema, environment);
}
