import {
  Kafka,
  Partitioners,
  logLevel as KafkaLogLevel,
  type Admin,
  type LogEntry,
  type Message,
  type Producer,
} from 'kafkajs';

import {
  errorMessage,
  KafkaSubscription,
  type KafkaDeliverySettings,
  type KafkaMessageLogErrorContext,
} from './kafka-subscription';
import { randomUUID } from 'node:crypto';

import { retry, systemScheduler, type Scheduler } from '@strata/timing';
import { KafkaTopicReader } from './kafka-topic-reader';
import type {
  GroupPosition,
  MessageLog,
  OutgoingRecord,
  SubscribeOptions,
  Subscription,
  TopicRead,
  TopicReadResult,
} from './message-log';

export type { KafkaMessageLogErrorContext } from './kafka-subscription';

/** How much of kafkajs's own logging reaches {@link KafkaMessageLogOptions.logger}. */
export type KafkaMessageLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

/** One kafkajs log line, as given to {@link KafkaMessageLogOptions.logger}. */
export interface KafkaMessageLogEntry {
  readonly level: Exclude<KafkaMessageLogLevel, 'nothing'>;
  /** The kafkajs component: `Consumer`, `Runner`, `Connection`, `BrokerPool`… */
  readonly namespace: string;
  readonly message: string;
  /** The rest of kafkajs's entry (broker, groupId, error, stack, timestamp…). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Options of {@link KafkaMessageLog}. */
export interface KafkaMessageLogOptions {
  /** Bootstrap brokers, `host:port`. The cluster's own metadata then names every broker. */
  readonly brokers: readonly string[];
  /** Client id the brokers see (in their logs, metrics and quotas); give each service its own. */
  readonly clientId: string;
  /** How long a TCP connection to one broker may take, in milliseconds. Default 1000 (kafkajs's default). */
  readonly connectionTimeoutMs?: number;
  /**
   * kafkajs's retry of a failed request or connection: how many times, and the first delay in milliseconds (it grows
   * about twofold per retry, capped at 30 s). Defaults 5 and 300. This bounds how long `publish` and `subscribe` take to
   * reject when the brokers cannot be reached, and how long a consumer tries before it counts as crashed.
   */
  readonly retry?: { readonly retries?: number; readonly initialRetryTime?: number };
  /** Consumer-group membership of every subscription. */
  readonly consumer?: {
    /** Time without a heartbeat after which the group coordinator drops a member, in milliseconds. Default 30000. */
    readonly sessionTimeoutMs?: number;
    /** How often a member heartbeats, in milliseconds; below the session timeout (about a third of it). Default 3000. */
    readonly heartbeatIntervalMs?: number;
    /** How long a fetch may wait on the broker for new records, in milliseconds. Default 5000. */
    readonly maxWaitTimeMs?: number;
  };
  /**
   * First redelivery delay after a handler threw, in milliseconds; doubles on each further failure. Also the first
   * delay before a crashed consumer is started again. Default 50.
   */
  readonly retryInitialDelayMs?: number;
  /** Upper bound of those delays, in milliseconds. Default 5000. */
  readonly retryMaxDelayMs?: number;
  /** The timers those delays wait on. Default: the real ones. */
  readonly scheduler?: Scheduler;
  /**
   * Told about every failed delivery attempt (a handler that threw: with the batch's topic and partition) and every
   * consumer crash (a connection lost for longer than the request retries, a failed commit; `attempt` counts the
   * consecutive crashes). Delivery goes on whatever this callback does: the batch is retried, the consumer restarted.
   */
  readonly onError?: (error: unknown, attempt: number, context: KafkaMessageLogErrorContext) => void;
  /** Level of the kafkajs log lines given to `logger`. Default `'error'` when a logger is given, else `'nothing'`. */
  readonly logLevel?: KafkaMessageLogLevel;
  /**
   * Receives kafkajs's own log lines. Without it, kafkajs logs nothing (it would write to stdout): the failures that
   * matter reach `onError`, or reject `publish` and `subscribe`.
   */
  readonly logger?: (entry: KafkaMessageLogEntry) => void;
}

/**
 * The message log on Kafka (kafkajs), for distributed mode (`docs/architecture.md`).
 *
 * - `publish`: one producer per log, connected on first use, `acks: -1` (all in-sync replicas), the records of one
 *   call sent in one `sendBatch`, grouped per topic in call order, so that records of one key keep their order; a call
 *   resolves only once the brokers acknowledged all of them, so awaited calls are ordered too. Calls that overlap in
 *   time have no order between them (a retried request may land after a later call's). Partitions come from kafkajs's
 *   default partitioner (murmur2 of the key, as the Java client), so Strata and DataHub's own producers put an
 *   entity's records in the same partition.
 * - The producer is neither idempotent nor transactional: librdkafka's mock cluster, which the tests run on, supports
 *   neither. A retried request may therefore write a record twice (delivery is at least once anyway). Production can
 *   enable idempotence as a deployment setting of the client (kafkajs `idempotent: true`, brokers that support it).
 * - `subscribe`: one kafkajs consumer (one group member) per subscription; members of one group share the partitions.
 *   Each fetched partition batch is handed over in chunks of at most `maxBatchSize`; a chunk's offsets are committed
 *   after its handler resolved. A throwing handler gets the same chunk again after an exponential backoff, with
 *   heartbeats meanwhile; nothing is skipped. A rebalance during that backoff hands the uncommitted chunk to the
 *   partition's next owner. A consumer that crashes (broker away longer than the request retries) is started again
 *   after a backoff, each crash reported to `onError`.
 * - `subscribe` resolves once the member joined its group, fetched with resolved positions, and (for
 *   `fromBeginning: false`) committed the end of the log as its position in every partition that had none, so that
 *   records published afterwards are delivered even across a restart.
 * - `readTopic`: the partitions' ends and the offsets of a time come from the admin client; the records from a reader
 *   per topic (`KafkaTopicReader`: a consumer alone in a group of its own, `<clientId>-reader-<random>`, that never
 *   commits and stays paused between reads), started on the first read of the topic (a group's first join takes a
 *   few seconds). A topic the cluster does not have is looked for again every 250 ms while the read waits.
 * - Topics are not created here: the cluster creates them on first use, or the deployment creates them beforehand
 *   with their partition count and replication.
 */
export class KafkaMessageLog implements MessageLog {
  private readonly kafka: Kafka;
  private readonly brokers: readonly string[];
  private readonly retry: { readonly retries?: number; readonly initialRetryTime?: number };
  private readonly consumerSettings: {
    readonly sessionTimeout: number;
    readonly heartbeatInterval: number;
    readonly maxWaitTimeInMs: number;
  };
  private readonly delivery: KafkaDeliverySettings;
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly readers = new Map<string, KafkaTopicReader>();
  private readonly clientId: string;
  private producerConnection: Promise<Producer> | undefined;
  private adminConnection: Promise<Admin> | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  constructor(options: KafkaMessageLogOptions) {
    if (options.brokers.length === 0) throw new Error('KafkaMessageLog: brokers must not be empty');
    if (options.clientId === '') throw new Error('KafkaMessageLog: clientId must not be empty');
    this.brokers = [...options.brokers];
    this.clientId = options.clientId;
    this.retry = {
      retries: nonNegativeInteger(options.retry?.retries ?? 5, 'retry.retries'),
      initialRetryTime: positiveInteger(options.retry?.initialRetryTime ?? 300, 'retry.initialRetryTime'),
    };
    const sessionTimeout = positiveInteger(options.consumer?.sessionTimeoutMs ?? 30_000, 'consumer.sessionTimeoutMs');
    const heartbeatInterval = positiveInteger(
      options.consumer?.heartbeatIntervalMs ?? 3000,
      'consumer.heartbeatIntervalMs',
    );
    if (heartbeatInterval >= sessionTimeout) {
      throw new Error('KafkaMessageLog: consumer.heartbeatIntervalMs must be below consumer.sessionTimeoutMs');
    }
    this.consumerSettings = {
      sessionTimeout,
      heartbeatInterval,
      maxWaitTimeInMs: positiveInteger(options.consumer?.maxWaitTimeMs ?? 5000, 'consumer.maxWaitTimeMs'),
    };
    this.delivery = {
      backoff: {
        initialMs: positiveInteger(options.retryInitialDelayMs ?? 50, 'retryInitialDelayMs'),
        maxMs: positiveInteger(options.retryMaxDelayMs ?? 5000, 'retryMaxDelayMs'),
      },
      scheduler: options.scheduler ?? systemScheduler,
      onError: options.onError,
    };
    const logger = options.logger;
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...this.brokers],
      connectionTimeout: positiveInteger(options.connectionTimeoutMs ?? 1000, 'connectionTimeoutMs'),
      retry: this.retry,
      logLevel: kafkaLogLevel(options.logLevel ?? (logger === undefined ? 'nothing' : 'error')),
      logCreator: () => (entry) => {
        if (logger !== undefined) forwardLog(logger, entry);
      },
    });
  }

  async publish(records: readonly OutgoingRecord[]): Promise<void> {
    // Publishing stays possible while close() drains in-flight batches: their handlers may publish (e.g. the writer's
    // change logs), and failing them would only cause a redelivery.
    if (this.closed) throw new Error('KafkaMessageLog is closed');
    if (records.length === 0) return;
    const byTopic = new Map<string, Message[]>();
    for (const record of records) {
      if (record.topic === '') throw new Error('publish: topic must not be empty');
      let messages = byTopic.get(record.topic);
      if (messages === undefined) {
        messages = [];
        byTopic.set(record.topic, messages);
      }
      messages.push({ key: record.key, value: record.value, headers: { ...record.headers } });
    }
    try {
      const producer = await this.producer();
      await producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    } catch (error) {
      throw new Error(
        `KafkaMessageLog could not publish to ${[...byTopic.keys()].join(', ')} (brokers ${this.brokers.join(', ')}): ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closing !== undefined) throw new Error('KafkaMessageLog is closed');
    const topics = [...new Set(options.topics)];
    if (options.groupId === '') throw new Error('subscribe: groupId must not be empty');
    if (topics.length === 0) throw new Error('subscribe: at least one topic is required');
    if (topics.includes('')) throw new Error('subscribe: topic must not be empty');
    const maxBatchSize = positiveInteger(options.maxBatchSize ?? 500, 'maxBatchSize');
    // A member joining while its group rebalances can be refused by the group coordinator (librdkafka's mock cluster
    // answers a SyncGroup that races a rebalance with INVALID_REQUEST): that is the group's state, not a fault of this
    // member, so joining is tried again. Unreachable brokers are not retried here: kafkajs's own retries bound them.
    return retry(
      async () => {
        const subscription = new KafkaSubscription(
          {
            createConsumer: () =>
              this.kafka.consumer({
                groupId: options.groupId,
                ...this.consumerSettings,
                // The subscription restarts a crashed consumer itself (see KafkaSubscription.onCrash).
                retry: { ...this.retry, restartOnFailure: () => Promise.resolve(false) },
              }),
            admin: () => this.admin(),
          },
          {
            groupId: options.groupId,
            topics,
            fromBeginning: options.fromBeginning ?? true,
            maxBatchSize,
            handleBatch: options.handleBatch,
            exclusive: options.exclusive ?? false,
          },
          this.delivery,
          (stopped) => this.subscriptions.delete(stopped),
        );
        this.subscriptions.add(subscription);
        // On failure, start() has stopped the subscription, which took it out of this.subscriptions.
        await subscription.start();
        return subscription;
      },
      {
        scheduler: this.delivery.scheduler,
        backoff: (attempt) => this.delivery.backoff.initialMs * attempt,
        attempts: JOIN_ATTEMPTS,
        retryable: (error) => !this.isClosing() && refusedByGroupCoordinator(error),
      },
    );
  }

  /**
   * Asks the cluster (the admin client, which never creates topics): the topics it has, the group's committed offsets,
   * then each topic's low and high watermarks, in that order, so that no committed offset is read after an end.
   */
  async groupPositions(groupId: string, topics: readonly string[]): Promise<GroupPosition[]> {
    if (this.closed) throw new Error('KafkaMessageLog is closed');
    if (groupId === '') throw new Error('groupPositions: groupId must not be empty');
    const wanted = [...new Set(topics)].sort();
    try {
      const admin = await this.admin();
      const known = new Set(await admin.listTopics());
      const present = wanted.filter((topic) => known.has(topic));
      if (present.length === 0) return [];
      const committed = await admin.fetchOffsets({ groupId, topics: present });
      const positions: GroupPosition[] = [];
      for (const topic of present) {
        const group = committed.find((entry) => entry.topic === topic)?.partitions ?? [];
        const ends = [...(await admin.fetchTopicOffsets(topic))].sort((a, b) => a.partition - b.partition);
        for (const { partition, low, high } of ends) {
          // kafkajs answers -1 for a partition where the group committed nothing.
          const offset = group.find((entry) => entry.partition === partition)?.offset;
          positions.push({
            topic,
            partition,
            start: low,
            end: high,
            committed: offset === undefined || BigInt(offset) < 0n ? undefined : offset,
          });
        }
      }
      return positions;
    } catch (error) {
      throw new Error(
        `KafkaMessageLog could not read the positions of group ${groupId} on ${wanted.join(', ')} (brokers ${this.brokers.join(', ')}): ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  async readTopic(read: TopicRead, signal?: AbortSignal): Promise<TopicReadResult> {
    if (this.closing !== undefined) throw new Error('KafkaMessageLog is closed');
    if (!Number.isInteger(read.limit) || read.limit < 1)
      throw new Error(`limit must be a positive integer, got ${read.limit}`);
    if (!Number.isFinite(read.maxWaitMs) || read.maxWaitMs < 0) {
      throw new Error(`maxWaitMs must be 0 or more, got ${read.maxWaitMs}`);
    }
    const scheduler = this.delivery.scheduler;
    const deadline = scheduler.now() + read.maxWaitMs;
    try {
      const admin = await this.admin();
      let from = read.from;
      // A topic the cluster does not have yet: looked for while the read may wait; once there, read from its start.
      while (!(await admin.listTopics()).includes(read.topic)) {
        const remaining = deadline - scheduler.now();
        if (remaining <= 0 || signal?.aborted === true || this.isClosing()) return { records: [], next: [] };
        await scheduler.sleep(Math.min(remaining, 250), signal);
        from = { kind: 'offsets', offsets: new Map() };
      }
      const ends = [...(await admin.fetchTopicOffsets(read.topic))].sort((a, b) => a.partition - b.partition);
      const atTime =
        from.kind === 'time' ? await admin.fetchTopicOffsetsByTimestamp(read.topic, from.timestamp) : undefined;
      const starts = new Map<number, bigint>();
      for (const { partition, low, high } of ends) {
        const earliest = BigInt(low);
        const end = BigInt(high);
        let start: bigint;
        if (from.kind === 'end') start = end;
        else if (from.kind === 'time')
          start = BigInt(atTime?.find((entry) => entry.partition === partition)?.offset ?? high);
        else {
          const given = from.offsets.get(partition);
          start = given === undefined || !/^[0-9]+$/.test(given) ? earliest : BigInt(given);
        }
        starts.set(partition, start < earliest ? earliest : start > end ? end : start);
      }
      const available = ends.some(({ partition, high }) => (starts.get(partition) ?? 0n) < BigInt(high));
      const remaining = Math.max(0, deadline - scheduler.now());
      if (!available && remaining === 0) return { records: [], next: positions(starts) };
      let reader = this.readers.get(read.topic);
      if (reader === undefined) {
        reader = new KafkaTopicReader(
          read.topic,
          () =>
            this.kafka.consumer({
              groupId: `${this.clientId}-reader-${randomUUID()}`,
              ...this.consumerSettings,
              maxWaitTimeInMs: Math.min(this.consumerSettings.maxWaitTimeInMs, 250),
              retry: { ...this.retry, restartOnFailure: () => Promise.resolve(false) },
            }),
          scheduler,
        );
        this.readers.set(read.topic, reader);
      }
      // Records there already: no longer than the reader needs to fetch them.
      const result = await reader.read(starts, read.limit, available ? Math.max(remaining, 1000) : remaining, signal);
      return { records: result.records, next: positions(result.next) };
    } catch (error) {
      throw new Error(
        `KafkaMessageLog could not read ${read.topic} (brokers ${this.brokers.join(', ')}): ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  /** A method rather than a field read, because close() may begin while subscribe() awaits. */
  private isClosing(): boolean {
    return this.closing !== undefined;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
      await Promise.all([...this.readers.values()].map((reader) => reader.close()));
      this.closed = true;
      // Closing sockets cannot fail in a way a caller could act on; a dead broker must not make close() reject.
      const disconnect = async (connection: Promise<Producer | Admin> | undefined): Promise<void> => {
        const client = await connection?.catch(() => undefined);
        await client?.disconnect().catch(() => undefined);
      };
      await Promise.all([disconnect(this.producerConnection), disconnect(this.adminConnection)]);
    })();
    return this.closing;
  }

  /** The producer, connected on first use; a failed connection is tried again by the next publish. */
  private producer(): Promise<Producer> {
    this.producerConnection ??= (async () => {
      const producer = this.kafka.producer({
        createPartitioner: Partitioners.DefaultPartitioner,
        idempotent: false,
        allowAutoTopicCreation: true,
      });
      try {
        await producer.connect();
        return producer;
      } catch (error) {
        this.producerConnection = undefined;
        await producer.disconnect().catch(() => undefined);
        throw error;
      }
    })();
    return this.producerConnection;
  }

  /** The admin client (offsets of `fromBeginning: false` groups, groups' positions), connected on first use. */
  private admin(): Promise<Admin> {
    this.adminConnection ??= (async () => {
      const admin = this.kafka.admin();
      try {
        await admin.connect();
        return admin;
      } catch (error) {
        this.adminConnection = undefined;
        await admin.disconnect().catch(() => undefined);
        throw error;
      }
    })();
    return this.adminConnection;
  }
}

function kafkaLogLevel(level: KafkaMessageLogLevel): KafkaLogLevel {
  switch (level) {
    case 'nothing':
      return KafkaLogLevel.NOTHING;
    case 'error':
      return KafkaLogLevel.ERROR;
    case 'warn':
      return KafkaLogLevel.WARN;
    case 'info':
      return KafkaLogLevel.INFO;
    case 'debug':
      return KafkaLogLevel.DEBUG;
  }
}

function forwardLog(logger: (entry: KafkaMessageLogEntry) => void, { namespace, level, log }: LogEntry): void {
  const { message, ...fields } = log;
  const name: KafkaMessageLogEntry['level'] =
    level === KafkaLogLevel.ERROR
      ? 'error'
      : level === KafkaLogLevel.WARN
        ? 'warn'
        : level === KafkaLogLevel.INFO
          ? 'info'
          : 'debug';
  try {
    logger({ level: name, namespace, message, fields });
  } catch {
    // A faulty logger must not break kafkajs, which calls it from its own code paths.
  }
}

/** Positions in partition order, offsets as decimal strings. */
function positions(offsets: ReadonlyMap<number, bigint>): { partition: number; offset: string }[] {
  return [...offsets]
    .sort(([a], [b]) => a - b)
    .map(([partition, offset]) => ({ partition, offset: offset.toString() }));
}

/** How many times {@link KafkaMessageLog.subscribe} tries to join a group whose coordinator refused the member. */
const JOIN_ATTEMPTS = 3;

/** Whether a subscription failed to start because a broker answered a group request with an error code. */
function refusedByGroupCoordinator(error: unknown): boolean {
  return error instanceof Error && error.cause instanceof Error && error.cause.name === 'KafkaJSProtocolError';
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return value;
}
