import Database from 'better-sqlite3';

import type {
  BatchHandler,
  LogRecord,
  MessageLog,
  OutgoingRecord,
  SubscribeOptions,
  Subscription,
} from './message-log';

/** Options of {@link SqliteMessageLog}. */
export interface SqliteMessageLogOptions {
  /**
   * Database file. Processes that open the same file share one log. `':memory:'` gives a log private to this instance
   * that vanishes on close (for unit tests of other code; it cannot be reopened).
   */
  readonly path: string;
  /** Clock for record timestamps, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
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

/** Where a failed delivery attempt happened (see {@link SqliteMessageLogOptions.onError}). */
export interface SqliteMessageLogErrorContext {
  readonly groupId: string;
  /** The batch's topic and partition; absent when the failure happened while looking for a batch. */
  readonly topic?: string;
  readonly partition?: number;
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
  private readonly now: () => number;
  private readonly partitions: number;
  private readonly delivery: DeliverySettings;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private closing: Promise<void> | undefined;
  private closed = false;

  constructor(options: SqliteMessageLogOptions) {
    this.now = options.now ?? Date.now;
    this.partitions = positiveInteger(options.partitions ?? 1, 'partitions');
    this.delivery = {
      pollIntervalMs: positiveInteger(options.pollIntervalMs ?? 200, 'pollIntervalMs'),
      retryInitialDelayMs: positiveInteger(options.retryInitialDelayMs ?? 50, 'retryInitialDelayMs'),
      retryMaxDelayMs: positiveInteger(options.retryMaxDelayMs ?? 5000, 'retryMaxDelayMs'),
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
      const topics = this.tables.append(records, this.now(), this.partitions);
      for (const subscription of this.subscriptions) subscription.notify(topics);
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
      const positions = this.tables.resolvePositions(
        options.groupId,
        topics,
        options.fromBeginning ?? true,
        this.partitions,
        this.now(),
      );
      const subscription = new SqliteSubscription(
        this.tables,
        this.delivery,
        { groupId: options.groupId, topics, handleBatch: options.handleBatch, maxBatchSize },
        positions,
        (stopped) => this.subscriptions.delete(stopped),
      );
      this.subscriptions.add(subscription);
      return subscription;
    });
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

interface DeliverySettings {
  readonly pollIntervalMs: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly onError: SqliteMessageLogOptions['onError'];
}

interface SubscriptionSettings {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handleBatch: BatchHandler;
  readonly maxBatchSize: number;
}

/** A group's position in one partition: the offset of the next record to deliver. */
interface PartitionPosition {
  readonly topic: string;
  readonly partition: number;
  nextOffset: number;
}

interface Batch {
  readonly position: PartitionPosition;
  readonly records: readonly LogRecord[];
}

/** One subscription's delivery loop. Never rejects: every failure is reported to `onError` and retried. */
class SqliteSubscription implements Subscription {
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
    private readonly delivery: DeliverySettings,
    private readonly settings: SubscriptionSettings,
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

interface RecordRow {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: string;
  readonly timestamp: number;
}

/** Every SQL statement of the log, over one connection. Every method is synchronous and its transaction short. */
class LogTables {
  private readonly db: Database.Database;
  /** Partition counts never change once stored, so they can be remembered. */
  private readonly partitionCounts = new Map<string, number>();
  private readonly statements;
  private readonly appendTransaction;
  private readonly resolveTransaction;

