/**
 * Time as Strata's components see it: a clock and a way to wait. Components take one instead of calling `Date.now()`
 * and `setTimeout` themselves, so that tests drive their timing with a fake one (`FakeScheduler`, from
 * `@strata/timing/testing`) instead of sleeping or patching globals.
 */
export interface Scheduler {
  /** The current time, epoch milliseconds. */
  now(): number;
  /**
   * Resolves once `ms` milliseconds have passed, or as soon as `signal` aborts. It never rejects: a caller woken by
   * its signal checks `signal.aborted` itself. A delay of 0 or less resolves on a later turn of the event loop.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock and timers. */
export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted === true) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    }),
};
