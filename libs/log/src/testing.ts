import { randomUUID } from 'node:crypto';

import { afterEach, describe, expect, it } from '@jest/globals';
import { eventually } from '@strata/testing';

import type { GroupPosition, LogRecord, MessageLog, OutgoingRecord, TopicRead, TopicReadResult } from './message-log';

/**
 * What {@link describeMessageLogContract} needs from an adapter. The suite runs against engines it cannot reset (a
 * shared Kafka broker), so it never expects an empty log: every test uses topic and group names of its own
 * (letters, digits, `.`, `_`, `-`; valid Kafka topic names) and assumes nothing about partition counts.
 */
export interface MessageLogContractFactory {
  /** Opens a log for one test. Called once per test; the suite closes what it returns, then calls `dispose`. */
  create(): Promise<MessageLogUnderTest>;
  /**
   * Upper bound for waiting on an expected delivery, in milliseconds (the suite polls and fails at the deadline; it
   * never sleeps for a fixed time to decide a test). Default 10000; keep it below jest's test timeout.
   */
  readonly deliveryTimeoutMs?: number;
  /**
   * False for an engine that cannot find offsets by time (librdkafka's mock cluster answers every such lookup with
   * the end of the partition): the test of `readTopic` from a time is skipped. Default true.
   */
  readonly readsByTime?: boolean;
}

/** One test's log, and how to reach the same log again. */
export interface MessageLogUnderTest {
  readonly log: MessageLog;
  /**
   * Opens another handle on the same underlying log (same file, same cluster), as a restarted process would. Called
   * after `log` was closed, possibly more than once; the suite closes every handle it gets. Every `close()` must
   * tolerate being called again.
   */
  reopen(): Promise<MessageLog>;
  /**
   * Creates topics before the test uses them, for engines that do not create topics on first use. Called before
   * anything is published to or subscribed from `topics`. Optional.
   */
  createTopics?(topics: readonly string[]): Promise<void>;
  /** Releases whatever `create` set up besides the log (temporary files, admin clients). Called after closing. */
  dispose?(): Promise<void>;
}

/**
 * The message-log contract (the invariants stated on {@link MessageLog}), as one jest `describe` block to run against
 * every adapter: `describeMessageLogContract('SqliteMessageLog', { create: async () => … })`.
 */
