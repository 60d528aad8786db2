import { encodeUsageEvent, RecordHeader } from '@strata/events';
import { SqliteAuditIndex, type AuditIndex } from '@strata/indices';
import type { LogRecord, MessageLog } from '@strata/log';
import { systemScheduler } from '@strata/timing';
import { UsageEventConsumer } from './usage-event-consumer';

const record = (offset: number, value: Buffer, requestId?: string): LogRecord => ({
  topic: 'DataHubUsageEvent_v1',
  partition: 0,
  offset: String(offset),
  key: 'urn:li:corpuser:datahub',
  value,
  headers: requestId === undefined ? {} : { [RecordHeader.requestId]: requestId },
  timestamp: 1,
});

const login = encodeUsageEvent({
  type: 'FailedLogInEvent',
  timestamp: 1_700_000_000_000,
  actorUrn: 'urn:li:corpuser:datahub',
  loginSource: 'passwordLogin',
  loginDenialReason: 'INVALID_CREDENTIALS',
  eventSource: 'RESTLI',
  usageSource: 'backend',
});

const query = {
  startTime: 0,
  endTime: Number.MAX_SAFE_INTEGER,
  eventTypes: [],
  entityTypes: [],
  aspectTypes: [],
  actorUrns: [],
  size: 10,
};

function consumerOn(index: AuditIndex, warnings: string[] = []) {
  return new UsageEventConsumer({
    log: {} as MessageLog,
    topic: 'DataHubUsageEvent_v1',
    groupId: 'audit-usage-events',
    index,
    scheduler: systemScheduler,
    logger: { warn: (_details, message) => warnings.push(message) },
    maxBatchSize: 100,
  });
}

describe('the usage-event consumer', () => {
  it('records each login once under its request id, and skips a record that never decodes, loudly', async () => {
    const index = new SqliteAuditIndex({ path: ':memory:' });
    const warnings: string[] = [];
    const consumer = consumerOn(index, warnings);
    await consumer.handleBatch([record(0, login, 'r-1'), record(1, Buffer.from('not json')), record(2, login, 'r-1')]);
    await consumer.handleBatch([record(3, login)]);
    const page = await index.search(query);
    expect(page.events.map((event) => event.id).sort()).toEqual(['login/DataHubUsageEvent_v1/0/3', 'login/r-1']);
    expect(page.events[0]).toMatchObject({ type: 'FailedLogInEvent', loginDenialReason: 'INVALID_CREDENTIALS' });
    expect(warnings).toEqual(['skipping a usage event that can never be recorded']);
    expect(await consumer.metrics.getSingleMetricAsString('strata_audit_usage_events_skipped_total')).toContain(' 1');
    await index.close();
  });

  it('retries a failing index write until it succeeds, never committing past it', async () => {
    const real = new SqliteAuditIndex({ path: ':memory:' });
    let failures = 2;
    const flaky: AuditIndex = {
      search: (q) => real.search(q),
      expire: (before) => real.expire(before),
      close: () => real.close(),
      record: (events) => (failures-- > 0 ? Promise.reject(new Error('engine down')) : real.record(events)),
    };
    const warnings: string[] = [];
    await consumerOn(flaky, warnings).handleBatch([record(0, login, 'r-9')]);
    expect(warnings).toHaveLength(2);
    expect((await real.search(query)).total).toBe(1);
    await real.close();
  });
});
