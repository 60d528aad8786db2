import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GroupPosition, LogRecord } from '@strata/log';
import type { UnapplicableReason } from './change-log-decoder';

/** One input partition's position, as one hook has reached it. */
export interface PartitionProgress {
  readonly topic: string;
  readonly partition: number;
  /** Offset of the last record handled. */
  readonly offset: string;
  /** Append time of that record, epoch milliseconds. */
  readonly recordTimestamp: number;
  /** When it was handled, epoch milliseconds (appliedAt − recordTimestamp is how far behind it was then). */
  readonly appliedAt: number;
  /**
   * How far behind the log the partition is when the backlog was measured: 0 when no change log is pending in it
   * (an idle consumer is not behind, however long ago its last change log was), else the age then of the last change
   * log handled — the pending ones were appended after it, so none has waited longer.
   */
  readonly lagMs: number;
}

/** One input partition's backlog: where the consumer stands beside the end of the log. */
export interface PartitionBacklog {
  readonly topic: string;
  readonly partition: number;
  /** Offset the next change log appended to the partition gets (decimal string). */
  readonly end: string;
  /** Offset of the next change log the consumer handles: every one before it is applied, its effects durable. */
  readonly position: string;
  /** end − position: change logs appended and not yet applied. */
  readonly pending: number;
}

/** What a consumer has yet to apply, per input partition and in all. */
export interface ProcessorBacklog {
  /** The consumer, e.g. `search-indexer`. */
  readonly indexer: string;
  /** When the log answered, epoch milliseconds. */
  readonly measuredAt: number;
  /** Change logs appended to the input topics and not yet applied, over every partition. */
  readonly pending: number;
  readonly partitions: readonly PartitionBacklog[];
}

/** Lag percentiles over the most recent change logs a hook applied. */
export interface RecentLag {
  readonly records: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export interface HookProgressReport {
  readonly hook: string;
  /** Change logs this hook applied since the service started. */
  readonly recordsApplied: number;
  /** Lag (append → applied) of the most recent change logs applied, up to {@link RECENT_LAGS}; absent before any. */
  readonly recentLagMs?: RecentLag;
  readonly partitions: readonly PartitionProgress[];
}

export interface ProcessorProgressReport {
  /** The consumer, e.g. `search-indexer`. Named `indexer` for the readers of the earlier report. */
  readonly indexer: string;
  /** Change logs every hook has handled since the service started. */
  readonly recordsApplied: number;
  /** Change logs that could never be applied (undecodable, unknown entity or aspect), counted and skipped. */
  readonly recordsSkipped: number;
  /** Lag (append → applied) of the most recent change logs applied: history, not how far behind it is now. */
  readonly recentLagMs?: RecentLag;
  readonly partitions: readonly PartitionProgress[];
  readonly hooks: readonly HookProgressReport[];
  /** What is left to apply, measured from the log when the report was made. */
  readonly backlog: ProcessorBacklog;
}

/**
 * The backlog of consumer `indexer` from its group's positions beside the log's ends, measured at `measuredAt`. A
 * partition where the group has no position yet counts from its start (the consumer reads from the beginning of the
 * log), and so does one whose position the log no longer holds. Pure.
 */
export function backlogOf(indexer: string, positions: readonly GroupPosition[], measuredAt: number): ProcessorBacklog {
  const partitions = positions.map(({ topic, partition, start, end, committed }): PartitionBacklog => {
    const from = committed === undefined || BigInt(committed) < BigInt(start) ? start : committed;
    const pending = BigInt(end) - BigInt(from);
    return { topic, partition, end, position: from, pending: pending > 0n ? Number(pending) : 0 };
  });
  return {
    indexer,
    measuredAt,
    pending: partitions.reduce((sum, partition) => sum + partition.pending, 0),
    partitions,
  };
}

/** How many of the most recent lags the percentiles cover. */
export const RECENT_LAGS = 10_000;

/**
 * A consumer's progress, as a whole and per hook: per input partition, the last record handled and how far behind the
 * log the partition is (from a backlog measured on the log, see {@link backlogOf}), counts, recent lag percentiles, and
 * the Prometheus metrics (`strata_change_log_*`, labels `consumer` and `hook`) served at `/metrics`.
 */
export class ProcessorProgress {
  readonly registry = new Registry();
  private readonly whole = new Track();
  private readonly hooks: Map<string, Track>;
  private recordsSkipped = 0;
  private readonly applied: Counter;
  private readonly skipped: Counter;
  private readonly failures: Counter;
  private readonly lag: Histogram;
  private readonly lastTimestamp: Gauge;
  private readonly lastLag: Gauge;

