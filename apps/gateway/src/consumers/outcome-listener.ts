/**
 * Resolves requests waiting for the outcome of their proposals, from `MetadataChangeProposalOutcome_v1`, and requests
 * waiting for their proposals to be indexed, from the indexers' acknowledgements on `MetadataIndexAcknowledgement_v1`.
 *
 * Delivery policy: each gateway instance reads the topic in a consumer group of its own (named after its instance id,
 * stable across restarts; the subscription is exclusive, so a second gateway with the same id fails to start), starting
 * at the end of the log the first time (outcomes of earlier requests concern nobody waiting now). Outcomes for ids no request here waits for
 * are skipped, and a redelivered outcome finds its waiter gone: both are harmless, so the batch is always committed.
 * Undecodable records are skipped with a warning — they cannot belong to a waiting request.
 */
import { TimeoutError } from '@strata/model';
import type { Scheduler } from '@strata/timing';
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
  /** The timers the waits' deadlines run on. */
  readonly scheduler: Scheduler;
  readonly onUndecodable: (error: unknown) => void;
}

interface Waiter {
  resolve(outcome: MetadataChangeProposalOutcome): void;
}

/** The acknowledgements received so far for one proposal, by read model. */
interface IndexingWaiter {
  readonly received: Map<string, MetadataIndexAcknowledgement>;
  /** Wakes the wait for this proposal, if one is in progress, to look again. */
  wake?: () => void;
}

/** A read model that skipped a change log it can never apply: the write is stored, but reads will not show it. */
export interface SkippedIndexing {
  readonly requestId: string;
  /** The read model (change-log hook) that skipped it. */
  readonly readModel: string;
  readonly error: string;
}

/** Requests registered to wait for indexing; see {@link OutcomeListener.expectIndexing}. */
export interface IndexingWait {
  /**
   * Waits until each proposal id of `required` has been acknowledged by every read model listed for it (ids not
   * registered, or with no read model, are not waited for), rejecting after `timeoutMs` with a TimeoutError naming the
   * HTTP request's id. Resolves with the read models that skipped a change log instead of applying it. Forgets every
   * registered id when it settles.
   */
  wait(
    required: ReadonlyMap<string, readonly string[]>,
    timeoutMs: number,
    requestId: string,
  ): Promise<readonly SkippedIndexing[]>;
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
      // Every instance must see every outcome: two gateways sharing a group would each miss half of them.
      exclusive: true,
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
    const timeout = this.deadline(
      timeoutMs,
      () =>
        new TimeoutError(
          `The write was accepted (request id ${requestId}) but its outcome did not arrive within ${timeoutMs} ms; it may still apply`,
        ),
    );
    return Promise.race([Promise.all(outcomes), timeout.expired]).finally(() => {
      timeout.cancel();
      for (const requestId of requestIds) this.waiters.delete(requestId);
    });
  }

  /**
   * Registers interest in the read models' acknowledgements of these request ids — before their proposals are
   * published, so that none slips past — and returns the handle to wait on once the outcomes say which read models
   * each proposal's change logs go to.
   */
  expectIndexing(requestIds: readonly string[]): IndexingWait {
    const waiters = new Map<string, IndexingWaiter>();
    for (const id of requestIds) {
      const waiter: IndexingWaiter = { received: new Map() };
      waiters.set(id, waiter);
      this.indexingWaiters.set(id, waiter);
    }
    const forget = () => {
      for (const id of requestIds) this.indexingWaiters.delete(id);
    };
    const missing = (required: ReadonlyMap<string, readonly string[]>): boolean =>
      [...required].some(([id, readModels]) => {
        const waiter = waiters.get(id);
        return waiter !== undefined && readModels.some((name) => !waiter.received.has(name));
      });
    return {
      wait: async (required, timeoutMs, requestId) => {
        const timeout = this.deadline(
          timeoutMs,
          () =>
            new TimeoutError(
              `The write was applied (request id ${requestId}) but was not indexed within ${timeoutMs} ms; it will show in search once the indexers catch up`,
            ),
        );
        try {
          while (missing(required)) {
            const acknowledged = new Promise<void>((resolve) => {
              for (const id of required.keys()) {
                const waiter = waiters.get(id);
                if (waiter !== undefined) waiter.wake = resolve;
              }
            });
            await Promise.race([acknowledged, timeout.expired]);
          }
        } finally {
          timeout.cancel();
          forget();
        }
        const skipped: SkippedIndexing[] = [];
        for (const [id, readModels] of required) {
          for (const name of readModels) {
            const acknowledgement = waiters.get(id)?.received.get(name);
            if (acknowledgement?.status === 'SKIPPED') {
              skipped.push({ requestId: id, readModel: name, error: acknowledgement.error ?? 'skipped' });
            }
          }
        }
        return skipped;
      },
      cancel: forget,
    };
  }

  /** A promise that rejects with `error()` once `ms` have passed on the scheduler, unless cancelled first. */
  private deadline(ms: number, error: () => Error): { expired: Promise<never>; cancel: () => void } {
    const cancelled = new AbortController();
    const expired = this.options.scheduler.sleep(ms, cancelled.signal).then(() => {
      throw cancelled.signal.aborted ? new Error('cancelled') : error();
    });
    // A cancelled deadline rejects too; nobody awaits it then.
    expired.catch(() => undefined);
    return {
      expired,
      cancel: () => {
        cancelled.abort();
      },
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
    waiter.received.set(acknowledgement.indexer, acknowledgement);
    waiter.wake?.();
  }
}
