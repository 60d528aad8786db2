import { describe, expect, it } from '@jest/globals';
import type { Admin, Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { FakeScheduler } from '@strata/timing/testing';

import { events, FakeConsumer } from './kafka-consumer.fake';
import { KafkaSubscription, type KafkaDeliverySettings, type KafkaMessageLogErrorContext } from './kafka-subscription';
import type { BatchHandler, LogRecord } from './message-log';

// The delivery policy of one Kafka group member, against a stand-in for the kafkajs consumer: chunking, commit after
// the handler, redelivery with backoff, readiness, crash restarts. The same code runs against the mock cluster in
// kafka-message-log.int.spec.ts; here each rule is driven directly and quickly.

interface Harness {
  readonly consumer: FakeConsumer;
  readonly subscription: KafkaSubscription;
  readonly scheduler: FakeScheduler;
  readonly errors: { error: unknown; attempt: number; context: KafkaMessageLogErrorContext }[];
}

function subscription(
  handleBatch: BatchHandler,
  options: {
    maxBatchSize?: number;
    fromBeginning?: boolean;
    delivery?: Partial<KafkaDeliverySettings>;
    admin?: () => Promise<Admin>;
    exclusive?: boolean;
  } = {},
): Harness {
  const consumer = new FakeConsumer();
  const scheduler = new FakeScheduler();
  const errors: Harness['errors'] = [];
  const created = new KafkaSubscription(
    {
      createConsumer: () => consumer as unknown as Consumer,
      admin: options.admin ?? (() => Promise.reject(new Error('no admin in this test'))),
    },
    {
      groupId: 'g',
      topics: ['t'],
      fromBeginning: options.fromBeginning ?? true,
      maxBatchSize: options.maxBatchSize ?? 500,
      handleBatch,
      exclusive: options.exclusive ?? false,
    },
    {
      backoff: { initialMs: 5, maxMs: 20 },
      scheduler,
      onError: (error, attempt, context) => errors.push({ error, attempt, context }),
      ...options.delivery,
    },
    () => undefined,
  );
  return { consumer, subscription: created, errors, scheduler };
}

/** Starts the subscription and makes it ready. */
async function started(harness: Harness): Promise<Harness> {
  const starting = harness.subscription.start();
  await settle();
  harness.consumer.joinAndFetch();
  await starting;
  return harness;
}

function message(offset: number, headers: KafkaMessage['headers'] = {}): KafkaMessage {
  return {
    key: Buffer.from(`k${offset}`),
    value: Buffer.from(`v${offset}`),
    timestamp: '1700000000000',
    attributes: 0,
    offset: String(offset),
    headers,
  };
}

/** A kafkajs batch payload that logs what the subscription does with it. */
function payload(
  messages: KafkaMessage[],
  log: string[],
  options: { isRunning?: () => boolean; heartbeat?: () => Promise<void> } = {},
): EachBatchPayload {
  return {
    batch: { topic: 't', partition: 2, messages } as unknown as EachBatchPayload['batch'],
    resolveOffset: (offset) => log.push(`resolve ${offset}`),
    commitOffsetsIfNecessary: () => {
      log.push('commit');
      return Promise.resolve();
    },
    heartbeat: options.heartbeat ?? (() => Promise.resolve()),
    isRunning: options.isRunning ?? (() => true),
    isStale: () => false,
    pause: () => () => undefined,
    uncommittedOffsets: () => ({ topics: [] }),
  };
}

function eachBatch(consumer: FakeConsumer, batch: EachBatchPayload): Promise<void> {
  const run = consumer.runs.at(-1);
  if (run?.eachBatch === undefined) throw new Error('consumer.run was not called with eachBatch');
  return run.eachBatch(batch);
}

function offsets(records: readonly LogRecord[]): string {
  return records.map((r) => r.offset).join(',');
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('KafkaSubscription', () => {
  it('runs kafkajs without auto-resolve, and hands a fetched batch over in chunks, committing each after its handler', async () => {
    const log: string[] = [];
    const harness = await started(
      subscription(
        (records) => {
          log.push(`handle ${offsets(records)}`);
          return Promise.resolve();
        },
        { maxBatchSize: 3 },
      ),
    );
    expect(harness.consumer.runs[0]).toMatchObject({ eachBatchAutoResolve: false, partitionsConsumedConcurrently: 1 });

    await eachBatch(
      harness.consumer,
      payload(
        [0, 1, 2, 3, 4, 5, 6].map((offset) => message(offset)),
        log,
      ),
    );
    expect(log).toEqual([
      'handle 0,1,2',
      'resolve 2',
      'commit',
      'handle 3,4,5',
      'resolve 5',
      'commit',
      'handle 6',
      'resolve 6',
      'commit',
    ]);
  });

  it('turns kafkajs messages into log records: string key, headers decoded (last value of a repeated one), no tombstone', async () => {
    const received: LogRecord[] = [];
    const harness = await started(
      subscription((records) => {
        received.push(...records);
        return Promise.resolve();
      }),
    );
    const tombstone: KafkaMessage = { ...message(7), key: null, value: null };
    await eachBatch(
      harness.consumer,
      payload(
        [message(6, { requestId: Buffer.from('r-1'), actor: [Buffer.from('a'), 'b'], gone: undefined }), tombstone],
        [],
      ),
    );
    expect(received[0]).toEqual({
      topic: 't',
      partition: 2,
      offset: '6',
      key: 'k6',
      value: Buffer.from('v6'),
      headers: { requestId: 'r-1', actor: 'b' },
      timestamp: 1700000000000,
    });
    expect(received[1]).toMatchObject({ key: '', value: Buffer.alloc(0), headers: {} });
  });

  it('redelivers the same chunk after a handler threw, heartbeating while it waits, reporting every attempt', async () => {
    const log: string[] = [];
    let failures = 2;
    const heartbeats: number[] = [];
    const harness = await started(
      subscription(
        (records) => {
          log.push(`handle ${offsets(records)} at ${harness.scheduler.now()}`);
          if (failures > 0) {
            failures -= 1;
            return Promise.reject(new Error('handler failure (expected by the test)'));
          }
          return Promise.resolve();
        },
        { delivery: { backoff: { initialMs: 250, maxMs: 1_000 } } },
      ),
    );
    const delivering = eachBatch(
      harness.consumer,
      payload([message(4), message(5)], log, {
        heartbeat: () => {
          heartbeats.push(harness.scheduler.now());
          return Promise.resolve();
        },
      }),
    );
    await harness.scheduler.advance(250 + 500);
    await delivering;
    expect(log).toEqual(['handle 4,5 at 0', 'handle 4,5 at 250', 'handle 4,5 at 750', 'resolve 5', 'commit']);
    expect(harness.errors.map(({ attempt, context }) => ({ attempt, context }))).toEqual([
      { attempt: 1, context: { groupId: 'g', topic: 't', partition: 2 } },
      { attempt: 2, context: { groupId: 'g', topic: 't', partition: 2 } },
    ]);
    // A heartbeat as each wait begins, every 100 ms of it, and as it ends.
    expect(heartbeats).toEqual([0, 100, 200, 250, 250, 350, 450, 550, 650, 750]);
  });

  it('ends a redelivery backoff at once when stopped, leaving the chunk uncommitted (the group gets it again)', async () => {
    const log: string[] = [];
    let running = true;
    const harness = await started(
      subscription(() => Promise.reject(new Error('always fails (expected by the test)')), {
        delivery: { backoff: { initialMs: 60_000, maxMs: 60_000 } },
      }),
    );
    const delivering = eachBatch(harness.consumer, payload([message(1)], log, { isRunning: () => running }));
    await harness.scheduler.untilSleeping();
    running = false;
    await harness.subscription.stop();
    await delivering;
    expect(harness.scheduler.pending).toEqual([]);
    expect(harness.scheduler.now()).toBe(0);
    expect(log).toEqual([]);
    expect(harness.consumer.disconnects).toBe(1);
  });

  it('lets a rebalance seen by a heartbeat during the backoff end the batch uncommitted, for kafkajs to rejoin', async () => {
    const log: string[] = [];
    const harness = await started(subscription(() => Promise.reject(new Error('fails (expected by the test)'))));
    const rebalance = new Error('The group is rebalancing, so a rejoin is needed');
    await expect(
      eachBatch(harness.consumer, payload([message(1)], log, { heartbeat: () => Promise.reject(rebalance) })),
    ).rejects.toBe(rebalance);
    expect(log).toEqual([]);
  });

  it('resolves start() only once the member joined and then fetched', async () => {
    const harness = subscription(() => Promise.resolve());
    let ready = false;
    const starting = harness.subscription.start().then(() => {
      ready = true;
    });
    harness.consumer.emit(events.FETCH, {});
    await settle();
    expect(ready).toBe(false);
    harness.consumer.emit(events.GROUP_JOIN, { memberAssignment: { t: [0, 1] } });
    await settle();
    expect(ready).toBe(false);
    harness.consumer.emit(events.FETCH, {});
    await starting;
    expect(ready).toBe(true);
  });

  it('rejects start() when the consumer crashes before it is ready, and does not restart it', async () => {
    const harness = subscription(() => Promise.resolve());
    const starting = harness.subscription.start();
    await settle();
    harness.consumer.emit(events.CRASH, { error: new Error('Connection refused'), restart: false });
    await expect(starting).rejects.toThrow(/consumer group g could not start on t: Connection refused/);
    await harness.scheduler.advance(60_000);
    expect(harness.consumer.runs).toHaveLength(1);
    expect(harness.consumer.disconnects).toBe(1);
  });

  it('restarts a consumer that crashed after start-up, after a growing backoff, and reports each crash', async () => {
    const harness = await started(subscription(() => Promise.resolve()));
    harness.consumer.emit(events.CRASH, { error: new Error('broker away'), restart: false });
    await harness.scheduler.advance(4);
    expect(harness.consumer.runs).toHaveLength(1);
    await harness.scheduler.advance(1);
    expect(harness.consumer.runs).toHaveLength(2);
    harness.consumer.emit(events.CRASH, { error: new Error('broker still away'), restart: false });
    await harness.scheduler.advance(9);
    expect(harness.consumer.runs).toHaveLength(2);
    await harness.scheduler.advance(1);
    expect(harness.consumer.runs).toHaveLength(3);
    expect(harness.errors.map(({ attempt, context }) => ({ attempt, context }))).toEqual([
      { attempt: 1, context: { groupId: 'g' } },
      { attempt: 2, context: { groupId: 'g' } },
    ]);

    // A crash while stopping, or a restart pending when stop() is called, starts nothing.
    harness.consumer.emit(events.CRASH, { error: new Error('again'), restart: false });
    await harness.subscription.stop();
    await harness.scheduler.advance(60_000);
    expect(harness.consumer.runs).toHaveLength(3);
  });

  it('when exclusive, refuses to start while another member holds some of the topics’ partitions', async () => {
    const admin = {
      fetchTopicOffsets: () =>
        Promise.resolve([
          { partition: 0, offset: '0', high: '0', low: '0' },
          { partition: 1, offset: '0', high: '0', low: '0' },
        ]),
    };
    const shared = subscription(() => Promise.resolve(), {
      exclusive: true,
      admin: () => Promise.resolve(admin as unknown as Admin),
    });
    const starting = shared.subscription.start();
    await settle();
    shared.consumer.joinAndFetch({ t: [1] });
    await expect(starting).rejects.toThrow(
      'Consumer group g has another member holding partitions of t: this subscription must be the group’s only member'.replace(
        '’',
        "'",
      ),
    );

    const alone = subscription(() => Promise.resolve(), {
      exclusive: true,
      admin: () => Promise.resolve(admin as unknown as Admin),
    });
    const startingAlone = alone.subscription.start();
    await settle();
    alone.consumer.joinAndFetch({ t: [0, 1] });
    await startingAlone;
    await alone.subscription.stop();
  });

  it('with fromBeginning false, commits the end of the log for assigned partitions without a position before it is ready', async () => {
    const admin = {
      fetchOffsets: () =>
        Promise.resolve([
          {
            topic: 't',
            partitions: [
              { partition: 0, offset: '-1', metadata: null },
              { partition: 1, offset: '12', metadata: null },
              { partition: 2, offset: '-1', metadata: null },
            ],
          },
        ]),
      fetchTopicOffsets: () =>
        Promise.resolve([
          { partition: 0, offset: '40', high: '40', low: '0' },
          { partition: 1, offset: '50', high: '50', low: '0' },
          { partition: 2, offset: '60', high: '60', low: '0' },
        ]),
    };
    const harness = subscription(() => Promise.resolve(), {
      fromBeginning: false,
      admin: () => Promise.resolve(admin as unknown as Admin),
    });
    const starting = harness.subscription.start();
    await settle();
    harness.consumer.joinAndFetch({ t: [0, 1] });
    await starting;
    // Partition 1 has a position; partition 2 is another member's.
    expect(harness.consumer.commits).toEqual([[{ topic: 't', partition: 0, offset: '40' }]]);
  });
});