  constructor(path: string, settings: { busyTimeoutMs: number; synchronous: 'NORMAL' | 'FULL' }) {
    const db = new Database(path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${settings.synchronous}`);
      db.pragma(`busy_timeout = ${nonNegativeInteger(settings.busyTimeoutMs, 'busyTimeoutMs')}`);
      db.exec(`
        CREATE TABLE IF NOT EXISTS log_topic (
          topic TEXT PRIMARY KEY,
          partitions INTEGER NOT NULL,
          created_at INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS log_record (
          topic TEXT NOT NULL,
          "partition" INTEGER NOT NULL,
          "offset" INTEGER NOT NULL,
          key TEXT NOT NULL,
          value BLOB NOT NULL,
          headers TEXT NOT NULL,
          timestamp INTEGER NOT NULL,
          UNIQUE (topic, "partition", "offset")
        );
        CREATE TABLE IF NOT EXISTS log_group_position (
          group_id TEXT NOT NULL,
          topic TEXT NOT NULL,
          "partition" INTEGER NOT NULL,
          next_offset INTEGER NOT NULL,
          PRIMARY KEY (group_id, topic, "partition")
        ) WITHOUT ROWID;
      `);
    } catch (error) {
      db.close();
      throw error;
    }
    this.db = db;
    this.statements = {
      selectPartitions: db.prepare<[string], { partitions: number }>(
        'SELECT partitions FROM log_topic WHERE topic = ?',
      ),
      insertTopic: db.prepare<[string, number, number]>(
        'INSERT OR IGNORE INTO log_topic (topic, partitions, created_at) VALUES (?, ?, ?)',
      ),
      selectEnd: db.prepare<[string, number], { end: number }>(
        'SELECT COALESCE(MAX("offset") + 1, 0) AS "end" FROM log_record WHERE topic = ? AND "partition" = ?',
      ),
      insertRecord: db.prepare<[string, number, number, string, Buffer, string, number]>(
        'INSERT INTO log_record (topic, "partition", "offset", key, value, headers, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      selectBatch: db.prepare<[string, number, number, number], RecordRow>(
        `SELECT topic, "partition" AS "partition", "offset" AS "offset", key, value, headers, timestamp
         FROM log_record WHERE topic = ? AND "partition" = ? AND "offset" >= ? ORDER BY "offset" LIMIT ?`,
      ),
      selectPosition: db.prepare<[string, string, number], { nextOffset: number }>(
        'SELECT next_offset AS nextOffset FROM log_group_position WHERE group_id = ? AND topic = ? AND "partition" = ?',
      ),
      insertPosition: db.prepare<[string, string, number, number]>(
        'INSERT OR IGNORE INTO log_group_position (group_id, topic, "partition", next_offset) VALUES (?, ?, ?, ?)',
      ),
      updatePosition: db.prepare<[number, string, string, number, number]>(
        `UPDATE log_group_position SET next_offset = ?
         WHERE group_id = ? AND topic = ? AND "partition" = ? AND next_offset = ?`,
      ),
    };

    this.appendTransaction = db.transaction(
      (records: readonly OutgoingRecord[], timestamp: number, defaultPartitions: number): Set<string> => {
        const topics = new Set<string>();
        // Offsets handed out in this transaction, so that several records of one partition get consecutive offsets.
        const ends = new Map<string, number>();
        for (const record of records) {
          if (record.topic === '') throw new Error('publish: topic must not be empty');
          const partitions = this.ensureTopic(record.topic, defaultPartitions, timestamp);
          const partition = partitionForKey(record.key, partitions);
          const slot = `${partition}:${record.topic}`;
          const offset = ends.get(slot) ?? this.endOffset(record.topic, partition);
          ends.set(slot, offset + 1);
          this.statements.insertRecord.run(
            record.topic,
            partition,
            offset,
            record.key,
            record.value,
            JSON.stringify(record.headers ?? {}),
            timestamp,
          );
          topics.add(record.topic);
        }
        return topics;
      },
    );

    this.resolveTransaction = db.transaction(
      (
        groupId: string,
        topics: readonly string[],
        fromBeginning: boolean,
        defaultPartitions: number,
        now: number,
      ): PartitionPosition[] => {
        const positions: PartitionPosition[] = [];
        for (const topic of topics) {
          // Subscribing creates the topic, as Kafka's auto-creation does, so its partitions are known from now on.
          const partitions = this.ensureTopic(topic, defaultPartitions, now);
          for (let partition = 0; partition < partitions; partition += 1) {
            // A position is stored at once, even when nothing was consumed yet: with fromBeginning false, records
            // published after subscribe() resolved must still be delivered after a restart.
            const start = fromBeginning ? 0 : this.endOffset(topic, partition);
            this.statements.insertPosition.run(groupId, topic, partition, start);
            positions.push({ topic, partition, nextOffset: this.readPosition(groupId, topic, partition) });
          }
        }
        return positions;
      },
    );
  }

  /** Appends records in one write transaction; returns the topics written. */
  append(records: readonly OutgoingRecord[], timestamp: number, defaultPartitions: number): Set<string> {
    return this.appendTransaction.immediate(records, timestamp, defaultPartitions);
  }

  /** Creates missing topics and missing group positions; returns the group's position in every partition. */
  resolvePositions(
    groupId: string,
    topics: readonly string[],
    fromBeginning: boolean,
    defaultPartitions: number,
    now: number,
  ): PartitionPosition[] {
    return this.resolveTransaction.immediate(groupId, topics, fromBeginning, defaultPartitions, now);
  }

  readBatch(topic: string, partition: number, fromOffset: number, limit: number): LogRecord[] {
    return this.statements.selectBatch.all(topic, partition, fromOffset, limit).map((row) => ({
      topic: row.topic,
      partition: row.partition,
      offset: String(row.offset),
      key: row.key,
      value: row.value,
      headers: JSON.parse(row.headers) as Record<string, string>,
      timestamp: row.timestamp,
    }));
  }

  readPosition(groupId: string, topic: string, partition: number): number {
    const row = this.statements.selectPosition.get(groupId, topic, partition);
    if (row === undefined) throw new Error(`No position of group ${groupId} in ${topic}/${partition}`);
    return row.nextOffset;
  }

  /**
   * Moves a group's position from `from` to `to`, only if it is still at `from` (compare-and-set, so that an
   * uncoordinated member in another process can never move it backwards). Returns whether it moved.
   */
  commitPosition(groupId: string, topic: string, partition: number, from: number, to: number): boolean {
    return this.statements.updatePosition.run(to, groupId, topic, partition, from).changes === 1;
  }

  close(): void {
    this.db.close();
  }

  private ensureTopic(topic: string, defaultPartitions: number, now: number): number {
    const known = this.partitionCounts.get(topic);
    if (known !== undefined) return known;
    this.statements.insertTopic.run(topic, defaultPartitions, now);
    const row = this.statements.selectPartitions.get(topic);
    if (row === undefined) throw new Error(`Topic ${topic} could not be created`);
    this.partitionCounts.set(topic, row.partitions);
    return row.partitions;
  }

  private endOffset(topic: string, partition: number): number {
    return this.statements.selectEnd.get(topic, partition)?.end ?? 0;
  }
}

/**
 * Stable key → partition mapping (32-bit FNV-1a over the key's UTF-8 bytes). It must never change: records already
 * stored under one partition would lose their order relative to new ones.
 */
function partitionForKey(key: string, partitions: number): number {
  if (partitions === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash = Math.imul(hash ^ byte, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return value;
}

/** Runs synchronous database work as a promise, so that a failure rejects instead of throwing at the caller. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(work());
  });
}