export function describeMessageLogContract(name: string, factory: MessageLogContractFactory): void {
  const timeoutMs = factory.deliveryTimeoutMs ?? 10_000;
  /** How long `eventually` waits for an expected delivery. */
  const delivery = { timeoutMs };
  // Per-run prefix, so that names never collide with an earlier run against the same broker.
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  const cleanups: (() => Promise<void>)[] = [];

  /** A name no other test (of this run or another) uses. */
  function uniqueName(kind: string): string {
    sequence += 1;
    return `contract-${runId}-${kind}-${sequence}`;
  }

  interface Harness {
    readonly log: MessageLog;
    readonly reopen: () => Promise<MessageLog>;
    readonly topic: (kind?: string) => Promise<string>;
    /** A topic name nobody uses: the log does not have it. */
    readonly missingTopic: () => string;
    readonly group: () => string;
  }

  async function open(): Promise<Harness> {
    const underTest = await factory.create();
    const handles: MessageLog[] = [underTest.log];
    cleanups.push(async () => {
      // Close in reverse; a handle closed by the test already must tolerate a second close.
      for (const handle of handles.reverse()) await handle.close();
      await underTest.dispose?.();
    });
    return {
      log: underTest.log,
      reopen: async () => {
        const handle = await underTest.reopen();
        handles.push(handle);
        return handle;
      },
      topic: async (kind = 'topic') => {
        const topic = uniqueName(kind);
        await underTest.createTopics?.([topic]);
        return topic;
      },
      missingTopic: () => uniqueName('missing'),
      group: () => uniqueName('group'),
    };
  }

  afterEach(async () => {
    const pending = cleanups.splice(0);
    for (const cleanup of pending) await cleanup();
  });

  describe(`${name} satisfies the MessageLog contract`, () => {
    it('delivers published records with their key, value, headers, partition, offset and timestamp', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      await log.publish([
        { topic, key: 'urn:li:corpuser:a', value: Buffer.from([0, 1, 2, 255]), headers: { requestId: 'r-1' } },
        { topic, key: 'urn:li:corpuser:a', value: Buffer.from('second') },
      ]);
      await log.publish([]);
      const consumer = collector();
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: consumer.handle });

      await eventually(() => {
        expect(consumer.records).toHaveLength(2);
      }, delivery);
      const [first, second] = consumer.records;
      expect(first).toMatchObject({ topic, key: 'urn:li:corpuser:a', headers: { requestId: 'r-1' } });
      expect(Buffer.from(first!.value).equals(Buffer.from([0, 1, 2, 255]))).toBe(true);
      expect(second).toMatchObject({ topic, key: 'urn:li:corpuser:a', headers: {} });
      expect(Buffer.from(second!.value).toString()).toBe('second');
      for (const record of consumer.records) {
        expect(record.offset).toMatch(/^[0-9]+$/);
        expect(Number.isInteger(record.partition) && record.partition >= 0).toBe(true);
        expect(Number.isFinite(record.timestamp) && record.timestamp > 0).toBe(true);
      }
      expect(first!.partition).toBe(second!.partition);
      expect(BigInt(second!.offset)).toBeGreaterThan(BigInt(first!.offset));
    });

    it('keeps the order per key, within and across publish calls, in batches of one partition', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const keys = ['urn:li:dataset:a', 'urn:li:dataset:b', 'urn:li:dataset:c', 'urn:li:dataset:d'];
      for (let round = 0; round < 5; round += 1) {
        await log.publish(
          Array.from({ length: 20 }, (_, index) => record(topic, keys[index % keys.length]!, `${round * 20 + index}`)),
        );
      }
      const consumer = collector();
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: consumer.handle, maxBatchSize: 7 });

      await eventually(() => {
        expect(consumer.records).toHaveLength(100);
      }, delivery);
      for (const key of keys) {
        const sequence = consumer.records.filter((r) => r.key === key).map((r) => Number(text(r)));
        expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
        expect(sequence).toHaveLength(25);
      }
      for (const batch of consumer.batches) expectOnePartitionInOrder(batch, 7);
    });

    it('redelivers a batch whose handler threw, from its first record, then moves on', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      await log.publish(Array.from({ length: 6 }, (_, index) => record(topic, 'urn:li:corpuser:same', `${index}`)));
      const attempts: LogRecord[][] = [];
      let failuresLeft = 2;
      await log.subscribe({
        groupId: group(),
        topics: [topic],
        maxBatchSize: 3,
        handleBatch: (records) => {
          attempts.push([...records]);
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            return Promise.reject(new Error('handler failure (expected by the test)'));
          }
          return Promise.resolve();
        },
      });

      await eventually(() => {
        expect(delivered(attempts.slice(2))).toContain('5');
      }, delivery);
      const [failed, retried, succeeded] = attempts;
      // Kafka may refetch a longer batch, so the contract is: the retry starts with the same record.
      expect(retried![0]!.offset).toBe(failed![0]!.offset);
      expect(succeeded![0]!.offset).toBe(failed![0]!.offset);
      expect(text(succeeded![0]!)).toBe('0');
      // Once past the failures, every record is delivered in order and only once.
      expect(delivered(attempts.slice(2))).toEqual(['0', '1', '2', '3', '4', '5']);
    });

    it('keeps consumer groups independent: each gets every record, and a failing group does not hold up another', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const failing = { calls: 0 };
      await log.subscribe({
        groupId: group(),
        topics: [topic],
        handleBatch: () => {
          failing.calls += 1;
          return Promise.reject(new Error('always fails (expected by the test)'));
        },
      });
      const first = collector();
      const second = collector();
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: first.handle });
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: second.handle });
      await log.publish(Array.from({ length: 10 }, (_, index) => record(topic, `urn:li:tag:${index}`, `${index}`)));

      await eventually(() => {
        expect(first.values().sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        expect(second.values().sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
        expect(failing.calls).toBeGreaterThan(0);
      }, delivery);
    });

    it('starts a new group at the earliest record with fromBeginning true, at the end with fromBeginning false', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'before')]);
      const fromStart = collector();
      const fromEnd = collector();
      const byDefault = collector();
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: fromStart.handle, fromBeginning: true });
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: fromEnd.handle, fromBeginning: false });
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: byDefault.handle });
      await log.publish([record(topic, 'urn:li:corpuser:k', 'after')]);

      await eventually(() => {
        expect(fromStart.values()).toEqual(['before', 'after']);
        expect(byDefault.values()).toEqual(['before', 'after']);
        expect(fromEnd.values()).toEqual(['after']);
      }, delivery);
    });

    it('resumes a group from its committed position, whatever fromBeginning says', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const groupId = group();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'one')]);
      const firstRun = collector();
      const subscription = await log.subscribe({ groupId, topics: [topic], handleBatch: firstRun.handle });
      await eventually(() => {
        expect(firstRun.values()).toEqual(['one']);
      }, delivery);
      await subscription.stop();

      await log.publish([record(topic, 'urn:li:corpuser:k', 'two')]);
      const secondRun = collector();
      await log.subscribe({ groupId, topics: [topic], handleBatch: secondRun.handle, fromBeginning: true });
      await eventually(() => {
        expect(secondRun.values()).toEqual(['two']);
      }, delivery);
    });

    it('lets stop() wait for the in-flight batch, commit it, and deliver nothing afterwards', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const groupId = group();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'in-flight')]);
      const events: string[] = [];
      const release = deferred();
      const entered = deferred();
      const stoppedRun = collector();
      const subscription = await log.subscribe({
        groupId,
        topics: [topic],
        handleBatch: async (records) => {
          entered.resolve();
          await release.promise;
          await stoppedRun.handle(records);
          events.push('handler finished');
        },
      });
      await withDeadline(entered.promise, timeoutMs, 'the first batch was never delivered');

      const stopped = subscription.stop().then(() => events.push('stop resolved'));
      // The handler is still blocked here, so stop() must not have resolved; release it a little later.
      setTimeout(release.resolve, 100);
      await withDeadline(stopped, timeoutMs, 'stop() never resolved');
      expect(events).toEqual(['handler finished', 'stop resolved']);

      // Nothing more reaches the stopped subscription, and the drained batch was committed: the group resumes after it.
      await log.publish([record(topic, 'urn:li:corpuser:k', 'after stop')]);
      const resumed = collector();
      await log.subscribe({ groupId, topics: [topic], handleBatch: resumed.handle });
      await eventually(() => {
        expect(resumed.values()).toContain('after stop');
      }, delivery);
      expect(resumed.values()).toEqual(['after stop']);
      expect(stoppedRun.values()).toEqual(['in-flight']);
    });

    it('lets close() drain in-flight batches before it resolves', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'in-flight')]);
      const events: string[] = [];
      const release = deferred();
      const entered = deferred();
      await log.subscribe({
        groupId: group(),
        topics: [topic],
        handleBatch: async () => {
          entered.resolve();
          await release.promise;
          events.push('handler finished');
        },
      });
      await withDeadline(entered.promise, timeoutMs, 'the first batch was never delivered');
      const closed = log.close().then(() => events.push('close resolved'));
      setTimeout(release.resolve, 100);
      await withDeadline(closed, timeoutMs, 'close() never resolved');
      expect(events).toEqual(['handler finished', 'close resolved']);
    });

    it('delivers many records exactly once each to a handler that never throws', async () => {
      const { log, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const total = 2000;
      const keys = 25;
      for (let start = 0; start < total; start += 250) {
        await log.publish(
          Array.from({ length: 250 }, (_, index) =>
            record(topic, `urn:li:dataset:${(start + index) % keys}`, `${start + index}`),
          ),
        );
      }
      const consumer = collector();
      await log.subscribe({ groupId: group(), topics: [topic], handleBatch: consumer.handle, maxBatchSize: 100 });

      await eventually(
        () => {
          expect(new Set(consumer.values()).size).toBe(total);
        },
        { timeoutMs: Math.max(timeoutMs, 20_000) },
      );
      // A sentinel per key, published after everything: once all arrived, any duplicate would have arrived too.
      await log.publish(
        Array.from({ length: keys }, (_, index) => record(topic, `urn:li:dataset:${index}`, 'sentinel')),
      );
      await eventually(() => {
        expect(consumer.values().filter((v) => v === 'sentinel')).toHaveLength(keys);
      }, delivery);
      const values = consumer.values().filter((v) => v !== 'sentinel');
      expect(values).toHaveLength(total);
      expect(new Set(values).size).toBe(total);
      for (let key = 0; key < keys; key += 1) {
        const sequence = consumer.records.filter((r) => r.key === `urn:li:dataset:${key}`).map((r) => text(r));
        const numbers = sequence.slice(0, -1).map(Number);
        expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
        expect(sequence.at(-1)).toBe('sentinel');
      }
      for (const batch of consumer.batches) expectOnePartitionInOrder(batch, 100);
    });

    it('keeps published records and committed positions across close and reopen', async () => {
      const { log, reopen, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const consumedGroup = group();
      const freshGroup = group();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'one'), record(topic, 'urn:li:corpuser:k', 'two')]);
      const firstRun = collector();
      await log.subscribe({ groupId: consumedGroup, topics: [topic], handleBatch: firstRun.handle });
      await eventually(() => {
        expect(firstRun.values()).toEqual(['one', 'two']);
      }, delivery);
      await log.publish([record(topic, 'urn:li:corpuser:k', 'three')]);
      await eventually(() => {
        expect(firstRun.values()).toEqual(['one', 'two', 'three']);
      }, delivery);
      await log.close();

      const reopened = await reopen();
      await reopened.publish([record(topic, 'urn:li:corpuser:k', 'four')]);
      const resumed = collector();
      const fresh = collector();
      await reopened.subscribe({ groupId: consumedGroup, topics: [topic], handleBatch: resumed.handle });
      await reopened.subscribe({ groupId: freshGroup, topics: [topic], handleBatch: fresh.handle });
      await eventually(() => {
        expect(fresh.values()).toEqual(['one', 'two', 'three', 'four']);
        expect(resumed.values()).toEqual(['four']);
      }, delivery);
    });

    it('reports where a group stands beside the ends of the log: what it has yet to handle, and nothing once it caught up', async () => {
      const { log, topic: newTopic, missingTopic, group } = await open();
      const topic = await newTopic();
      const groupId = group();
      const positionsOf = (id: string, topics: readonly string[]) => {
        if (log.groupPositions === undefined) throw new Error('the adapter does not report group positions');
        return log.groupPositions(id, topics);
      };
      await log.publish(Array.from({ length: 6 }, (_, index) => record(topic, `urn:li:tag:${index}`, `${index}`)));

      const before = await positionsOf(groupId, [topic]);
      expect(before.length).toBeGreaterThan(0);
      expect(before.map((position) => position.partition)).toEqual(
        Array.from({ length: before.length }, (_, index) => index),
      );
      for (const position of before) {
        expect(position).toMatchObject({ topic, committed: undefined });
        expect(position.start).toMatch(/^[0-9]+$/);
        expect(position.end).toMatch(/^[0-9]+$/);
      }
      expect(yetToHandle(before)).toBe(6n);

      const consumer = collector();
      const subscription = await log.subscribe({ groupId, topics: [topic], handleBatch: consumer.handle });
      await eventually(async () => {
        expect(consumer.records).toHaveLength(6);
        expect(yetToHandle(await positionsOf(groupId, [topic]))).toBe(0n);
      }, delivery);
      await subscription.stop();
      await log.publish(Array.from({ length: 3 }, (_, index) => record(topic, `urn:li:tag:${index}`, 'more')));

      const after = await positionsOf(groupId, [topic]);
      expect(yetToHandle(after)).toBe(3n);
      expect(sumOf(after.map((position) => position.end)) - sumOf(before.map((position) => position.end))).toBe(3n);
      // Another group is where it is, whatever this one did; a topic the log lacks has no partitions.
      expect(yetToHandle(await positionsOf(group(), [topic]))).toBe(9n);
      expect(await positionsOf(groupId, [missingTopic()])).toEqual([]);
      const both = await positionsOf(groupId, [missingTopic(), topic]);
      expect(both.map((position) => position.topic)).toEqual(after.map(() => topic));
    });

    describe('reading a topic outside any group', () => {
      const reader = (log: MessageLog) => (read: TopicRead) => {
        if (log.readTopic === undefined) throw new Error('the adapter does not read topics');
        return log.readTopic(read);
      };
      const offsetsOf = (result: TopicReadResult) =>
        new Map(result.next.map((position) => [position.partition, position.offset]));

      /** Reads on from `from`, each read where the last stopped, until `count` records are in (or a few reads). */
      async function readAll(log: MessageLog, topic: string, count: number, limit = 100) {
        const records: LogRecord[] = [];
        let last: TopicReadResult = { records: [], next: [] };
        let from = new Map<number, string>();
        for (let attempt = 0; attempt < count + 10 && records.length < count; attempt += 1) {
          last = await reader(log)({ topic, from: { kind: 'offsets', offsets: from }, limit, maxWaitMs: timeoutMs });
          expect(last.records.length).toBeLessThanOrEqual(limit);
          records.push(...last.records);
          from = offsetsOf(last);
        }
        return { records, last };
      }

      it('reads from offsets it is given, each partition in order, and says where to go on from', async () => {
        const { log, topic: newTopic, group } = await open();
        const topic = await newTopic();
        const keys = ['urn:li:tag:a', 'urn:li:tag:b', 'urn:li:tag:c'];
        await log.publish(keys.flatMap((key) => [record(topic, key, `${key} 1`), record(topic, key, `${key} 2`)]));

        // A read answers as soon as it has records: reading on from where each stopped brings all six, once each.
        const { records, last } = await readAll(log, topic, 6);
        expect(records.map(text).sort()).toEqual(keys.flatMap((key) => [`${key} 1`, `${key} 2`]).sort());
        for (const key of keys) {
          expect(records.filter((each) => each.key === key).map(text)).toEqual([`${key} 1`, `${key} 2`]);
        }
        expect(last.next.map((position) => position.partition)).toEqual(
          Array.from({ length: last.next.length }, (_, index) => index),
        );
        expect(sumOf(last.next.map((position) => position.offset))).toBe(
          sumOf((await log.groupPositions?.(group(), [topic]))?.map((position) => position.end) ?? []),
        );

        // From where it stopped: only what came since.
        await log.publish([record(topic, 'urn:li:tag:a', 'later')]);
        const later = await reader(log)({
          topic,
          from: { kind: 'offsets', offsets: offsetsOf(last) },
          limit: 100,
          maxWaitMs: timeoutMs,
        });
        expect(later.records.map(text)).toEqual(['later']);
        // In steps of a small limit, from the start: every record once.
        const stepped = await readAll(log, topic, 7, 2);
        expect(stepped.records.map(text).sort()).toEqual([...records.map(text), 'later'].sort());
      });

      it('starts at the end, answering only records published later, and waits for one up to maxWaitMs', async () => {
        const { log, topic: newTopic } = await open();
        const topic = await newTopic();
        const read = reader(log);
        await log.publish([record(topic, 'urn:li:tag:a', 'before')]);
        const atEnd = await read({ topic, from: { kind: 'end' }, limit: 10, maxWaitMs: 0 });
        expect(atEnd.records).toEqual([]);
        expect(atEnd.next.length).toBeGreaterThan(0);

        const waiting = read({
          topic,
          from: { kind: 'offsets', offsets: offsetsOf(atEnd) },
          limit: 10,
          maxWaitMs: timeoutMs,
        });
        await log.publish([record(topic, 'urn:li:tag:a', 'after')]);
        expect((await waiting).records.map(text)).toEqual(['after']);
      });

      it('clamps offsets to what the partitions hold', async () => {
        const { log, topic: newTopic } = await open();
        const topic = await newTopic();
        const read = reader(log);
        await log.publish([record(topic, 'urn:li:tag:a', 'one')]);
        const atEnd = await read({ topic, from: { kind: 'end' }, limit: 10, maxWaitMs: 0 });
        const beyond = new Map(atEnd.next.map((position) => [position.partition, '999999999']));
        const clamped = await read({ topic, from: { kind: 'offsets', offsets: beyond }, limit: 10, maxWaitMs: 0 });
        expect(clamped.records).toEqual([]);
        expect(clamped.next).toEqual(atEnd.next);
      });

      (factory.readsByTime === false ? it.skip : it)(
        'starts at the first record appended at or after a time',
        async () => {
          const { log, topic: newTopic } = await open();
          const topic = await newTopic();
          const read = reader(log);
          await log.publish([record(topic, 'urn:li:tag:a', 'old')]);
          const [old] = (await readAll(log, topic, 1)).records;
          if (old === undefined) throw new Error('the record published is not read');
          await eventually(() => {
            expect(Date.now()).toBeGreaterThan(old.timestamp);
          }, delivery);
          await log.publish([record(topic, 'urn:li:tag:a', 'new')]);
          const since = await read({
            topic,
            from: { kind: 'time', timestamp: old.timestamp + 1 },
            limit: 10,
            maxWaitMs: timeoutMs,
          });
          expect(since.records.map(text)).toEqual(['new']);
        },
      );

      it('reads a topic it does not have as empty, with no partitions, without creating it', async () => {
        const { log, missingTopic, group } = await open();
        const topic = missingTopic();
        expect(await reader(log)({ topic, from: { kind: 'end' }, limit: 5, maxWaitMs: 0 })).toEqual({
          records: [],
          next: [],
        });
        expect(await log.groupPositions?.(group(), [topic])).toEqual([]);
      });
    });

    it('redelivers after a reopen a batch whose handler never succeeded', async () => {
      const { log, reopen, topic: newTopic, group } = await open();
      const topic = await newTopic();
      const groupId = group();
      await log.publish([record(topic, 'urn:li:corpuser:k', 'unlucky')]);
      let calls = 0;
      await log.subscribe({
        groupId,
        topics: [topic],
        handleBatch: () => {
          calls += 1;
          return Promise.reject(new Error('always fails (expected by the test)'));
        },
      });
      await eventually(() => {
        expect(calls).toBeGreaterThan(0);
      }, delivery);
      await log.close();

      const reopened = await reopen();
      const consumer = collector();
      await reopened.subscribe({ groupId, topics: [topic], handleBatch: consumer.handle });
      await eventually(() => {
        expect(consumer.values()).toEqual(['unlucky']);
      }, delivery);
    });
  });
}

