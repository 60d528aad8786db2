import { performance } from 'node:perf_hooks';

/**
 * How long a run of synchronous work holds the event loop before it gives it a turn, by default, in milliseconds. Each
 * turn lets everything waiting run, so the slice also sets how much of the loop a long run gets under load: at 10 ms,
 * with 500 synchronous ingests a second against 100,000 indexed datasets, the indexer's share fell short and search
 * lagged seconds behind (`npm run bench`); at 20 ms it keeps up, and requests still wait little more than that.
 */
export const DEFAULT_SLICE_MS = 20;

/**
 * A budget of event-loop time for long synchronous work cut into pieces: between two pieces, `await slice.pause()`
 * gives the event loop a turn (requests, timers, the other services of the process) once the work has held it for
 * `budgetMs` since its last turn, and otherwise only costs a microtask. Small work never waits; a three-megabyte
 * aspect or a transaction of a hundred thousand rows lets everything else through every few milliseconds.
 *
 * `now` is a monotonic clock in milliseconds (`performance.now` by default; a test gives its own).
 */
export class TimeSlice {
  private started: number;

  constructor(
    private readonly budgetMs = DEFAULT_SLICE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  /** Whether the work has held the event loop for its budget since its last turn. */
  get spent(): boolean {
    return this.now() - this.started >= this.budgetMs;
  }

  /** Gives the event loop a turn when the budget is spent (resolving after timers and I/O had theirs). */
  async pause(): Promise<void> {
    if (!this.spent) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = this.now();
  }
}
