import { systemScheduler, type Scheduler } from '@strata/timing';
import type {
  GroupPosition,
  MessageLog,
  OutgoingRecord,
  SubscribeOptions,
  Subscription,
  TopicRead,
  TopicReadResult,
} from './message-log';
import { createHash } from 'node:crypto';
import { FileLockedError, lockFile, type FileLock } from '@strata/sqlite';
import { LogTables } from './sqlite-log-tables';
import {
  SqliteSubscription,
  type SqliteDeliverySettings,
  type SqliteMessageLogErrorContext,
} from './sqlite-subscription';

export type { SqliteMessageLogErrorContext } from './sqlite-subscription';

/** Options of {@link SqliteMessageLog}. */
export interface SqliteMessageLogOptions {
  /**
   * Database file. Processes that open the same file share one log. `':memory:'` gives a log private to this instance
   * that vanishes on close (for unit tests of other code; it cannot be reopened).
   */
  readonly path: string;
  /** The clock (record timestamps) and the timers (polling, redelivery backoff). Default: the real ones. */
  readonly scheduler?: Scheduler;
  /**
   * How often an idle subscription looks for records appended by another process or another instance on the same
   * file, in milliseconds. Publishes through this instance wake its subscriptions at once. Default 200.
   */
  readonly pollIntervalMs?: number;
  /**
   * Partition count given to a topic when this instance is the first to use it (publish or subscribe). The count is
   * stored with the topic and never changes afterwards, because moving keys between partitions would break their order.
   * Default 1.
   */
  readonly partitions?: number;
  /** First redelivery delay after a handler threw, in milliseconds; doubles on each further failure. Default 50. */
  readonly retryInitialDelayMs?: number;
  /** Upper bound of the redelivery delay, in milliseconds. Default 5000. */
  readonly retryMaxDelayMs?: number;
  /**
   * Told about every failed delivery attempt (a handler that threw, or the database refusing a read or a commit).
   * The adapter logs nothing itself; the batch is retried after a backoff whatever this callback does.
   */
  readonly onError?: (error: unknown, attempt: number, context: SqliteMessageLogErrorContext) => void;
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * SQLite `synchronous` setting. `NORMAL` (the default) survives a crash of any process; only a power loss or an OS
   * crash can lose the last commits. `FULL` also survives those, at the price of an fsync per publish and commit.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
}

/**
 * The embedded message log: one SQLite file (WAL) holding topics, records and consumer-group positions.
 *
 * - Records are appended per (topic, partition) with dense offsets from 0; a key always maps to the same partition
 *   (stable hash), so the order per key holds. One `publish` call is one transaction.
 * - A subscription reads one partition's batch, awaits its handler, then commits the group's position in the same
 *   database. A throwing handler gets the same batch again after an exponential backoff; nothing is committed.
 * - Group membership: within one instance a group may have several subscriptions only if their topics are disjoint
 *   (a second subscription of a group to a topic it already consumes is rejected), so each (group, partition) has
 *   one reader per instance. Instances in other processes are not coordinated: each reads every partition, so a
 *   record may reach two of them, but positions are committed compare-and-set, so they never move backwards and no
 *   record is skipped (at-least-once still holds). Give each process its own group, or use Kafka, to share work.
 * - Partitions of one subscription are served one batch at a time, round-robin; a handler never runs twice at once.
 */
export class SqliteMessageLog implements MessageLog {
  private readonly tables: LogTables;
  private readonly path: string;
  private readonly scheduler: Scheduler;
  private readonly partitions: number;
  private readonly delivery: SqliteDeliverySettings;
  private readonly subscriptions = new Set<SqliteSubscription>();
  /** Reads waiting for records, woken by this instance's publishes to their topic. */
  private readonly readers = new Set<{ readonly topic: string; readonly wake: () => void }>();
  private closing: Promise<void> | undefined;
  private closed = false;

  constructor(options: SqliteMessageLogOptions) {
    this.scheduler = options.scheduler ?? systemScheduler;
    this.path = options.path;
    this.partitions = positiveInteger(options.partitions ?? 1, 'partitions');
    this.delivery = {
      pollIntervalMs: positiveInteger(options.pollIntervalMs ?? 200, 'pollIntervalMs'),
      backoff: {
        initialMs: positiveInteger(options.retryInitialDelayMs ?? 50, 'retryInitialDelayMs'),
        maxMs: positiveInteger(options.retryMaxDelayMs ?? 5000, 'retryMaxDelayMs'),
      },
      scheduler: this.scheduler,
      onError: options.onError,
    };
    this.tables = new LogTables(options.path, {
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      synchronous: options.synchronous ?? 'NORMAL',
    });
  }

