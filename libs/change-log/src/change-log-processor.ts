/**
 * The one consumer of change logs every read model and trail is built on (DataHub's MetadataChangeLogProcessor and
 * its hooks, with stronger delivery).
 *
 * Delivery policy:
 * - **At least once, committed after every hook.** A batch (one partition's records, in log order) is handed to each
 *   hook in turn; the log moves the group's position past it only after every hook has resolved, that is, after every
 *   effect is durable. A crash anywhere redelivers the batch, so hooks are idempotent.
 * - **A failure that may pass is retried, never acknowledged.** A hook that rejects (an engine down or slow) is given
 *   the same events again after an exponential backoff, as long as it takes; nothing is skipped and no waiting writer is
 *   told it is done. Stopping the processor ends the wait and leaves the batch uncommitted.
 * - **A record that can never be applied is skipped, loudly.** One that does not decode, or names an entity or aspect
 *   the registry lacks, is logged with its position, counted (`strata_change_log_records_skipped_total`), and
 *   acknowledged as SKIPPED to a writer waiting for it, who is answered at once; the rest of the batch goes on.
 * - **Acknowledgements for read-your-writes.** For a record marked `strata-await-indexing`, once the batch is durable,
 *   every hook that serves reads and consumes that change log acknowledges it on `MetadataIndexAcknowledgement_v1`.
 */
import { UnavailableError, type EntityRegistry } from '@strata/model';
import { RecordHeader, type EventSerde, type TopicNames } from '@strata/events';
import type { LogRecord, MessageLog, OutgoingRecord, Subscription } from '@strata/log';
import { retry, RetryAbortedError, TimeSlice, type Backoff, type Scheduler } from '@strata/timing';
import { decodeChangeLog, type UnapplicableChangeLog } from './change-log-decoder';
import type { ChangeLogEvent, ChangeLogHook, ChangeLogKind, ReadModel } from './change-log-hook';
import {
  backlogOf,
  ProcessorProgress,
  type ProcessorBacklog,
  type ProcessorProgressReport,
} from './processor-progress';

/** The part of a logger the processor needs (pino's signature). */
export interface ProcessorLogger {
  warn(details: object, message: string): void;
}

export interface ChangeLogProcessorOptions {
  /** The consumer's name (`search-indexer`): in logs, metrics and progress. */
  readonly name: string;
  /** Its consumer group: instances of one consumer share the partitions. */
  readonly groupId: string;
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly registry: EntityRegistry;
  readonly topics: Pick<
    TopicNames,
    'metadataChangeLogVersioned' | 'metadataChangeLogTimeseries' | 'metadataIndexAcknowledgement'
  >;
  /** Applied in this order, each batch. Names must be unique. */
  readonly hooks: readonly ChangeLogHook[];
  readonly scheduler: Scheduler;
  readonly logger: ProcessorLogger;
  /** Most change logs per batch. Default 100. */
  readonly maxBatchSize?: number;
  /**
   * For a processor no write waits for (a trail): how long it lets change logs accumulate before handling a batch that
   * is not full (`SubscribeOptions.lingerMs`). Default 0.
   */
  readonly lingerMs?: number;
  /** Waits between attempts of a failing hook or acknowledgement. Default 100 ms doubling to 30 s. */
  readonly retryBackoff?: Backoff;
}

const DEFAULT_BACKOFF: Backoff = { initialMs: 100, maxMs: 30_000 };

/** Runs hooks over the change logs they consume, with the delivery policy above. */
export class ChangeLogProcessor {
  /** The hooks that serve reads, with the topics they consume: what a writer waiting for indexing waits on. */
  readonly readModels: readonly ReadModel[];
  private readonly progressTracker: ProcessorProgress;
  private readonly kindOfTopic: ReadonlyMap<string, ChangeLogKind>;
  /** Whether any hook reads aspect values: when none does, they are not parsed. */
  private readonly readsValues: boolean;
  /** Whether a hook applies restatements; when none does, the records marked as such are not even decoded. */
  private readonly restatements: boolean;
  /** The topics the hooks consume. */
  private readonly inputTopics: readonly string[];
  private subscription: Subscription | undefined;
  private stopping = new AbortController();

