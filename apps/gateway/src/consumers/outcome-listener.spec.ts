import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  createEventSerde,
  UndecodableRecordError,
  type EventSerde,
  type MetadataChangeProposalOutcome,
} from '@strata/events';
import { SqliteMessageLog } from '@strata/log';
import { TimeoutError } from '@strata/model';
import { readSchemas } from '@strata/schemas';

import { FakeScheduler } from '@strata/timing/testing';
import { OutcomeListener } from './outcome-listener';

const topic = 'MetadataChangeProposalOutcome_v1';
const acknowledgementTopic = 'MetadataIndexAcknowledgement_v1';
const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const serde: EventSerde = createEventSerde(readSchemas());

function outcome(
  requestId: string,
  overrides: Partial<MetadataChangeProposalOutcome> = {},
): MetadataChangeProposalOutcome {
  return {
    requestId,
    entityType: 'dataset',
    entityUrn: urn,
    aspectName: 'status',
    status: 'APPLIED',
    version: 1,
    errorCode: null,
    error: null,
    indexedChangeLogs: 1,
    changeLogTopics: ['MetadataChangeLog_Versioned_v1'],
    timestampMillis: 1_700_000_000_000,
    deletedRows: null,
    deletedTimeseriesRows: null,
    ...overrides,
  };
}

/** Whether a promise has settled, observable without awaiting it. */
function track<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { settled: () => settled, promise };
}

