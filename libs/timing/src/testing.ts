import type { Scheduler } from './scheduler';

interface Sleeper {
  readonly at: number;
  readonly order: number;
  readonly wake: () => void;
}

/**
 * A {@link Scheduler} whose time moves only when a test moves it. Code under test sleeps on it as on the real one;
 * the test lets it reach its wait (`untilSleeping`), then moves time (`advance`), and every sleep due meanwhile ends,
 * in order of due time, each one's continuation running before the next is woken.
 */
export class FakeScheduler implements Scheduler {
  private time: number;
  private order = 0;
  private readonly sleepers: Sleeper[] = [];

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted === true) {
        resolve();
        return;
      }
      const sleeper: Sleeper = {
        at: this.time + Math.max(0, ms),
        order: (this.order += 1),
        wake: () => {
          signal?.removeEventListener('abort', sleeper.wake);
          const index = this.sleepers.indexOf(sleeper);
          if (index >= 0) this.sleepers.splice(index, 1);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', sleeper.wake, { once: true });
    });
  }

  /** The sleeps in progress, each as the time it ends, soonest first. */
  get pending(): number[] {
    return this.sorted().map((sleeper) => sleeper.at);
  }

  /** Moves time forward by `ms`, ending every sleep due on the way (in order), and lets the woken code run. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    // Code that was about to sleep (its continuation queued) gets to register its sleep first.
    await settleTurns();
    for (;;) {
      const next = this.sorted()[0];
      if (next === undefined || next.at > target) break;
      this.time = Math.max(this.time, next.at);
      next.wake();
      await settleTurns();
    }
    this.time = target;
    await settleTurns();
  }

  /** Moves time to the end of the soonest sleep and ends it (and any due with it). Throws when nothing sleeps. */
  async advanceToNext(): Promise<void> {
    const next = this.sorted()[0];
    if (next === undefined) throw new Error('FakeScheduler: nothing is sleeping');
    await this.advance(next.at - this.time);
  }

  /**
   * Waits (in real time, at most `timeoutMs`) until at least `count` sleeps are in progress: the code under test has
   * reached its wait. Throws when it does not.
   */
  async untilSleeping(count = 1, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.sleepers.length < count) {
      if (Date.now() > deadline) {
        throw new Error(`FakeScheduler: ${this.sleepers.length} sleeps after ${timeoutMs} ms, expected ${count}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  private sorted(): Sleeper[] {
    return [...this.sleepers].sort((a, b) => a.at - b.at || a.order - b.order);
  }
}

/** Lets promise continuations and immediate callbacks queued by woken code run. */
async function settleTurns(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}
