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
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly onError: ((error: unknown, attempt: number, context: SqliteMessageLogErrorContext) => void) | undefined;
}

/** What one subscription consumes, and how. */
export interface SqliteSubscriptionSettings {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handleBatch: BatchHandler;
  readonly maxBatchSize: number;
}

interface Batch {
  readonly position: PartitionPosition;
  readonly records: readonly LogRecord[];
}

/** One subscription's delivery loop. Never rejects: every failure is reported to `onError` and retried. */
export class SqliteSubscription implements Subscription {
  readonly groupId: string;
  readonly topics: readonly string[];
  private stopping = false;
  /** Ends the current pause early; `wakeOnPublish` says whether a publish may end it (a retry backoff may not). */
  private pause: { readonly finish: () => void; readonly wakeOnPublish: boolean } | undefined;
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
    if (!this.stopping) {
      this.stopping = true;
      this.pause?.finish();
      this.onStopped(this);
    }
    return this.done;
  }

  /**
   * Called after a publish through the same instance committed. Only an idle pause needs ending: a busy loop reads
   * again after its current batch anyway, and reads are synchronous, so no publish can slip between a read that found
   * nothing and the pause that follows it.
   */
  notify(topics: ReadonlySet<string>): void {
    if (this.pause?.wakeOnPublish && this.topics.some((topic) => topics.has(topic))) this.pause.finish();
  }

  private async run(): Promise<void> {
    let readFailures = 0;
    while (!this.isStopping()) {
      let batch: Batch | undefined;
      try {
        batch = this.nextBatch();
        readFailures = 0;
      } catch (error) {
        readFailures += 1;
        this.report(error, readFailures, {});
        await this.sleep(this.backoff(readFailures), false);
        continue;
      }
      if (batch === undefined) {
        await this.sleep(this.delivery.pollIntervalMs, true);
        continue;
      }
      await this.deliver(batch);
      // Handlers that resolve without real I/O would otherwise keep this loop in microtasks and starve timers and
      // sockets while a backlog drains.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Delivers one batch until its handler succeeds and the position is committed, or the subscription stops. */
  private async deliver(batch: Batch): Promise<void> {
    const { position, records } = batch;
    const first = records[0];
    const last = records[records.length - 1];
    if (first === undefined || last === undefined) return;
    for (let attempt = 1; ; attempt += 1) {
      try {
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
        return;
      } catch (error) {
        this.report(error, attempt, { topic: position.topic, partition: position.partition });
        // A stopping subscription leaves the batch uncommitted: the group gets it again from its first record.
        if (this.isStopping()) return;
        await this.sleep(this.backoff(attempt), false);
        if (this.isStopping()) return;
      }
    }
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

  /** A method rather than a field read, because stop() flips the flag while this loop awaits. */
  private isStopping(): boolean {
    return this.stopping;
  }

  private sleep(ms: number, wakeOnPublish: boolean): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.pause = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.pause = { finish, wakeOnPublish };
    });
  }

  private backoff(attempt: number): number {
    return Math.min(this.delivery.retryMaxDelayMs, this.delivery.retryInitialDelayMs * 2 ** Math.min(attempt - 1, 30));
  }

  private report(error: unknown, attempt: number, where: { topic?: string; partition?: number }): void {
    try {
      this.delivery.onError?.(error, attempt, { groupId: this.groupId, ...where });
    } catch {
      // A faulty error callback must not stop delivery; the batch is retried either way.
    }
  }
}
