import { performance } from 'node:perf_hooks';

import { createEventSerde, defaultTopicNames as topics, RecordHeader } from '@strata/events';
import type { RequestContext, Route } from '@strata/http';
import { BadRequestError, timeseriesPointId } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { readSchemas } from '@strata/schemas';
import { SqliteAspectStore, type AspectMutation, type OutboxRecord } from '@strata/store';
import type { OutboxRelay } from '../consumers/outbox-relay';
import { restoreRoutes, ROWS_READ_PER_TRANSACTION, type RestateResult } from './restore-routes';

const registry = testEntityRegistry();
const serde = createEventSerde(readSchemas());
const WRITER = 'urn:li:corpuser:writer';
const hive = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const kafka = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:kafka,${name},PROD)`;

const context: RequestContext = {
  requestId: 'restore-1',
  traceId: 'trace-1',
  actor: 'urn:li:corpuser:admin',
  sourceIp: '10.0.0.1',
  userAgent: undefined,
  eventSource: 'RESTLI',
  url: '/internal/restate',
  header: () => undefined,
};

let store: SqliteAspectStore;
let published: OutboxRecord[];
let routes: Route[];
/** Whether the log refuses what the relay publishes. */
let logRefuses: boolean;

beforeEach(async () => {
  store = new SqliteAspectStore({ path: ':memory:' });
  published = [];
  logRefuses = false;
  // The relay's part: what the outbox holds is published, and leaves it — unless the log refuses it.
  const relay = {
    flush: async () => {
      if (logRefuses) return false;
      const pending = await store.pendingOutbox(100_000);
      published.push(...pending);
      await store.markPublished(pending.map((record) => record.id));
      return true;
    },
  } as unknown as OutboxRelay;
  routes = restoreRoutes({ store, registry, serde, topics, relay, now: () => 0 });
  const put = (urn: string, aspect: string, value: object, createdOn: number): AspectMutation => ({
    kind: 'put',
    urn,
    aspect,
    expectedVersion: 0,
    row: {
      version: 1,
      value: { ...value },
      systemMetadata: { runId: `run-${createdOn}` },
      createdOn,
      createdBy: WRITER,
    },
  });
  const point = (urn: string, timestampMillis: number): AspectMutation => {
    const value = { timestampMillis, rowCount: timestampMillis };
    return {
      kind: 'putTimeseries',
      value: {
        urn,
        aspect: 'datasetProfile',
        id: timeseriesPointId(urn, value),
        timestampMillis,
        value,
        systemMetadata: { runId: 'profiling' },
        createdOn: timestampMillis,
        createdBy: WRITER,
      },
    };
  };
  await store.commit({
    mutations: [
      put(hive('a'), 'status', { removed: false }, 11),
      put(hive('a'), 'datasetProperties', { description: 'orders' }, 12),
      put(hive('b'), 'status', { removed: true }, 13),
      put(kafka('c'), 'status', { removed: false }, 14),
      point(hive('a'), 100),
      point(hive('a'), 200),
    ],
    outbox: [],
    appliedProposalIds: [],
  });
});

afterEach(async () => {
  await store.close();
});

function route(resource: string): Route {
  const found = routes.find((candidate) => candidate.resource === resource);
  if (found === undefined) throw new Error(`no route for ${resource}`);
  return found;
}

async function restate(body: object): Promise<RestateResult> {
  const response = await route('/internal/restate').invoke({ query: {}, body, key: undefined, params: {}, context });
  return response.body as RestateResult;
}

const decoded = () =>
  published.map((record) => ({
    topic: record.topic,
    headers: record.headers,
    log: serde.changeLog.decode(record.value),
  }));

describe('POST /internal/restate', () => {
  it('given stored rows, when all are restated, then each is a RESTATE change log with its stamp and system metadata', async () => {
    const result = await restate({ limit: 100 });
    expect(result).toMatchObject({ rows: 6, skipped: 0, ignored: 0, exhausted: true, published: true });
    const logs = decoded();
    expect(logs.map(({ log }) => [log.entityUrn, log.aspectName, log.changeType])).toEqual([
      [hive('a'), 'datasetProperties', 'RESTATE'],
      [hive('a'), 'status', 'RESTATE'],
      [hive('b'), 'status', 'RESTATE'],
      [kafka('c'), 'status', 'RESTATE'],
      [hive('a'), 'datasetProfile', 'RESTATE'],
      [hive('a'), 'datasetProfile', 'RESTATE'],
    ]);
    const properties = logs[0]!;
    expect(properties.topic).toBe(topics.metadataChangeLogVersioned);
    expect(JSON.parse(properties.log.aspect!.value.toString())).toEqual({ description: 'orders' });
    expect(properties.log.created).toMatchObject({ time: 12, actor: WRITER });
    expect(properties.log.systemMetadata?.runId).toBe('run-12');
    expect(properties.log.previousAspectValue).toBeNull();
    expect(properties.headers[RecordHeader.actor]).toBe(context.actor);
    expect(properties.headers[RecordHeader.changeId]).toBe(`restate/restore-1/${hive('a')}/datasetProperties`);
    expect(logs.slice(4).every(({ topic }) => topic === topics.metadataChangeLogTimeseries)).toBe(true);
  });

  it('given a LIKE pattern or a regular expression, when restated, then only the URNs it matches are', async () => {
    await restate({ urnLike: 'urn:li:dataset:(urn:li:dataPlatform:hive,%', aspect: 'status', limit: 100 });
    expect(decoded().map(({ log }) => log.entityUrn)).toEqual([hive('a'), hive('b')]);
    published = [];
    await restate({ urnLike: '.*kafka.*', limit: 100 });
    expect(decoded().map(({ log }) => log.entityUrn)).toEqual([kafka('c')]);
  });

  it('given a window of write times, when restated, then only the rows written in it (bounds included) are', async () => {
    expect(await restate({ gePitEpochMs: 12, lePitEpochMs: 13, limit: 100 })).toMatchObject({
      rows: 2,
      exhausted: true,
    });
    expect(decoded().map(({ log }) => [log.entityUrn, log.aspectName])).toEqual([
      [hive('a'), 'datasetProperties'],
      [hive('b'), 'status'],
    ]);
    published = [];
    await restate({ gePitEpochMs: 100, limit: 100 });
    expect(decoded().map(({ log }) => log.aspectName)).toEqual(['datasetProfile', 'datasetProfile']);
    published = [];
    await restate({ lePitEpochMs: 11, limit: 100 });
    expect(decoded().map(({ log }) => [log.entityUrn, log.aspectName])).toEqual([[hive('a'), 'status']]);
  });

  it('given a window, when restated in steps by start, then each step continues its own window only', async () => {
    const window = { gePitEpochMs: 12, lePitEpochMs: 200 };
    expect(await restate({ ...window, limit: 2 })).toMatchObject({ rows: 2, exhausted: false });
    expect(await restate({ ...window, start: 2, limit: 10 })).toMatchObject({ rows: 3, skipped: 2, exhausted: true });
    // The same start without the window is another restore: it passes over the first two of every row.
    expect(await restate({ start: 2, limit: 10 })).toMatchObject({ rows: 4, skipped: 2, exhausted: true });
  });

  it('given start and a limit, when restated in steps, then every row comes once and the last step says so', async () => {
    const first = await restate({ start: 1, limit: 2 });
    expect(first).toMatchObject({ rows: 2, skipped: 1, exhausted: false });
    const second = await restate({ after: first.last, limit: 10 });
    expect(second).toMatchObject({ rows: 3, exhausted: true });
    expect(decoded()).toHaveLength(5);
  });

  it('given a call starting where the previous one ended, when restated, then it resumes right after its last row', async () => {
    const first = await restate({ limit: 2 });
    expect(first.rows).toBe(2);
    // A row written meanwhile before the point reached does not shift the next page.
    await store.commit({
      mutations: [
        {
          kind: 'put',
          urn: 'urn:li:corpuser:aaa',
          aspect: 'status',
          expectedVersion: 0,
          row: { version: 1, value: { removed: false }, systemMetadata: {}, createdOn: 1, createdBy: WRITER },
        },
      ],
      outbox: [],
      appliedProposalIds: [],
    });
    const second = await restate({ start: 2, limit: 10 });
    expect(second).toMatchObject({ rows: 4, skipped: 2, exhausted: true });
    expect(decoded().map(({ log }) => `${log.entityUrn} ${log.aspectName}`)).toEqual([
      `${hive('a')} datasetProperties`,
      `${hive('a')} status`,
      `${hive('b')} status`,
      `${kafka('c')} status`,
      `${hive('a')} datasetProfile`,
      `${hive('a')} datasetProfile`,
    ]);
  });

  it('given the log refuses the change logs, when restated, then the answer says they are not published; a later call, once the log takes them, says they are', async () => {
    logRefuses = true;
    const refused = await restate({ limit: 100 });
    expect(refused).toMatchObject({ rows: 6, exhausted: true, published: false });
    expect(published).toEqual([]);

    logRefuses = false;
    const after = await restate({ after: refused.last, limit: 100 });
    expect(after).toMatchObject({ rows: 0, exhausted: true, published: true });
    expect(decoded()).toHaveLength(6);
  });

  it('given one entity, when restated, then only its rows are', async () => {
    const result = await restate({ urn: hive('b'), limit: 10 });
    expect(result.rows).toBe(1);
  });

  it.each([
    [{ urnLike: 'urn:li:(dataset', limit: 10 }, /urnLike is not a valid regular expression/],
    [{ aspect: 'noSuchAspect', limit: 10 }, /Unknown aspect noSuchAspect/],
    [{ urn: 'not-a-urn', limit: 10 }, /Invalid urn/],
    [{ limit: 0 }, /limit/],
  ])('given bad input %j, when restated, then it is a 400', async (body, message) => {
    const attempt = route('/internal/restate').invoke({ query: {}, body, key: undefined, params: {}, context });
    await expect(attempt).rejects.toThrow(BadRequestError);
    await expect(attempt).rejects.toThrow(message);
  });
});

describe('POST /internal/timeseries/truncate', () => {
  it('given points, when truncated up to a time, then the durable points up to it go and no restore brings them back', async () => {
    const response = await route('/internal/timeseries/truncate').invoke({
      query: {},
      body: { entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 100, batchSize: 1 },
      key: undefined,
      params: {},
      context,
    });
    expect(response.body).toEqual({ deleted: 1 });
    expect((await store.getTimeseries(hive('a'), 'datasetProfile')).map((point) => point.timestampMillis)).toEqual([
      200,
    ]);
    await restate({ aspect: 'datasetProfile', limit: 10 });
    expect(decoded()).toHaveLength(1);
  });
});

describe('POST /internal/restate over many rows it does not select', () => {
  const user = (index: number) => `urn:li:corpuser:user-${String(index).padStart(4, '0')}`;
  const USERS = 5_000;

  beforeEach(async () => {
    const mutations: AspectMutation[] = Array.from({ length: USERS }, (_unused, index) => ({
      kind: 'put',
      urn: user(index),
      aspect: 'status',
      expectedVersion: 0,
      row: { version: 1, value: { removed: false }, systemMetadata: {}, createdOn: 1, createdBy: WRITER },
    }));
    await store.commit({ mutations, outbox: [], appliedProposalIds: [] });
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('given a pattern matching none of thousands of rows, when restated, then the store is read in bounded pages with an event-loop turn between them', async () => {
    // Each page takes longer than the event-loop slice (by the clock the slice reads), so the route must give the
    // event loop a turn after each one; a turn is seen as a tick of a heartbeat of immediates.
    let clock = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => clock);
    let turns = 0;
    let beating = true;
    const beat = () => {
      turns += 1;
      if (beating) setImmediate(beat);
    };
    setImmediate(beat);
    const turnsAtPages: number[] = [];
    const restatePage = store.restate.bind(store);
    jest.spyOn(store, 'restate').mockImplementation((request, toRecords) => {
      turnsAtPages.push(turns);
      clock += 1_000;
      expect(request.scanLimit).toBe(ROWS_READ_PER_TRANSACTION);
      return restatePage(request, toRecords);
    });
    try {
      const result = await restate({ urnLike: '%kafka%', limit: 100 });
      expect(result).toMatchObject({ rows: 1, exhausted: true });
      expect(decoded().map(({ log }) => log.entityUrn)).toEqual([kafka('c')]);
    } finally {
      beating = false;
    }
    // 5,006 rows in sequence: at least three pages, the event loop turning between each two.
    expect(turnsAtPages.length).toBeGreaterThanOrEqual(Math.ceil(USERS / ROWS_READ_PER_TRANSACTION));
    for (const [index, atPage] of turnsAtPages.slice(1).entries()) {
      expect(atPage).toBeGreaterThan(turnsAtPages[index] as number);
    }
  });

  it('given start beyond the matches of the first page read, when restated, then the rest are passed over in the next pages', async () => {
    // Every tenth user matches: user-0009, user-0019, …; the 301st is user-3009.
    const result = await restate({ urnLike: 'urn:li:corpuser:user-%9', start: 300, limit: 2 });
    expect(result).toMatchObject({ rows: 2, skipped: 300, exhausted: false });
    expect(decoded().map(({ log }) => log.entityUrn)).toEqual([user(3009), user(3019)]);
  });
});
