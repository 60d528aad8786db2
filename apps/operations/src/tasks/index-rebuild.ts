import { Gauge, Registry } from 'prom-client';
import type { RequestContext, RouteCaller } from '@strata/http';
import { ConflictError } from '@strata/model';
import type { TaskReport } from '../domain/operations-answers';
import type { TaskLedger } from './task-ledger';

/** Rows one restate call of a rebuild replays. */
export const REBUILD_PAGE_ROWS = 5_000;

/** Where a rebuild is. */
export type RebuildPhase = 'counting' | 'clearing' | 'restating' | 'done';

/** A rebuild's counters, in the shape of a delete-by-query task's status, with its own progress beside them. */
export interface RebuildCounters {
  /** Rows to replay (the primary store's latest values and timeseries points when the rebuild began). */
  readonly total: number;
  /** Rows replayed so far. */
  readonly created: number;
  readonly updated: 0;
  readonly deleted: 0;
  /** Restate calls made. */
  readonly batches: number;
  readonly version_conflicts: 0;
  readonly noops: 0;
  readonly retries: { readonly bulk: 0; readonly search: 0 };
  readonly throttled_millis: 0;
  readonly requests_per_second: -1;
  readonly throttled_until_millis: 0;
  readonly phase: RebuildPhase;
  /** Rows replayed per second since the replay began. */
  readonly rows_per_second: number;
  /** Time left at that rate, in milliseconds; null before any row is replayed. */
  readonly eta_millis: number | null;
}

/** The counters of a rebuild at a point of its progress. Pure. */
export function rebuildCounters(
  progress: { total: number; done: number; batches: number; phase: RebuildPhase },
  elapsedMs: number,
): RebuildCounters {
  const rate = elapsedMs > 0 ? (progress.done * 1_000) / elapsedMs : 0;
  return {
    total: progress.total,
    created: progress.done,
    updated: 0,
    deleted: 0,
    batches: progress.batches,
    version_conflicts: 0,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: -1,
    throttled_until_millis: 0,
    phase: progress.phase,
    rows_per_second: Math.round(rate),
    eta_millis:
      progress.phase === 'done'
        ? 0
        : rate > 0
          ? Math.round((Math.max(0, progress.total - progress.done) * 1_000) / rate)
          : null,
  };
}

export interface IndexRebuildsOptions {
  readonly ledger: TaskLedger;
  /** Calls the owners: the writer (count, restate), the search indexer and the timeseries indexer (clear). */
  readonly call: RouteCaller;
  readonly now: () => number;
  readonly logger: { info(details: object, message: string): void; warn(details: object, message: string): void };
  readonly pageRows?: number;
}

/**
 * Full rebuilds of the indices, as tasks: each empties the search, graph and timeseries indices (through their owners),
 * then has the writer replay every row of the primary store as RESTATE change logs, page after page, recording its
 * progress — rows done, rate, time left — in the ledger (getEsTaskStatus reads it) and in the metrics. Emptying first
 * is what makes the rebuild exact: a document the store no longer backs is gone, and every one it backs comes back.
 * Until the replay is through, reads see the indices filling back. The audit trail is not rebuilt (a restatement is
 * not a change).
 */
export class IndexRebuilds {
  readonly metrics = new Registry();
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  /** The number of the rebuild running, if one is. */
  private current: number | undefined;
  private readonly gauges;

  constructor(private readonly options: IndexRebuildsOptions) {
    const registers = [this.metrics];
    this.gauges = {
      running: new Gauge({ name: 'strata_rebuild_running', help: 'Full rebuilds of the indices running.', registers }),
      total: new Gauge({ name: 'strata_rebuild_rows_total', help: 'Rows the running rebuild replays.', registers }),
      done: new Gauge({ name: 'strata_rebuild_rows_done', help: 'Rows the running rebuild has replayed.', registers }),
      rate: new Gauge({
        name: 'strata_rebuild_rows_per_second',
        help: 'Rows the running rebuild replays per second.',
        registers,
      }),
      eta: new Gauge({
        name: 'strata_rebuild_eta_seconds',
        help: 'Time the running rebuild still takes at its rate (-1 while unknown).',
        registers,
      }),
    };
  }

