import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';

import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
// Only this spec (never the adapter) uses the shared test harness; adapters may not depend on it otherwise.
import { eventually, startKafkaTestBroker, type KafkaTestBroker } from '@strata/testing';

import { KafkaMessageLog, type KafkaMessageLogOptions } from './kafka-message-log';
import type { LogRecord, OutgoingRecord } from './message-log';

// What is the Kafka adapter's own, beside the MessageLog contract it also passes (kafka-message-log.int.spec.ts): members
// of one group sharing its partitions, order kept through a rebalance, an unresponsive or absent broker.
// Runs against librdkafka's mock cluster (kcat), with the fast-test kafkajs settings of engines-here.md: a produce →
// consume round trip takes ~50 ms, a rebalance ~2 s, and the first join of every new group ~3 s (fixed by the mock).
const fastSettings: Omit<KafkaMessageLogOptions, 'brokers' | 'clientId'> = {
  connectionTimeoutMs: 1000,
  retry: { retries: 3, initialRetryTime: 100 },
  consumer: { sessionTimeoutMs: 3000, heartbeatIntervalMs: 300, maxWaitTimeMs: 100 },
};

/** How long a delivery may take on the mock cluster (a rebalance takes ~2 s, a new group's first join ~3 s). */
const delivery = { timeoutMs: 15_000 };

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

