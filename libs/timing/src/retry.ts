import { backoffDelay, type Backoff } from './backoff';
import type { Scheduler } from './scheduler';

/** How {@link retry} tries again. */
export interface RetryOptions {
  readonly scheduler: Scheduler;
  /** The wait after each failure: a backoff, or a function of the failed attempt's number (1 for the first). */
  readonly backoff: Backoff | ((attempt: number) => number);
  /** Stops retrying: the wait in progress ends at once and {@link retry} rejects with {@link RetryAbortedError}. */
  readonly signal?: AbortSignal;
  /** Most attempts in all; the last one's error is thrown. Default: no limit. */
  readonly attempts?: number;
  /** Gives up, throwing the last error, rather than start an attempt later than this after the first. Default: never. */
  readonly timeoutMs?: number;
  /** Whether an error is worth another attempt (the operation may pass next time). Default: every error is. */
  readonly retryable?: (error: unknown, attempt: number) => boolean;
  /** Told about every failed attempt, whether or not another follows. A throwing callback is ignored. */
  readonly onFailure?: (error: unknown, attempt: number) => void;
  /**
   * How to wait between attempts. Default `scheduler.sleep`. A caller replaces it to stay alive while it waits (a Kafka
   * consumer heartbeats); it must end early when `signal` aborts.
   */
  readonly wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** {@link retry} was stopped by its signal; `cause` is the last attempt's error. */
export class RetryAbortedError extends Error {
  constructor(options: { cause?: unknown }) {
    super('Retrying was stopped', options);
    this.name = 'RetryAbortedError';
  }
}

/**
 * Runs `operation` until it resolves, waiting after each failure as `backoff` says. Rejects with the last error once
 * the attempts or the time are spent or an error is not retryable, and with {@link RetryAbortedError} when `signal`
 * aborts (before an attempt, or during a wait; an attempt in progress is not interrupted).
 */
export async function retry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { scheduler, signal } = options;
  const startedAt = scheduler.now();
  let lastError: unknown;
  for (let attempt = 1; ; attempt += 1) {
    if (signal?.aborted === true) throw new RetryAbortedError({ cause: lastError });
    try {
      return await operation(attempt);
    } catch (error) {
      lastError = error;
      try {
        options.onFailure?.(error, attempt);
      } catch {
        // A faulty callback must not change what is retried.
      }
      if (options.retryable?.(error, attempt) === false) throw error;
      if (options.attempts !== undefined && attempt >= options.attempts) throw error;
      const delay =
        typeof options.backoff === 'function' ? options.backoff(attempt) : backoffDelay(options.backoff, attempt);
      if (options.timeoutMs !== undefined && scheduler.now() + delay - startedAt > options.timeoutMs) throw error;
      await (options.wait ?? ((ms, abort) => scheduler.sleep(ms, abort)))(delay, signal);
    }
  }
}