  constructor(private readonly options: ChangeLogProcessorOptions) {
    const names = options.hooks.map((hook) => hook.name);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) throw new Error(`${options.name}: two hooks are named ${duplicate}`);
    if (options.hooks.length === 0) throw new Error(`${options.name}: a change-log processor needs a hook`);
    this.kindOfTopic = new Map<string, ChangeLogKind>([
      [options.topics.metadataChangeLogVersioned, 'versioned'],
      [options.topics.metadataChangeLogTimeseries, 'timeseries'],
    ]);
    this.readModels = options.hooks
      .filter((hook) => hook.servesReads)
      .map((hook) => ({ name: hook.name, topics: hook.consumes.map((kind) => this.topicOf(kind)) }));
    this.progressTracker = new ProcessorProgress(options.name, names);
    this.readsValues = options.hooks.some((hook) => hook.readsValues !== false);
    this.restatements = options.hooks.some((hook) => hook.appliesRestatements !== false);
    const kinds = new Set(options.hooks.flatMap((hook) => hook.consumes));
    this.inputTopics = [...kinds].map((kind) => this.topicOf(kind));
  }

  /** Prometheus metrics of the processor and its hooks. */
  get metrics(): ProcessorProgress['registry'] {
    return this.progressTracker.registry;
  }

  /** Progress as a whole and per hook: positions, lag, counts, and the backlog as the log tells it now. */
  async progress(): Promise<ProcessorProgressReport> {
    return this.progressTracker.report(await this.backlog());
  }

  /**
   * The change logs appended to the input topics and not yet applied, per partition and in all: from the group's
   * committed positions beside the log's ends, so that any instance of the group reports the whole group's backlog,
   * and a change log counts as applied only once every hook's effects of it are durable. Rejects with an
   * `UnavailableError` when the log cannot tell.
   */
  async backlog(): Promise<ProcessorBacklog> {
    const { log, name, groupId } = this.options;
    if (log.groupPositions === undefined) throw new UnavailableError(`${name}: the log does not report positions`);
    let positions;
    try {
      positions = await log.groupPositions(groupId, this.inputTopics);
    } catch (error) {
      throw new UnavailableError(
        `${name} could not read its backlog from the log: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return backlogOf(name, positions, this.options.scheduler.now());
  }

  /** Joins the consumer group on the topics the hooks consume (from the beginning of the log for a new group). */
  async start(): Promise<void> {
    this.stopping = new AbortController();
    this.subscription = await this.options.log.subscribe({
      groupId: this.options.groupId,
      topics: this.inputTopics,
      fromBeginning: true,
      maxBatchSize: this.options.maxBatchSize ?? 100,
      ...(this.options.lingerMs === undefined ? {} : { lingerMs: this.options.lingerMs }),
      handleBatch: (records) => this.handleBatch(records),
    });
  }

  /** Stops consuming: a retry in progress gives up at once, and its batch stays uncommitted for the next consumer. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.subscription?.stop();
    this.subscription = undefined;
  }

  /** The log's batch handler; resolves once every hook's effects are durable and acknowledgements are published. */
  async handleBatch(records: readonly LogRecord[]): Promise<void> {
    const first = records[0];
    if (first === undefined) return;
    const kind = this.kindOfTopic.get(first.topic);
    if (kind === undefined) throw new Error(`${this.options.name} does not consume ${first.topic}`);
    const events: ChangeLogEvent[] = [];
    const skipped = new Map<LogRecord, UnapplicableChangeLog>();
    // Decoding a large aspect takes a while: between records, other work gets a turn once a slice is spent.
    const slice = new TimeSlice();
    for (const record of records) {
      if (!this.restatements && record.headers[RecordHeader.changeType] === 'RESTATE') continue;
      const decoded = decodeChangeLog(record, kind, this.options.serde, this.options.registry, {
        values: this.readsValues,
      });
      await slice.pause();
      if ('event' in decoded) {
        events.push(decoded.event);
        continue;
      }
      const { reason, detail } = decoded.unapplicable;
      skipped.set(record, decoded.unapplicable);
      this.progressTracker.skippedRecord(reason);
      this.options.logger.warn(
        {
          consumer: this.options.name,
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          key: record.key,
          reason,
          detail,
        },
        'skipping a change log that can never be applied',
      );
    }
    for (const hook of this.options.hooks) {
      if (!hook.consumes.includes(kind)) continue;
      const mine = events.filter(
        (event) =>
          (hook.appliesRestatements !== false || event.changeType !== 'RESTATE') &&
          (hook.accepts === undefined || hook.accepts(event)),
      );
      // One hook's last step (a commit) and the next hook's first must not share a turn of the event loop.
      await slice.pause();
      if (mine.length > 0) await this.applyHook(hook, mine);
      this.progressTracker.hookHandled(
        hook.name,
        records,
        mine.map((event) => event.record),
        this.options.scheduler.now(),
      );
    }
    await this.acknowledge(kind, records, events, skipped);
    this.progressTracker.batchHandled(records, this.options.scheduler.now());
  }

  private async applyHook(hook: ChangeLogHook, events: readonly ChangeLogEvent[]): Promise<void> {
    const first = events[0]?.record;
    await this.retrying(
      () => hook.apply(events),
      (error, attempt) => {
        this.progressTracker.hookFailed(hook.name);
        this.options.logger.warn(
          {
            err: error,
            consumer: this.options.name,
            hook: hook.name,
            attempt,
            topic: first?.topic,
            partition: first?.partition,
            fromOffset: first?.offset,
            changeLogs: events.length,
          },
          'a hook failed to apply a batch; it is retried after a backoff',
        );
      },
    );
  }

  /** Publishes the acknowledgements the batch's marked records ask for: one per awaited hook consuming them. */
  private async acknowledge(
    kind: ChangeLogKind,
    records: readonly LogRecord[],
    events: readonly ChangeLogEvent[],
    skipped: ReadonlyMap<LogRecord, UnapplicableChangeLog>,
  ): Promise<void> {
    const awaited = this.options.hooks.filter((hook) => hook.servesReads && hook.consumes.includes(kind));
    if (awaited.length === 0) return;
    const urns = new Map(events.map((event) => [event.record, event.urn]));
    const now = this.options.scheduler.now();
    const acknowledgements: OutgoingRecord[] = [];
    for (const record of records) {
      const requestId = record.headers[RecordHeader.requestId];
      if (record.headers[RecordHeader.awaitIndexing] !== 'true' || requestId === undefined) continue;
      const entityUrn = urns.get(record) ?? record.key;
      const unapplicable = skipped.get(record);
      for (const hook of awaited) {
        acknowledgements.push({
          topic: this.options.topics.metadataIndexAcknowledgement,
          key: entityUrn,
          headers: { [RecordHeader.requestId]: requestId },
          value: this.options.serde.indexAcknowledgement.encode({
            requestId,
            indexer: hook.name,
            entityUrn,
            timestampMillis: now,
            status: unapplicable === undefined ? 'APPLIED' : 'SKIPPED',
            error:
              unapplicable === undefined
                ? null
                : `${this.options.name} skipped the change log at ${record.topic}/${record.partition}@${record.offset}: ${unapplicable.detail}`,
          }),
        });
      }
    }
    if (acknowledgements.length === 0) return;
    await this.retrying(
      () => this.options.log.publish(acknowledgements),
      (error, attempt) => {
        this.options.logger.warn(
          { err: error, consumer: this.options.name, attempt },
          'publishing acknowledgements failed; retrying after a backoff',
        );
      },
    );
  }

  /** Retries until success; a stop ends the retry with the last error, so that the batch stays uncommitted. */
  private async retrying(operation: () => Promise<void>, onFailure: (error: unknown, attempt: number) => void) {
    try {
      await retry(operation, {
        scheduler: this.options.scheduler,
        backoff: this.options.retryBackoff ?? DEFAULT_BACKOFF,
        signal: this.stopping.signal,
        onFailure,
      });
    } catch (error) {
      throw error instanceof RetryAbortedError && error.cause !== undefined ? error.cause : error;
    }
  }

  private topicOf(kind: ChangeLogKind): string {
    return kind === 'versioned'
      ? this.options.topics.metadataChangeLogVersioned
      : this.options.topics.metadataChangeLogTimeseries;
  }
}
