/**
 * Resolves requests waiting for the outcome of their proposals, from `MetadataChangeProposalOutcome_v1`.
 *
 * Delivery policy: each gateway instance reads the topic in a consumer group of its own, starting at the end of the log
 * when it starts (outcomes of earlier requests concern nobody waiting now). Outcomes for ids no request here waits for
 * are skipped, and a redelivered outcome finds its waiter gone: both are harmless, so the batch is always committed.
 * Undecodable records are skipped with a warning — they cannot belong to a waiting request.
 */
import { TimeoutError } from '@strata/model';
import type { EventSerde, MetadataChangeProposalOutcome } from '@strata/events';
import type { LogRecord, MessageLog, Subscription } from '@strata/log';

export interface OutcomeListenerOptions {
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topic: string;
  /** This gateway instance's consumer group. */
  readonly groupId: string;
  readonly onUndecodable: (error: unknown) => void;
}

interface Waiter {
  resolve(outcome: MetadataChangeProposalOutcome): void;
}

export class OutcomeListener {
  private readonly waiters = new Map<string, Waiter>();
  private subscription: Subscription | undefined;

  constructor(private readonly options: OutcomeListenerOptions) {}

  async start(): Promise<void> {
    this.subscription = await this.options.log.subscribe({
      groupId: this.options.groupId,
      topics: [this.options.topic],
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

  /** Forgets waiters whose proposals could not be published. */
  cancel(requestIds: readonly string[]): void {
    for (const requestId of requestIds) this.waiters.delete(requestId);
  }

  private deliver(records: readonly LogRecord[]): void {
    for (const record of records) {
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
}
