import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LogRecord } from '@strata/log';

/** One partition's position in the indexer's input. */
export interface PartitionProgress {
  readonly topic: string;
  readonly partition: number;
  /** Offset of the last record applied. */
  readonly offset: string;
  /** Append time of that record, epoch milliseconds. */
  readonly recordTimestamp: number;
  /** When it was applied, epoch milliseconds. */
  readonly appliedAt: number;
  /** appliedAt − recordTimestamp: how far behind the log the index was at that moment. */
  readonly lagMs: number;
}

export interface ProgressReport {
  readonly indexer: string;
  /** Change logs applied since the service started. */
  readonly recordsApplied: number;
  /** Lag (append → applied) of the most recent records applied, up to {@link RECENT_LAGS}; absent before any. */
  readonly recentLagMs?: {
    readonly records: number;
    readonly p50: number;
    readonly p95: number;
    readonly p99: number;
    readonly max: number;
  };
  readonly partitions: readonly PartitionProgress[];
}

/** How many of the most recent lags the report's percentiles cover. */
export const RECENT_LAGS = 10_000;

/**
 * The indexer's progress: per input partition, the last applied position and its lag behind the log, reported at
 * `GET /openapi/operations/indices/progress` and as Prometheus metrics (`strata_index_*`, label `indexer`):
 * records applied, lag of each applied record (histogram), and the last applied record's timestamp and lag per
 * partition.
 */
export class IndexProgress {
  readonly registry = new Registry();
  private readonly partitions = new Map<string, PartitionProgress>();
  private recordsApplied = 0;
  /** Ring buffer of the most recent lags, in milliseconds. */
  private readonly recentLags = new Float64Array(RECENT_LAGS);
  private readonly appliedCounter: Counter;
  private readonly lagHistogram: Histogram;
  private readonly lastTimestampGauge: Gauge;
  private readonly lastLagGauge: Gauge;

  constructor(private readonly indexer: string) {
    this.appliedCounter = new Counter({
      name: 'strata_index_records_applied_total',
      help: 'Change-log records applied to the read models.',
      labelNames: ['indexer'],
      registers: [this.registry],
    });
    this.lagHistogram = new Histogram({
      name: 'strata_index_lag_seconds',
      help: 'Time from a change log entering the log to its being applied to the read models.',
      labelNames: ['indexer'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.lastTimestampGauge = new Gauge({
      name: 'strata_index_last_record_timestamp_seconds',
      help: 'Append time of the last change log applied, per input partition.',
      labelNames: ['indexer', 'topic', 'partition'],
      registers: [this.registry],
    });
    this.lastLagGauge = new Gauge({
      name: 'strata_index_last_lag_seconds',
      help: 'Lag of the last change log applied, per input partition.',
      labelNames: ['indexer', 'topic', 'partition'],
      registers: [this.registry],
    });
  }

  /** Records a batch (records of one partition, in order) as applied at `now`. */
  applied(records: readonly LogRecord[], now: number): void {
    const last = records[records.length - 1];
    if (last === undefined) return;
    for (const record of records) {
      const lag = lagMs(record, now);
      this.lagHistogram.observe({ indexer: this.indexer }, lag / 1000);
      this.recentLags[this.recordsApplied % RECENT_LAGS] = lag;
      this.recordsApplied += 1;
    }
    this.appliedCounter.inc({ indexer: this.indexer }, records.length);
    const progress: PartitionProgress = {
      topic: last.topic,
      partition: last.partition,
      offset: last.offset,
      recordTimestamp: last.timestamp,
      appliedAt: now,
      lagMs: Math.max(0, now - last.timestamp),
    };
    this.partitions.set(`${last.topic}/${last.partition}`, progress);
    const labels = { indexer: this.indexer, topic: last.topic, partition: String(last.partition) };
    this.lastTimestampGauge.set(labels, last.timestamp / 1000);
    this.lastLagGauge.set(labels, progress.lagMs / 1000);
  }

  report(): ProgressReport {
    const count = Math.min(this.recordsApplied, RECENT_LAGS);
    const lags = this.recentLags.slice(0, count).sort();
    const at = (quantile: number) => lags[Math.min(count - 1, Math.ceil(quantile * count) - 1)] ?? 0;
    return {
      indexer: this.indexer,
      recordsApplied: this.recordsApplied,
      ...(count === 0
        ? {}
        : { recentLagMs: { records: count, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: lags[count - 1] ?? 0 } }),
      partitions: [...this.partitions.values()].sort(
        (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition,
      ),
    };
  }
}

function lagMs(record: LogRecord, now: number): number {
  return Math.max(0, now - record.timestamp);
}
