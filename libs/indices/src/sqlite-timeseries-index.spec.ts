import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { FakeScheduler } from '@strata/timing/testing';

import { SqliteTimeseriesIndex, type SqliteTimeseriesIndexOptions } from './sqlite-timeseries-index';
import { describeTimeseriesIndexContract } from './testing';
import type { TaskId, TaskStatus, TimeseriesAspectRef, TimeseriesIndex, TimeseriesPoint } from './timeseries-index';

describeTimeseriesIndexContract('SqliteTimeseriesIndex', {
  create: (aspects) => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-timeseries-'));
    const path = join(directory, 'timeseries.sqlite');
    return Promise.resolve({
      index: new SqliteTimeseriesIndex({ path, aspects }),
      reopen: () => Promise.resolve(new SqliteTimeseriesIndex({ path, aspects })),
      dispose: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
});

describe('SqliteTimeseriesIndex', () => {
  const PROFILE: TimeseriesAspectRef = { entity: 'dataset', aspect: 'datasetProfile' };
  const URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';
  const T0 = 1_700_000_000_000;

  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A file of its own, and a way to open (and have closed) indices on it. */
  function file(options: Partial<SqliteTimeseriesIndexOptions> = {}) {
    const directory = mkdtempSync(join(tmpdir(), 'strata-timeseries-'));
    const path = join(directory, 'timeseries.sqlite');
    cleanups.push(() => {
      rmSync(directory, { recursive: true, force: true });
    });
    const open = (): SqliteTimeseriesIndex => {
      const index = new SqliteTimeseriesIndex({ path, aspects: [PROFILE], ...options });
      cleanups.push(() => index.close());
      return index;
    };
    return { path, open };
  }

  function point(offset: number, fields: TimeseriesPoint['fields'] = {}): TimeseriesPoint {
    return {
      ...PROFILE,
      id: `p-${String(offset).padStart(6, '0')}`,
      urn: URN,
      timestampMillis: T0 + offset,
      value: JSON.stringify({ timestampMillis: T0 + offset }),
      systemMetadata: undefined,
      fields,
    };
  }

  async function putPoints(index: TimeseriesIndex, count: number): Promise<void> {
    await index.apply(Array.from({ length: count }, (_, offset) => ({ kind: 'put', point: point(offset) })));
  }

  async function completion(index: TimeseriesIndex, task: TaskId): Promise<TaskStatus> {
    for (let attempt = 0; attempt < 2_000; attempt += 1) {
      const status = await index.taskStatus(task);
      if (status?.completed === true) return status;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('the task did not complete');
  }

  it('keeps a table per index with its indices, and a node id of its own, kept across reopening', async () => {
    const { path, open } = file();
    const index = open();
    await index.apply([{ kind: 'put', point: point(0, { pipelineName: 'ingest' }) }]);
    const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0 - 1, batchSize: 10 });
    expect(task.nodeId).toMatch(/^[a-zA-Z0-9_-]{22}$/);
    await index.close();

    const db = new Database(path, { readonly: true });
    try {
      const objects = db
        .prepare(
          `SELECT type, name FROM sqlite_schema WHERE tbl_name = 'dataset_datasetprofileaspect_v1' ORDER BY name`,
        )
        .all();
      expect(objects).toEqual([
        { type: 'table', name: 'dataset_datasetprofileaspect_v1' },
        { type: 'index', name: 'dataset_datasetprofileaspect_v1_by_time' },
        { type: 'index', name: 'dataset_datasetprofileaspect_v1_by_urn' },
        { type: 'index', name: 'sqlite_autoindex_dataset_datasetprofileaspect_v1_1' },
      ]);
      expect(db.prepare('SELECT * FROM dataset_datasetprofileaspect_v1').all()).toEqual([
        {
          id: 'p-000000',
          urn: URN,
          timestampmillis: T0,
          value: JSON.stringify({ timestampMillis: T0 }),
          systemmetadata: null,
          fields: '{"pipelineName":"ingest"}',
        },
      ]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    expect((await open().taskStatus(task))?.task).toEqual(task);
  });

  it('reports a task a crash left running as interrupted, at the next open', async () => {
    const { path, open } = file();
    const first = open();
    const { nodeId } = await first.startTruncation({ ...PROFILE, endTimeMillis: T0, batchSize: 10 });
    await first.close();
    const db = new Database(path);
    const number = Number(
      db
        .prepare(`INSERT INTO timeseries_task (kind, request, started_at, counters) VALUES ('truncation', '{}', ?, ?)`)
        .run(T0, JSON.stringify({ total: 5, deleted: 2, batches: 1 })).lastInsertRowid,
    );
    db.close();

    const status = await open().taskStatus({ nodeId, number });
    expect(status).toMatchObject({
      completed: true,
      status: { total: 5, deleted: 2, batches: 1 },
      error: { type: 'task_interrupted', reason: 'the process running the task stopped before it finished' },
    });
  });

  it('stops a running truncation on close, which then reports that it was interrupted', async () => {
    const { open } = file();
    const index = open();
    await putPoints(index, 500);
    const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0 + 1_000, batchSize: 1 });
    await index.close();

    const status = await open().taskStatus(task);
    expect(status?.completed).toBe(true);
    expect(status?.error?.type).toBe('task_interrupted');
    expect(status?.status.total).toBe(500);
    expect(status?.status.deleted).toBeLessThan(500);
  });

  it('stops a truncation at its timeout, reporting it, and times tasks with its scheduler', async () => {
    const scheduler = new FakeScheduler(T0);
    const { open } = file({ scheduler });
    const index = open();
    await putPoints(index, 500);
    const task = await index.startTruncation({
      ...PROFILE,
      endTimeMillis: T0 + 1_000,
      batchSize: 1,
      timeoutSeconds: 2,
    });
    await scheduler.advance(2_000);

    const status = await completion(index, task);
    expect(status.error).toEqual({ type: 'timeout', reason: 'the task ran longer than its timeout of 2 seconds' });
    expect(status.runTimeNanos).toBe(2_000 * 1e6);
    expect(status.status.deleted).toBeLessThan(500);
    expect(await index.count(PROFILE.entity, PROFILE.aspect)).toBe(500 - status.status.deleted);
  });

  it('lets a truncation running during a clear complete, with what it deleted before', async () => {
    const { open } = file();
    const index = open();
    await putPoints(index, 500);
    const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0 + 1_000, batchSize: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    await index.clear();

    const status = await completion(index, task);
    expect(status.error).toBeUndefined();
    expect(status.status.total).toBe(500);
    expect(status.status.deleted).toBeLessThan(500);
    expect(await index.count(PROFILE.entity, PROFILE.aspect)).toBe(0);
  });

  it('counts a truncation that removes nothing as done in no batch', async () => {
    const { open } = file();
    const index = open();
    await putPoints(index, 3);
    const status = await completion(
      index,
      await index.startTruncation({ ...PROFILE, endTimeMillis: T0 - 1, batchSize: 10 }),
    );
    expect(status.status).toMatchObject({ total: 0, deleted: 0, batches: 0, requests_per_second: -1 });
    expect(status.error).toBeUndefined();
  });

  it('takes any field name as a name, never as SQL', async () => {
    const { open } = file();
    const index = open();
    const names = [`we"ird`, `back\\slash`, `x'); DROP TABLE meta; --`, 'a.b', '$'];
    await index.apply(names.map((name, offset) => ({ kind: 'put', point: point(offset, { [name]: 'v' }) })));
    for (const [offset, name] of names.entries()) {
      const found = await index.query({
        ...PROFILE,
        urn: URN,
        limit: 10,
        filter: [[{ field: name, condition: 'EQUAL', values: ['v'], negated: false }]],
        sort: { field: name, order: 'DESCENDING' },
      });
      expect(found.map((match) => match.timestampMillis - T0)).toEqual([offset]);
    }
    expect(await index.count(PROFILE.entity, PROFILE.aspect)).toBe(names.length);
  });

  it('tolerates closing twice, and refuses calls once closed', async () => {
    const { open } = file();
    const index = open();
    await index.close();
    await index.close();
    await expect(index.count(PROFILE.entity, PROFILE.aspect)).rejects.toThrow();
  });
});
