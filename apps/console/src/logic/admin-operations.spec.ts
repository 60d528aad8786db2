import {
  followedTasksOf,
  formatDuration,
  formatMegabytes,
  isTaskId,
  parseRestoreAnswer,
  restoreBody,
  restoreProblem,
  restoreScope,
  sortedIndexSizes,
  taskIdInMessage,
  taskProgressOf,
  withFollowedTask,
  withoutFollowedTask,
} from './admin-operations';

describe('index sizes', () => {
  it('sorts largest first, reading either size field', () => {
    expect(
      sortedIndexSizes([
        { indexName: 'b', entityName: 'dataset', aspectName: 'x', sizeInMb: 1 },
        { indexName: 'a', entityName: 'chart', aspectName: 'y', sizeMb: 3 },
        { indexName: 'c', entityName: 'chart', aspectName: 'z' },
      ]).map((row) => [row.indexName, row.megabytes]),
    ).toEqual([
      ['a', 3],
      ['b', 1],
      ['c', 0],
    ]);
  });

  it('formats sizes', () => {
    expect(formatMegabytes(0.032768)).toBe('32.8 kB');
    expect(formatMegabytes(12.345)).toBe('12.35 MB');
    expect(formatMegabytes(250.4)).toBe('250 MB');
    expect(formatMegabytes(2500)).toBe('2.50 GB');
  });
});

describe('taskProgressOf', () => {
  const rebuild = JSON.stringify({
    completed: false,
    taskId: 'node:1',
    runTimeNanos: 628_000_000,
    status: JSON.stringify({
      total: 200,
      created: 50,
      updated: 0,
      deleted: 0,
      batches: 1,
      phase: 'restating',
      rows_per_second: 8833,
      change_logs_pending: 12,
      eta_millis: 4000,
      version_conflicts: 0,
    }),
  });

  it('reads a running rebuild: phase, share done, rate, time left', () => {
    const progress = taskProgressOf('node:1', rebuild);
    expect(progress).toMatchObject({
      taskId: 'node:1',
      known: true,
      completed: false,
      error: undefined,
      phase: 'restating',
      done: 50,
      total: 200,
      fraction: 0.25,
      ratePerSecond: 8833,
      rateUnit: 'rows/s',
      etaMillis: 4000,
      runTimeMillis: 628,
      pendingChangeLogs: 12,
    });
    expect(progress.details).toEqual([
      { name: 'updated', value: '0' },
      { name: 'deleted', value: '0' },
      { name: 'batches', value: '1' },
      { name: 'version conflicts', value: '0' },
    ]);
  });

  it('counts a truncation by what it deleted, and a finished task as whole', () => {
    const truncation = JSON.stringify({
      completed: true,
      taskId: 'n:12',
      status: JSON.stringify({ total: 2, created: 0, updated: 0, deleted: 2 }),
    });
    expect(taskProgressOf('n:12', truncation)).toMatchObject({ completed: true, done: 2, total: 2, fraction: 1 });
  });

  it('reports a failed task with its error, and an unknown one', () => {
    const failed = JSON.stringify({ completed: true, taskId: 'n:3', error: 'task_interrupted: restart', status: '{}' });
    expect(taskProgressOf('n:3', failed)).toMatchObject({
      known: true,
      completed: true,
      error: 'task_interrupted: restart',
    });
    expect(taskProgressOf('x:99', JSON.stringify({ error: 'Could not get task status for x:99' }))).toMatchObject({
      known: false,
      completed: true,
      error: 'Could not get task status for x:99',
    });
    expect(taskProgressOf('x:1', 'not json').known).toBe(false);
  });

  it('reads a metadata test evaluation task (counters as an object)', () => {
    const progress = taskProgressOf('n:4', {
      completed: false,
      taskId: 'n:4',
      status: { total: 10, evaluated: 4, pushed: 1, entities_per_second: 20, phase: 'evaluating' },
    });
    expect(progress).toMatchObject({ done: 4, total: 10, fraction: 0.4, ratePerSecond: 20, rateUnit: 'entities/s' });
  });

  it('formats durations', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_300)).toBe('12 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(7_440_000)).toBe('2 h 4 min');
  });
});

describe('followed tasks in the URL', () => {
  it('keeps valid ids, newest first, without repeats', () => {
    expect(isTaskId('aB1-_x:12')).toBe(true);
    expect(isTaskId('node:0')).toBe(false);
    expect(isTaskId('node')).toBe(false);
    const params = new URLSearchParams('task=a:1,bad,b:2,a:1&other=x');
    expect(followedTasksOf(params)).toEqual(['a:1', 'b:2']);
    const added = withFollowedTask(params, 'b:2');
    expect(added.get('task')).toBe('b:2,a:1');
    expect(added.get('other')).toBe('x');
    expect(withoutFollowedTask(new URLSearchParams('task=a:1'), 'a:1').has('task')).toBe(false);
    expect(withoutFollowedTask(new URLSearchParams('task=a:1,b:2'), 'a:1').get('task')).toBe('b:2');
  });

  it('finds the running task a refusal names', () => {
    expect(taskIdInMessage('A rebuild is running: task xY_z-1:7')).toBe('xY_z-1:7');
    expect(taskIdInMessage('nothing here')).toBeUndefined();
  });
});

describe('restoreIndices', () => {
  const answer =
    '{args=RestoreIndicesArgs(start=0, batchSize=1000, aspectName=datasetProperties, urn=null, urnLike=urn:li:dataset:(urn:li:dataPlatform:hive,%), ' +
    'result=RestoreIndicesResult(ignored=1, rowsMigrated=1000, timeSqlQueryMs=88, sendMessageMs=41, timeTakenMs=131, ' +
    'lastUrn=urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD), lastAspect=datasetProperties, nextStart=1000, complete=false)}';

  it('reads a batch from the answer text', () => {
    expect(parseRestoreAnswer(answer)).toEqual({
      rowsMigrated: 1000,
      ignored: 1,
      timeTakenMs: 131,
      lastUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)',
      lastAspect: 'datasetProperties',
      nextStart: 1000,
      complete: false,
    });
    const done = answer.replace('complete=false', 'complete=true').replace(/lastUrn=[^ ]+ /, 'lastUrn=null, ');
    expect(parseRestoreAnswer(done)).toMatchObject({ complete: true, lastUrn: undefined });
    expect(parseRestoreAnswer('something else')).toBeUndefined();
    expect(parseRestoreAnswer(42)).toBeUndefined();
  });

  it('builds a batch request, checks it, and says what it covers', () => {
    const request = { urn: '', urnLike: ' urn:li:dataset:% ', aspect: 'status', batchSize: 500 };
    expect(restoreBody(request, 1500)).toEqual({
      start: 1500,
      batchSize: 500,
      urnLike: 'urn:li:dataset:%',
      aspect: 'status',
    });
    expect(restoreProblem(request)).toBeUndefined();
    expect(restoreProblem({ ...request, batchSize: 0 })).toMatch(/batch size/);
    expect(restoreProblem({ ...request, batchSize: 1.5 })).toMatch(/batch size/);
    expect(restoreProblem({ ...request, urn: 'orders' })).toMatch(/urn:li:/);
    expect(restoreScope(request)).toBe('URNs matching urn:li:dataset:%, the aspect status');
    expect(restoreScope({ urn: '', urnLike: '', aspect: '', batchSize: 1 })).toBe('every stored row');
  });
});