  constructor(
    private readonly consumer: string,
    hookNames: readonly string[],
  ) {
    this.hooks = new Map(hookNames.map((name) => [name, new Track()]));
    const registers = [this.registry];
    this.applied = new Counter({
      name: 'strata_change_log_records_applied_total',
      help: 'Change logs applied, per hook.',
      labelNames: ['consumer', 'hook'],
      registers,
    });
    this.skipped = new Counter({
      name: 'strata_change_log_records_skipped_total',
      help: 'Change logs that can never be applied (undecodable, unknown entity or aspect), skipped with a warning.',
      labelNames: ['consumer', 'reason'],
      registers,
    });
    this.failures = new Counter({
      name: 'strata_change_log_hook_failures_total',
      help: 'Failed attempts of a hook to apply a batch; each is retried after a backoff.',
      labelNames: ['consumer', 'hook'],
      registers,
    });
    this.lag = new Histogram({
      name: 'strata_change_log_lag_seconds',
      help: 'Time from a change log entering the log to a hook having applied it.',
      labelNames: ['consumer', 'hook'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.lastTimestamp = new Gauge({
      name: 'strata_change_log_last_record_timestamp_seconds',
      help: 'Append time of the last change log a hook handled, per input partition.',
      labelNames: ['consumer', 'hook', 'topic', 'partition'],
      registers,
    });
    this.lastLag = new Gauge({
      name: 'strata_change_log_last_lag_seconds',
      help: 'Lag of the last change log a hook handled, per input partition.',
      labelNames: ['consumer', 'hook', 'topic', 'partition'],
      registers,
    });
  }

  /**
   * Records that `hook` is done with a batch (records of one partition, in order), having applied `appliedRecords` of
   * them (the others were not for it), at `now`.
   */
  hookHandled(hook: string, batch: readonly LogRecord[], appliedRecords: readonly LogRecord[], now: number): void {
    const track = this.hooks.get(hook);
    const last = batch[batch.length - 1];
    if (track === undefined || last === undefined) return;
    for (const record of appliedRecords) {
      const lag = lagOf(record, now);
      this.lag.observe({ consumer: this.consumer, hook }, lag / 1000);
      track.observe(lag);
    }
    if (appliedRecords.length > 0) this.applied.inc({ consumer: this.consumer, hook }, appliedRecords.length);
    const position = track.position(last, now);
    const labels = { consumer: this.consumer, hook, topic: last.topic, partition: String(last.partition) };
    this.lastTimestamp.set(labels, last.timestamp / 1000);
    this.lastLag.set(labels, position.lagMs / 1000);
  }

  /** Records that every hook is done with a batch, at `now`. */
  batchHandled(batch: readonly LogRecord[], now: number): void {
    const last = batch[batch.length - 1];
    if (last === undefined) return;
    for (const record of batch) this.whole.observe(lagOf(record, now));
    this.whole.position(last, now);
  }

  /** Counts a change log skipped because it can never be applied. */
  skippedRecord(reason: UnapplicableReason): void {
    this.recordsSkipped += 1;
    this.skipped.inc({ consumer: this.consumer, reason });
  }

  /** Counts a failed attempt of a hook. */
  hookFailed(hook: string): void {
    this.failures.inc({ consumer: this.consumer, hook });
  }

  /** The report, with the lag of each partition as `backlog` says it is now. */
  report(backlog: ProcessorBacklog): ProcessorProgressReport {
    const whole = this.whole.report(backlog);
    return {
      indexer: this.consumer,
      recordsApplied: whole.records,
      recordsSkipped: this.recordsSkipped,
      ...(whole.recentLagMs === undefined ? {} : { recentLagMs: whole.recentLagMs }),
      partitions: whole.partitions,
      hooks: [...this.hooks].map(([hook, track]) => {
        const report = track.report(backlog);
        return {
          hook,
          recordsApplied: report.records,
          ...(report.recentLagMs === undefined ? {} : { recentLagMs: report.recentLagMs }),
          partitions: report.partitions,
        };
      }),
      backlog,
    };
  }
}

/** Counts, a ring of recent lags, and the position per partition, of one hook or of the consumer as a whole. */
class Track {
  private records = 0;
  private readonly recentLags = new Float64Array(RECENT_LAGS);
  private readonly partitions = new Map<string, PartitionProgress>();

  observe(lagMs: number): void {
    this.recentLags[this.records % RECENT_LAGS] = lagMs;
    this.records += 1;
  }

  position(last: LogRecord, now: number): PartitionProgress {
    const progress: PartitionProgress = {
      topic: last.topic,
      partition: last.partition,
      offset: last.offset,
      recordTimestamp: last.timestamp,
      appliedAt: now,
      lagMs: lagOf(last, now),
    };
    this.partitions.set(`${last.topic}/${last.partition}`, progress);
    return progress;
  }

  report(backlog: ProcessorBacklog): { records: number; recentLagMs?: RecentLag; partitions: PartitionProgress[] } {
    const count = Math.min(this.records, RECENT_LAGS);
    const lags = this.recentLags.slice(0, count).sort();
    const at = (quantile: number) => lags[Math.min(count - 1, Math.ceil(quantile * count) - 1)] ?? 0;
    return {
      records: this.records,
      ...(count === 0
        ? {}
        : { recentLagMs: { records: count, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: lags[count - 1] ?? 0 } }),
      partitions: [...this.partitions.values()]
        .map((handled) => ({ ...handled, lagMs: currentLag(handled, backlog) }))
        .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition),
    };
  }
}

/**
 * How far behind the log a partition is at the backlog's measure: none when nothing is pending in it; else the age of
 * the last change log handled. A partition the backlog does not list keeps the lag it had when it was handled.
 */
function currentLag(handled: PartitionProgress, backlog: ProcessorBacklog): number {
  const partition = backlog.partitions.find(
    (candidate) => candidate.topic === handled.topic && candidate.partition === handled.partition,
  );
  if (partition === undefined) return handled.lagMs;
  return partition.pending === 0 ? 0 : Math.max(0, backlog.measuredAt - handled.recordTimestamp);
}

function lagOf(record: LogRecord, now: number): number {
  return Math.max(0, now - record.timestamp);
}
