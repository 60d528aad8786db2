import type {
  Admin,
  Consumer,
  ConsumerRunConfig,
  EachBatchPayload,
  IHeaders,
  IMemberAssignment,
  KafkaMessage,
} from 'kafkajs';

import { backoffDelay, retry, RetryAbortedError, type Backoff, type Scheduler } from '@strata/timing';
import type { BatchHandler, LogRecord, Subscription } from './message-log';

/** Where a failed delivery attempt happened (see `KafkaMessageLogOptions.onError`). */
export interface KafkaMessageLogErrorContext {
  readonly groupId: string;
  /** The batch's topic and partition; absent when the consumer itself failed (a crash, a lost connection). */
  readonly topic?: string;
  readonly partition?: number;
}

/** Redelivery and crash-restart policy, shared by the subscriptions of one log. */
export interface KafkaDeliverySettings {
  /** The wait before a failed chunk is delivered again, and before a crashed consumer is started again. */
  readonly backoff: Backoff;
  readonly scheduler: Scheduler;
  readonly onError: ((error: unknown, attempt: number, context: KafkaMessageLogErrorContext) => void) | undefined;
}

export interface KafkaSubscriptionSettings {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  readonly maxBatchSize: number;
  readonly handleBatch: BatchHandler;
  /** The member must be its group's only one: start fails when another holds some of the topics' partitions. */
  readonly exclusive: boolean;
}

export interface KafkaSubscriptionClients {
  /**
   * Creates this subscription's consumer. Its retry settings must include `restartOnFailure` answering false: the
   * subscription restarts a crashed consumer itself, so that `stop()` can wait for a restart in progress.
   */
  readonly createConsumer: () => Consumer;
  /** The log's admin client (connected), used to store the start positions of a `fromBeginning: false` group. */
  readonly admin: () => Promise<Admin>;
}

/** How often a handler's retry backoff checks whether the consumer stops, the batch went stale, or a heartbeat is due. */
const retryPollMs = 100;

/**
 * One consumer-group member: a kafkajs consumer whose `eachBatch` hands the fetched records of one partition to the
 * handler in chunks of at most `maxBatchSize`, and resolves and commits each chunk's offsets only after the handler
 * resolved. A throwing handler gets the same chunk again after an exponential backoff (heartbeating meanwhile), until
 * it succeeds, the consumer stops, or the group rebalances (then the group redelivers the chunk from its first record).
 */
export class KafkaSubscription implements Subscription {
  private readonly consumer: Consumer;
  private readonly started = deferred();
  /** Set once the member joined, resolved its positions and fetched: `subscribe()` may resolve. */
  private ready = false;
  private stopping: Promise<void> | undefined;
  private joins = 0;
  private fetchedSinceJoin = false;
  /** The start positions of the current generation are stored (always true for `fromBeginning` groups). */
  private positionsStored = true;
  /** Batches wait for this, so that nothing is committed before the start positions are. */
  private positionsSettled: Promise<void> = Promise.resolve();
  private consecutiveCrashes = 0;
  /** Cancels the restart of a crashed consumer that is waiting for its backoff. */
  private pendingRestart: AbortController | undefined;
  /** The latest `consumer.run()`: it settles once that start joined the group or crashed. */
  private starting: Promise<void> = Promise.resolve();
  /** Aborted by stop(): ends every wait at once. */
  private readonly stopSignal = new AbortController();

  constructor(
    private readonly clients: KafkaSubscriptionClients,
    private readonly settings: KafkaSubscriptionSettings,
    private readonly delivery: KafkaDeliverySettings,
    private readonly onStopped: (subscription: KafkaSubscription) => void,
  ) {
    this.consumer = clients.createConsumer();
    // An unhandled rejection must never come from here: start() awaits this promise, and stop() may reject it first.
    this.started.promise.catch(() => undefined);
  }

