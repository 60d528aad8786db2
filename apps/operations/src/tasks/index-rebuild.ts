import { Gauge, Registry } from 'prom-client';
import type { ProcessorBacklog } from '@strata/change-log';
import type { RequestContext, RouteCaller } from '@strata/http';
import { BadGatewayError, ConflictError, TimeoutError, UnavailableError } from '@strata/model';
import type { Scheduler } from '@strata/timing';
import type { TaskReport } from '../domain/operations-answers';
import type { TaskLedger } from './task-ledger';

/** Rows one restate call of a rebuild replays. */
export const REBUILD_PAGE_ROWS = 5_000;

/** Where a rebuild is. */
export type RebuildPhase = 'counting' | 'clearing' | 'restating' | 'indexing' | 'done';

/** An indexer a rebuild empties, then waits for: the owner of indices built from the replayed change logs. */
export interface RebuiltIndexer {
  /** Its name, as its backlog names it (`search-indexer`). */
  readonly name: string;
  /** Its internal route emptying its indices. */
  readonly clear: string;
  /** Its internal route answering its backlog (`ProcessorBacklog` of `@strata/change-log`). */
  readonly backlog: string;
}

/**
 * The indexers that consume the replayed change logs: the search indexer (search and graph indices, from the versioned
 * change logs) and the timeseries indexer (from the timeseries ones). The audit trail passes restatements over, and is
 * not rebuilt.
 */
export const REBUILT_INDEXERS: readonly RebuiltIndexer[] = [
  { name: 'search-indexer', clear: '/internal/search-index/clear', backlog: '/internal/search-index/backlog' },
  {
    name: 'timeseries-indexer',
    clear: '/internal/timeseries-index/clear',
    backlog: '/internal/timeseries-index/backlog',
  },
];

/** A rebuild's counters, in the shape of a delete-by-query task's status, with its own progress beside them. */
export interface RebuildCounters {
  /** Rows to replay (the primary store's latest values and timeseries points when the rebuild began). */
  readonly total: number;
  /** Rows replayed so far (as change logs on the log; the indices apply them after: see `change_logs_pending`). */
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
  /** Rows replayed per second, over the replay. */
  readonly rows_per_second: number;
  /**
   * Change logs the indexers still had to apply once the whole replay was on the log: what the `indexing` phase waits
   * for (0 before it).
   */
  readonly change_logs_to_index: number;
  /** Of those, the ones not applied yet; 0 when done. */
  readonly change_logs_pending: number;
  /** The same, per indexer. */
  readonly change_logs_pending_by_indexer: Readonly<Record<string, number>>;
  /** Change logs the indexers applied per second, over the `indexing` phase. */
  readonly change_logs_per_second: number;
  /**
   * Time left of the phase in progress at its rate, in milliseconds: of the replay while restating (the indexers'
   * share after it cannot be known before), of the indexing while indexing; 0 when done; null while no rate is known.
   */
  readonly eta_millis: number | null;
}

/** A rebuild's progress: what its counters are made of. */
export interface RebuildProgress {
  readonly phase: RebuildPhase;
  readonly total: number;
  /** Rows replayed. */
  readonly done: number;
  readonly batches: number;
  /** Milliseconds the replay took so far (or took). */
  readonly replayMs: number;
  /** Once indexing: change logs the indexers had to apply when it began, those still pending (per indexer), its time. */
  readonly indexing?: {
    readonly toIndex: number;
    readonly pendingByIndexer: Readonly<Record<string, number>>;
    readonly elapsedMs: number;
  };
}