describe('OutcomeListener', () => {
  let directory: string;
  let log: SqliteMessageLog;
  let listener: OutcomeListener;
  let undecodable: unknown[];
  let deliveryErrors: unknown[];
  let scheduler: FakeScheduler;

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-outcome-listener-'));
    deliveryErrors = [];
    undecodable = [];
    log = new SqliteMessageLog({
      path: path.join(directory, 'log.sqlite'),
      onError: (error) => deliveryErrors.push(error),
    });
    listener = new OutcomeListener({
      log,
      serde,
      topic,
      acknowledgementTopic,
      groupId: 'gateway-test',
      scheduler: (scheduler = new FakeScheduler()),
      onUndecodable: (error) => undecodable.push(error),
    });
  });

  afterEach(async () => {
    await listener.stop();
    await log.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  async function publish(...outcomes: MetadataChangeProposalOutcome[]): Promise<void> {
    await log.publish(outcomes.map((value) => ({ topic, key: value.entityUrn, value: serde.outcome.encode(value) })));
  }

  async function acknowledge(requestId: string, indexer: string, skipped?: string): Promise<void> {
    await log.publish([
      {
        topic: acknowledgementTopic,
        key: urn,
        value: serde.indexAcknowledgement.encode({
          requestId,
          indexer,
          entityUrn: urn,
          timestampMillis: 1,
          status: skipped === undefined ? 'APPLIED' : 'SKIPPED',
          error: skipped ?? null,
        }),
      },
    ]);
  }

  /** Lets the listener consume what was published so far: an outcome published after it is delivered after it. */
  let sentinels = 0;
  async function consumed(): Promise<void> {
    const id = `sentinel-${(sentinels += 1)}`;
    const sentinel = listener.expect([id], 10_000, 'http-request');
    await publish(outcome(id));
    await sentinel;
  }

  describe('waiting for indexing', () => {
    it('given acknowledgements that arrive before the wait begins, then the wait resolves once every read model listed acknowledged', async () => {
      await listener.start();
      const indexing = listener.expectIndexing(['r-1', 'r-2']);

      await acknowledge('r-1', 'search');
      await acknowledge('r-other', 'graph');
      await consumed();
      const waiting = track(indexing.wait(new Map([['r-1', ['search', 'graph']]]), 10_000, 'http-request'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(waiting.settled()).toBe(false);

      await acknowledge('r-1', 'graph');
      await expect(waiting.promise).resolves.toEqual([]);
      // r-2 was registered but not waited for (its outcome produced no change log): forgotten with the rest.
      expect((listener as unknown as { indexingWaiters: Map<string, unknown> }).indexingWaiters.size).toBe(0);
    });

    it('given a read model acknowledges a change log as skipped, then the wait resolves at once and reports it', async () => {
      await listener.start();
      const indexing = listener.expectIndexing(['r-1', 'r-2']);
      const waiting = indexing.wait(
        new Map([
          ['r-1', ['search', 'graph']],
          ['r-2', ['search']],
        ]),
        10_000,
        'http-request',
      );
      await acknowledge('r-1', 'search');
      await acknowledge('r-1', 'graph', 'search-indexer skipped the change log at T/0@7: Unknown aspect x');
      await acknowledge('r-2', 'search');

      await expect(waiting).resolves.toEqual([
        {
          requestId: 'r-1',
          readModel: 'graph',
          error: 'search-indexer skipped the change log at T/0@7: Unknown aspect x',
        },
      ]);
    });

    it('waits only for the read models listed, ignoring acknowledgements of others', async () => {
      await listener.start();
      const indexing = listener.expectIndexing(['r-1']);
      const waiting = track(indexing.wait(new Map([['r-1', ['timeseries']]]), 10_000, 'http-request'));
      await acknowledge('r-1', 'search');
      await consumed();
      expect(waiting.settled()).toBe(false);
      await acknowledge('r-1', 'timeseries');
      await expect(waiting.promise).resolves.toEqual([]);
    });

    it('given no acknowledgement arrives, when the timeout passes, then the wait rejects with a TimeoutError saying the write was applied', async () => {
      await listener.start();
      const indexing = listener.expectIndexing(['r-slow']);

      const waiting = track(indexing.wait(new Map([['r-slow', ['search']]]), 50, 'http-request'));
      await scheduler.advance(49);
      expect(waiting.settled()).toBe(false);
      await scheduler.advance(1);
      const error = await waiting.promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );

      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).message).toContain('was applied (request id http-request) but was not indexed');
      expect((listener as unknown as { indexingWaiters: Map<string, unknown> }).indexingWaiters.size).toBe(0);
    });

    it('given nothing to wait for, then the wait resolves at once', async () => {
      await listener.start();
      const indexing = listener.expectIndexing(['r-unchanged']);
      await expect(indexing.wait(new Map(), 10_000, 'http-request')).resolves.toEqual([]);
      await expect(
        listener.expectIndexing(['r-no-model']).wait(new Map([['r-no-model', []]]), 10_000, 'http-request'),
      ).resolves.toEqual([]);
    });
  });

  it('given a waiting request, when its outcome is published, then expect() resolves with it', async () => {
    await listener.start();
    const waiting = listener.expect(['r-1'], 10_000, 'http-request');

    await publish(outcome('r-1', { status: 'UNCHANGED', version: 4 }));

    await expect(waiting).resolves.toEqual([outcome('r-1', { status: 'UNCHANGED', version: 4 })]);
    expect(deliveryErrors).toEqual([]);
  });

  it('given a waiting request, when outcomes of other requests arrive first, then they are ignored and its own outcome resolves it', async () => {
    await listener.start();
    const waiting = listener.expect(['r-mine'], 10_000, 'http-request');

    await publish(
      outcome('r-other-1'),
      outcome('r-other-2', { status: 'REJECTED', errorCode: 'validation', error: 'no' }),
    );
    await publish(outcome('r-mine', { version: 7 }));

    await expect(waiting).resolves.toEqual([outcome('r-mine', { version: 7 })]);
    expect(deliveryErrors).toEqual([]);
  });

  it('given several request ids, when their outcomes arrive in another order, then they resolve together in the order asked', async () => {
    await listener.start();
    const waiting = listener.expect(['r-a', 'r-b', 'r-c'], 10_000, 'http-request');
    const progress = track(waiting);

    const sentinel = listener.expect(['r-sentinel'], 10_000, 'http-request');
    await publish(outcome('r-c', { version: 3 }), outcome('r-a', { version: 1 }), outcome('r-sentinel'));
    // Same key, so delivered in publish order: once the sentinel resolved, r-c and r-a were delivered too.
    await sentinel;
    await new Promise((resolve) => setImmediate(resolve));
    expect(progress.settled()).toBe(false);

    await publish(outcome('r-b', { version: 2 }));
    await expect(waiting).resolves.toEqual([
      outcome('r-a', { version: 1 }),
      outcome('r-b', { version: 2 }),
      outcome('r-c', { version: 3 }),
    ]);
  });

  it('given no outcome arrives, when the timeout passes, then expect() rejects with a TimeoutError naming the request id and forgets the waiter', async () => {
    await listener.start();

    const waiting = listener.expect(['r-late/0', 'r-late/1'], 50, 'r-late');
    await scheduler.advance(50);

    const error = await waiting.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toContain('(request id r-late)');
    // No waiter is left behind (it would leak, and keep the listener decoding every outcome).
    expect((listener as unknown as { waiters: Map<string, unknown> }).waiters.size).toBe(0);

    // The late outcome finds nobody and harms nothing: the listener keeps delivering to later requests.
    const next = listener.expect(['r-next'], 10_000, 'http-request');
    await publish(outcome('r-late'), outcome('r-next'));
    await expect(next).resolves.toEqual([outcome('r-next')]);
    expect(deliveryErrors).toEqual([]);
    expect(undecodable).toEqual([]);
  });

  it('given an undecodable record before an outcome, when both are delivered, then onUndecodable is told and the outcome still resolves its waiter', async () => {
    await listener.start();
    const waiting = listener.expect(['r-1'], 10_000, 'http-request');

    await log.publish([
      { topic, key: urn, value: Buffer.from('not an outcome') },
      { topic, key: urn, value: serde.outcome.encode(outcome('r-1')) },
    ]);

    await expect(waiting).resolves.toEqual([outcome('r-1')]);
    expect(undecodable).toHaveLength(1);
    expect(undecodable[0]).toBeInstanceOf(UndecodableRecordError);
    expect(deliveryErrors).toEqual([]);
  });

  it('given an outcome published before start(), when started, then it is not delivered (the listener starts at the end of the log)', async () => {
    await publish(outcome('r-early'));
    // Waiting before start(), so that a listener reading from the beginning would certainly hand r-early over.
    const early = listener.expect(['r-early'], 10_000, 'http-request');
    await listener.start();
    const progress = track(early);

    // An outcome published after start() on the same key is delivered only after anything published before it.
    const sentinel = listener.expect(['r-sentinel'], 10_000, 'http-request');
    await publish(outcome('r-sentinel'));
    await sentinel;
    await new Promise((resolve) => setImmediate(resolve));

    expect(progress.settled()).toBe(false);
    // The waiter was there all along: an outcome published now resolves it.
    await publish(outcome('r-early', { version: 2 }));
    await expect(early).resolves.toEqual([outcome('r-early', { version: 2 })]);
  });
});