describe('KafkaMessageLog', () => {
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  const unique = (kind: string): string => {
    sequence += 1;
    return `kafka-${runId}-${kind}-${sequence}`;
  };
  const opened: KafkaMessageLog[] = [];
  const open = (brokers?: readonly string[]): KafkaMessageLog => {
    const log = openLog(brokers);
    opened.push(log);
    return log;
  };

  afterEach(async () => {
    for (const log of opened.splice(0).reverse()) await log.close();
  });

  it('shares the partitions between the members of one group: every record reaches exactly one member', async () => {
    const topic = unique('topic');
    const groupId = unique('group');
    const first = collector();
    const second = collector();
    await open().subscribe({ groupId, topics: [topic], handleBatch: first.handle });
    await open().subscribe({ groupId, topics: [topic], handleBatch: second.handle });

    const keys = 40;
    const publisher = open();
    await publisher.publish(
      Array.from({ length: 200 }, (_, index) => record(topic, `urn:li:tag:${index % keys}`, `${index}`)),
    );
    await eventually(() => {
      expect(new Set([...first.values(), ...second.values()]).size).toBe(200);
    }, delivery);
    // A sentinel per key, published last: once all arrived, any duplicate would have arrived before them.
    await publisher.publish(
      Array.from({ length: keys }, (_, index) => record(topic, `urn:li:tag:${index}`, 'sentinel')),
    );
    await eventually(() => {
      expect([...first.values(), ...second.values()].filter((value) => value === 'sentinel')).toHaveLength(keys);
    }, delivery);

    const values = [...first.values(), ...second.values()].filter((value) => value !== 'sentinel');
    expect(values).toHaveLength(200);
    expect(first.records.length).toBeGreaterThan(0);
    expect(second.records.length).toBeGreaterThan(0);
    // A partition may move from one member to the other when the group rebalances (a loaded machine may miss a
    // heartbeat); a record — a position in a partition — never reaches both.
    const positions = (records: readonly LogRecord[]) => new Set(records.map((r) => `${r.partition}@${r.offset}`));
    const secondPositions = positions(second.records);
    expect([...positions(first.records)].filter((position) => secondPositions.has(position))).toEqual([]);
  });

  it('keeps the order per key while a second member joins and the group rebalances', async () => {
    const topic = unique('topic');
    const groupId = unique('group');
    const deliveries: { readonly member: string; readonly key: string; readonly round: number }[] = [];
    const handler =
      (member: string) =>
      (records: readonly LogRecord[]): Promise<void> => {
        for (const delivered of records) {
          const [key, round] = text(delivered).split('|');
          deliveries.push({ member, key: key!, round: Number(round) });
        }
        return Promise.resolve();
      };
    const keys = Array.from({ length: 16 }, (_, index) => `urn:li:dataset:${index}`);
    await open().subscribe({ groupId, topics: [topic], handleBatch: handler('first') });

    // Publish a round per key every ~20 ms, from before the second member joins until well after.
    const publisher = open();
    let rounds = 0;
    let stopAt = Number.POSITIVE_INFINITY;
    const publishing = (async () => {
      while (rounds < stopAt) {
        await publisher.publish(keys.map((key) => record(topic, key, `${key}|${rounds}`)));
        rounds += 1;
        await sleep(20);
      }
    })();
    await sleep(200);
    await open().subscribe({ groupId, topics: [topic], handleBatch: handler('second') });
    stopAt = rounds + 20;
    await publishing;

    await eventually(() => {
      for (const key of keys) {
        expect(new Set(deliveries.filter((d) => d.key === key).map((d) => d.round)).size).toBe(rounds);
      }
    }, delivery);
    // At least once, in order: a record never arrives before an earlier one of its key; only redeliveries go back.
    for (const key of keys) {
      let highest = -1;
      for (const { round } of deliveries.filter((d) => d.key === key)) {
        if (round > highest) {
          expect(round).toBe(highest + 1);
          highest = round;
        }
      }
    }
    expect(deliveries.some((d) => d.member === 'second')).toBe(true);
  });

  it('stores the start position of a fromBeginning: false group, so a restart before its first record loses nothing', async () => {
    const topic = unique('topic');
    const groupId = unique('group');
    const log = open();
    await log.publish([record(topic, 'urn:li:corpuser:k', 'before')]);
    const idle = await log.subscribe({
      groupId,
      topics: [topic],
      fromBeginning: false,
      handleBatch: () => Promise.resolve(),
    });
    await idle.stop();

    await log.publish([record(topic, 'urn:li:corpuser:k', 'while stopped')]);
    const consumer = collector();
    await log.subscribe({ groupId, topics: [topic], fromBeginning: false, handleBatch: consumer.handle });
    await eventually(() => {
      expect(consumer.values()).toEqual(['while stopped']);
    }, delivery);
  });

  it('comes back after the broker was unresponsive for longer than the session, and delivers what was published', async () => {
    const ownBroker = await startKafkaTestBroker();
    try {
      const topic = unique('topic');
      const log = open(ownBroker.brokers);
      const consumer = collector();
      await log.subscribe({ groupId: unique('group'), topics: [topic], handleBatch: consumer.handle });
      await log.publish([record(topic, 'urn:li:corpuser:k', 'before')]);
      await eventually(() => {
        expect(consumer.values()).toEqual(['before']);
      }, delivery);

      ownBroker.pause();
      // Longer than the session timeout (3 s): the broker drops the member when it comes back.
      await sleep(4000);
      ownBroker.resume();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'after')]);
      await eventually(
        () => {
          expect(consumer.values()).toContain('after');
        },
        { timeoutMs: 20_000 },
      );
      expect(consumer.values().filter((value) => value === 'after')).toHaveLength(1);
      expect(consumer.values()[0]).toBe('before');
    } finally {
      ownBroker.resume();
      for (const log of opened.splice(0).reverse()) await log.close();
      await ownBroker.stop();
    }
  }, 45_000);

  // Bounded, not retried forever: the test's own timeout is the bound (kafkajs's retries end well within it).
  it('rejects subscribe() when nothing listens at the brokers address, rather than retrying forever', async () => {
    const log = open([`127.0.0.1:${await closedPort()}`]);
    await expect(
      log.subscribe({ groupId: unique('group'), topics: [unique('topic')], handleBatch: () => Promise.resolve() }),
    ).rejects.toThrow(/could not start/);
  }, 20_000);

  it('rejects publish() when the broker is gone; its consumers report their crashes and restart with backoff', async () => {
    const ownBroker = await startKafkaTestBroker();
    try {
      const crashes: number[] = [];
      const log = openLog(ownBroker.brokers, {
        onError: (_error, attempt, context) => {
          if (context.topic === undefined) crashes.push(attempt);
        },
      });
      opened.push(log);
      const topic = unique('topic');
      await log.subscribe({ groupId: unique('group'), topics: [topic], handleBatch: () => Promise.resolve() });
      await log.publish([record(topic, 'urn:li:corpuser:k', 'accepted')]);
      await ownBroker.stop();

      await expect(log.publish([record(topic, 'urn:li:corpuser:k', 'refused')])).rejects.toThrow(/could not publish/);
      await eventually(() => {
        expect(crashes.length).toBeGreaterThanOrEqual(2);
      }, delivery);
      expect(crashes.slice(0, 2)).toEqual([1, 2]);
      // Closing does not wait for the broker to come back (the test's timeout would end it otherwise).
      await log.close();
    } finally {
      await ownBroker.stop();
    }
  });
});

function record(topic: string, key: string, value: string): OutgoingRecord {
  return { topic, key, value: Buffer.from(value) };
}

function text(delivered: LogRecord): string {
  return Buffer.from(delivered.value).toString('utf8');
}

function collector(): {
  readonly records: LogRecord[];
  readonly values: () => string[];
  readonly handle: (batch: readonly LogRecord[]) => Promise<void>;
} {
  const records: LogRecord[] = [];
  return {
    records,
    values: () => records.map(text),
    handle: (batch) => {
      records.push(...batch);
      return Promise.resolve();
    },
  };
}

/** A loopback port nothing listens on (bound once, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
