import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessorBacklog } from '@strata/change-log';
import type { RequestContext, RouteCall } from '@strata/http';
import { ConflictError, UnavailableError } from '@strata/model';
import { eventually } from '@strata/testing';
import { FakeScheduler } from '@strata/timing/testing';
import { IndexRebuilds, pendingUpTo, rebuildCounters, type IndexRebuildsOptions } from './index-rebuild';
import { INTERRUPTED, TaskLedger } from './task-ledger';

const context = { requestId: 'r', traceId: 't', actor: 'urn:li:corpuser:datahub' } as RequestContext;
const quiet = { info: () => undefined, warn: () => undefined };
const VERSIONED = 'MetadataChangeLog_Versioned_v1';
const TIMESERIES = 'MetadataChangeLog_Timeseries_v1';

describe('rebuildCounters', () => {
  it('given rows replayed over time, then the rate and the time left of the replay follow; before any row, the time left is unknown', () => {
    expect(
      rebuildCounters({ phase: 'restating', total: 10_000, done: 2_000, batches: 1, replayMs: 1_000 }),
    ).toMatchObject({
      total: 10_000,
      created: 2_000,
      batches: 1,
      rows_per_second: 2_000,
      eta_millis: 4_000,
      requests_per_second: -1,
      change_logs_pending: 0,
    });
    expect(rebuildCounters({ phase: 'clearing', total: 10, done: 0, batches: 0, replayMs: 0 }).eta_millis).toBeNull();
  });

  it('given the replay through and the indexers applying it, then what is pending, their rate and the time left of the indexing follow; done, nothing is left', () => {
    const indexing = rebuildCounters({
      phase: 'indexing',
      total: 3_003,
      done: 3_003,
      batches: 1,
      replayMs: 1_000,
      indexing: {
        toIndex: 2_266,
        pendingByIndexer: { 'search-indexer': 1_066, 'timeseries-indexer': 200 },
        elapsedMs: 2_000,
      },
    });
    expect(indexing).toMatchObject({
      phase: 'indexing',
      total: 3_003,
      created: 3_003,
      rows_per_second: 3_003,
      change_logs_to_index: 2_266,
      change_logs_pending: 1_266,
      change_logs_pending_by_indexer: { 'search-indexer': 1_066, 'timeseries-indexer': 200 },
      change_logs_per_second: 500,
      eta_millis: 2_532,
    });
    const stalled = { toIndex: 10, pendingByIndexer: { 'search-indexer': 10 }, elapsedMs: 5_000 };
    expect(
      rebuildCounters({ phase: 'indexing', total: 10, done: 10, batches: 1, replayMs: 5, indexing: stalled })
        .eta_millis,
    ).toBeNull();
    const caughtUp = { toIndex: 10, pendingByIndexer: { 'search-indexer': 0 }, elapsedMs: 5_000 };
    expect(
      rebuildCounters({ phase: 'done', total: 10, done: 10, batches: 1, replayMs: 5, indexing: caughtUp }),
    ).toMatchObject({ eta_millis: 0, change_logs_pending: 0 });
  });
});

describe('pendingUpTo', () => {
  it('given the ends noted after the replay, then only what lies before them counts, not what was appended since', () => {
    const targets = new Map([
      [`${VERSIONED}/0`, '100'],
      [`${VERSIONED}/1`, '40'],
    ]);
    const backlog: ProcessorBacklog = {
      indexer: 'search-indexer',
      measuredAt: 0,
      pending: 0,
      partitions: [
        { topic: VERSIONED, partition: 0, end: '180', position: '70', pending: 110 },
        { topic: VERSIONED, partition: 1, end: '55', position: '45', pending: 10 },
      ],
    };
    expect(pendingUpTo(targets, backlog)).toBe(30);
  });
});

