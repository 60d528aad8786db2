import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestContext, RouteCall } from '@strata/http';
import { ConflictError, UnavailableError } from '@strata/model';
import { eventually } from '@strata/testing';
import { IndexRebuilds, rebuildCounters } from './index-rebuild';
import { INTERRUPTED, TaskLedger } from './task-ledger';

const context = { requestId: 'r', traceId: 't', actor: 'urn:li:corpuser:datahub' } as RequestContext;
const quiet = { info: () => undefined, warn: () => undefined };

describe('rebuildCounters', () => {
  it('given rows done over time, then the rate and the time left follow; before any row, the time left is unknown', () => {
    expect(rebuildCounters({ total: 10_000, done: 2_000, batches: 1, phase: 'restating' }, 1_000)).toMatchObject({
      total: 10_000,
      created: 2_000,
      batches: 1,
      rows_per_second: 2_000,
      eta_millis: 4_000,
      requests_per_second: -1,
    });
    expect(rebuildCounters({ total: 10, done: 0, batches: 0, phase: 'clearing' }, 0).eta_millis).toBeNull();
    expect(rebuildCounters({ total: 10, done: 10, batches: 2, phase: 'done' }, 5).eta_millis).toBe(0);
  });
});

describe('IndexRebuilds', () => {
  let directory: string;
  let ledger: TaskLedger;
  let clock: number;
  const now = () => clock;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-rebuild-'));
    clock = 1_000;
    ledger = new TaskLedger({ path: join(directory, 'operations.sqlite'), now });
  });

  afterEach(async () => {
    await ledger.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A writer with `rows` rows, restated `perPage` at a time, each page taking 1 s of the clock. */
  function owners(rows: number, calls: string[], fail?: string) {
    let done = 0;
    return (call: RouteCall): Promise<unknown> => {
      calls.push(call.resource);
      if (call.resource === fail) return Promise.reject(new UnavailableError(`${fail} is down`));
      switch (call.resource) {
        case '/internal/restate/count':
          return Promise.resolve({ latest: rows - 2, timeseries: 2 });
        case '/internal/restate': {
          const { limit, after } = call.body as { limit: number; after?: { n: number } };
          expect(after?.n ?? 0).toBe(done);
          const page = Math.min(limit, rows - done);
          done += page;
          clock += 1_000;
          return Promise.resolve({ rows: page, last: { n: done }, exhausted: page < limit });
        }
        default:
          return Promise.resolve({ cleared: true });
      }
    };
  }

  it('given a store, when rebuilt, then the indices are emptied first, every row is replayed, and the task reports it', async () => {
    const calls: string[] = [];
    const rebuilds = new IndexRebuilds({ ledger, call: owners(12_000, calls), now, logger: quiet, pageRows: 5_000 });
    const task = rebuilds.start(context);
    expect(task.nodeId).toBe(ledger.nodeId);
    expect(() => rebuilds.start(context)).toThrow(
      new ConflictError(`A rebuild of the indices is running: task ${task.nodeId}:${task.number}; ask getEsTaskStatus`),
    );
    const report = await eventually(() => {
      const current = rebuilds.report(task);
      expect(current?.completed).toBe(true);
      return Promise.resolve(current);
    });
    expect(calls).toEqual([
      '/internal/restate/count',
      '/internal/search-index/clear',
      '/internal/timeseries-index/clear',
      '/internal/restate',
      '/internal/restate',
      '/internal/restate',
    ]);
    expect(report?.error).toBeUndefined();
    expect(report?.status).toMatchObject({ total: 12_000, created: 12_000, batches: 3, phase: 'done', eta_millis: 0 });
    expect(report?.status['rows_per_second']).toBe(4_000);
    expect((await rebuilds.metrics.getSingleMetric('strata_rebuild_rows_done')?.get())?.values[0]?.value).toBe(12_000);
    expect(rebuilds.report({ nodeId: 'another-node', number: task.number })).toBeUndefined();
    await rebuilds.stop();
  });

  it('given an owner that fails, when rebuilt, then the task completes with the failure named', async () => {
    const rebuilds = new IndexRebuilds({
      ledger,
      call: owners(10, [], '/internal/search-index/clear'),
      now,
      logger: quiet,
    });
    const task = rebuilds.start(context);
    const report = await eventually(() => {
      const current = rebuilds.report(task);
      expect(current?.completed).toBe(true);
      return Promise.resolve(current);
    });
    expect(report?.error).toEqual({ type: 'rebuild_failed', reason: '/internal/search-index/clear is down' });
    await rebuilds.stop();
  });

  it('given a task running when its process stopped, when the ledger opens again, then the task reports it was interrupted', async () => {
    const number = ledger.create('rebuild', {}, 1_000, { total: 5, created: 1 });
    await ledger.close();
    clock = 4_000;
    ledger = new TaskLedger({ path: join(directory, 'operations.sqlite'), now });
    expect(ledger.get(number)).toMatchObject({
      completed: true,
      error: INTERRUPTED,
      counters: { total: 5, created: 1 },
      finishedAt: 4_000,
    });
    const rebuilds = new IndexRebuilds({ ledger, call: owners(0, []), now, logger: quiet });
    expect(rebuilds.report({ nodeId: ledger.nodeId, number })?.runTimeNanos).toBe(3_000 * 1_000_000);
  });
});