/** The counters of a rebuild at a point of its progress. Pure. */
export function rebuildCounters(progress: RebuildProgress): RebuildCounters {
  const rowRate = progress.replayMs > 0 ? (progress.done * 1_000) / progress.replayMs : 0;
  const indexing = progress.indexing;
  const pendingByIndexer = indexing?.pendingByIndexer ?? {};
  const pending = Object.values(pendingByIndexer).reduce((sum, count) => sum + count, 0);
  const toIndex = indexing?.toIndex ?? 0;
  const indexRate =
    indexing !== undefined && indexing.elapsedMs > 0
      ? (Math.max(0, toIndex - pending) * 1_000) / indexing.elapsedMs
      : 0;
  const timeLeft = (left: number, rate: number) => (rate > 0 ? Math.round((left * 1_000) / rate) : null);
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
    rows_per_second: Math.round(rowRate),
    change_logs_to_index: toIndex,
    change_logs_pending: pending,
    change_logs_pending_by_indexer: pendingByIndexer,
    change_logs_per_second: Math.round(indexRate),
    eta_millis:
      progress.phase === 'done'
        ? 0
        : progress.phase === 'indexing'
          ? pending === 0
            ? 0
            : timeLeft(pending, indexRate)
          : timeLeft(Math.max(0, progress.total - progress.done), rowRate),
  };
}

/**
 * The change logs an indexer has yet to apply of those the log held at `targets` (per `topic/partition`, the end it
 * had once the replay was on the log): what it reports beyond them, appended since, is not the rebuild's to wait for.
 * A partition it no longer reports counts as not applied. Pure.
 */
export function pendingUpTo(targets: ReadonlyMap<string, string>, backlog: ProcessorBacklog): number {
  const positions = new Map(backlog.partitions.map((partition) => [partitionOf(partition), partition.position]));
  let pending = 0n;
  for (const [partition, end] of targets) {
    const left = BigInt(end) - BigInt(positions.get(partition) ?? '0');
    if (left > 0n) pending += left;
  }
  return Number(pending);
}

export interface IndexRebuildsOptions {
  readonly ledger: TaskLedger;
  /** Calls the owners: the writer (count, restate) and the indexers (clear, backlog). */
  readonly call: RouteCaller;
  /** The clock (progress, rates) and the waits between two looks at the indexers' backlog. */
  readonly scheduler: Scheduler;
  readonly logger: { info(details: object, message: string): void; warn(details: object, message: string): void };
  readonly pageRows?: number;
  /** The indexers to empty and wait for. Default {@link REBUILT_INDEXERS}. */
  readonly indexers?: readonly RebuiltIndexer[];
  /** Milliseconds between two looks at the indexers' backlog (or at a replay the log refused). Default 1000. */
  readonly pollIntervalMs?: number;
  /**
   * How long an indexer may stay unreachable, or the log refuse the replayed change logs, before the task fails, in
   * milliseconds. Default five minutes: long enough for a service to restart.
   */
  readonly patienceMs?: number;
}

/** Milliseconds between two looks at the indexers' backlog. */
export const REBUILD_POLL_INTERVAL_MS = 1_000;
/** How long the indexers may stay unreachable, or the log refuse the replay, before a rebuild fails. */
export const REBUILD_PATIENCE_MS = 5 * 60_000;

/**
 * Full rebuilds of the indices, as tasks: each empties the search, graph and timeseries indices (through their owners),
 * has the writer replay every row of the primary store as RESTATE change logs, page after page, then waits until the
 * indexers have applied them. Emptying first is what makes the rebuild exact: a document the store no longer backs is
 * gone, and every one it backs comes back. Until the task is done, reads see the indices filling back.
 *
 * Done means applied: the replay is through once its last change logs are on the log (the writer says so, having
 * published its outbox); the task then notes the end of every partition the indexers consume, and is done once each
 * indexer's committed position has reached those ends (its backlog route; every change log before a committed
 * position is applied, its effects durable). Change logs appended after are other writes, not waited for. Its progress
 * — rows replayed, change logs still to apply, rates, time left — is recorded in the ledger (getEsTaskStatus reads it)
 * and in the metrics. The audit trail is not rebuilt (a restatement is not a change).
 */
export class IndexRebuilds {
  readonly metrics = new Registry();
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  /** The number of the rebuild running, if one is. */
  private current: number | undefined;
  private readonly gauges;