  /**
   * Starts a rebuild on behalf of `context`'s caller; answers its task id at once. One runs at a time: asked again
   * meanwhile, it refuses with a `ConflictError` naming the running task.
   */
  start(context: RequestContext): { nodeId: string; number: number } {
    if (this.current !== undefined) {
      throw new ConflictError(
        `A rebuild of the indices is running: task ${this.options.ledger.nodeId}:${this.current}; ask getEsTaskStatus`,
      );
    }
    const startedAt = this.options.now();
    const initial = rebuildCounters({ total: 0, done: 0, batches: 0, phase: 'counting' }, 0);
    const number = this.options.ledger.create('rebuild', {}, startedAt, initial);
    this.current = number;
    const run = this.run(number, startedAt, context).finally(() => {
      this.running.delete(run);
      this.current = undefined;
    });
    this.running.add(run);
    return { nodeId: this.options.ledger.nodeId, number };
  }

  /** A task of the ledger (a rebuild, or any other), as getEsTaskStatus reports it; undefined when it has none. */
  report(task: { nodeId: string; number: number }): TaskReport | undefined {
    return this.options.ledger.report(task, this.options.now());
  }

  /** Stops the rebuilds running (each records that it was interrupted) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }

  private async run(number: number, startedAt: number, context: RequestContext): Promise<void> {
    const { ledger, call, now, logger } = this.options;
    const pageRows = this.options.pageRows ?? REBUILD_PAGE_ROWS;
    const progress = { total: 0, done: 0, batches: 0, phase: 'counting' as RebuildPhase };
    let replayStarted = startedAt;
    const record = () => {
      const counters = rebuildCounters(progress, now() - replayStarted);
      ledger.update(number, counters);
      this.gauges.total.set(progress.total);
      this.gauges.done.set(progress.done);
      this.gauges.rate.set(counters.rows_per_second);
      this.gauges.eta.set(counters.eta_millis === null ? -1 : counters.eta_millis / 1_000);
      return counters;
    };
    this.gauges.running.inc();
    try {
      const counts = (await call({ method: 'GET', resource: '/internal/restate/count' }, context)) as {
        latest: number;
        timeseries: number;
      };
      progress.total = counts.latest + counts.timeseries;
      progress.phase = 'clearing';
      record();
      await call({ method: 'POST', resource: '/internal/search-index/clear' }, context);
      await call({ method: 'POST', resource: '/internal/timeseries-index/clear' }, context);
      progress.phase = 'restating';
      replayStarted = now();
      let after: unknown;
      for (;;) {
        if (this.stopping) throw new Interrupted();
        const page = (await call(
          { method: 'POST', resource: '/internal/restate', body: { after, limit: pageRows } },
          context,
        )) as { rows: number; last: unknown; exhausted: boolean };
        progress.done += page.rows;
        progress.batches += 1;
        after = page.last ?? after;
        if (page.exhausted) break;
        record();
      }
      progress.phase = 'done';
      // More rows than counted (writes went on meanwhile) is no error: the total is the count when the rebuild began.
      progress.total = Math.max(progress.total, progress.done);
      ledger.finish(number, record(), now());
      logger.info({ task: `${ledger.nodeId}:${number}`, rows: progress.done }, 'rebuilt the indices');
    } catch (error) {
      const failure =
        error instanceof Interrupted
          ? { type: 'task_interrupted', reason: 'the operations service stopped before the task finished' }
          : { type: 'rebuild_failed', reason: error instanceof Error ? error.message : String(error) };
      ledger.finish(number, rebuildCounters(progress, now() - replayStarted), now(), failure);
      logger.warn({ task: `${ledger.nodeId}:${number}`, err: error }, 'a rebuild of the indices failed');
    } finally {
      this.gauges.running.dec();
    }
  }
}

class Interrupted extends Error {}
