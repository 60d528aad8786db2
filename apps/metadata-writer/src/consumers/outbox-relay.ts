import type { MessageLog } from '@strata/log';
import type { AspectStore, LogEnd, PendingOutboxRecord } from '@strata/store';
import { backoffDelay, systemScheduler, type Backoff, type Scheduler } from '@strata/timing';

export interface OutboxRelayOptions {
  readonly store: AspectStore;
  readonly log: MessageLog;
  /** Records published per round trip. Default 500. */
  readonly batchSize?: number;
  /** The wait before retrying after the log refused a publish. Default 200 ms, doubling up to 30 s. */
  readonly backoff?: Backoff;
  /** The timers the retries wait on. Default: the real ones. */
  readonly scheduler?: Scheduler;
  /** Told of every failed publish (the relay keeps retrying). */
  readonly onError: (error: unknown) => void;
  /**
   * Write traces' publications: after publishing, the relay measures where the versioned change log ends (`ends`,
   * every partition of the topic) and records it as a publication of every outbox record up to the last one published
   * (`AspectStore.recordPublication`): an upper bound on their positions, which an indexer's position must pass for a
   * trace to say its write is indexed. `onError` is told when that fails. Absent: not recorded.
   */
  readonly traces?: {
    ends(): Promise<readonly LogEnd[]>;
    onError(error: unknown): void;
    /**
     * The least time between two publication writes, milliseconds. Default {@link RECORD_PUBLICATIONS_EVERY_MS}:
     * each is a commit of its own (an fsync on the embedded store), which a busy writer must not pay per drain.
     */
    readonly recordEveryMs?: number;
  };
}

/** The least time between two writes of write traces' publications (see `OutboxRelayOptions.traces`). */
export const RECORD_PUBLICATIONS_EVERY_MS = 50;

/**
 * Publishes the store's outbox to the log: the second half of the transactional outbox. Records are published in commit
 * order and marked published only after the log has them, so a crash anywhere leaves them pending, never lost; at
 * worst a record is published twice (before it was marked), which consumers tolerate (at-least-once delivery).
 *
 * `flush()` calls coalesce: while a drain runs, further calls join it and it goes round once more, so every caller's
 * records are published when its promise resolves true. When the log fails, `flush()` resolves anyway, false (the
 * records are durable in the store), and the relay retries in the background with backoff until it succeeds or is
 * stopped.
 */
export class OutboxRelay {
  private running: Promise<boolean> | undefined;
  private again = false;
  /** Failed drains in a row: sets the next retry's wait. */
  private failures = 0;
  private retryScheduled = false;
  private readonly stopping = new AbortController();
  private readonly batchSize: number;
  private readonly backoff: Backoff;
  private readonly scheduler: Scheduler;
  /** The last outbox id published whose publication is still to be recorded (see `notePublished`). */
  private unrecordedThrough: string | undefined;
  /** When the last publication write started (the scheduler's clock). */
  private lastRecordedAt = Number.NEGATIVE_INFINITY;
  private recording: Promise<void> | undefined;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.backoff = options.backoff ?? { initialMs: 200, maxMs: 30_000 };
    this.scheduler = options.scheduler ?? systemScheduler;
  }

  /**
   * Publishes everything pending. Resolves true once every record committed before the call is on the log; false when
   * the log failed first (a retry is then scheduled) or the relay is stopped.
   */
  flush(): Promise<boolean> {
    if (this.stopping.signal.aborted) return Promise.resolve(false);
    this.again = true;
    this.running ??= this.drainUntilQuiet();
    return this.running;
  }

  /** Stops retrying and waits for a drain in progress. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.recording;
  }

  /**
   * Drains until no flush() arrived during the last round. The final check of `again` and the clearing of `running`
   * happen in one synchronous step, so a flush() either joins this drain before it ends or starts a new one.
   */
  private async drainUntilQuiet(): Promise<boolean> {
    try {
      while (this.rerunRequested()) {
        this.again = false;
        try {
          await this.drain();
          this.failures = 0;
        } catch (error) {
          this.options.onError(error);
          this.scheduleRetry();
          return false;
        }
      }
      return true;
    } finally {
      this.running = undefined;
    }
  }

  /** Whether a flush() arrived since the round began (read through a method: it changes while the drain awaits). */
  private rerunRequested(): boolean {
    return this.again;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const pending = await this.options.store.pendingOutbox(this.batchSize);
      if (pending.length === 0) return;
      await this.options.log.publish(pending.map(({ topic, key, value, headers }) => ({ topic, key, value, headers })));
      await this.options.store.markPublished(pending.map((record) => record.id));
      this.notePublished(pending);
      if (pending.length < this.batchSize) return;
    }
  }

  /**
   * Records, off the drain's path, where the log ends now, as the publication of every outbox record up to the last of
   * these: measured after they were published, so an upper bound on their positions. Every drain counts, traced or
   * not: a trace is covered once the whole commit that recorded it is published (its position is the commit's last
   * outbox id), and the tail of a commit may come in a later drain holding no traced record. Rounds coalesce: while one
   * measures and records, later drains only move the id the next round records, so a slow measurement (a Kafka offset
   * fetch) never holds a write's publication, and a round is one small write whatever it covers. Failing to measure or
   * record is reported; the traces it covered are then covered by the next round's publication (a looser bound), as
   * are those of a crash between a drain and its recording. Rounds are at least `recordEveryMs` apart: a trace learns
   * its publication that much later at most.
   */
  private notePublished(records: readonly PendingOutboxRecord[]): void {
    const traces = this.options.traces;
    const last = records[records.length - 1];
    if (traces === undefined || last === undefined) return;
    this.unrecordedThrough = last.id;
    this.recording ??= this.recordPublications(traces);
  }

  /** The publications recorded so far: resolves once every drain finished so far has its publication recorded. */
  async publicationsRecorded(): Promise<void> {
    await this.recording;
  }

  private async recordPublications(traces: NonNullable<OutboxRelayOptions['traces']>): Promise<void> {
    try {
      const every = traces.recordEveryMs ?? RECORD_PUBLICATIONS_EVERY_MS;
      while (this.unrecordedThrough !== undefined) {
        // Too soon after the last write: the drains meanwhile wait, and are recorded together. Stopping wakes the wait.
        const wait = this.lastRecordedAt + every - this.scheduler.now();
        if (wait > 0 && !this.stopping.signal.aborted) await this.scheduler.sleep(wait, this.stopping.signal);
        const through = this.unrecordedThrough;
        this.unrecordedThrough = undefined;
        this.lastRecordedAt = this.scheduler.now();
        try {
          await this.options.store.recordPublication(through, await traces.ends());
        } catch (error) {
          traces.onError(error);
        }
      }
    } finally {
      // In the same step as the last check: a later notePublished either joined this round or starts another.
      this.recording = undefined;
    }
  }

  private scheduleRetry(): void {
    if (this.stopping.signal.aborted || this.retryScheduled) return;
    this.retryScheduled = true;
    this.failures += 1;
    void this.scheduler.sleep(backoffDelay(this.backoff, this.failures), this.stopping.signal).then(() => {
      this.retryScheduled = false;
      return this.flush();
    });
  }
}