  publish(records: readonly OutgoingRecord[]): Promise<void> {
    return settle(() => {
      // Publishing stays possible while close() drains in-flight batches: their handlers may publish (e.g. the
      // writer's change logs), and failing them would only cause a redelivery.
      if (this.closed) throw new Error('SqliteMessageLog is closed');
      if (records.length === 0) return;
      const topics = this.tables.append(records, this.scheduler.now(), this.partitions);
      for (const subscription of this.subscriptions) subscription.notify(topics);
      for (const reader of this.readers) if (topics.has(reader.topic)) reader.wake();
    });
  }

  subscribe(options: SubscribeOptions): Promise<Subscription> {
    return settle(() => {
      if (this.closing !== undefined) throw new Error('SqliteMessageLog is closed');
      const topics = [...new Set(options.topics)];
      if (options.groupId === '') throw new Error('subscribe: groupId must not be empty');
      if (topics.length === 0) throw new Error('subscribe: at least one topic is required');
      const maxBatchSize = positiveInteger(options.maxBatchSize ?? 500, 'maxBatchSize');
      for (const active of this.subscriptions) {
        const shared = active.groupId === options.groupId && topics.find((topic) => active.topics.includes(topic));
        if (shared) {
          throw new Error(
            `Consumer group ${options.groupId} already has an active subscription to ${shared} in this SqliteMessageLog`,
          );
        }
      }
      const lock = options.exclusive === true ? this.claimGroup(options.groupId) : undefined;
      const positions = this.tables.resolvePositions(
        options.groupId,
        topics,
        options.fromBeginning ?? true,
        this.partitions,
        this.scheduler.now(),
      );
      const subscription = new SqliteSubscription(
        this.tables,
        this.delivery,
        {
          groupId: options.groupId,
          topics,
          handleBatch: options.handleBatch,
          maxBatchSize,
          lingerMs: Math.max(0, options.lingerMs ?? 0),
        },
        positions,
        (stopped) => {
          this.subscriptions.delete(stopped);
          lock?.release();
        },
      );
      this.subscriptions.add(subscription);
      return subscription;
    });
  }

  groupPositions(groupId: string, topics: readonly string[]): Promise<GroupPosition[]> {
    return settle(() => {
      if (this.closed) throw new Error('SqliteMessageLog is closed');
      return this.tables.groupPositions(groupId, topics);
    });
  }

  /**
   * Reads from positions resolved once, at the start; while there is nothing to answer, looks again when this instance
   * publishes to the topic, and every `pollIntervalMs` (for another process's appends), until `maxWaitMs`.
   */
  async readTopic(read: TopicRead, signal?: AbortSignal): Promise<TopicReadResult> {
    const limit = positiveInteger(read.limit, 'limit');
    if (!Number.isFinite(read.maxWaitMs) || read.maxWaitMs < 0) {
      throw new Error(`maxWaitMs must be 0 or more, got ${read.maxWaitMs}`);
    }
    const deadline = this.scheduler.now() + read.maxWaitMs;
    const starts = await settle(() => {
      if (this.closed) throw new Error('SqliteMessageLog is closed');
      return this.tables.readStarts(read.topic, read.from);
    });
    for (;;) {
      const result = await settle(() => {
        if (this.closed) throw new Error('SqliteMessageLog is closed');
        return this.tables.readFrom(read.topic, starts, limit);
      });
      const remaining = deadline - this.scheduler.now();
      if (result.records.length > 0 || remaining <= 0 || signal?.aborted === true || this.closing !== undefined) {
        return {
          records: result.records,
          next: [...result.next].map(([partition, offset]) => ({ partition, offset: String(offset) })),
        };
      }
      await this.awaitRecords(read.topic, Math.min(remaining, this.delivery.pollIntervalMs), signal);
    }
  }

  /** Resolves when this instance publishes to `topic`, after `ms`, or when `signal` aborts, whichever comes first. */
  private async awaitRecords(topic: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    const stop = new AbortController();
    const onAbort = () => {
      stop.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const reader = { topic, wake: onAbort };
    this.readers.add(reader);
    try {
      await this.scheduler.sleep(ms, stop.signal);
    } finally {
      this.readers.delete(reader);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * For an exclusive subscription: takes a lock beside the log file, named after the group, that no other process on
   * this file can hold at the same time (within this instance, the active-subscription check above already refuses).
   */
  private claimGroup(groupId: string): FileLock | undefined {
    if (this.path === ':memory:') return undefined;
    const digest = createHash('sha256').update(groupId).digest('hex').slice(0, 16);
    try {
      return lockFile(`${this.path}.group-${digest}.lock`);
    } catch (error) {
      if (!(error instanceof FileLockedError)) throw error;
      throw new Error(
        `Consumer group ${groupId} already has a member in another process on ${this.path}; an exclusive subscription must be its group's only member`,
      );
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
      this.closed = true;
      this.tables.close();
    })();
    return this.closing;
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** Runs synchronous database work as a promise, so that a failure rejects instead of throwing at the caller. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(work());
  });
}