/** An indexer consuming one topic of one partition: the end the log has, and the position it applied up to. */
class FakeIndexer {
  end = 0;
  position = 0;
  /** Refuses to tell its backlog while set (a restart). */
  down = false;

  constructor(
    readonly name: string,
    private readonly topic: string,
  ) {}

  backlog(measuredAt: number): ProcessorBacklog {
    const pending = this.end - this.position;
    return {
      indexer: this.name,
      measuredAt,
      pending,
      partitions: [
        { topic: this.topic, partition: 0, end: String(this.end), position: String(this.position), pending },
      ],
    };
  }
}

describe('IndexRebuilds', () => {
  let directory: string;
  let ledger: TaskLedger;
  let scheduler: FakeScheduler;
  let search: FakeIndexer;
  let timeseries: FakeIndexer;
  const rebuildsRunning: IndexRebuilds[] = [];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-rebuild-'));
    scheduler = new FakeScheduler(1_000);
    ledger = new TaskLedger({ path: join(directory, 'operations.sqlite'), now: () => scheduler.now() });
    search = new FakeIndexer('search-indexer', VERSIONED);
    timeseries = new FakeIndexer('timeseries-indexer', TIMESERIES);
  });

  afterEach(async () => {
    for (const rebuilds of rebuildsRunning.splice(0)) await rebuilds.stop();
    await ledger.close();
    rmSync(directory, { recursive: true, force: true });
  });

  interface Owners {
    /** Rows the writer holds: all but the last two are latest values (versioned), those two timeseries points. */
    readonly rows: number;
    /** Every call made, by resource. */
    readonly calls?: string[];
    /** A resource that fails. */
    readonly fail?: string;
    /** How many restate calls answer that the log refused their change logs (the first that find nothing left). */
    readonly refusals?: number;
    /** Whether the indexers apply what is appended at once. Default false: they stay where they are. */
    readonly indexAtOnce?: boolean;
  }

  /**
   * The owners: a writer whose restate pages append change logs to the indexers' topics (each page taking 1 s of the
   * clock), and the two indexers.
   */
  function owners({ rows, calls = [], fail, refusals = 0, indexAtOnce = false }: Owners) {
    let done = 0;
    let refusalsLeft = refusals;
    return async (call: RouteCall): Promise<unknown> => {
      calls.push(call.resource);
      if (call.resource === fail) throw new UnavailableError(`${fail} is down`);
      switch (call.resource) {
        case '/internal/restate/count':
          return { latest: rows - 2, timeseries: 2 };
        case '/internal/restate': {
          const { limit, after } = call.body as { limit: number; after?: { n: number } };
          expect(after?.n ?? 0).toBe(done);
          const page = Math.min(limit, rows - done);
          for (let row = done; row < done + page; row += 1) {
            const indexer = row < rows - 2 ? search : timeseries;
            indexer.end += 1;
            if (indexAtOnce) indexer.position = indexer.end;
          }
          done += page;
          await scheduler.advance(1_000);
          const exhausted = page < limit;
          const published = !(exhausted && refusalsLeft > 0);
          if (!published) refusalsLeft -= 1;
          return { rows: page, last: { n: done }, exhausted, published };
        }
        case '/internal/search-index/backlog':
        case '/internal/timeseries-index/backlog': {
          const indexer = call.resource.includes('search') ? search : timeseries;
          if (indexer.down) throw new UnavailableError(`${indexer.name} is restarting`);
          return indexer.backlog(scheduler.now());
        }
        default:
          return { cleared: true };
      }
    };
  }

  function rebuildsOf(options: Partial<IndexRebuildsOptions> & Pick<IndexRebuildsOptions, 'call'>): IndexRebuilds {
    const rebuilds = new IndexRebuilds({ ledger, scheduler, logger: quiet, pollIntervalMs: 1_000, ...options });
    rebuildsRunning.push(rebuilds);
    return rebuilds;
  }

  async function completion(rebuilds: IndexRebuilds, task: { nodeId: string; number: number }) {
    return eventually(() => {
      const current = rebuilds.report(task);
      expect(current?.completed).toBe(true);
      return Promise.resolve(current);
    });
  }

  it('given a store and indexers that keep up, when rebuilt, then the indices are emptied first, every row is replayed and applied, and the task reports it', async () => {
    const calls: string[] = [];
    const rebuilds = rebuildsOf({ call: owners({ rows: 12_000, calls, indexAtOnce: true }), pageRows: 5_000 });
    const task = rebuilds.start(context);
    expect(task.nodeId).toBe(ledger.nodeId);
    expect(() => rebuilds.start(context)).toThrow(
      new ConflictError(`A rebuild of the indices is running: task ${task.nodeId}:${task.number}; ask getEsTaskStatus`),
    );
    const report = await completion(rebuilds, task);
    expect(calls).toEqual([
      '/internal/restate/count',
      '/internal/search-index/clear',
      '/internal/timeseries-index/clear',
      '/internal/restate',
      '/internal/restate',
      '/internal/restate',
      '/internal/search-index/backlog',
      '/internal/timeseries-index/backlog',
    ]);
    expect(report?.error).toBeUndefined();
    expect(report?.status).toMatchObject({
      total: 12_000,
      created: 12_000,
      batches: 3,
      phase: 'done',
      eta_millis: 0,
      rows_per_second: 4_000,
      change_logs_to_index: 0,
      change_logs_pending: 0,
    });
    expect((await rebuilds.metrics.getSingleMetric('strata_rebuild_rows_done')?.get())?.values[0]?.value).toBe(12_000);
    expect(rebuilds.report({ nodeId: 'another-node', number: task.number })).toBeUndefined();
  });

  it('given the replay emitted and the indexers behind, when polled, then the task is not done and says what is pending; once they reach the ends the log had after the replay, it is done', async () => {
    const rebuilds = rebuildsOf({ call: owners({ rows: 3_003 }), pageRows: 5_000 });
    const task = rebuilds.start(context);
    search.position = 735; // what the indexer applied while the replay went on
    await scheduler.untilSleeping();

    const behind = rebuilds.report(task);
    expect(behind?.completed).toBe(false);
    expect(behind?.status).toMatchObject({
      phase: 'indexing',
      total: 3_003,
      created: 3_003,
      change_logs_to_index: 3_003 - 735,
      change_logs_pending: 3_003 - 735,
      change_logs_pending_by_indexer: { 'search-indexer': 3_001 - 735, 'timeseries-indexer': 2 },
    });
    expect(
      (await rebuilds.metrics.getSingleMetric('strata_rebuild_change_logs_pending')?.get())?.values[0]?.value,
    ).toBe(3_003 - 735);

    // A second later: the timeseries indexer is through, the search indexer halfway; other writes came meanwhile.
    timeseries.position = 2;
    search.position = 1_868;
    search.end += 50;
    await scheduler.advance(1_000);
    await scheduler.untilSleeping();
    const halfway = rebuilds.report(task);
    expect(halfway?.completed).toBe(false);
    expect(halfway?.status).toMatchObject({
      phase: 'indexing',
      change_logs_pending: 3_001 - 1_868,
      change_logs_pending_by_indexer: { 'search-indexer': 3_001 - 1_868, 'timeseries-indexer': 0 },
      change_logs_per_second: 1_135,
      eta_millis: 998,
    });

    // The replay applied; the writes appended after it are not the rebuild's to wait for.
    search.position = 3_001;
    await scheduler.advance(1_000);
    const done = await completion(rebuilds, task);
    expect(done?.error).toBeUndefined();
    expect(done?.status).toMatchObject({ phase: 'done', created: 3_003, change_logs_pending: 0, eta_millis: 0 });
  });

  it('given the log refused the last change logs of the replay, when rebuilt, then the task asks the writer again until they are on the log before it notes the ends to reach', async () => {
    const calls: string[] = [];
    const rebuilds = rebuildsOf({ call: owners({ rows: 10, calls, refusals: 2 }), pageRows: 100 });
    const task = rebuilds.start(context);
    await scheduler.untilSleeping();
    expect(rebuilds.report(task)?.status).toMatchObject({ phase: 'restating', created: 10 });
    await scheduler.advance(1_000);
    await scheduler.untilSleeping();
    await scheduler.advance(1_000);
    await scheduler.untilSleeping();
    expect(calls.filter((resource) => resource === '/internal/restate')).toHaveLength(3);
    expect(rebuilds.report(task)?.status).toMatchObject({ phase: 'indexing', change_logs_pending: 10 });

    search.position = 8;
    timeseries.position = 2;
    await scheduler.advance(1_000);
    expect((await completion(rebuilds, task))?.status).toMatchObject({ phase: 'done', batches: 3 });
  });

  it('given an indexer that cannot tell its backlog for a while, when rebuilt, then the task waits for it; past the patience, it fails naming it', async () => {
    const rebuilds = rebuildsOf({ call: owners({ rows: 10 }), patienceMs: 10_000 });
    const task = rebuilds.start(context);
    await scheduler.untilSleeping();
    search.down = true;
    search.position = 8;
    await scheduler.advance(5_000);
    await scheduler.untilSleeping();
    expect(rebuilds.report(task)).toMatchObject({ completed: false, status: { phase: 'indexing' } });

    search.down = false;
    await scheduler.advance(1_000);
    await scheduler.untilSleeping();
    expect(rebuilds.report(task)?.status).toMatchObject({
      change_logs_pending_by_indexer: { 'search-indexer': 0, 'timeseries-indexer': 2 },
    });

    timeseries.down = true;
    await scheduler.advance(12_000);
    const report = await completion(rebuilds, task);
    expect(report?.error).toEqual({
      type: 'rebuild_failed',
      reason: 'timeseries-indexer could not tell its backlog: timeseries-indexer is restarting (for 11 s)',
    });
    expect(report?.status).toMatchObject({ phase: 'indexing', change_logs_pending: 2 });
  });

  it('given an owner that fails, when rebuilt, then the task completes with the failure named', async () => {
    const rebuilds = rebuildsOf({ call: owners({ rows: 10, fail: '/internal/search-index/clear' }) });
    const task = rebuilds.start(context);
    const report = await completion(rebuilds, task);
    expect(report?.error).toEqual({ type: 'rebuild_failed', reason: '/internal/search-index/clear is down' });
  });

  it('given a rebuild waiting for the indexers, when the service stops, then the task reports it was interrupted', async () => {
    const rebuilds = rebuildsOf({ call: owners({ rows: 10 }) });
    const task = rebuilds.start(context);
    await scheduler.untilSleeping();
    await rebuilds.stop();
    expect(rebuilds.report(task)).toMatchObject({
      completed: true,
      error: { type: 'task_interrupted' },
      status: { phase: 'indexing', change_logs_pending: 10 },
    });
  });

  it('given a task running when its process stopped, when the ledger opens again, then the task reports it was interrupted', async () => {
    const number = ledger.create('rebuild', {}, 1_000, { total: 5, created: 1 });
    await ledger.close();
    await scheduler.advance(3_000);
    ledger = new TaskLedger({ path: join(directory, 'operations.sqlite'), now: () => scheduler.now() });
    expect(ledger.get(number)).toMatchObject({
      completed: true,
      error: INTERRUPTED,
      counters: { total: 5, created: 1 },
      finishedAt: 4_000,
    });
    const rebuilds = rebuildsOf({ call: owners({ rows: 0 }) });
    expect(rebuilds.report({ nodeId: ledger.nodeId, number })?.runTimeNanos).toBe(3_000 * 1_000_000);
  });
});
