import { randomUUID } from 'node:crypto';
import type { LogRecord, MessageLog } from '@strata/log';

export interface TopicCollector {
  /** Every record delivered so far, in delivery order. */
  readonly records: readonly LogRecord[];
  stop(): Promise<void>;
}

/**
 * Reads a topic from its beginning in a consumer group of its own, collecting every record, so that a test can check
 * what a service published (change logs, outcomes, failed proposals).
 */
export async function collectTopic(log: MessageLog, topic: string): Promise<TopicCollector> {
  const records: LogRecord[] = [];
  const subscription = await log.subscribe({
    groupId: `test-collector-${randomUUID()}`,
    topics: [topic],
    handleBatch: (batch) => {
      records.push(...batch);
      return Promise.resolve();
    },
  });
  return { records, stop: () => subscription.stop() };
}
