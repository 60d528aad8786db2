/**
 * Resolves requests waiting for the outcome of their proposals, from `MetadataChangeProposalOutcome_v1`, and requests
 * waiting for their proposals to be indexed, from the indexers' acknowledgements on `MetadataIndexAcknowledgement_v1`.
 *
 * Delivery policy: each gateway instance reads the topic in a consumer group of its own, starting at the end of the log
 * when it starts (outcomes of earlier requests concern nobody waiting now). Outcomes for ids no request here waits for
 * are skipped, and a redelivered outcome finds its waiter gone: both are harmless, so the batch is always committed.
 * Undecodable records are skipped with a warning — they cannot belong to a waiting request.
 */
import { TimeoutError } from '@strata/model';
import type { EventSerde, MetadataChangeProposalOutcome, MetadataIndexAcknowledgement } from '@strata/events';
import type { LogRecord, MessageLog, Subscription } from '@strata/log';

export interface OutcomeListenerOptions {
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topic: string;
  /** The indexers' acknowledgement topic. */
  readonly acknowledgementTopic: string;
  /** This gateway instance's consumer group. */
  readonly groupId: string;
  readonly onUndecodable: (error: unknown) => void;
}

interface Waiter {
  resolve(outcome: MetadataChangeProposalOutcome): void;
}

interface IndexingWaiter {
  /** Indexers that have not acknowledged yet. */
  readonly pending: Set<string>;
  resolve(): void;
}

/** Requests registered to wait for indexing; see {@link OutcomeListener.expectIndexing}. */
export interface IndexingWait {
  /**
   * Waits until every awaited indexer acknowledged each of `requestIds` (a subset of those registered; the others are
   * dropped at once), rejecting after `timeoutMs` with a TimeoutError naming the HTTP request's id. Forgets every
   * registered id when it settles.
   */
  wait(requestIds: readonly string[], timeoutMs: number, requestId: string): Promise<void>;
  /** Forgets every registered id. */
  cancel(): void;
}

export class OutcomeListener {
  private readonly waiters = new Map<string, Waiter>();
  private readonly indexingWaiters = new Map<string, IndexingWaiter>();
  private subscription: Subscription | undefined;

  constructor(private readonly options: OutcomeListenerOptions) {}

  async start(): Promise<void> {
    this.subscription = await this.options.log.subscribe({
      groupId: this.options.groupId,
      topics: [this.options.topic, this.options.acknowledgementTopic],
      fromBeginning: false,
      handleBatch: (records) => {
        this.deliver(records);
        return Promise.resolve();
      },
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = undefined;
  }

  /**
   * Registers interest in the outcomes of these request ids — before their proposals are published, so that no outcome
   * can slip past — and returns a promise of all of them, rejecting after `timeoutMs` with a TimeoutError that names
   * the HTTP request's id.
   */
  expect(
    requestIds: readonly string[],
    timeoutMs: number,
    requestId: string,
  ): Promise<MetadataChangeProposalOutcome[]> {
    const outcomes = requestIds.map(
      (requestId) =>
        new Promise<MetadataChangeProposalOutcome>((resolve) => {
          this.waiters.set(requestId, { resolve });
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(
          new TimeoutError(
            `The write was accepted (request id ${requestId}) but its outcome did not arrive within ${timeoutMs} ms; it may still apply`,
          ),
        );
      }, timeoutMs);
    });
    return Promise.race([Promise.all(outcomes), timeout]).finally(() => {
      clearTimeout(timer);
      for (const requestId of requestIds) this.waiters.delete(requestId);
    });
  }

  /**
   * Registers interest in the indexers' acknowledgements of these request ids — before their proposals are published
   * — and returns the handle to wait on once the outcomes say which of them produced change logs.
   */
  expectIndexing(requestIds: readonly string[], indexers: readonly string[]): IndexingWait {
    const done = new Map<string, Promise<void>>();
    for (const id of requestIds) {
      done.set(
        id,
        new Promise<void>((resolve) => {
          const pending = new Set(indexers);
          if (pending.size === 0) resolve();
          else this.indexingWaiters.set(id, { pending, resolve });
        }),
      );
    }
    const forget = () => {
      for (const id of requestIds) this.indexingWaiters.delete(id);
    };
    return {
      wait: async (ids, timeoutMs, requestId) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            reject(
              new TimeoutError(
                `The write was applied (request id ${requestId}) but was not indexed within ${timeoutMs} ms; it will show in search once the indexers catch up`,
              ),
            );
          }, timeoutMs);
        });
        try {
          await Promise.race([Promise.all(ids.map((id) => done.get(id) ?? Promise.resolve())), timeout]);
        } finally {
          clearTimeout(timer);
          forget();
        }
      },
      cancel: forget,
    };
  }

  /** Forgets waiters whose proposals could not be published. */
  cancel(requestIds: readonly string[]): void {
    for (const requestId of requestIds) this.waiters.delete(requestId);
  }

  private deliver(records: readonly LogRecord[]): void {
    for (const record of records) {
      if (record.topic === this.options.acknowledgementTopic) {
        this.acknowledge(record);
        continue;
      }
      let outcome: MetadataChangeProposalOutcome;
      try {
        outcome = this.options.serde.outcome.decode(record.value);
      } catch (error) {
        this.options.onUndecodable(error);
        continue;
      }
      const waiter = this.waiters.get(outcome.requestId);
      if (waiter) {
        this.waiters.delete(outcome.requestId);
        waiter.resolve(outcome);
      }
    }
  }

  private acknowledge(record: LogRecord): void {
    let acknowledgement: MetadataIndexAcknowledgement;
    try {
      acknowledgement = this.options.serde.indexAcknowledgement.decode(record.value);
    } catch (error) {
      this.options.onUndecodable(error);
      return;
    }
    const waiter = this.indexingWaiters.get(acknowledgement.requestId);
    if (!waiter) return;
    waiter.pending.delete(acknowledgement.indexer);
    if (waiter.pending.size === 0) {
      this.indexingWaiters.delete(acknowledgement.requestId);
      waiter.resolve();
    }
  }
}
