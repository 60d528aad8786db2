import type { z } from 'zod';
import { ConfigError, loadConfig } from '@strata/config';
import { auditConfigSchema } from '../../apps/audit/src/config';
import { gatewayConfigSchema } from '../../apps/gateway/src/config';
import { metadataWriterConfigSchema } from '../../apps/metadata-writer/src/config';
import { operationsConfigSchema } from '../../apps/operations/src/config';
import { searchIndexerConfigSchema } from '../../apps/search-indexer/src/config';
import { standaloneConfigSchema } from '../../apps/standalone/src/config';
import { initConfigSchema } from '../../apps/standalone/src/init-config';
import { timeseriesIndexerConfigSchema } from '../../apps/timeseries-indexer/src/config';

/**
 * The configuration schema of every process the image runs, by the image's command (deploy/docker-entrypoint.sh):
 * what a deployment file may set in that process's environment.
 */
export const processConfigurations: Readonly<Record<string, z.ZodObject>> = {
  standalone: standaloneConfigSchema,
  gateway: gatewayConfigSchema,
  'metadata-writer': metadataWriterConfigSchema,
  'search-indexer': searchIndexerConfigSchema,
  audit: auditConfigSchema,
  'timeseries-indexer': timeseriesIndexerConfigSchema,
  operations: operationsConfigSchema,
  init: initConfigSchema,
};

/**
 * What is wrong with `environment` for the process the image runs as `command`: variables its configuration schema
 * does not define (the process would ignore them silently), and the schema's own complaints about the values (what
 * would stop the process at start). Empty when the process would start with this environment.
 */
export function configurationProblems(command: string, environment: Readonly<Record<string, string>>): string[] {
  const schema = processConfigurations[command];
  if (schema === undefined) return [`${command} is not a command of the image`];
  const keys = new Set(Object.keys(schema.shape));
  const problems = Object.keys(environment)
    .filter((name) => !keys.has(name))
    .map((name) => `${name} is not a configuration key of the ${command}`);
  try {
    loadConfig(schema, environment);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  return problems;
}

/**
 * A value for a secret or a value a deployment computes (a pod's name), standing in for it where the deployment file
 * only refers to it: long enough for every length rule, and safe inside a URL.
 */
export function placeholderFor(name: string): string {
  return `placeholder-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-0123456789abcdef0123456789abcdef`;
}
