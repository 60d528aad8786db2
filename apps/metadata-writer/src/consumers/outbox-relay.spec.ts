import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { MessageLog, OutgoingRecord, Subscription } from '@strata/log';
import { SqliteAspectStore } from '@strata/store';
import { FakeScheduler } from '@strata/timing/testing';
import { eventually } from '@strata/testing';

import { RecordHeader } from '@strata/events';
import type { LogEnd, NewWriteTrace } from '@strata/store';

import { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';

/**
 * A message log that records what it is asked to publish. It can refuse the next N publishes, and hold publishes at a
 * gate until released (to make a drain overlap other calls).
 */
class FakeMessageLog implements MessageLog {
  /** Records the log accepted, in order. */
  readonly published: OutgoingRecord[] = [];
  /** Every publish call (accepted or not): its record values. */
  readonly calls: string[][] = [];
  failuresLeft = 0;
  /** Called synchronously on every publish call, before it settles. */
  onPublish: (() => void) | undefined;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;

  publish(records: readonly OutgoingRecord[]): Promise<void> {
    this.calls.push(records.map((record) => record.value.toString()));
    this.onPublish?.();
    return this.settle(records);
  }

  subscribe(): Promise<Subscription> {
    return Promise.reject(new Error('the outbox relay never subscribes'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }

  publishedValues(): string[] {
    return this.published.map((record) => record.value.toString());
  }

  private async settle(records: readonly OutgoingRecord[]): Promise<void> {
    if (this.gate) await this.gate;
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('log unavailable');
    }
    this.published.push(...records);
  }
}

/** Lets every pending promise callback run (setImmediate is never faked here). */
function settleMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('OutboxRelay', () => {
  let directory: string;
  let store: SqliteAspectStore;
  let log: FakeMessageLog;
  let errors: unknown[];
  let scheduler: FakeScheduler;
  const relays: OutboxRelay[] = [];

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-outbox-relay-'));
    store = new SqliteAspectStore({ path: path.join(directory, 'store.sqlite') });
    log = new FakeMessageLog();
    errors = [];
    scheduler = new FakeScheduler();
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  function relayOf(options: Partial<OutboxRelayOptions> = {}): OutboxRelay {
    const relay = new OutboxRelay({
      store,
      log,
      onError: (error) => errors.push(error),
      backoff: { initialMs: 5, maxMs: 30_000 },
      scheduler,
      ...options,
    });
    relays.push(relay);
    return relay;
  }

  /** Commits one outbox record per value, in one commit. */
  async function commitRecords(...values: string[]): Promise<void> {
    await store.commit({
      mutations: [],
      outbox: values.map((value) => ({
        topic: `topic-${value}`,
        key: `key-${value}`,
        value: Buffer.from(value),
        headers: { h: value },
      })),
      appliedProposalIds: [],
    });
  }

  async function pendingValues(): Promise<string[]> {
    return (await store.pendingOutbox(1000)).map((record) => record.value.toString());
  }

  it('given records of several commits, when flushed, then they are published in commit order, intact, and marked published', async () => {
    const relay = relayOf();
    await commitRecords('a', 'b');
    await commitRecords('c');

    expect(await relay.flush()).toBe(true);

    expect(log.published.map((record) => ({ ...record, value: record.value.toString() }))).toEqual(
      ['a', 'b', 'c'].map((value) => ({ topic: `topic-${value}`, key: `key-${value}`, value, headers: { h: value } })),
    );
    expect(await pendingValues()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('given more records than a batch, when flushed, then they go out batch by batch, in order, all marked', async () => {
    const relay = relayOf({ batchSize: 2 });
    await commitRecords('a', 'b', 'c', 'd', 'e');

    await relay.flush();

    expect(log.calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(await pendingValues()).toEqual([]);
  });

  it('given nothing pending, when flushed, then nothing is published', async () => {
    await relayOf().flush();

    expect(log.calls).toEqual([]);
  });

  it('given a drain in progress, when others flush meanwhile, then their calls join it, and their records are published when their promises resolve', async () => {
    const relay = relayOf();
    await commitRecords('a');
    log.hold();
    const first = relay.flush();
    await settleMicrotasks();
    expect(log.calls).toEqual([['a']]);

    await commitRecords('b');
    const second = relay.flush();
    await commitRecords('c');
    const third = relay.flush();
    const secondDone = second.then(() => log.publishedValues());
    log.release();

    expect(await secondDone).toEqual(['a', 'b', 'c']);
    await Promise.all([first, third]);
    // Coalesced: one more round for both late callers, not one drain per caller.
    expect(log.calls).toEqual([['a'], ['b', 'c']]);
    expect(await pendingValues()).toEqual([]);
  });

  // BUG: a flush() that arrives after the running drain's last check of `again` but before its `.finally` cleared
  // `running` joins a drain that is already over. Its promise resolves with its records still pending (and nothing
  // drains them until some later flush), breaking "every caller's records are published when its promise resolves".
  // The caller here commits during the drain's publish, then flushes a few microtasks later; some offsets hit the window.
  it('given a drain about to finish, when another caller commits and flushes at any moment, then its record is published when its flush resolves', async () => {
    const missed: number[] = [];
    for (let hops = 0; hops < 20; hops += 1) {
      const relay = relayOf();
      await commitRecords(`first-${hops}`);
      let lateCaller: Promise<void> | undefined;
      log.onPublish = () => {
        log.onPublish = undefined;
        lateCaller = (async () => {
          await commitRecords(`late-${hops}`);
          for (let hop = 0; hop < hops; hop += 1) await Promise.resolve();
          await relay.flush();
          if (!log.publishedValues().includes(`late-${hops}`)) missed.push(hops);
        })();
      };

      await relay.flush();
      await lateCaller;
      await relay.flush();
      await relay.stop();
    }

    expect(missed).toEqual([]);
  });

  it('given the log refuses publishes, when flushed, then flush resolves false, onError is told, nothing is marked, and retries succeed later', async () => {
    const relay = relayOf();
    await commitRecords('a', 'b');
    log.failuresLeft = 3;

    expect(await relay.flush()).toBe(false);

    expect(errors).toHaveLength(1);
    expect(errors[0]).toEqual(new Error('log unavailable'));
    expect(await pendingValues()).toEqual(['a', 'b']);

    await scheduler.advance(5 + 10 + 20);
    await eventually(async () => {
      expect(await pendingValues()).toEqual([]);
    });
    expect(log.publishedValues()).toEqual(['a', 'b']);
    expect(log.calls).toHaveLength(4);
    expect(errors).toHaveLength(3);
    expect(await relay.flush()).toBe(true);
  });

  it('given a batch that fails after an earlier batch succeeded, when flushed, then only the published batch is marked', async () => {
    const relay = relayOf({ batchSize: 2 });
    await commitRecords('a', 'b', 'c', 'd');
    let calls = 0;
    log.onPublish = () => {
      calls += 1;
      if (calls === 2) log.failuresLeft = Number.POSITIVE_INFINITY;
    };

    await relay.flush();

    expect(log.publishedValues()).toEqual(['a', 'b']);
    expect(await pendingValues()).toEqual(['c', 'd']);
    await relay.stop();
  });

  describe('retrying on its scheduler', () => {
    /** Moves the fake clock, then lets the drains it started run. */
    async function advance(ms: number): Promise<void> {
      await scheduler.advance(ms);
      await settleMicrotasks();
    }

    it('given repeated failures, when retrying, then the delay doubles each time and starts over after a success', async () => {
      const relay = relayOf({ backoff: { initialMs: 100, maxMs: 30_000 } });
      await commitRecords('a');
      log.failuresLeft = 3;

      await relay.flush();
      expect(log.calls).toHaveLength(1);
      for (const [attempts, delay] of [
        [2, 100],
        [3, 200],
        [4, 400],
      ] as const) {
        await advance(delay - 1);
        expect(log.calls).toHaveLength(attempts - 1);
        await advance(1);
        expect(log.calls).toHaveLength(attempts);
      }
      expect(log.publishedValues()).toEqual(['a']);
      expect(await pendingValues()).toEqual([]);

      await commitRecords('b');
      log.failuresLeft = 1;
      await relay.flush();
      expect(log.calls).toHaveLength(5);
      await advance(99);
      expect(log.calls).toHaveLength(5);
      await advance(1);
      expect(log.calls).toHaveLength(6);
      expect(log.publishedValues()).toEqual(['a', 'b']);
    });

    it('given a retry is scheduled, when stopped, then the retry is cancelled and later flushes do nothing', async () => {
      const relay = relayOf({ backoff: { initialMs: 100, maxMs: 30_000 } });
      await commitRecords('a');
      log.failuresLeft = Number.POSITIVE_INFINITY;
      await relay.flush();
      expect(scheduler.pending).toEqual([100]);

      await relay.stop();

      expect(scheduler.pending).toEqual([]);
      await advance(60_000);
      expect(await relay.flush()).toBe(false);
      expect(log.calls).toHaveLength(1);
      expect(await pendingValues()).toEqual(['a']);
    });
  });

  it('given a drain in progress, when stopped, then stop waits for it to finish', async () => {
    const relay = relayOf();
    await commitRecords('a');
    log.hold();
    const flushing = relay.flush();
    await settleMicrotasks();

    let stopped = false;
    const stopping = relay.stop().then(() => (stopped = true));
    await settleMicrotasks();
    expect(stopped).toBe(false);

    log.release();
    await Promise.all([flushing, stopping]);
    expect(log.publishedValues()).toEqual(['a']);
    expect(await pendingValues()).toEqual([]);
  });

  describe('write traces', () => {
    const versioned = 'MetadataChangeLog_Versioned_v1';
    const ends: LogEnd[] = [{ topic: versioned, partition: 0, end: '42' }];
    const changeLog = (changeId: string, more: Record<string, string> = {}) => ({
      topic: versioned,
      key: 'urn:li:corpuser:u',
      value: Buffer.from(changeId),
      headers: { [RecordHeader.traceId]: 't', [RecordHeader.changeId]: changeId, ...more },
    });
    const trace = (proposalId: string): NewWriteTrace => ({
      traceId: 't',
      urn: `urn:li:corpuser:${proposalId}`,
      aspect: 'status',
      proposalId,
      status: 'APPLIED',
      version: 1,
      createdOn: 1,
      errorCode: null,
      error: null,
      changeLogged: true,
      recordedAt: 1,
    });
    const publishedBefore = async (proposalId: string) =>
      (await store.findWriteTraces('t', [{ urn: `urn:li:corpuser:${proposalId}`, aspect: 'status' }]))[0]
        ?.publishedBefore;

    it('given published change logs of traced proposals, records where the log ended on their traces', async () => {
      const relay = relayOf({
        traces: {
          ends: () => Promise.resolve(ends),
          onError: (e) => errors.push(e),
          recordEveryMs: 0,
        },
      });
      await store.commit({
        mutations: [],
        outbox: [changeLog('p/0'), changeLog('p/1')],
        appliedProposalIds: [],
        writeTraces: [trace('p')],
      });
      // A commit that appended nothing to the outbox has nothing published.
      await store.commit({ mutations: [], outbox: [], appliedProposalIds: [], writeTraces: [trace('q')] });

      expect(await relay.flush()).toBe(true);
      await relay.publicationsRecorded();
      expect(await publishedBefore('p')).toEqual(ends);
      expect(await publishedBefore('q')).toBeNull();
      expect(await pendingValues()).toEqual([]);
    });

    it('given a commit whose last records come in a later drain with no traced record, publishes its trace with that drain', async () => {
      const relay = relayOf({
        batchSize: 1,
        traces: { ends: () => Promise.resolve(ends), onError: (e) => errors.push(e), recordEveryMs: 0 },
      });
      // The traced change log, then the proposal's outcome: one drain each.
      await store.commit({
        mutations: [],
        outbox: [changeLog('p/0'), { topic: 'outcomes', key: 'p', value: Buffer.from('outcome'), headers: {} }],
        appliedProposalIds: [],
        writeTraces: [trace('p')],
      });

      expect(await relay.flush()).toBe(true);
      await relay.publicationsRecorded();
      expect(await publishedBefore('p')).toEqual(ends);
    });

    it('given drains while a publication waits out its interval, records them together once it has passed', async () => {
      let measured = 0;
      const relay = relayOf({
        traces: {
          ends: () => Promise.resolve([{ topic: versioned, partition: 0, end: String(++measured) }]),
          onError: (e) => errors.push(e),
          recordEveryMs: 50,
        },
      });
      const commitTraced = (proposalId: string) =>
        store.commit({
          mutations: [],
          outbox: [changeLog(`${proposalId}/0`)],
          appliedProposalIds: [],
          writeTraces: [trace(proposalId)],
        });
      await commitTraced('a');
      expect(await relay.flush()).toBe(true);
      await commitTraced('b');
      expect(await relay.flush()).toBe(true);
      await commitTraced('c');
      expect(await relay.flush()).toBe(true);
      // The first drain's publication is written at once; the next two wait for the interval, then go as one.
      await eventuallyTrue(async () => (await publishedBefore('a')) !== null);
      expect(await publishedBefore('b')).toBeNull();
      await scheduler.advance(50);
      await relay.publicationsRecorded();
      expect(await publishedBefore('a')).toEqual([{ topic: versioned, partition: 0, end: '1' }]);
      expect(await publishedBefore('b')).toEqual([{ topic: versioned, partition: 0, end: '2' }]);
      expect(await publishedBefore('c')).toEqual([{ topic: versioned, partition: 0, end: '2' }]);
      expect(measured).toBe(2);
    });

    it('given the log’s ends cannot be read, when flushed, then the records are still marked published and the failure reported', async () => {
      const traceErrors: unknown[] = [];
      const relay = relayOf({
        traces: {
          ends: () => Promise.reject(new Error('positions unavailable')),
          onError: (error) => traceErrors.push(error),
          recordEveryMs: 0,
        },
      });
      await store.commit({
        mutations: [],
        outbox: [changeLog('p/0')],
        appliedProposalIds: [],
        writeTraces: [trace('p')],
      });

      expect(await relay.flush()).toBe(true);
      await relay.publicationsRecorded();
      expect(log.publishedValues()).toEqual(['p/0']);
      expect(await pendingValues()).toEqual([]);
      expect(await publishedBefore('p')).toBeNull();
      expect(traceErrors).toEqual([new Error('positions unavailable')]);
      expect(errors).toEqual([]);
    });
  });
});

/** Waits, a turn of the event loop at a time, until `check` holds (at most 100 turns). */
async function eventuallyTrue(check: () => Promise<boolean>): Promise<void> {
  for (let turn = 0; turn < 100; turn++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('never held');
}
