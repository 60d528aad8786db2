import { retry, RetryAbortedError, type Backoff, type Scheduler } from '@strata/timing';
import type { BatchHandler, LogRecord, Subscription } from './message-log';
import type { LogTables, PartitionPosition } from './sqlite-log-tables';

/** Where a failed delivery attempt happened (see `SqliteMessageLogOptions.onError`). */
export interface SqliteMessageLogErrorContext {
  readonly groupId: string;
  /** The batch's topic and partition; absent when the failure happened while looking for a batch. */
  readonly topic?: string;
  readonly partition?: number;
}

/** Polling and redelivery policy, shared by the subscriptions of one log. */
export interface SqliteDeliverySettings {
  readonly pollIntervalMs: number;
  /** The wait before a batch is delivered again after a failure (and before a failed read is tried again). */
  readonly backoff: Backoff;
  readonly scheduler: Scheduler;
  readonly onError: ((error: unknown, attempt: number, context: SqliteMessageLogErrorContext) => void) | undefined;
}

/** What one subscription consumes, and how. */
export interface SqliteSubscriptionSettings {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handleBatch: BatchHandler;
  readonly maxBatchSize: number;
  /** How long to let records accumulate after a wake-up, and after a batch that was not full. */
  readonly lingerMs: number;
}

interface Batch {
  readonly position: PartitionPosition;
  readonly records: readonly LogRecord[];
}

/** One subscription's delivery loop. Never rejects: every failure is reported to `onError` and retried. */
export class SqliteSubscription implements Subscription {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Aborted by stop(): ends any wait at once. */
  private readonly stopping = new AbortController();
  /** Ends the current idle wait early when a publish through this instance brings records (a backoff is not ended). */
  private idle: AbortController | undefined;
  /** Round-robin cursor, so that a busy partition cannot starve the others. */
  private nextPartitionIndex = 0;
  private readonly done: Promise<void>;

  constructor(
    private readonly tables: LogTables,
    private readonly delivery: SqliteDeliverySettings,
    private readonly settings: SqliteSubscriptionSettings,
    private readonly positions: readonly PartitionPosition[],
    private readonly onStopped: (subscription: SqliteSubscription) => void,
  ) {
    this.groupId = settings.groupId;
    this.topics = settings.topics;
    this.done = this.run();
  }

  stop(): Promise<void> {
    if (!this.stopping.signal.aborted) {
      this.stopping.abort();
      this.onStopped(this);
    }
    return this.done;
  }

  /**
   * Called after a publish through the same instance committed. Only an idle wait needs ending: a busy loop reads
   * again after its current batch anyway, and reads are synchronous, so no publish can slip between a read that found
   * nothing and the wait that follows it.
   */
  notify(topics: ReadonlySet<string>): void {
    if (this.idle !== undefined && this.topics.some((topic) => topics.has(topic))) this.idle.abort();
  }

  private async run(): Promise<void> {
    while (!this.isStopping()) {
      // Armed before reading, so that a publish between a read that finds nothing and the wait still ends the wait.
      const idle = new AbortController();
      this.idle = idle;
      let batch: Batch | undefined;
      try {
        batch = await this.retrying(() => Promise.resolve(this.nextBatch()), {});
      } catch {
        return; // stopped while the database refused reads
      }
      if (batch === undefined) {
        await this.delivery.scheduler.sleep(
          this.delivery.pollIntervalMs,
          AbortSignal.any([this.stopping.signal, idle.signal]),
        );
        // Woken by a publish in this process: let the loop take its pending I/O (other requests) before this batch,
        // which would otherwise run right after the publisher's own work, in the same turn — or, for a consumer that
        // lingers, let the records accumulate.
        await this.linger();
        continue;
      }
      this.idle = undefined;
      await this.deliver(batch);
      if (batch.records.length < this.settings.maxBatchSize && this.settings.lingerMs > 0) await this.linger();
      // Handlers that resolve without real I/O would otherwise keep this loop in microtasks and starve timers and
      // sockets while a backlog drains.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private async linger(): Promise<void> {
    if (this.settings.lingerMs > 0) await this.delivery.scheduler.sleep(this.settings.lingerMs, this.stopping.signal);
    else await nextLoopTurn();
  }

  /** Delivers one batch until its handler succeeds and the position is committed, or the subscription stops. */
  private async deliver(batch: Batch): Promise<void> {
    const { position, records } = batch;
    const first = records[0];
    const last = records[records.length - 1];
    if (first === undefined || last === undefined) return;
    try {
      await this.retrying(
        async () => {
          // A fresh array per attempt: what a handler does to its argument cannot change the redelivered batch.
          await this.settings.handleBatch([...records]);
          const committed = this.tables.commitPosition(
            this.groupId,
            position.topic,
            position.partition,
            Number(first.offset),
            Number(last.offset) + 1,
          );
          // Another process committed this partition meanwhile: continue from wherever it got to.
          position.nextOffset = committed
            ? Number(last.offset) + 1
            : this.tables.readPosition(this.groupId, position.topic, position.partition);
        },
        { topic: position.topic, partition: position.partition },
      );
    } catch {
      // Stopped: the batch stays uncommitted, and the group gets it again from its first record.
    }
  }

  /** Runs `operation` until it succeeds, backing off after each failure; rejects only once the subscription stops. */
  private retrying<T>(operation: () => Promise<T>, where: { topic?: string; partition?: number }): Promise<T> {
    return retry(operation, {
      scheduler: this.delivery.scheduler,
      backoff: this.delivery.backoff,
      signal: this.stopping.signal,
      // A stopping subscription makes no further attempt, even if it stopped while the handler ran.
      retryable: () => !this.isStopping(),
      onFailure: (error, attempt) => {
        this.report(error, attempt, where);
      },
    }).catch((error: unknown) => {
      throw error instanceof RetryAbortedError ? error : new RetryAbortedError({ cause: error });
    });
  }

  private nextBatch(): Batch | undefined {
    const count = this.positions.length;
    for (let step = 0; step < count; step += 1) {
      const index = (this.nextPartitionIndex + step) % count;
      const position = this.positions[index];
      if (position === undefined) continue;
      const records = this.tables.readBatch(
        position.topic,
        position.partition,
        position.nextOffset,
        this.settings.maxBatchSize,
      );
      if (records.length > 0) {
        this.nextPartitionIndex = (index + 1) % count;
        return { position, records };
      }
    }
    return undefined;
  }

  /** A method rather than a field read, because stop() changes it while this loop awaits. */
  private isStopping(): boolean {
    return this.stopping.signal.aborted;
  }

  private report(error: unknown, attempt: number, where: { topic?: string; partition?: number }): void {
    try {
      this.delivery.onError?.(error, attempt, { groupId: this.groupId, ...where });
    } catch {
      // A faulty error callback must not stop delivery; the batch is retried either way.
    }
  }
}

/**
 * Resolves after the event loop has been through its I/O phase once: a first immediate runs in the current check
 * phase, the second only after the next poll phase.
 */
async function nextLoopTurn(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}