/** The records a group has yet to handle, over every partition: from its position (or the start) to the end. */
function yetToHandle(positions: readonly GroupPosition[]): bigint {
  return positions.reduce(
    (sum, position) => sum + BigInt(position.end) - BigInt(position.committed ?? position.start),
    0n,
  );
}

function sumOf(offsets: readonly string[]): bigint {
  return offsets.reduce((sum, offset) => sum + BigInt(offset), 0n);
}

function record(topic: string, key: string, value: string): OutgoingRecord {
  return { topic, key, value: Buffer.from(value) };
}

function text(record: LogRecord): string {
  return Buffer.from(record.value).toString('utf8');
}

function delivered(batches: readonly (readonly LogRecord[])[]): string[] {
  return batches.flat().map(text);
}

/** A handler that keeps every batch it is given. */
function collector(): {
  readonly batches: LogRecord[][];
  readonly records: LogRecord[];
  readonly values: () => string[];
  readonly handle: (records: readonly LogRecord[]) => Promise<void>;
} {
  const batches: LogRecord[][] = [];
  const records: LogRecord[] = [];
  return {
    batches,
    records,
    values: () => records.map(text),
    handle: (batch) => {
      batches.push([...batch]);
      records.push(...batch);
      return Promise.resolve();
    },
  };
}

function expectOnePartitionInOrder(batch: readonly LogRecord[], maxBatchSize: number): void {
  expect(batch.length).toBeGreaterThan(0);
  expect(batch.length).toBeLessThanOrEqual(maxBatchSize);
  const [first] = batch;
  for (let index = 1; index < batch.length; index += 1) {
    expect(batch[index]!.topic).toBe(first!.topic);
    expect(batch[index]!.partition).toBe(first!.partition);
    expect(BigInt(batch[index]!.offset)).toBeGreaterThan(BigInt(batch[index - 1]!.offset));
  }
}

/** Resolves with `promise`, or rejects once `timeoutMs` passed; leaves no timer behind. */
async function withDeadline<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${message} within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function deferred(): { readonly promise: Promise<void>; readonly resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
