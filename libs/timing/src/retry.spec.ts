import { backoffDelay } from './backoff';
import { retry, RetryAbortedError } from './retry';
import { FakeScheduler } from './testing';

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const backoff = { initialMs: 50, maxMs: 300 };
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(backoff, attempt))).toEqual([50, 100, 200, 300, 300]);
  });

  it('waits the same time before every retry with a factor of 1, and survives huge attempt numbers', () => {
    expect(backoffDelay({ initialMs: 250, maxMs: 1000, factor: 1 }, 7)).toBe(250);
    expect(backoffDelay({ initialMs: 1, maxMs: 30_000 }, 10_000)).toBe(30_000);
  });
});

describe('retry', () => {
  /** An operation failing `failures` times, then answering 'done'; it records when each attempt ran. */
  function flaky(scheduler: FakeScheduler, failures: number) {
    const attempts: number[] = [];
    return {
      attempts,
      operation: (attempt: number): Promise<string> => {
        attempts.push(scheduler.now());
        return attempt <= failures ? Promise.reject(new Error(`failure ${attempt}`)) : Promise.resolve('done');
      },
    };
  }

  it('waits the backoff after each failure, on the scheduler’s time, then resolves', async () => {
    const scheduler = new FakeScheduler(1_000);
    const { attempts, operation } = flaky(scheduler, 3);
    const failures: [string, number][] = [];
    const result = retry(operation, {
      scheduler,
      backoff: { initialMs: 50, maxMs: 150 },
      onFailure: (error, attempt) => failures.push([(error as Error).message, attempt]),
    });

    await scheduler.untilSleeping();
    expect(scheduler.pending).toEqual([1_050]);
    await scheduler.advance(49);
    expect(attempts).toEqual([1_000]);
    await scheduler.advance(1);
    await scheduler.advance(100);
    await scheduler.advance(150);
    await expect(result).resolves.toBe('done');
    expect(attempts).toEqual([1_000, 1_050, 1_150, 1_300]);
    expect(failures).toEqual([
      ['failure 1', 1],
      ['failure 2', 2],
      ['failure 3', 3],
    ]);
  });

  it('throws the last error once the attempts are spent', async () => {
    const scheduler = new FakeScheduler();
    const { attempts, operation } = flaky(scheduler, 10);
    const result = retry(operation, { scheduler, backoff: () => 10, attempts: 3 });
    const rejected = expect(result).rejects.toThrow('failure 3');
    await scheduler.advance(10);
    await scheduler.advance(10);
    await rejected;
    expect(attempts).toEqual([0, 10, 20]);
  });

  it('throws at once an error that is not retryable', async () => {
    const scheduler = new FakeScheduler();
    const { attempts, operation } = flaky(scheduler, 10);
    const result = retry(operation, {
      scheduler,
      backoff: () => 10,
      retryable: (error) => (error as Error).message !== 'failure 2',
    });
    const rejected = expect(result).rejects.toThrow('failure 2');
    await scheduler.advance(10);
    await rejected;
    expect(attempts).toEqual([0, 10]);
    expect(scheduler.pending).toEqual([]);
  });

  it('gives up rather than start an attempt after the time limit', async () => {
    const scheduler = new FakeScheduler();
    const { attempts, operation } = flaky(scheduler, 10);
    const result = retry(operation, { scheduler, backoff: () => 250, timeoutMs: 600 });
    const rejected = expect(result).rejects.toThrow('failure 3');
    await scheduler.advance(250);
    await scheduler.advance(250);
    await rejected;
    expect(attempts).toEqual([0, 250, 500]);
  });

  it('stops waiting when its signal aborts, rejecting with RetryAbortedError carrying the last error', async () => {
    const scheduler = new FakeScheduler();
    const { attempts, operation } = flaky(scheduler, 10);
    const controller = new AbortController();
    const result = retry(operation, { scheduler, backoff: () => 60_000, signal: controller.signal });
    await scheduler.untilSleeping();
    controller.abort();
    const error = await result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryAbortedError);
    expect((error as RetryAbortedError).cause).toEqual(new Error('failure 1'));
    expect(attempts).toEqual([0]);
    expect(scheduler.pending).toEqual([]);
  });

  it('waits with the given wait function, for the backoff’s delay', async () => {
    const scheduler = new FakeScheduler();
    const { operation } = flaky(scheduler, 2);
    const waits: number[] = [];
    await expect(
      retry(operation, {
        scheduler,
        backoff: { initialMs: 5, maxMs: 100 },
        wait: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      }),
    ).resolves.toBe('done');
    expect(waits).toEqual([5, 10]);
  });
});