  constructor(private readonly options: IndexRebuildsOptions) {
    const registers = [this.metrics];
    this.gauges = {
      running: new Gauge({ name: 'strata_rebuild_running', help: 'Full rebuilds of the indices running.', registers }),
      total: new Gauge({ name: 'strata_rebuild_rows_to_replay', help: 'Rows the running rebuild replays.', registers }),
      done: new Gauge({ name: 'strata_rebuild_rows_done', help: 'Rows the running rebuild has replayed.', registers }),
      rate: new Gauge({
        name: 'strata_rebuild_rows_per_second',
        help: 'Rows the running rebuild replays per second.',
        registers,
      }),
      pending: new Gauge({
        name: 'strata_rebuild_change_logs_pending',
        help: 'Replayed change logs the indexers have yet to apply before the running rebuild is done (0 before its indexing phase).',
        registers,
      }),
      eta: new Gauge({
        name: 'strata_rebuild_eta_seconds',
        help: 'Time the phase in progress of the running rebuild still takes at its rate (-1 while unknown).',
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
    const startedAt = this.options.scheduler.now();
    const initial = rebuildCounters({ phase: 'counting', total: 0, done: 0, batches: 0, replayMs: 0 });
    const number = this.options.ledger.create('rebuild', {}, startedAt, initial);
    this.current = number;
    const run = this.run(number, context).finally(() => {
      this.running.delete(run);
      this.current = undefined;
    });
    this.running.add(run);
    return { nodeId: this.options.ledger.nodeId, number };
  }

  /** A task of the ledger (a rebuild, or any other), as getEsTaskStatus reports it; undefined when it has none. */
  report(task: { nodeId: string; number: number }): TaskReport | undefined {
    return this.options.ledger.report(task, this.options.scheduler.now());
  }

  /** Stops the rebuilds running (each records that it was interrupted) and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  private async run(number: number, context: RequestContext): Promise<void> {
    const { ledger, call, scheduler, logger } = this.options;
    const now = () => scheduler.now();
    const pageRows = this.options.pageRows ?? REBUILD_PAGE_ROWS;
    const indexers = this.options.indexers ?? REBUILT_INDEXERS;
    const state = {
      phase: 'counting' as RebuildPhase,
      total: 0,
      done: 0,
      batches: 0,
      replayStarted: now(),
      replayEnded: undefined as number | undefined,
      indexing: undefined as { started: number; toIndex: number; pendingByIndexer: Record<string, number> } | undefined,
    };
    const counters = () =>
      rebuildCounters({
        phase: state.phase,
        total: state.total,
        done: state.done,
        batches: state.batches,
        replayMs: (state.replayEnded ?? now()) - state.replayStarted,
        ...(state.indexing === undefined
          ? {}
          : {
              indexing: {
                toIndex: state.indexing.toIndex,
                pendingByIndexer: { ...state.indexing.pendingByIndexer },
                elapsedMs: now() - state.indexing.started,
              },
            }),
      });
    const record = () => {
      const current = counters();
      ledger.update(number, current);
      this.gauges.total.set(current.total);
      this.gauges.done.set(current.created);
      this.gauges.rate.set(current.rows_per_second);
      this.gauges.pending.set(current.change_logs_pending);
      this.gauges.eta.set(current.eta_millis === null ? -1 : current.eta_millis / 1_000);
      return current;
    };
    this.gauges.running.inc();
    try {
      const counts = (await call({ method: 'GET', resource: '/internal/restate/count' }, context)) as {
        latest: number;
        timeseries: number;
      };
      state.total = counts.latest + counts.timeseries;
      state.phase = 'clearing';
      record();
      for (const indexer of indexers) await call({ method: 'POST', resource: indexer.clear }, context);

      state.phase = 'restating';
      state.replayStarted = now();
      let after: unknown;
      let refusedSince: number | undefined;
      for (;;) {
        this.checkStopping();
        const page = (await call(
          { method: 'POST', resource: '/internal/restate', body: { after, limit: pageRows } },
          context,
        )) as { rows: number; last: unknown; exhausted: boolean; published?: boolean };
        state.done += page.rows;
        state.batches += 1;
        after = page.last ?? after;
        // A writer that does not say (an earlier version) published before answering.
        if (page.published !== false) refusedSince = undefined;
        if (page.exhausted && page.published !== false) break;
        record();
        if (page.exhausted) {
          // The log refused the last change logs: they wait in the writer's outbox, which its relay keeps publishing.
          // Asking again (for the rows after the last) tells when they got through.
          refusedSince ??= now();
          this.checkPatience(refusedSince, 'the log did not take the replayed change logs');
          await this.pause();
        }
      }
      state.replayEnded = now();
      // More rows than counted (writes went on meanwhile) is no error: the total is the count when the rebuild began.
      state.total = Math.max(state.total, state.done);

      state.phase = 'indexing';
      // Per indexer, the end of each partition it consumes, noted once the replay is on the log: what it must reach.
      const targets = new Map<string, ReadonlyMap<string, string>>();
      const pendingByIndexer: Record<string, number> = {};
      const indexing = { started: now(), toIndex: 0, pendingByIndexer };
      state.indexing = indexing;
      const unreachableSince = new Map<string, number>();
      for (let look = 0; ; look += 1) {
        if (look > 0) await this.pause();
        for (const indexer of indexers) {
          if (pendingByIndexer[indexer.name] === 0) continue;
          let backlog: ProcessorBacklog;
          try {
            backlog = await this.backlogOf(indexer, context);
          } catch (error) {
            if (!transient(error)) throw error;
            const since = unreachableSince.get(indexer.name) ?? now();
            unreachableSince.set(indexer.name, since);
            this.checkPatience(since, `${indexer.name} could not tell its backlog: ${messageOf(error)}`);
            logger.warn({ task: `${ledger.nodeId}:${number}`, err: error }, 'an indexer could not tell its backlog');
            continue;
          }
          unreachableSince.delete(indexer.name);
          const target = targets.get(indexer.name);
          if (target === undefined) {
            targets.set(indexer.name, new Map(backlog.partitions.map((each) => [partitionOf(each), each.end])));
            indexing.toIndex += backlog.pending;
            pendingByIndexer[indexer.name] = backlog.pending;
          } else {
            pendingByIndexer[indexer.name] = pendingUpTo(target, backlog);
          }
        }
        record();
        if (indexers.every((indexer) => pendingByIndexer[indexer.name] === 0)) break;
      }

      state.phase = 'done';
      ledger.finish(number, record(), now());
      logger.info({ task: `${ledger.nodeId}:${number}`, rows: state.done }, 'rebuilt the indices');
    } catch (error) {
      const failure =
        error instanceof Interrupted
          ? { type: 'task_interrupted', reason: 'the operations service stopped before the task finished' }
          : { type: 'rebuild_failed', reason: messageOf(error) };
      ledger.finish(number, counters(), now(), failure);
      logger.warn({ task: `${ledger.nodeId}:${number}`, err: error }, 'a rebuild of the indices failed');
    } finally {
      this.gauges.running.dec();
      this.gauges.pending.set(0);
    }
  }

  private async backlogOf(indexer: RebuiltIndexer, context: RequestContext): Promise<ProcessorBacklog> {
    this.checkStopping();
    return (await this.options.call({ method: 'GET', resource: indexer.backlog }, context)) as ProcessorBacklog;
  }

  /** Waits a poll interval, or until the service stops (then the task is interrupted). */
  private async pause(): Promise<void> {
    await this.options.scheduler.sleep(this.options.pollIntervalMs ?? REBUILD_POLL_INTERVAL_MS, this.stopping.signal);
    this.checkStopping();
  }

  private checkStopping(): void {
    if (this.stopping.signal.aborted) throw new Interrupted();
  }

  /** Fails the task when a condition that began at `since` has lasted longer than the patience. */
  private checkPatience(since: number, what: string): void {
    const patience = this.options.patienceMs ?? REBUILD_PATIENCE_MS;
    const lasted = this.options.scheduler.now() - since;
    if (lasted > patience) throw new Error(`${what} (for ${Math.round(lasted / 1_000)} s)`);
  }
}

class Interrupted extends Error {}

/** A failure that a restart of the owner ends: it may not be reached, timed out, or failed to answer. */
function transient(error: unknown): boolean {
  return error instanceof UnavailableError || error instanceof TimeoutError || error instanceof BadGatewayError;
}

/** A partition's name in targets: `topic/partition`. */
function partitionOf(partition: { readonly topic: string; readonly partition: number }): string {
  return `${partition.topic}/${partition.partition}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
