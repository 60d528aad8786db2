import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from '@jest/globals';
import { FakeScheduler } from '@strata/timing/testing';
import { eventually } from '@strata/testing';

import type { LogRecord } from './message-log';
import { SqliteMessageLog, type SqliteMessageLogOptions } from './sqlite-message-log';
import { describeMessageLogContract } from './testing';

for (const partitions of [1, 4]) {
  describeMessageLogContract(`SqliteMessageLog (${partitions} partition${partitions === 1 ? '' : 's'})`, {
    create: () => {
      const directory = mkdtempSync(join(tmpdir(), 'strata-log-'));
      const path = join(directory, 'log.sqlite');
      return Promise.resolve({
        log: new SqliteMessageLog({ path, partitions }),
        reopen: () => Promise.resolve(new SqliteMessageLog({ path, partitions })),
        dispose: () => {
          rmSync(directory, { recursive: true, force: true });
          return Promise.resolve();
        },
      });
    },
  });
}

describe('SqliteMessageLog', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A log on a fresh temporary file; `another` opens more instances on the same file. */
  function openFile(options: Omit<SqliteMessageLogOptions, 'path'> = {}): {
    log: SqliteMessageLog;
    another: (more?: Omit<SqliteMessageLogOptions, 'path'>) => SqliteMessageLog;
  } {
    const directory = mkdtempSync(join(tmpdir(), 'strata-log-'));
    const path = join(directory, 'log.sqlite');
    const logs: SqliteMessageLog[] = [];
    cleanups.push(async () => {
      for (const log of logs) await log.close();
      rmSync(directory, { recursive: true, force: true });
    });
    const another = (more: Omit<SqliteMessageLogOptions, 'path'> = options): SqliteMessageLog => {
      const log = new SqliteMessageLog({ ...more, path });
      logs.push(log);
      return log;
    };
    return { log: another(options), another };
  }

  function collector(): {
    records: LogRecord[];
    values: () => string[];
    handle: (batch: readonly LogRecord[]) => Promise<void>;
  } {
    const records: LogRecord[] = [];
    return {
      records,
      values: () => records.map((record) => record.value.toString()),
      handle: (batch) => {
        records.push(...batch);
        return Promise.resolve();
      },
    };
  }

  it('stamps records with the injected clock and numbers each partition from offset 0', async () => {
    const { log } = openFile({ scheduler: new FakeScheduler(1_700_000_000_000) });
    await log.publish([
      { topic: 't', key: 'k', value: Buffer.from('a') },
      { topic: 't', key: 'k', value: Buffer.from('b') },
    ]);
    const consumer = collector();
    await log.subscribe({ groupId: 'g', topics: ['t'], handleBatch: consumer.handle });
    await eventually(() => {
      expect(consumer.records).toHaveLength(2);
    });
    expect(consumer.records.map((r) => [r.partition, r.offset, r.timestamp])).toEqual([
      [0, '0', 1_700_000_000_000],
      [0, '1', 1_700_000_000_000],
    ]);
  });

  it('maps a key to one partition for good: the count stored with the topic wins over a later option', async () => {
    const { log, another } = openFile({ partitions: 4 });
    const keys = Array.from({ length: 40 }, (_, index) => `urn:li:dataset:${index}`);
    await log.publish(keys.map((key) => ({ topic: 't', key, value: Buffer.from(key) })));
    await log.close();
    const reopened = another({ partitions: 1 });
    await reopened.publish(keys.map((key) => ({ topic: 't', key, value: Buffer.from(key) })));

    const consumer = collector();
    await reopened.subscribe({ groupId: 'g', topics: ['t'], handleBatch: consumer.handle });
    await eventually(() => {
      expect(consumer.records).toHaveLength(80);
    });
    const partitionsByKey = new Map<string, Set<number>>();
    for (const record of consumer.records) {
      partitionsByKey.set(record.key, (partitionsByKey.get(record.key) ?? new Set()).add(record.partition));
    }
    for (const partitions of partitionsByKey.values()) expect(partitions.size).toBe(1);
    const used = new Set(consumer.records.map((record) => record.partition));
    expect(used.size).toBeGreaterThan(1);
    expect([...used].every((partition) => partition >= 0 && partition < 4)).toBe(true);
  });

  it('redelivers exactly the same batch after a failure and reports each attempt to onError', async () => {
    const failures: [string, number, unknown][] = [];
    const { log } = openFile({
      retryInitialDelayMs: 5,
      onError: (error, attempt, context) => failures.push([(error as Error).message, attempt, context]),
    });
    await log.publish(
      Array.from({ length: 5 }, (_, index) => ({ topic: 't', key: 'k', value: Buffer.from(`${index}`) })),
    );
    const batches: string[][] = [];
    await log.subscribe({
      groupId: 'g',
      topics: ['t'],
      maxBatchSize: 2,
      handleBatch: (records) => {
        batches.push(records.map((record) => record.value.toString()));
        return batches.length <= 3 ? Promise.reject(new Error(`failure ${batches.length}`)) : Promise.resolve();
      },
    });
    await eventually(() => {
      expect(batches.flat()).toContain('4');
    });
    expect(batches).toEqual([['0', '1'], ['0', '1'], ['0', '1'], ['0', '1'], ['2', '3'], ['4']]);
    expect(failures).toEqual([
      ['failure 1', 1, { groupId: 'g', topic: 't', partition: 0 }],
      ['failure 2', 2, { groupId: 'g', topic: 't', partition: 0 }],
      ['failure 3', 3, { groupId: 'g', topic: 't', partition: 0 }],
    ]);
  });

  it('wakes a subscription at once on a publish through the same instance, without waiting for the poll', async () => {
    const { log } = openFile({ pollIntervalMs: 60_000 });
    const consumer = collector();
    await log.subscribe({ groupId: 'g', topics: ['t'], handleBatch: consumer.handle });
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('now') }]);
    await eventually(
      () => {
        expect(consumer.values()).toEqual(['now']);
      },
      { timeoutMs: 2_000 },
    );
  });

  it('sees records another instance (another process) appends to the same file by polling', async () => {
    const { log, another } = openFile({ pollIntervalMs: 20 });
    const writer = another();
    const consumer = collector();
    await log.subscribe({ groupId: 'g', topics: ['t'], handleBatch: consumer.handle, fromBeginning: false });
    await writer.publish([{ topic: 't', key: 'k', value: Buffer.from('from elsewhere') }]);
    await eventually(() => {
      expect(consumer.values()).toEqual(['from elsewhere']);
    });
  });

  it('never moves a position backwards when uncoordinated instances consume one group', async () => {
    const { log, another } = openFile({ pollIntervalMs: 20 });
    const second = another({ pollIntervalMs: 20 });
    const first = collector();
    const other = collector();
    await log.subscribe({ groupId: 'g', topics: ['t'], handleBatch: first.handle, maxBatchSize: 3 });
    await second.subscribe({ groupId: 'g', topics: ['t'], handleBatch: other.handle, maxBatchSize: 3 });
    const values = Array.from({ length: 60 }, (_, index) => `${index}`);
    for (const value of values) await log.publish([{ topic: 't', key: 'k', value: Buffer.from(value) }]);
    await eventually(() => {
      expect(new Set([...first.values(), ...other.values()])).toEqual(new Set(values));
    });
    await log.close();
    await second.close();

    const resumed = collector();
    const third = another();
    await third.publish([{ topic: 't', key: 'k', value: Buffer.from('marker') }]);
    await third.subscribe({ groupId: 'g', topics: ['t'], handleBatch: resumed.handle });
    await eventually(() => {
      expect(resumed.values()).toContain('marker');
    });
    expect(resumed.values()).toEqual(['marker']);
  });

  it('keeps the starting position of fromBeginning false even when nothing was consumed before a restart', async () => {
    const { log, another } = openFile();
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('old') }]);
    const subscription = await log.subscribe({
      groupId: 'g',
      topics: ['t'],
      handleBatch: () => Promise.resolve(),
      fromBeginning: false,
    });
    await subscription.stop();
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('new') }]);
    await log.close();

    const consumer = collector();
    await another().subscribe({ groupId: 'g', topics: ['t'], handleBatch: consumer.handle, fromBeginning: false });
    await eventually(() => {
      expect(consumer.values()).toEqual(['new']);
    });
  });

  it('allows one subscription per group and topic in an instance; disjoint topics and stopped ones are fine', async () => {
    const { log } = openFile();
    const handleBatch = (): Promise<void> => Promise.resolve();
    const first = await log.subscribe({ groupId: 'g', topics: ['a', 'b'], handleBatch });
    await expect(log.subscribe({ groupId: 'g', topics: ['b', 'c'], handleBatch })).rejects.toThrow(
      'Consumer group g already has an active subscription to b',
    );
    await log.subscribe({ groupId: 'g', topics: ['c'], handleBatch });
    await log.subscribe({ groupId: 'other', topics: ['a'], handleBatch });
    await first.stop();
    await first.stop();
    await log.subscribe({ groupId: 'g', topics: ['a', 'b'], handleBatch });
  });

  it('rejects invalid subscriptions and any use after close, and closes idempotently', async () => {
    const { log } = openFile();
    const handleBatch = (): Promise<void> => Promise.resolve();
    await expect(log.subscribe({ groupId: 'g', topics: [], handleBatch })).rejects.toThrow('topic');
    await expect(log.subscribe({ groupId: '', topics: ['t'], handleBatch })).rejects.toThrow('groupId');
    await expect(log.subscribe({ groupId: 'g', topics: ['t'], handleBatch, maxBatchSize: 0 })).rejects.toThrow(
      'maxBatchSize',
    );
    await log.close();
    await log.close();
    await expect(log.publish([{ topic: 't', key: 'k', value: Buffer.from('x') }])).rejects.toThrow('closed');
    await expect(log.subscribe({ groupId: 'g', topics: ['t'], handleBatch })).rejects.toThrow('closed');
  });

  it('redelivers a failing batch after a doubling backoff, on its scheduler, reporting every attempt', async () => {
    const scheduler = new FakeScheduler(0);
    const failures: [number, number][] = [];
    const log = new SqliteMessageLog({
      path: ':memory:',
      scheduler,
      retryInitialDelayMs: 50,
      retryMaxDelayMs: 150,
      onError: (_error, attempt) => failures.push([attempt, scheduler.now()]),
    });
    cleanups.push(() => log.close());
    const attempts: number[] = [];
    await log.subscribe({
      groupId: 'g',
      topics: ['t'],
      handleBatch: () => {
        attempts.push(scheduler.now());
        return attempts.length <= 3 ? Promise.reject(new Error('fails')) : Promise.resolve();
      },
    });
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('x') }]);
    await eventually(() => {
      expect(attempts).toEqual([0]);
      expect(scheduler.pending).toContain(50);
    });
    await scheduler.advance(49);
    expect(attempts).toEqual([0]);
    await scheduler.advance(1 + 100 + 150);
    expect(attempts).toEqual([0, 50, 150, 300]);
    expect(failures).toEqual([
      [1, 0],
      [2, 50],
      [3, 150],
    ]);
  });

  it('stops promptly while a failing batch waits for its retry, leaving no wait behind', async () => {
    const scheduler = new FakeScheduler();
    const log = new SqliteMessageLog({
      path: ':memory:',
      scheduler,
      retryInitialDelayMs: 60_000,
      retryMaxDelayMs: 60_000,
    });
    let calls = 0;
    await log.subscribe({
      groupId: 'g',
      topics: ['t'],
      handleBatch: () => {
        calls += 1;
        return Promise.reject(new Error('fails'));
      },
    });
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('x') }]);
    await eventually(() => {
      expect(scheduler.pending).toEqual([60_000]);
    });
    expect(calls).toBe(1);
    await log.close();
    expect(scheduler.pending).toEqual([]);
    expect(calls).toBe(1);
  });

  it('waits for the poll interval when idle, and is woken at once by a publish through the same instance', async () => {
    const scheduler = new FakeScheduler();
    const log = new SqliteMessageLog({ path: ':memory:', scheduler, pollIntervalMs: 200 });
    cleanups.push(() => log.close());
    const consumer = collector();
    await log.subscribe({ groupId: 'g', topics: ['t'], handleBatch: consumer.handle });
    await scheduler.untilSleeping();
    expect(scheduler.pending).toEqual([200]);
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('x') }]);
    await eventually(() => {
      expect(consumer.values()).toEqual(['x']);
    });
    expect(scheduler.now()).toBe(0);
  });

  it('lets records accumulate for lingerMs after a wake-up, then delivers them as one batch', async () => {
    const scheduler = new FakeScheduler();
    const log = new SqliteMessageLog({ path: ':memory:', scheduler, pollIntervalMs: 200 });
    cleanups.push(() => log.close());
    const batches: string[][] = [];
    await log.subscribe({
      groupId: 'g',
      topics: ['t'],
      lingerMs: 50,
      handleBatch: (batch) => {
        batches.push(batch.map((record) => record.value.toString()));
        return Promise.resolve();
      },
    });
    await scheduler.untilSleeping();
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('a') }]);
    await scheduler.untilSleeping();
    expect(scheduler.pending).toEqual([50]); // woken, now lingering
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('b') }]);
    await log.publish([{ topic: 't', key: 'k', value: Buffer.from('c') }]);
    expect(batches).toEqual([]);
    await scheduler.advance(50);
    await eventually(() => {
      expect(batches).toEqual([['a', 'b', 'c']]);
    });
  });
});
