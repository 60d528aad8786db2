import { SYSTEM_ACTOR_URN } from '@strata/model';
import type { MessageLog } from '@strata/log';
import { systemClientAuthenticator, type RunnableService } from '@strata/http';
import { hostServices, type HostContext, type StrataService } from '@strata/runtime';
import type { AuditConfig } from './config';
import { AUDIT, createAuditService } from './audit-service';
import { auditedAspectsOf } from './domain/audit-events';

/** The settings {@link composeAudit} reads: the audit service's own, wherever it runs. */
export type AuditSettings = Pick<
  AuditConfig,
  'AUDIT_GROUP_ID' | 'AUDIT_ASPECTS' | 'AUDIT_RETENTION_DAYS' | 'AUDIT_MAX_BATCH_SIZE'
>;

/**
 * Opens the audit index (Elasticsearch when ELASTICSEARCH_URL is set, else a SQLite file under DATA_DIR) and builds
 * the audit service on the process's log: the one place both the service alone and the standalone process turn
 * configuration into it.
 */
export async function composeAudit(
  context: HostContext,
  settings: AuditSettings,
  log: MessageLog,
): Promise<StrataService> {
  const index = await context.engines.openAuditIndex(context.scope, AUDIT);
  return createAuditService({
    ...context.model,
    log,
    index,
    scheduler: context.scheduler,
    logger: context.logger.child({ component: AUDIT }),
    groupId: settings.AUDIT_GROUP_ID,
    maxBatchSize: settings.AUDIT_MAX_BATCH_SIZE,
    audited: auditedAspectsOf(settings.AUDIT_ASPECTS),
    retentionDays: settings.AUDIT_RETENTION_DAYS,
  });
}

/** The audit service running alone: consumes change logs and usage events and serves the audit search, for a gateway in front. */
export function createAuditApp(config: AuditConfig): RunnableService {
  return hostServices(AUDIT, config, async (context) => {
    const log = await context.engines.openLog(context.scope, AUDIT);
    const audit = await composeAudit(context, config, log);
    return {
      services: [audit],
      serviceTableOf: audit,
      maxBodyBytes: 64 * 1024,
      // Behind a gateway: only the system client (the gateway, the other services) is served.
      authenticate: systemClientAuthenticator(
        { id: config.DATAHUB_SYSTEM_CLIENT_ID, secret: config.DATAHUB_SYSTEM_CLIENT_SECRET },
        SYSTEM_ACTOR_URN,
      ),
    };
  });
}
