import { afterAll, beforeAll } from '@jest/globals';
// Only this spec (never the adapter) uses the shared test harness; adapters may not depend on it otherwise.
import { startKafkaTestBroker, type KafkaTestBroker } from '@strata/testing';

import { KafkaMessageLog, type KafkaMessageLogOptions } from './kafka-message-log';
import { describeMessageLogContract } from './testing';

// Runs against librdkafka's mock cluster (kcat), with the fast-test kafkajs settings of engines-here.md: a produce →
// consume round trip takes ~50 ms, a rebalance ~2 s, and the first join of every new group ~3 s (fixed by the mock).
const fastSettings: Omit<KafkaMessageLogOptions, 'brokers' | 'clientId'> = {
  connectionTimeoutMs: 1000,
  retry: { retries: 3, initialRetryTime: 100 },
  consumer: { sessionTimeoutMs: 3000, heartbeatIntervalMs: 300, maxWaitTimeMs: 100 },
};

let broker: KafkaTestBroker;
let clients = 0;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

function openLog(
  brokers: readonly string[] = broker.brokers,
  more: Partial<KafkaMessageLogOptions> = {},
): KafkaMessageLog {
  clients += 1;
  return new KafkaMessageLog({ brokers, clientId: `strata-log-test-${clients}`, ...fastSettings, ...more });
}

// The suite names every topic and group uniquely per run, so all its tests share one broker process. (What is the
// Kafka adapter's own — groups shared by members, rebalances, an unresponsive or absent broker — is in
// kafka-message-log-groups.int.spec.ts, so that the two run side by side.)
describeMessageLogContract('KafkaMessageLog', {
  deliveryTimeoutMs: 15_000,
  // The mock answers a lookup of offsets by time with the partition's end (a real cluster finds the offset).
  readsByTime: false,
  create: () => Promise.resolve({ log: openLog(), reopen: () => Promise.resolve(openLog()) }),
});
