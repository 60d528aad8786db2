import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { AuditIndex } from '@strata/indices';
import { ChangeLogProcessor } from '@strata/change-log';
import type { Scheduler } from '@strata/timing';
import type { StrataService } from '@strata/runtime';
import { auditHook } from './consumers/audit-hook';
import { RetentionSweeper } from './consumers/retention';
import { UsageEventConsumer } from './consumers/usage-event-consumer';
import type { AuditedAspects } from './domain/audit-events';
import { auditRoutes } from './http/audit-routes';

/** The service's name: its progress, metrics, log client, lock and files are named after it. */
export const AUDIT = 'audit';

/**
 * How long the trail lets records accumulate before recording a batch that is not full: nobody waits for it, and fewer,
 * larger batches cost the process (the standalone one above all) much less than one per write.
 */
export const AUDIT_LINGER_MS = 250;

export interface AuditServiceOptions {
  readonly log: MessageLog;
  readonly index: AuditIndex;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly scheduler: Scheduler;
  readonly logger: { warn(details: object, message: string): void; info(details: object, message: string): void };
  /** Consumer group on the change logs; the usage events are read in `<groupId>-usage-events`. */
  readonly groupId: string;
  readonly maxBatchSize: number;
  readonly audited: AuditedAspects;
  /** Days an event is kept; 0 keeps every event. */
  readonly retentionDays: number;
}

/**
 * The audit service: the trail of who did what to the catalog and who logged in. A change-log processor with one
 * hook (`audit`, not a read model: no write waits for it) records each change; a consumer of the usage events records
 * the logins; a sweeper keeps the trail to its retention; and `POST /openapi/v1/events/audit/search` reads it.
 */
export function createAuditService(options: AuditServiceOptions): StrataService {
  const processor = new ChangeLogProcessor({
    name: AUDIT,
    groupId: options.groupId,
    log: options.log,
    serde: options.serde,
    registry: options.registry,
    topics: options.topics,
    hooks: [auditHook(options.index, options.audited)],
    scheduler: options.scheduler,
    logger: options.logger,
    maxBatchSize: options.maxBatchSize,
    lingerMs: AUDIT_LINGER_MS,
  });
  const usageEvents = new UsageEventConsumer({
    log: options.log,
    topic: options.topics.dataHubUsageEvent,
    groupId: `${options.groupId}-usage-events`,
    index: options.index,
    scheduler: options.scheduler,
    logger: options.logger,
    maxBatchSize: options.maxBatchSize,
    lingerMs: AUDIT_LINGER_MS,
  });
  const retention = new RetentionSweeper({
    index: options.index,
    days: options.retentionDays,
    scheduler: options.scheduler,
    logger: options.logger,
  });
  return {
    name: AUDIT,
    routes: auditRoutes(options.index, () => options.scheduler.now()),
    readModels: processor.readModels,
    metrics: [processor.metrics, usageEvents.metrics],
    start: async () => {
      await processor.start();
      await usageEvents.start();
      retention.start();
    },
    stop: async () => {
      await retention.stop();
      await usageEvents.stop();
      await processor.stop();
    },
  };
}