  /**
   * Connects, joins the group and resolves once this member has fetched with resolved positions. Rejects, without
   * retrying, when the brokers cannot be reached or the member cannot join (kafkajs's own request retries bound it).
   */
  async start(): Promise<void> {
    const { consumer } = this;
    const { events } = consumer;
    consumer.on(events.GROUP_JOIN, (event) => {
      this.guard(() => {
        this.onGroupJoin(event.payload.memberAssignment);
      });
    });
    consumer.on(events.FETCH, () => {
      this.guard(() => {
        this.onFetch();
      });
    });
    consumer.on(events.CRASH, (event) => {
      this.guard(() => {
        this.onCrash(event.payload.error);
      });
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [...this.settings.topics], fromBeginning: this.settings.fromBeginning });
      this.starting = consumer.run(this.runConfig());
      await this.starting;
      await this.started.promise;
    } catch (error) {
      await this.stop();
      throw new Error(
        `KafkaMessageLog: consumer group ${this.settings.groupId} could not start on ${this.settings.topics.join(', ')}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopSignal.abort();
      this.started.reject(new Error('the subscription was stopped before it started'));
      try {
        // A start in progress (joining) must finish first: kafkajs cannot stop a member that is still joining.
        await this.starting.catch(() => undefined);
        // Stops fetching, waits for the in-flight batch (its handler, then its commit), leaves the group.
        await this.consumer.disconnect();
      } catch (error) {
        this.report(error, 1, {});
      }
      this.onStopped(this);
    })();
    return this.stopping;
  }

  private runConfig(): ConsumerRunConfig {
    return {
      eachBatchAutoResolve: false,
      // Makes commitOffsetsIfNecessary() commit whatever was resolved, i.e. after every chunk.
      autoCommitThreshold: 1,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => this.eachBatch(payload),
    };
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    await this.positionsSettled;
    const { batch } = payload;
    const records = batch.messages.map((message) => toLogRecord(batch.topic, batch.partition, message));
    const size = this.settings.maxBatchSize;
    for (let start = 0; start < records.length; start += size) {
      if (!this.mayDeliver(payload)) return;
      const chunk = records.slice(start, start + size);
      const last = chunk[chunk.length - 1];
      if (last === undefined || !(await this.deliver(chunk, payload))) return;
      payload.resolveOffset(last.offset);
      await payload.commitOffsetsIfNecessary();
      if (start + size < records.length) await payload.heartbeat();
    }
  }

  /**
   * Calls the handler until it succeeds (true) or delivery must end (false: stopping, stale batch). A rebalance seen
   * by a heartbeat throws, so that kafkajs rejoins; the chunk stays uncommitted and the group gets it again.
   */
  private async deliver(records: readonly LogRecord[], payload: EachBatchPayload): Promise<boolean> {
    const { topic, partition } = payload.batch;
    const { scheduler } = this.delivery;
    // Delivery ends (false) when the subscription stops or the batch goes stale, whichever comes first.
    const staleOrStopped = new AbortController();
    const giveUpIfStale = () => {
      if (!this.mayDeliver(payload)) staleOrStopped.abort();
    };
    try {
      await retry(
        // A fresh array per attempt: what a handler does to its argument cannot change the redelivered batch.
        () => this.settings.handleBatch([...records]),
        {
          scheduler,
          backoff: this.delivery.backoff,
          signal: AbortSignal.any([this.stopSignal.signal, staleOrStopped.signal]),
          onFailure: (error, attempt) => {
            this.report(error, attempt, { topic, partition });
            giveUpIfStale();
          },
          // Heartbeats while it waits, so that the group keeps the member; a heartbeat that finds the group
          // rebalancing throws, ending the batch uncommitted for kafkajs to rejoin.
          wait: async (ms, signal) => {
            const deadline = scheduler.now() + ms;
            for (;;) {
              await payload.heartbeat();
              const left = deadline - scheduler.now();
              if (left <= 0 || !this.mayDeliver(payload)) break;
              await scheduler.sleep(Math.min(left, retryPollMs), signal);
            }
            giveUpIfStale();
          },
        },
      );
      return true;
    } catch (error) {
      if (error instanceof RetryAbortedError) return false;
      throw error;
    }
  }

  private mayDeliver(payload: EachBatchPayload): boolean {
    return this.stopping === undefined && payload.isRunning() && !payload.isStale();
  }

  private onGroupJoin(assignment: IMemberAssignment): void {
    this.joins += 1;
    this.fetchedSinceJoin = false;
    this.consecutiveCrashes = 0;
    const checkMembership = this.settings.exclusive && !this.ready;
    if ((this.settings.fromBeginning && !checkMembership) || this.stopping !== undefined) return;
    const join = this.joins;
    this.positionsStored = false;
    this.positionsSettled = (async () => {
      if (checkMembership) await this.checkSoleMember(assignment);
      if (!this.settings.fromBeginning) await this.storeStartPositions(assignment);
    })().then(
      () => {
        if (join !== this.joins) return;
        this.positionsStored = true;
        this.checkReady();
      },
      (error: unknown) => {
        if (join !== this.joins) return;
        if (!this.ready) {
          this.started.reject(error);
          return;
        }
        // Only a restart before the first commit of these partitions could now skip records; do not stall on it.
        this.report(error, 1, {});
        this.positionsStored = true;
      },
    );
  }

  /**
   * For an exclusive subscription: rejects when this member was not given every partition of its topics, that is, when
   * the group has another member (another process using the same group id).
   */
  private async checkSoleMember(assignment: IMemberAssignment): Promise<void> {
    const admin = await this.clients.admin();
    for (const topic of this.settings.topics) {
      const assigned = assignment[topic] ?? [];
      const partitions = (await admin.fetchTopicOffsets(topic)).map(({ partition }) => partition);
      if (partitions.some((partition) => !assigned.includes(partition))) {
        throw new Error(
          `Consumer group ${this.settings.groupId} has another member holding partitions of ${topic}: this subscription must be the group's only member`,
        );
      }
    }
  }

  private onFetch(): void {
    if (this.joins === 0) return;
    this.fetchedSinceJoin = true;
    this.checkReady();
  }

  private checkReady(): void {
    if (this.ready || this.stopping !== undefined) return;
    if (this.joins > 0 && this.fetchedSinceJoin && this.positionsStored) {
      this.ready = true;
      this.started.resolve();
    }
  }

  /**
   * kafkajs emits CRASH once a consumer gave up (its request retries exhausted, or a non-retriable error) and it
   * disconnected. Before the member is ready, that fails `subscribe()`. Afterwards the consumer is started again after
   * an exponential backoff, whatever the error: a service's consumer must never end silently, and a broker that is
   * briefly away is back by one of the next attempts.
   */
  private onCrash(error: unknown): void {
    if (!this.ready) {
      this.started.reject(error);
      return;
    }
    this.consecutiveCrashes += 1;
    this.report(error, this.consecutiveCrashes, {});
    if (this.stopping !== undefined) return;
    this.pendingRestart?.abort();
    const restart = new AbortController();
    this.pendingRestart = restart;
    const signal = AbortSignal.any([this.stopSignal.signal, restart.signal]);
    void this.delivery.scheduler
      .sleep(backoffDelay(this.delivery.backoff, this.consecutiveCrashes), signal)
      .then(() => {
        if (signal.aborted) return;
        this.starting = this.consumer.run(this.runConfig()).catch((runError: unknown) => {
          this.report(runError, this.consecutiveCrashes + 1, {});
        });
      });
  }

  /**
   * With `fromBeginning: false`, commits the end of the log as the position of every assigned partition the group has
   * no position in yet. kafkajs would otherwise keep that position only in memory: after a restart before the first
   * commit, the group would start at the (later) end again and skip what was published meanwhile.
   */
  private async storeStartPositions(assignment: IMemberAssignment): Promise<void> {
    const topics = Object.keys(assignment).filter((topic) => (assignment[topic]?.length ?? 0) > 0);
    if (topics.length === 0) return;
    const admin = await this.clients.admin();
    const committed = await admin.fetchOffsets({ groupId: this.settings.groupId, topics });
    const missing: { topic: string; partitions: number[] }[] = [];
    for (const { topic, partitions } of committed) {
      const assigned = assignment[topic] ?? [];
      const without = partitions
        .filter(({ partition, offset }) => assigned.includes(partition) && BigInt(offset) < 0n)
        .map(({ partition }) => partition);
      if (without.length > 0) missing.push({ topic, partitions: without });
    }
    const positions: { topic: string; partition: number; offset: string }[] = [];
    for (const { topic, partitions } of missing) {
      const ends = await admin.fetchTopicOffsets(topic);
      for (const partition of partitions) {
        const end = ends.find((entry) => entry.partition === partition);
        if (end !== undefined) positions.push({ topic, partition, offset: end.high });
      }
    }
    if (positions.length > 0) await this.consumer.commitOffsets(positions);
  }

  private report(error: unknown, attempt: number, where: { topic?: string; partition?: number }): void {
    try {
      this.delivery.onError?.(error, attempt, { groupId: this.settings.groupId, ...where });
    } catch {
      // A faulty error callback must not stop delivery.
    }
  }

  /** kafkajs calls event listeners synchronously from its own code paths: a listener must never throw into them. */
  private guard(listener: () => void): void {
    try {
      listener();
    } catch (error) {
      this.report(error, 1, {});
    }
  }
}

export function toLogRecord(topic: string, partition: number, message: KafkaMessage): LogRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    // Records from other producers may have no key or a tombstone value.
    key: message.key?.toString('utf8') ?? '',
    value: message.value ?? Buffer.alloc(0),
    headers: decodeHeaders(message.headers),
    timestamp: Number(message.timestamp),
  };
}

/** Header values as UTF-8 strings; a header repeated by another producer keeps its last value, as Kafka's `lastHeader`. */
function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const entries: [string, string][] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) entries.push([name, Buffer.isBuffer(last) ? last.toString('utf8') : last]);
  }
  return Object.fromEntries(entries);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function deferred(): {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
} {
  let resolve: () => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}
