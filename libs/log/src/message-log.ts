/**
 * The message log that joins Strata's services: an append-only, partitioned, replayable log with consumer groups.
 *
 * Invariants every adapter guarantees (and `describeMessageLogContract` checks):
 * - **Durability.** `publish` resolves only once every record is durably appended; a record whose publish resolved is
 *   delivered to every consumer group subscribed to its topic, across process restarts.
 * - **Order per key.** Records with the same key on the same topic land in the same partition in publish order, and a
 *   consumer group sees them in that order, one batch at a time. Records of different keys may interleave.
 * - **At-least-once delivery.** A group's position advances past a batch only after its handler resolved. A handler
 *   that throws has the same batch (from its first record) redelivered after a backoff; a consumer that stops or
 *   crashes mid-batch has that batch redelivered to the group. Handlers must therefore be idempotent.
 * - **Independent groups.** Each group has its own committed position per partition; groups never affect each other.
 * - **Starting position.** A group with no committed position starts at the earliest record when `fromBeginning` is
 *   true (the default), otherwise at the end of the log as it is when the subscription starts.
 */
export interface MessageLog {
  /** Appends records; resolves when all are durable. Records of one call that share a key keep their order. */
  publish(records: readonly OutgoingRecord[]): Promise<void>;

  /**
   * Joins a consumer group and starts delivering batches to `handleBatch`. Resolves once the subscription is
   * active (positions resolved), so records published after it resolves are delivered even with `fromBeginning: false`.
   * Rejects, rather than retrying forever, when the log cannot be reached at start-up.
   */
  subscribe(options: SubscribeOptions): Promise<Subscription>;

  /** Stops every subscription (letting in-flight batches finish) and releases the adapter's resources. */
  close(): Promise<void>;

  /**
   * Where consumer group `groupId` stands in every partition of `topics`, beside the log's ends: what a consumer's
   * backlog is measured from. Reads positions only: it joins no group and moves nothing, so any process may ask about
   * any group, members of it or not. Ordered by topic, then partition; a topic the log does not have yet has no
   * partitions in the answer (and is not created by the question). Every adapter
   * implements it (the contract suite checks it); it is optional only so that test doubles of the log need not.
   */
  groupPositions?(groupId: string, topics: readonly string[]): Promise<GroupPosition[]>;

  /**
   * Reads one topic from positions the caller keeps, outside any consumer group: nothing is joined, committed or moved,
   * so any process may follow any topic this way, as often as it likes (the events API's pollers, each with offsets
   * of its own). Resolves as soon as there are records from those positions — at most `limit`, each partition's in
   * log order (how partitions interleave is the adapter's: the SQLite log merges them by append time, Kafka answers
   * what one fetch brought) — or with none once `maxWaitMs` passed (or `signal` aborted) without any; `next` says
   * where to continue, so that reading on from it answers every record once. Never creates the topic: one the log
   * does not have yet reads as empty, with no partitions. Every adapter implements it (the contract suite checks it);
   * it is optional only so that test doubles of the log need not.
   */
  readTopic?(read: TopicRead, signal?: AbortSignal): Promise<TopicReadResult>;
}

/** What {@link MessageLog.readTopic} reads. */
export interface TopicRead {
  readonly topic: string;
  /**
   * Where each partition starts: `end`, the records appended from now on; `time`, the first record appended at or
   * after `timestamp` (epoch milliseconds), else the end; `offsets`, the offset of the next record to read, per
   * partition (a partition not named starts at its earliest record, so that none appended since the caller last
   * looked is missed). An offset before a partition's earliest record starts there; one past its end, at the end.
   */
  readonly from:
    | { readonly kind: 'end' }
    | { readonly kind: 'time'; readonly timestamp: number }
    | { readonly kind: 'offsets'; readonly offsets: ReadonlyMap<number, string> };
  /** Most records answered, at least 1. */
  readonly limit: number;
  /** How long to wait for a first record when there is none yet, in milliseconds; 0 answers at once. */
  readonly maxWaitMs: number;
}

/** What {@link MessageLog.readTopic} answers. */
export interface TopicReadResult {
  readonly records: readonly LogRecord[];
  /**
   * Every partition of the topic, in partition order, with the offset a next read continues from: one past the last
   * record answered, or where this read started in it.
   */
  readonly next: readonly { readonly partition: number; readonly offset: string }[];
}

/**
 * A consumer group's position in one partition, beside the partition's ends, as decimal strings (Kafka offsets exceed
 * 2^53). The records the group has yet to handle are those from `committed` (or `start`, when it has none) up to
 * `end`. The group's position is read before the ends (which only grow), so it is never reported past them.
 */
export interface GroupPosition {
  readonly topic: string;
  readonly partition: number;
  /** Offset of the earliest record the partition still holds: where a group without a position starts reading. */
  readonly start: string;
  /** Offset the next record appended to the partition will get: one past the last record (Kafka's high watermark). */
  readonly end: string;
  /**
   * Offset of the next record the group will be given: the position committed once its handler resolved the batch
   * before it. Undefined when the group has committed none in this partition.
   */
  readonly committed: string | undefined;
}

/** A record to append. The key decides the partition: every change to one entity is keyed by its URN. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A record as delivered to a consumer. */
export interface LogRecord {
  readonly topic: string;
  readonly partition: number;
  /** Position within the partition, as a decimal string (Kafka offsets exceed 2^53). */
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  /** Append time, epoch milliseconds. */
  readonly timestamp: number;
}

/** Handles one batch: records of one partition, in log order. Resolve only after the batch's effects are durable. */
export type BatchHandler = (records: readonly LogRecord[]) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group id. Groups share work across members and keep their own positions. */
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handleBatch: BatchHandler;
  /** Where a group without a committed position starts. Default true (the earliest record). */
  readonly fromBeginning?: boolean;
  /** Upper bound on records per batch. Default 500. */
  readonly maxBatchSize?: number;
  /**
   * For a consumer nobody waits for (an audit trail): how long it may let records accumulate before handling a batch
   * that is not full, so that it handles fewer, larger batches. A hint: the SQLite adapter waits that long after being
   * woken and after a batch that was not full; Kafka's fetches accumulate by their own settings
   * (`KAFKA_FETCH_MAX_WAIT_MS`). Default 0: deliver as soon as records are there.
   */
  readonly lingerMs?: number;
  /**
   * The subscription must be its group's only member, for a consumer whose instances must each see every record (a
   * gateway reading the outcomes of its own requests): `subscribe` rejects, naming the group, when another member
   * holds it — in this instance, another process on the same SQLite file, or elsewhere on the Kafka cluster. Default
   * false.
   */
  readonly exclusive?: boolean;
}

export interface Subscription {
  /** Stops delivering; resolves after the in-flight batch (if any) finished and its position was committed. */
  stop(): Promise<void>;
}
