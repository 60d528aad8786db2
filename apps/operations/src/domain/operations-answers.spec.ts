import { BadRequestError } from '@strata/model';
import { checkForceFlags, restoreValue, taskOf, taskStatusValue, truncationSummary } from './operations-answers';

describe('truncationSummary', () => {
  it("given a dry run deleting less than half, then it is DataHub's delete-by-query sentence", () => {
    expect(truncationSummary({ toDelete: 3, total: 10 }, { dryRun: true })).toBe(
      'Delete 3 out of 10 rows (30.00%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.',
    );
  });

  it('given more than half, or a forced reindex, then it says the rest is reindexed; a forced delete-by-query wins', () => {
    expect(truncationSummary({ toDelete: 6, total: 10 }, { dryRun: true })).toContain(
      'Reindexing the aspect without the deleted records. ',
    );
    expect(truncationSummary({ toDelete: 0, total: 201 }, { dryRun: true, forceReindex: true })).toBe(
      'Delete 0 out of 201 rows (0.00%). Reindexing the aspect without the deleted records. This was a dry run. Run with dryRun = false to execute.',
    );
    expect(truncationSummary({ toDelete: 9, total: 10 }, { dryRun: false, forceDeleteByQuery: true })).toBe(
      'Delete 9 out of 10 rows (90.00%). Issuing a delete by query request. ',
    );
  });

  it('given an empty index, then the percentage is 0.00 rather than NaN', () => {
    expect(truncationSummary({ toDelete: 0, total: 0 }, { dryRun: true })).toMatch(
      /^Delete 0 out of 0 rows \(0\.00%\)\. /,
    );
  });
});

describe('checkForceFlags', () => {
  it('given both force flags with the same value, then it is a 400 with DataHub’s text; otherwise nothing', () => {
    for (const value of [true, false]) {
      expect(() => {
        checkForceFlags({ dryRun: true, forceDeleteByQuery: value, forceReindex: value });
      }).toThrow(new BadRequestError('please only set forceReindex OR forceDeleteByQuery flags'));
    }
    expect(() => {
      checkForceFlags({ dryRun: true, forceDeleteByQuery: true, forceReindex: false });
    }).not.toThrow();
    expect(() => {
      checkForceFlags({ dryRun: true, forceReindex: true });
    }).not.toThrow();
  });
});

describe('taskOf', () => {
  it('given either form, then it names the task', () => {
    expect(taskOf({ task: 'aB1-c_d:42' })).toEqual({ nodeId: 'aB1-c_d', number: 42 });
    expect(taskOf({ nodeId: 'node', taskId: 7 })).toEqual({ nodeId: 'node', number: 7 });
    expect(taskOf({ nodeId: 'node', taskId: 7, task: 'node:7' })).toEqual({ nodeId: 'node', number: 7 });
  });

  it.each([
    [{}, 'Please specify either Node ID + task ID OR composite task parameters'],
    [{ nodeId: 'node', taskId: 0 }, 'Please specify either Node ID + task ID OR composite task parameters'],
    [
      { nodeId: 'node', taskId: 7, task: 'node:8' },
      'Please specify only one of Node ID + task ID OR composite task parameters',
    ],
    [{ task: 'node' }, 'Task should be in the form nodeId:taskId e.g. aB1cdEf2GHIJKLMnoPQr3S:123456 (got node)'],
    [{ task: 'node:0' }, 'Task should be in the form nodeId:taskId e.g. aB1cdEf2GHIJKLMnoPQr3S:123456 (got node:0)'],
    [{ task: 'no de:1' }, 'Task should be in the form nodeId:taskId e.g. aB1cdEf2GHIJKLMnoPQr3S:123456 (got no de:1)'],
    [
      { task: 'node:99999999999999999999' },
      'Task should be in the form nodeId:taskId e.g. aB1cdEf2GHIJKLMnoPQr3S:123456 (got node:99999999999999999999)',
    ],
  ])('given %j, then it is a 400: %s', (input, message) => {
    expect(() => taskOf(input)).toThrow(new BadRequestError(message));
  });
});

describe('taskStatusValue', () => {
  const task = { nodeId: 'node', number: 3 };

  it('given no report, then it is the not-found error object as a string', () => {
    expect(JSON.parse(taskStatusValue(task, undefined))).toEqual({ error: 'Could not get task status for node:3' });
  });

  it('given a report, then status is a second serialized string, as DataHub writes it, and a failure is named', () => {
    const status = { total: 5, deleted: 5, batches: 1, requests_per_second: -1 };
    const value = JSON.parse(taskStatusValue(task, { completed: true, runTimeNanos: 1_000, status })) as Record<
      string,
      unknown
    >;
    expect(value).toEqual({ completed: true, taskId: 'node:3', runTimeNanos: 1_000, status: JSON.stringify(status) });
    const failed = JSON.parse(
      taskStatusValue(task, {
        completed: true,
        runTimeNanos: 1,
        status,
        error: { type: 'task_interrupted', reason: 'the process stopped' },
      }),
    ) as Record<string, unknown>;
    expect(failed['error']).toBe('task_interrupted: the process stopped');
  });
});

describe('restoreValue', () => {
  it('given an outcome, then it reports rows, times and where to continue in the form of DataHub’s answer', () => {
    const value = restoreValue(
      { urnLike: 'urn:li:dataset:%', start: 10, batchSize: 5 },
      {
        rows: 5,
        ignored: 1,
        last: { urn: 'urn:li:dataset:x', aspect: 'status' },
        exhausted: false,
        readMs: 3,
        publishMs: 2,
        tookMs: 6,
      },
    );
    expect(value).toBe(
      '{args=RestoreIndicesArgs(start=10, batchSize=5, aspectName=null, urn=null, urnLike=urn:li:dataset:%), ' +
        'result=RestoreIndicesResult(ignored=1, rowsMigrated=4, timeSqlQueryMs=3, sendMessageMs=2, timeTakenMs=6, ' +
        'lastUrn=urn:li:dataset:x, lastAspect=status, nextStart=15, complete=false)}',
    );
  });

  it('given a window of write times, then its bounds are among the arguments, where DataHub prints them', () => {
    const outcome = { rows: 0, ignored: 0, last: undefined, exhausted: true, readMs: 0, publishMs: 0, tookMs: 0 };
    expect(restoreValue({ start: 0, batchSize: 5, gePitEpochMs: 100, lePitEpochMs: 200 }, outcome)).toContain(
      'RestoreIndicesArgs(start=0, batchSize=5, gePitEpochMs=100, lePitEpochMs=200, aspectName=null,',
    );
    expect(restoreValue({ start: 0, batchSize: 5, lePitEpochMs: 200 }, outcome)).toContain(
      'batchSize=5, lePitEpochMs=200, aspectName=null,',
    );
  });
});
