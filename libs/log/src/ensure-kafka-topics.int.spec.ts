import { randomUUID } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
// Only this spec (never the adapter) uses the shared test harness; adapters may not depend on it otherwise.
import { startKafkaTestBroker, type KafkaTestBroker } from '@strata/testing';

import { ensureKafkaTopics } from './ensure-kafka-topics';
import { KafkaMessageLog } from './kafka-message-log';

// librdkafka's mock cluster cannot create topics through the admin API, so creation is checked against a fake cluster
// (ensure-kafka-topics.spec.ts). What runs here against the broker is the path of every run after the first: the
// topics exist (the mock creates them on first use), and the set-up reads them back and creates nothing.

let broker: KafkaTestBroker;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

describe('ensureKafkaTopics on a Kafka broker', () => {
  it('finds topics that exist, reports their partitions, and leaves them as they are', async () => {
    const runId = randomUUID().slice(0, 8);
    const names = [`init-${runId}-proposals`, `init-${runId}-outcomes`];
    const log = new KafkaMessageLog({ brokers: broker.brokers, clientId: 'strata-init-test' });
    try {
      await log.publish(names.map((topic) => ({ topic, key: 'urn:li:corpuser:datahub', value: Buffer.from('{}') })));
    } finally {
      await log.close();
    }
    const plan = names.map((name) => ({ name, partitions: 6, replicationFactor: 1, config: {} }));

    const outcome = await ensureKafkaTopics({ brokers: broker.brokers, clientId: 'strata-init-test' }, plan);

    expect(outcome.map(({ name, status }) => ({ name, status }))).toEqual(
      names.map((name) => ({ name, status: 'existing' })),
    );
    for (const topic of outcome) {
      expect(topic.partitions).toBeGreaterThan(0);
      expect(topic.plannedPartitions).toBe(6);
    }
  });
});
