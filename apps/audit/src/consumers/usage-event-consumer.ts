/**
 * Records the usage events of `DataHubUsageEvent_v1` (logins, kept or refused) in the audit index, with the delivery
 * policy of the change-log processor: a batch is committed only once its events are durable; a failing index write is
 * retried after a backoff for as long as it takes; a record that never decodes is logged, counted and skipped.
 */
import { decodeUsageEvent, RecordHeader, type UsageEvent } from '@strata/events';
import type { AuditIndex, AuditEvent } from '@strata/indices';
import type { LogRecord, MessageLog, Subscription } from '@strata/log';
import { retry, RetryAbortedError, type Scheduler } from '@strata/timing';
import { Counter, Registry } from 'prom-client';
import { auditEventOfLogin } from '../domain/audit-events';

export interface UsageEventConsumerOptions {
  readonly log: MessageLog;
  readonly topic: string;
  readonly groupId: string;
  readonly index: AuditIndex;
  readonly scheduler: Scheduler;
  readonly logger: { warn(details: object, message: string): void };
  readonly maxBatchSize: number;
  /** How long records may accumulate before a batch that is not full is recorded. */
  readonly lingerMs?: number;
}

export class UsageEventConsumer {
  readonly metrics = new Registry();
  private readonly recorded = new Counter({
    name: 'strata_audit_usage_events_recorded_total',
    help: 'Usage events (logins) recorded in the audit trail.',
    registers: [this.metrics],
  });
  private readonly skipped = new Counter({
    name: 'strata_audit_usage_events_skipped_total',
    help: 'Usage-event records that never decode, skipped.',
    registers: [this.metrics],
  });
  private subscription: Subscription | undefined;
  private stopping = new AbortController();

  constructor(private readonly options: UsageEventConsumerOptions) {}

  async start(): Promise<void> {
    this.stopping = new AbortController();
    this.subscription = await this.options.log.subscribe({
      groupId: this.options.groupId,
      topics: [this.options.topic],
      fromBeginning: true,
      maxBatchSize: this.options.maxBatchSize,
      lingerMs: this.options.lingerMs ?? 0,
      handleBatch: (records) => this.handleBatch(records),
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.subscription?.stop();
    this.subscription = undefined;
  }

  async handleBatch(records: readonly LogRecord[]): Promise<void> {
    const events: AuditEvent[] = [];
    for (const record of records) {
      let usage: UsageEvent;
      try {
        usage = decodeUsageEvent(record.value);
      } catch (error) {
        this.skipped.inc();
        this.options.logger.warn(
          { topic: record.topic, partition: record.partition, offset: record.offset, err: error },
          'skipping a usage event that can never be recorded',
        );
        continue;
      }
      events.push(
        auditEventOfLogin({
          // The login request's id is unique; a record without one is named by its position.
          id: `login/${record.headers[RecordHeader.requestId] ?? `${record.topic}/${record.partition}/${record.offset}`}`,
          succeeded: usage.type === 'LogInEvent',
          time: usage.timestamp,
          actor: usage.actorUrn,
          loginSource: usage.loginSource,
          denialReason: usage.loginDenialReason,
          sourceIp: usage.sourceIP,
          userAgent: usage.userAgent,
          eventSource: usage.eventSource,
          traceId: usage.traceId,
        }),
      );
    }
    if (events.length === 0) return;
    try {
      await retry(() => this.options.index.record(events), {
        scheduler: this.options.scheduler,
        backoff: { initialMs: 100, maxMs: 30_000 },
        signal: this.stopping.signal,
        onFailure: (error, attempt) => {
          this.options.logger.warn(
            { err: error, consumer: 'audit', attempt },
            'recording usage events failed; retrying after a backoff',
          );
        },
      });
    } catch (error) {
      throw error instanceof RetryAbortedError && error.cause !== undefined ? error.cause : error;
    }
    this.recorded.inc(events.length);
  }
}
