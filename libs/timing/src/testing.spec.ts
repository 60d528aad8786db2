import { systemScheduler } from './scheduler';
import { FakeScheduler } from './testing';

describe('FakeScheduler', () => {
  it('ends sleeps only when time is moved past them, in order of due time', async () => {
    const scheduler = new FakeScheduler(100);
    const woken: string[] = [];
    void scheduler.sleep(30).then(() => woken.push(`late at ${scheduler.now()}`));
    void scheduler.sleep(10).then(() => woken.push(`early at ${scheduler.now()}`));
    await scheduler.advance(5);
    expect(woken).toEqual([]);
    expect(scheduler.pending).toEqual([110, 130]);
    await scheduler.advance(100);
    expect(woken).toEqual(['early at 110', 'late at 130']);
    expect(scheduler.now()).toBe(205);
  });

  it('ends a sleep at once when its signal aborts', async () => {
    const scheduler = new FakeScheduler();
    const controller = new AbortController();
    const sleeping = scheduler.sleep(1_000, controller.signal);
    controller.abort();
    await sleeping;
    expect(scheduler.pending).toEqual([]);
    await scheduler.sleep(1_000, controller.signal);
  });

  it('runs what a woken sleeper does before waking the next', async () => {
    const scheduler = new FakeScheduler();
    const order: string[] = [];
    void (async () => {
      await scheduler.sleep(10);
      order.push('first woke');
      await scheduler.sleep(5);
      order.push('first woke again');
    })();
    void scheduler.sleep(20).then(() => order.push('second woke'));
    await scheduler.advance(30);
    expect(order).toEqual(['first woke', 'first woke again', 'second woke']);
  });
});

describe('systemScheduler', () => {
  it('sleeps in real time and wakes early on abort', async () => {
    // A lower bound only: a loaded machine may sleep longer, never shorter (timers fire at most a millisecond early).
    const before = systemScheduler.now();
    await systemScheduler.sleep(50);
    expect(systemScheduler.now() - before).toBeGreaterThanOrEqual(49);
    // An hour's sleep that only its abort can end within the test's time.
    const controller = new AbortController();
    const sleeping = systemScheduler.sleep(3_600_000, controller.signal);
    controller.abort();
    await sleeping;
    await systemScheduler.sleep(3_600_000, controller.signal);
    expect(systemScheduler.now() - before).toBeLessThan(3_600_000);
  });
});
