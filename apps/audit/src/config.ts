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

/** Where the audit index is, for the service run alone (the standalone process has these keys already). */
const auditIndexConfig = {
  ELASTICSEARCH_URL: z
    .string()
    .optional()
    .describe(
      'Elasticsearch URL. Set: the audit trail is the index `<prefix>_datahub_usage_event`, and the audit service may run as several instances. Unset: a SQLite file under DATA_DIR, one instance.',
    ),
  INDEX_PREFIX: z
    .string()
    .default('')
    .describe("Prefix of the Elasticsearch index names (`<prefix>_datahub_usage_event`), DataHub's INDEX_PREFIX."),
};

/** The audit service's own settings, shared by every process that runs it (alone, or in the standalone process). */
export const auditConfig = {
  AUDIT_GROUP_ID: z
    .string()
    .default('datahub-audit-consumer-job-client')
    .describe(
      'Consumer group of the audit service on the change logs; it reads the usage events (logins) in `<group>-usage-events`.',
    ),
  AUDIT_ASPECTS: z
    .string()
    .default('*')
    .describe(
      'Aspects whose changes the trail records as UpdateAspectEvent, DeleteEntityEvent or EntityEvent: `*` for every aspect, or names separated by commas. Token, user, policy and ingestion-source events are recorded whatever this says.',
    ),
  AUDIT_RETENTION_DAYS: env
    .integer(0, 36_500)
    .default(365)
    .describe('Days an audit event is kept; older events are removed every hour. 0 keeps every event.'),
  AUDIT_MAX_BATCH_SIZE: env
    .integer(1, 10_000)
    .default(500)
    .describe('Most change logs or usage events the audit service records in one index write.'),
};

/** Configuration of the audit service running alone. */
export const auditConfigSchema = z.object({
  ...listenerConfig(8083),
  ...engineConfig,
  ...modelConfig,
  ...topicConfig,
  ...auditIndexConfig,
  ...auditConfig,
  ...systemClientConfig,
});

export type AuditConfig = z.infer<typeof auditConfigSchema>;

export function loadAuditConfig(environment: Readonly<Record<string, string | undefined>>): AuditConfig {
  return loadConfig(auditConfigSchema, environment);
}
