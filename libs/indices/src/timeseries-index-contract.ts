import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@strata/model';

import { trackedIndices, type IndexUnderTest } from './contract-handles';
import type { Criterion, Filter } from './search-index';
import {
  timeseriesIndexName,
  type TaskId,
  type TaskStatus,
  type TimeseriesAggregation,
  type TimeseriesAspectRef,
  type TimeseriesChange,
  type TimeseriesIndex,
  type TimeseriesPoint,
  type TimeseriesQuery,
} from './timeseries-index';

/** What {@link describeTimeseriesIndexContract} needs from an adapter. */
export interface TimeseriesIndexContractFactory {
  /**
   * Opens an index for these aspects, for one test; the suite closes it, then calls `dispose`. The index must start
   * empty (a fresh file, or indices under a prefix of the test's own): counts, sizes and truncations span an index.
   */
  create(aspects: readonly TimeseriesAspectRef[]): Promise<IndexUnderTest<TimeseriesIndex>>;
}

const PROFILE: TimeseriesAspectRef = { entity: 'dataset', aspect: 'datasetProfile' };
const USAGE: TimeseriesAspectRef = { entity: 'dataset', aspect: 'datasetUsageStatistics' };
const RUN_EVENT: TimeseriesAspectRef = { entity: 'dataProcessInstance', aspect: 'dataProcessInstanceRunEvent' };
const ASPECTS = [PROFILE, USAGE, RUN_EVENT];

const T0 = 1_700_000_000_000;

/** How long a test waits for a truncation to complete. */
const TASK_DEADLINE_MS = 20_000;

/**
 * The timeseries-index contract (the invariants stated on {@link TimeseriesIndex}), as one jest `describe` block to
 * run against every adapter. Every read goes through the port. Values are written as `JSON.stringify` writes them,
 * the form an engine that parses them (Elasticsearch keeps the value as an object) gives back.
 */
export function describeTimeseriesIndexContract(name: string, factory: TimeseriesIndexContractFactory): void {
  const open = trackedIndices(() => factory.create(ASPECTS));
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;

  /** A test's own URNs and point ids. */
  function scope() {
    sequence += 1;
    const urn = (name = 'orders') => `urn:li:dataset:(urn:li:dataPlatform:hive,${name}-${runId}-${sequence},PROD)`;
    let ids = 0;
    const point = (
      fields: Partial<Omit<TimeseriesPoint, 'fields'>> & {
        timestampMillis: number;
        fields?: TimeseriesPoint['fields'];
      },
      ref: TimeseriesAspectRef = PROFILE,
    ): TimeseriesPoint => {
      ids += 1;
      const timestampMillis = fields.timestampMillis;
      return {
        entity: ref.entity,
        aspect: ref.aspect,
        id: `${runId}-${sequence}-${String(ids).padStart(4, '0')}`,
        urn: urn(),
        value: JSON.stringify({ timestampMillis, rowCount: ids, columnCount: 3 }),
        systemMetadata: JSON.stringify({ runId: 'ingest-1', lastObserved: timestampMillis }),
        fields: {},
        ...fields,
      };
    };
    const query = (fields: Partial<TimeseriesQuery> = {}): TimeseriesQuery => ({
      entity: PROFILE.entity,
      aspect: PROFILE.aspect,
      urn: urn(),
      limit: 100,
      ...fields,
    });
    return { urn, point, query };
  }

  const puts = (points: readonly TimeseriesPoint[]): TimeseriesChange[] =>
    points.map((point) => ({ kind: 'put', point }));

  /** The times of a query's points, as offsets from T0, in the order answered. */
  async function times(index: TimeseriesIndex, query: TimeseriesQuery): Promise<number[]> {
    return (await index.query(query)).map((point) => point.timestampMillis - T0);
  }

  /** The status of a task once it completed. */
  async function completion(index: TimeseriesIndex, task: TaskId): Promise<TaskStatus> {
    const deadline = Date.now() + TASK_DEADLINE_MS;
    for (;;) {
      const status = await index.taskStatus(task);
      if (status?.completed === true) return status;
      if (Date.now() > deadline)
        throw new Error(`Task ${task.nodeId}:${task.number} did not complete: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  describe(`${name} satisfies the TimeseriesIndex contract`, () => {
    it('names each index as DataHub does', async () => {
      const { index } = await open();
      for (const ref of ASPECTS) {
        expect(index.indexName(ref.entity, ref.aspect).endsWith(timeseriesIndexName(ref.entity, ref.aspect))).toBe(
          true,
        );
      }
      expect(timeseriesIndexName(PROFILE.entity, PROFILE.aspect)).toBe('dataset_datasetprofileaspect_v1');
    });

    describe('writes', () => {
      it('answers the points of one entity in one index, newest first, whole', async () => {
        const { index } = await open();
        const { urn, point, query } = scope();
        const points = [
          point({ timestampMillis: T0 + 1, fields: { rowCount: 12, eventGranularity: '{"unit":"DAY","multiple":1}' } }),
          point({ timestampMillis: T0 + 3, systemMetadata: undefined, fields: { 'partitionSpec.partition': 'FULL' } }),
          point({ timestampMillis: T0 + 2, fields: { runId: 'ingest-1', messageId: 'm-1', complete: true } }),
        ];
        await index.apply(
          puts([
            ...points,
            point({ timestampMillis: T0 + 2, urn: urn('other') }),
            point({ timestampMillis: T0 + 2 }, USAGE),
          ]),
        );
        expect(await index.query(query())).toEqual([points[1], points[2], points[0]]);
      });

      it('replaces a point written again under its id, within a list and across lists', async () => {
        const { index } = await open();
        const { point, query } = scope();
        const first = point({ timestampMillis: T0, fields: { rowCount: 1 } });
        const second = {
          ...first,
          value: JSON.stringify({ timestampMillis: T0, rowCount: 2 }),
          fields: { rowCount: 2 },
        };
        const third = {
          ...first,
          value: JSON.stringify({ timestampMillis: T0, rowCount: 3 }),
          fields: { rowCount: 3 },
        };
        await index.apply(puts([first, second]));
        expect(await index.query(query())).toEqual([second]);
        await index.apply(puts([third]));
        expect(await index.query(query())).toEqual([third]);
        expect(await index.count(PROFILE.entity, PROFILE.aspect)).toBe(1);
      });

      it('keeps what it applied across closing and reopening', async () => {
        const { index, reopen } = await open();
        const { point, query } = scope();
        const kept = point({ timestampMillis: T0 + 1, fields: { rowCount: 7 } });
        const removed = point({ timestampMillis: T0 });
        await index.apply(puts([kept, removed]));
        await index.apply([{ kind: 'deleteRange', ...PROFILE, urn: removed.urn, endTimeMillis: T0 }]);
        await index.close();
        expect(await (await reopen()).query(query())).toEqual([kept]);
      });

      it('applies a list in order: a delete removes the puts before it, not those after', async () => {
        const { index } = await open();
        const { urn, point, query } = scope();
        const before = point({ timestampMillis: T0 + 1 });
        const after = point({ timestampMillis: T0 + 2 });
        const usageBefore = point({ timestampMillis: T0 + 1 }, USAGE);
        const usageAfter = point({ timestampMillis: T0 + 3 }, USAGE);
        await index.apply([
          { kind: 'put', point: before },
          { kind: 'put', point: usageBefore },
          { kind: 'deleteRange', ...PROFILE, urn: urn(), startTimeMillis: T0, endTimeMillis: T0 + 5 },
          { kind: 'put', point: after },
          { kind: 'deleteEntity', entity: 'dataset', urn: urn() },
          { kind: 'put', point: usageAfter },
        ]);
        expect(await index.query(query())).toEqual([]);
        expect(await index.query(query(USAGE))).toEqual([usageAfter]);
      });

      it('refuses an aspect it was not opened for, changing nothing', async () => {
        const { index } = await open();
        const { point, query } = scope();
        const unknown = { entity: 'dataset', aspect: 'noSuchAspect' };
        await expect(
          index.apply(puts([point({ timestampMillis: T0 }), point({ timestampMillis: T0 }, unknown)])),
        ).rejects.toBeInstanceOf(ValidationError);
        expect(await index.query(query())).toEqual([]);
        await expect(index.query(query(unknown))).rejects.toBeInstanceOf(ValidationError);
        await expect(index.count(unknown.entity, unknown.aspect)).rejects.toBeInstanceOf(ValidationError);
      });
    });

    describe('queries', () => {
      it('breaks ties of time by id ascending', async () => {
        const { index } = await open();
        const { point, query } = scope();
        const tied = ['d', 'b', 'c', 'a'].map((letter) =>
          point({ timestampMillis: T0, id: `${runId}-${sequence}-${letter}` }),
        );
        const newer = point({ timestampMillis: T0 + 1 });
        const older = point({ timestampMillis: T0 - 1 });
        await index.apply(puts([older, ...tied, newer]));
        expect((await index.query(query())).map((found) => found.id)).toEqual([
          newer.id,
          ...['a', 'b', 'c', 'd'].map((letter) => `${runId}-${sequence}-${letter}`),
          older.id,
        ]);
      });

      it('includes both bounds, and leaves a missing bound open', async () => {
        const { index } = await open();
        const { point, query } = scope();
        await index.apply(puts([-1, 0, 5, 10, 11].map((offset) => point({ timestampMillis: T0 + offset }))));
        expect(await times(index, query({ startTimeMillis: T0, endTimeMillis: T0 + 10 }))).toEqual([10, 5, 0]);
        expect(await times(index, query({ startTimeMillis: T0 + 5 }))).toEqual([11, 10, 5]);
        expect(await times(index, query({ endTimeMillis: T0 }))).toEqual([0, -1]);
        expect(await times(index, query({ startTimeMillis: T0 + 5, endTimeMillis: T0 + 5 }))).toEqual([5]);
        expect(await times(index, query({ startTimeMillis: T0 + 6, endTimeMillis: T0 + 9 }))).toEqual([]);
      });

      it('answers at most limit points, the newest, and none for 0', async () => {
        const { index } = await open();
        const { point, query } = scope();
        await index.apply(puts([0, 1, 2, 3, 4].map((offset) => point({ timestampMillis: T0 + offset }))));
        expect(await times(index, query({ limit: 2 }))).toEqual([4, 3]);
        expect(await times(index, query({ limit: 0 }))).toEqual([]);
        expect(await times(index, query({ limit: 5 }))).toEqual([4, 3, 2, 1, 0]);
        await expect(index.query(query({ limit: -1 }))).rejects.toBeInstanceOf(ValidationError);
        await expect(index.query(query({ limit: 10_001 }))).rejects.toBeInstanceOf(ValidationError);
      });

      describe('filters', () => {
        async function fixture() {
          const { index } = await open();
          const { urn, point, query } = scope();
          await index.apply(
            puts([
              point({
                timestampMillis: T0 + 1,
                fields: {
                  pipelineName: 'ingest',
                  rowCount: 9,
                  complete: true,
                  runId: 'run-a',
                  'partitionSpec.partition': 'FULL_TABLE_SNAPSHOT',
                },
              }),
              point({
                timestampMillis: T0 + 2,
                fields: { pipelineName: 'backfill', rowCount: 10, complete: false, runId: 'run-b' },
              }),
              point({
                timestampMillis: T0 + 3,
                fields: { pipelineName: 'Ingest-Nightly', rowCount: 100, complete: true },
              }),
              point({ timestampMillis: T0 + 4, fields: { rowCount: 55 } }),
              // Another entity's point, which no filter brings in.
              point({ timestampMillis: T0 + 2, urn: urn('other'), fields: { pipelineName: 'ingest', rowCount: 1 } }),
            ]),
          );
          const filtered = (filter: Filter) => times(index, query({ filter }));
          return { filtered, urn };
        }

        const criterion = (
          field: string,
          condition: Criterion['condition'],
          values: readonly string[] = [],
          negated = false,
        ): Criterion => ({ field, condition, values, negated });

        it('matches EQUAL and IN on a string field, any of several values, with .keyword naming the field', async () => {
          const { filtered } = await fixture();
          expect(await filtered([[criterion('pipelineName', 'EQUAL', ['ingest'])]])).toEqual([1]);
          expect(await filtered([[criterion('pipelineName.keyword', 'EQUAL', ['ingest'])]])).toEqual([1]);
          expect(await filtered([[criterion('pipelineName', 'EQUAL', ['ingest', 'backfill'])]])).toEqual([2, 1]);
          expect(await filtered([[criterion('pipelineName', 'IN', ['backfill', 'Ingest-Nightly'])]])).toEqual([3, 2]);
          expect(await filtered([[criterion('pipelineName', 'EQUAL', ['INGEST'])]])).toEqual([]);
        });

        it('matches the fields DataHub indexes beside the aspect’s own: runId, the partition, the urn', async () => {
          const { filtered, urn } = await fixture();
          expect(await filtered([[criterion('runId', 'EQUAL', ['run-b'])]])).toEqual([2]);
          expect(await filtered([[criterion('partitionSpec.partition', 'EQUAL', ['FULL_TABLE_SNAPSHOT'])]])).toEqual([
            1,
          ]);
          expect(await filtered([[criterion('urn', 'EQUAL', [urn()])]])).toEqual([4, 3, 2, 1]);
        });

        it('compares numbers as numbers, and the time as a number', async () => {
          const { filtered } = await fixture();
          expect(await filtered([[criterion('rowCount', 'GREATER_THAN', ['10'])]])).toEqual([4, 3]);
          expect(await filtered([[criterion('rowCount', 'GREATER_THAN_OR_EQUAL_TO', ['10'])]])).toEqual([4, 3, 2]);
          expect(await filtered([[criterion('rowCount', 'LESS_THAN', ['10'])]])).toEqual([1]);
          expect(await filtered([[criterion('rowCount', 'LESS_THAN_OR_EQUAL_TO', ['55'])]])).toEqual([4, 2, 1]);
          expect(await filtered([[criterion('rowCount', 'EQUAL', ['100'])]])).toEqual([3]);
          expect(await filtered([[criterion('timestampMillis', 'GREATER_THAN', [String(T0 + 2)])]])).toEqual([4, 3]);
        });

        it('matches booleans as true and false', async () => {
          const { filtered } = await fixture();
          expect(await filtered([[criterion('complete', 'EQUAL', ['true'])]])).toEqual([3, 1]);
          expect(await filtered([[criterion('complete', 'EQUAL', ['false'])]])).toEqual([2]);
        });

        it('matches CONTAIN, START_WITH and END_WITH ignoring case', async () => {
          const { filtered } = await fixture();
          expect(await filtered([[criterion('pipelineName', 'CONTAIN', ['GEST'])]])).toEqual([3, 1]);
          expect(await filtered([[criterion('pipelineName', 'START_WITH', ['ingest'])]])).toEqual([3, 1]);
          expect(await filtered([[criterion('pipelineName', 'END_WITH', ['nightly', 'FILL'])]])).toEqual([3, 2]);
          expect(await filtered([[criterion('pipelineName', 'CONTAIN', ['*'])]])).toEqual([]);
        });

        it('matches EXISTS and IS_NULL by whether the point has the field', async () => {
          const { filtered } = await fixture();
          expect(await filtered([[criterion('pipelineName', 'EXISTS')]])).toEqual([3, 2, 1]);
          expect(await filtered([[criterion('pipelineName', 'IS_NULL')]])).toEqual([4]);
          expect(await filtered([[criterion('pipelineName', 'IS_NULL', [], true)]])).toEqual([3, 2, 1]);
        });

        it('fails a condition on a field the point lacks, and passes it negated', async () => {
          const { filtered } = await fixture();
          expect(await filtered([[criterion('pipelineName', 'EQUAL', ['ingest'], true)]])).toEqual([4, 3, 2]);
          expect(await filtered([[criterion('pipelineName', 'CONTAIN', ['ingest'], true)]])).toEqual([4, 2]);
          expect(await filtered([[criterion('noSuchField', 'EQUAL', ['x'])]])).toEqual([]);
          expect(await filtered([[criterion('noSuchField', 'EQUAL', ['x'], true)]])).toEqual([4, 3, 2, 1]);
          expect(await filtered([[criterion('noSuchField', 'GREATER_THAN', ['1'], true)]])).toEqual([4, 3, 2, 1]);
        });

        it('ANDs the criteria of a group and ORs the groups; no groups, or a criterion without values, keeps all', async () => {
          const { filtered } = await fixture();
          expect(
            await filtered([[criterion('complete', 'EQUAL', ['true']), criterion('rowCount', 'GREATER_THAN', ['50'])]]),
          ).toEqual([3]);
          expect(
            await filtered([
              [criterion('pipelineName', 'EQUAL', ['backfill'])],
              [criterion('rowCount', 'GREATER_THAN', ['50'])],
            ]),
          ).toEqual([4, 3, 2]);
          expect(await filtered([])).toEqual([4, 3, 2, 1]);
          expect(await filtered([[criterion('pipelineName', 'EQUAL', [])]])).toEqual([4, 3, 2, 1]);
        });
      });

      it('sorts by a field either way, points without it last, ties newest first then by id', async () => {
        const { index } = await open();
        const { point, query } = scope();
        const id = (letter: string) => `${runId}-${sequence}-${letter}`;
        await index.apply(
          puts([
            point({ timestampMillis: T0 + 1, id: id('e'), fields: { rank: 2 } }),
            point({ timestampMillis: T0 + 2, id: id('d'), fields: { rank: 1 } }),
            point({ timestampMillis: T0 + 3, id: id('c'), fields: { rank: 2 } }),
            point({ timestampMillis: T0 + 3, id: id('b'), fields: { rank: 2 } }),
            point({ timestampMillis: T0 + 5, id: id('a') }),
          ]),
        );
        const ids = async (sort: TimeseriesQuery['sort'], limit = 100) =>
          (await index.query(query({ sort, limit }))).map((found) => found.id.slice(-1));
        expect(await ids({ field: 'rank', order: 'ASCENDING' })).toEqual(['d', 'b', 'c', 'e', 'a']);
        expect(await ids({ field: 'rank', order: 'DESCENDING' })).toEqual(['b', 'c', 'e', 'd', 'a']);
        expect(await ids({ field: 'rank', order: 'ASCENDING' }, 2)).toEqual(['d', 'b']);
        expect(await ids({ field: 'timestampMillis', order: 'ASCENDING' })).toEqual(['e', 'd', 'b', 'c', 'a']);
        expect(await ids({ field: 'noSuchField', order: 'ASCENDING' })).toEqual(['a', 'b', 'c', 'd', 'e']);
      });
    });

    describe('aggregations', () => {
      const DAY = 86_400_000;
      /** Midnight UTC of 2023-11-15, a Wednesday. */
      const D0 = 1_700_006_400_000;

      /** A usage point of the test's entity, with its users as items of `userCounts` and its columns of `fieldCounts`. */
      function usage(
        point: ReturnType<typeof scope>['point'],
        timestampMillis: number,
        fields: TimeseriesPoint['fields'],
        users: Record<string, number>,
        columns: Record<string, number> = {},
        more: Partial<TimeseriesPoint> = {},
      ): TimeseriesPoint {
        return {
          ...point({ timestampMillis, fields, ...more }, USAGE),
          collections: {
            userCounts: Object.entries(users).map(([user, count]) => ({
              key: user,
              fields: { 'userCounts.user': user, 'userCounts.count': count, 'userCounts.userEmail': `${user}@x` },
            })),
            fieldCounts: Object.entries(columns).map(([fieldPath, count]) => ({
              key: fieldPath,
              fields: { 'fieldCounts.fieldPath': fieldPath, 'fieldCounts.count': count },
            })),
          },
        };
      }

      const ofEntity = (urn: string): TimeseriesAggregation['filter'] => [
        [{ field: 'urn', condition: 'EQUAL', values: [urn], negated: false }],
      ];

      it('groups by calendar day, in time order, the empty days between answered too', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            usage(point, D0 + 1000, { uniqueUserCount: 2, totalSqlQueries: 5 }, { a: 3 }),
            usage(point, D0 + 5000, { uniqueUserCount: 4, totalSqlQueries: 7 }, { b: 1 }),
            usage(point, D0 + 2 * DAY + 10, { uniqueUserCount: 1, totalSqlQueries: 2 }, {}),
            usage(point, D0 + DAY, { uniqueUserCount: 9 }, {}, {}, { urn: urn('other') }),
          ]),
        );
        const rows = await index.aggregate({
          ...USAGE,
          filter: ofEntity(urn()),
          buckets: [{ kind: 'date', field: 'timestampMillis', unit: 'DAY', timeZone: 'UTC' }],
          metrics: [
            { kind: 'LATEST', field: 'uniqueUserCount' },
            { kind: 'SUM', field: 'totalSqlQueries' },
            { kind: 'CARDINALITY', field: 'userCounts.user' },
          ],
        });
        expect(rows).toEqual([
          { keys: [D0], values: [4, 12, 2] },
          { keys: [D0 + DAY], values: [null, 0, 0] },
          { keys: [D0 + 2 * DAY], values: [1, 2, 0] },
        ]);
      });

      it('aggregates the items of collections: per user, counts summed and the latest email, items replaced on a put again', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        const first = usage(point, D0, { uniqueUserCount: 2 }, { alice: 3, bob: 1 }, { id: 4 });
        await index.apply(
          puts([
            first,
            usage(point, D0 + DAY, { uniqueUserCount: 1 }, { alice: 2 }, { id: 1, name: 6 }),
            usage(point, D0 + DAY, { uniqueUserCount: 1 }, { carol: 7 }, {}, { urn: urn('other') }),
          ]),
        );
        const perUser = () =>
          index.aggregate({
            ...USAGE,
            filter: ofEntity(urn()),
            buckets: [{ kind: 'string', field: 'userCounts.user', ascending: true, size: 100 }],
            metrics: [
              { kind: 'SUM', field: 'userCounts.count' },
              { kind: 'LATEST', field: 'userCounts.userEmail' },
            ],
          });
        expect(await perUser()).toEqual([
          { keys: ['alice'], values: [5, 'alice@x'] },
          { keys: ['bob'], values: [1, 'bob@x'] },
        ]);
        expect(
          await index.aggregate({
            ...USAGE,
            filter: ofEntity(urn()),
            buckets: [{ kind: 'string', field: 'fieldCounts.fieldPath.keyword', ascending: true, size: 100 }],
            metrics: [{ kind: 'SUM', field: 'fieldCounts.count' }],
          }),
        ).toEqual([
          { keys: ['id'], values: [5] },
          { keys: ['name'], values: [6] },
        ]);

        // The same point again, with other users: its items are replaced; without collections, they are kept.
        await index.apply(
          puts([
            {
              ...first,
              collections: {
                userCounts: [{ key: 'dan', fields: { 'userCounts.user': 'dan', 'userCounts.count': 1 } }],
              },
            },
          ]),
        );
        expect(await perUser()).toEqual([
          { keys: ['alice'], values: [2, 'alice@x'] },
          { keys: ['dan'], values: [1, null] },
        ]);
        const { collections: _dropped, ...withoutItems } = first;
        await index.apply(puts([withoutItems]));
        expect((await perUser()).map((row) => row.keys[0])).toEqual(['alice', 'dan']);

        // Items are no points: queries and counts do not see them.
        expect(await index.query({ ...USAGE, urn: urn(), limit: 100 })).toHaveLength(2);
        expect(await index.count(USAGE.entity, USAGE.aspect)).toBe(3);
      });

      it('nests buckets, orders string groups either way, and answers at most size groups per parent', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            usage(point, D0, {}, { a: 1, b: 2, c: 3 }),
            usage(point, D0 + DAY, {}, { b: 4 }),
            usage(point, D0 + 3 * DAY, {}, { c: 5 }),
          ]),
        );
        const rows = await index.aggregate({
          ...USAGE,
          filter: ofEntity(urn()),
          buckets: [
            { kind: 'string', field: 'userCounts.user', ascending: false, size: 2 },
            { kind: 'date', field: 'timestampMillis', unit: 'DAY', timeZone: 'UTC' },
          ],
          metrics: [{ kind: 'SUM', field: 'userCounts.count' }],
        });
        expect(rows).toEqual([
          { keys: ['c', D0], values: [3] },
          { keys: ['c', D0 + DAY], values: [0] },
          { keys: ['c', D0 + 2 * DAY], values: [0] },
          { keys: ['c', D0 + 3 * DAY], values: [5] },
          { keys: ['b', D0], values: [2] },
          { keys: ['b', D0 + DAY], values: [4] },
        ]);
      });

      it('orders numbers as numbers and booleans as false then true, answering each typed as held', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            point({ timestampMillis: T0, fields: { rowCount: 10, complete: true } }),
            point({ timestampMillis: T0 + 1, fields: { rowCount: 2, complete: false } }),
            point({ timestampMillis: T0 + 2, fields: { rowCount: 2, complete: true } }),
            point({ timestampMillis: T0 + 3, fields: { complete: true } }),
          ]),
        );
        const grouped = (field: string) =>
          index.aggregate({
            ...PROFILE,
            filter: ofEntity(urn()),
            buckets: [{ kind: 'string', field, ascending: true, size: 10 }],
            metrics: [{ kind: 'CARDINALITY', field: 'timestampMillis' }],
          });
        expect(await grouped('rowCount')).toEqual([
          { keys: [2], values: [2] },
          { keys: [10], values: [1] },
        ]);
        expect(await grouped('complete')).toEqual([
          { keys: [false], values: [1] },
          { keys: [true], values: [3] },
        ]);
      });

      it('answers one row over every document without buckets, and one of empty metrics when none matches', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            point({ timestampMillis: T0, fields: { rowCount: 3, pipelineName: 'b' } }),
            point({ timestampMillis: T0 + 5, fields: { rowCount: 4, pipelineName: 'a' } }),
            point({ timestampMillis: T0 + 9, fields: { rowCount: 1 } }),
          ]),
        );
        const metrics: TimeseriesAggregation['metrics'] = [
          { kind: 'SUM', field: 'rowCount' },
          { kind: 'LATEST', field: 'pipelineName' },
          { kind: 'CARDINALITY', field: 'pipelineName' },
          { kind: 'LATEST', field: 'urn' },
        ];
        expect(await index.aggregate({ ...PROFILE, filter: ofEntity(urn()), buckets: [], metrics })).toEqual([
          { keys: [], values: [8, 'a', 2, urn()] },
        ]);
        expect(await index.aggregate({ ...PROFILE, filter: ofEntity(urn('nobody')), buckets: [], metrics })).toEqual([
          { keys: [], values: [0, null, 0, null] },
        ]);
        expect(
          await index.aggregate({
            ...PROFILE,
            filter: ofEntity(urn('nobody')),
            buckets: [{ kind: 'date', field: 'timestampMillis', unit: 'DAY', timeZone: 'UTC' }],
            metrics,
          }),
        ).toEqual([]);
      });

      it('breaks a tie of LATEST by the value most documents of that time hold, then by the least value', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            point({ timestampMillis: T0 + 1, fields: { pipelineName: 'z' } }),
            point({ timestampMillis: T0 + 1, fields: { pipelineName: 'y' } }),
            point({ timestampMillis: T0 + 1, fields: { pipelineName: 'x' } }),
            point({ timestampMillis: T0, fields: { pipelineName: 'y' } }),
            point({ timestampMillis: T0 + 1, urn: urn('other'), fields: { pipelineName: 'a' } }),
          ]),
        );
        const latest = async (filter: TimeseriesAggregation['filter']) =>
          (
            await index.aggregate({
              ...PROFILE,
              filter,
              buckets: [],
              metrics: [{ kind: 'LATEST', field: 'pipelineName' }],
            })
          )[0]?.values[0];
        expect(await latest(ofEntity(urn()))).toBe('y');
        expect(
          await latest([
            [
              { field: 'urn', condition: 'EQUAL', values: [urn()], negated: false },
              { field: 'pipelineName', condition: 'EQUAL', values: ['y'], negated: true },
            ],
          ]),
        ).toBe('x');
      });

      it('keeps the documents the filter keeps, items included, and cuts days in the time zone asked for', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        // In New York (UTC-5 in November) 03:00 UTC is the evening before, and 06:00 UTC 01:00 the same day.
        await index.apply(
          puts([
            usage(point, D0 + 3 * 3_600_000, { totalSqlQueries: 1 }, { a: 1 }),
            usage(point, D0 + 6 * 3_600_000, { totalSqlQueries: 2 }, { a: 2 }),
            usage(point, D0 + 30 * 3_600_000, { totalSqlQueries: 4 }, { a: 4 }),
          ]),
        );
        const since = (start: number, zone: string) =>
          index.aggregate({
            ...USAGE,
            filter: [
              [
                { field: 'urn', condition: 'EQUAL', values: [urn()], negated: false },
                {
                  field: 'timestampMillis',
                  condition: 'GREATER_THAN_OR_EQUAL_TO',
                  values: [String(start)],
                  negated: false,
                },
              ],
            ],
            buckets: [{ kind: 'date', field: 'timestampMillis', unit: 'DAY', timeZone: zone }],
            metrics: [
              { kind: 'SUM', field: 'totalSqlQueries' },
              { kind: 'SUM', field: 'userCounts.count' },
            ],
          });
        expect(await since(D0, 'UTC')).toEqual([
          { keys: [D0], values: [3, 3] },
          { keys: [D0 + DAY], values: [4, 4] },
        ]);
        expect(await since(D0 + 4 * 3_600_000, 'UTC')).toEqual([
          { keys: [D0], values: [2, 2] },
          { keys: [D0 + DAY], values: [4, 4] },
        ]);
        const newYork = 5 * 3_600_000;
        expect(await since(D0, 'America/New_York')).toEqual([
          { keys: [D0 - DAY + newYork], values: [1, 1] },
          { keys: [D0 + newYork], values: [2, 2] },
          { keys: [D0 + DAY + newYork], values: [4, 4] },
        ]);
      });

      it('removes items with their points: deletes, truncations and clears', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            usage(point, D0, {}, { a: 1 }),
            usage(point, D0 + DAY, {}, { b: 1 }),
            usage(point, D0 + 2 * DAY, {}, { c: 1 }),
            usage(point, D0, {}, { d: 1 }, {}, { urn: urn('other') }),
          ]),
        );
        const users = async (name?: string) =>
          (
            await index.aggregate({
              ...USAGE,
              filter: ofEntity(urn(name)),
              buckets: [{ kind: 'string', field: 'userCounts.user', ascending: true, size: 10 }],
              metrics: [{ kind: 'SUM', field: 'userCounts.count' }],
            })
          ).map((row) => row.keys[0]);
        await index.apply([{ kind: 'deleteRange', ...USAGE, urn: urn(), startTimeMillis: D0 + 2 * DAY }]);
        expect(await users()).toEqual(['a', 'b']);
        const task = await index.startTruncation({ ...USAGE, endTimeMillis: D0, batchSize: 10 });
        expect((await completion(index, task)).error).toBeUndefined();
        expect(await users()).toEqual(['b']);
        expect(await users('other')).toEqual([]);
        await index.apply(puts([usage(point, D0, {}, { e: 1 }, {}, { urn: urn('other') })]));
        await index.apply([{ kind: 'deleteEntity', entity: 'dataset', urn: urn('other') }]);
        expect(await users('other')).toEqual([]);
        await index.clear();
        expect(await users()).toEqual([]);
      });

      it('deletes the points one run wrote, in a range when given, with their items, and only those', async () => {
        const { index } = await open();
        const { urn, point, query } = scope();
        const ofRun = (runId: string) => ({ runId });
        await index.apply(
          puts([
            usage(point, D0, ofRun('run-a'), { a: 1 }),
            usage(point, D0 + DAY, ofRun('run-b'), { b: 1 }),
            usage(point, D0 + 2 * DAY, ofRun('run-a'), { c: 1 }),
            usage(point, D0 + 3 * DAY, ofRun('run-a'), { d: 1 }),
            usage(point, D0, ofRun('run-a'), { e: 1 }, {}, { urn: urn('other') }),
            point({ timestampMillis: D0, fields: ofRun('run-a') }),
          ]),
        );
        const users = async (name?: string) =>
          (
            await index.aggregate({
              ...USAGE,
              filter: ofEntity(urn(name)),
              buckets: [{ kind: 'string', field: 'userCounts.user', ascending: true, size: 10 }],
              metrics: [{ kind: 'SUM', field: 'userCounts.count' }],
            })
          ).map((row) => row.keys[0]);
        const days = async () =>
          (await index.query(query({ ...USAGE, limit: 10 }))).map((found) => (found.timestampMillis - D0) / DAY);
        await index.apply([{ kind: 'deleteRange', ...USAGE, urn: urn(), startTimeMillis: D0 + DAY, runId: 'run-a' }]);
        expect(await days()).toEqual([1, 0]);
        expect(await users()).toEqual(['a', 'b']);
        await index.apply([{ kind: 'deleteRange', ...USAGE, urn: urn(), runId: 'run-a' }]);
        expect(await days()).toEqual([1]);
        expect(await users()).toEqual(['b']);
        await index.apply([{ kind: 'deleteRange', ...USAGE, urn: urn(), runId: 'run-none' }]);
        expect(await days()).toEqual([1]);
        // Another entity's points of the run, and the entity's points of the run in another index, stay.
        expect(await users('other')).toEqual(['e']);
        expect(await index.query(query())).toHaveLength(1);
      });

      it('refuses what it cannot aggregate with ValidationError', async () => {
        const { index } = await open();
        const refused = (aggregation: Partial<TimeseriesAggregation>) =>
          expect(
            index.aggregate({ ...PROFILE, buckets: [], metrics: [{ kind: 'SUM', field: 'rowCount' }], ...aggregation }),
          ).rejects.toBeInstanceOf(ValidationError);
        await refused({ metrics: [] });
        await refused({ aspect: 'noSuchAspect' });
        await refused({ buckets: [{ kind: 'date', field: 'rowCount', unit: 'DAY', timeZone: 'UTC' }] });
        await refused({ buckets: [{ kind: 'date', field: 'timestampMillis', unit: 'DAY', timeZone: 'Mars/Olympus' }] });
        await refused({ buckets: [{ kind: 'string', field: 'rowCount', ascending: true, size: 0 }] });
      });
    });

    describe('deletes', () => {
      it('deletes an entity’s points in a range, bounds included, a missing bound open', async () => {
        const { index } = await open();
        const { urn, point, query } = scope();
        await index.apply(
          puts([
            ...[0, 1, 2, 3, 4].map((offset) => point({ timestampMillis: T0 + offset })),
            point({ timestampMillis: T0 + 2, urn: urn('other') }),
            point({ timestampMillis: T0 + 2 }, USAGE),
          ]),
        );
        const deleteRange = (startTimeMillis?: number, endTimeMillis?: number): TimeseriesChange[] => [
          { kind: 'deleteRange', ...PROFILE, urn: urn(), startTimeMillis, endTimeMillis },
        ];
        await index.apply(deleteRange(T0 + 1, T0 + 3));
        expect(await times(index, query())).toEqual([4, 0]);
        await index.apply(deleteRange(undefined, T0));
        expect(await times(index, query())).toEqual([4]);
        await index.apply(deleteRange(T0 + 4, undefined));
        expect(await times(index, query())).toEqual([]);
        expect(await times(index, query({ urn: urn('other') }))).toEqual([2]);
        expect(await times(index, query(USAGE))).toEqual([2]);
        await index.apply(deleteRange());
        await index.apply([{ kind: 'deleteRange', ...PROFILE, urn: urn('other') }]);
        expect(await times(index, query({ urn: urn('other') }))).toEqual([]);
      });

      it('deletes an entity’s points from every index of its type, and only its points', async () => {
        const { index } = await open();
        const { urn, point, query } = scope();
        await index.apply(
          puts([
            point({ timestampMillis: T0 }),
            point({ timestampMillis: T0 + 1 }, USAGE),
            point({ timestampMillis: T0 + 2, urn: urn('other') }),
            point({ timestampMillis: T0 + 3 }, RUN_EVENT),
          ]),
        );
        await index.apply([{ kind: 'deleteEntity', entity: 'dataset', urn: urn() }]);
        expect(await times(index, query())).toEqual([]);
        expect(await times(index, query(USAGE))).toEqual([]);
        expect(await times(index, query({ urn: urn('other') }))).toEqual([2]);
        expect(await times(index, query(RUN_EVENT))).toEqual([3]);
      });
    });

    describe('counts and sizes', () => {
      it('counts an index’s points, all or up to a time (included)', async () => {
        const { index } = await open();
        const { urn, point } = scope();
        await index.apply(
          puts([
            ...[0, 1, 2].map((offset) => point({ timestampMillis: T0 + offset })),
            ...[3, 4].map((offset) => point({ timestampMillis: T0 + offset, urn: urn('other') })),
            point({ timestampMillis: T0 }, USAGE),
          ]),
        );
        expect(await index.count(PROFILE.entity, PROFILE.aspect)).toBe(5);
        expect(await index.count(PROFILE.entity, PROFILE.aspect, T0 + 2)).toBe(3);
        expect(await index.count(PROFILE.entity, PROFILE.aspect, T0 - 1)).toBe(0);
        expect(await index.count(USAGE.entity, USAGE.aspect)).toBe(1);
        expect(await index.count(RUN_EVENT.entity, RUN_EVENT.aspect)).toBe(0);
      });

      it('lists every index it was opened for once, by name, with a positive size once it holds points', async () => {
        const { index } = await open();
        const { point } = scope();
        await index.apply(
          puts(ASPECTS.flatMap((ref) => [0, 1, 2].map((offset) => point({ timestampMillis: T0 + offset }, ref)))),
        );
        const sizes = await index.sizes();
        expect(sizes.map(({ indexName, entity, aspect }) => ({ indexName, entity, aspect }))).toEqual(
          ASPECTS.map((ref) => ({ indexName: index.indexName(ref.entity, ref.aspect), ...ref })),
        );
        for (const size of sizes) expect(size.bytes).toBeGreaterThan(0);
      });
    });

    describe('truncation', () => {
      it('removes the points up to a time (included) in batches, as a task that completes with its counters', async () => {
        const { index } = await open();
        const { urn, point, query } = scope();
        await index.apply(
          puts([
            ...[0, 1, 2, 3, 4, 5, 6, 7].map((offset) => point({ timestampMillis: T0 + offset })),
            ...[2, 6, 9].map((offset) => point({ timestampMillis: T0 + offset, urn: urn('other') })),
            point({ timestampMillis: T0 }, USAGE),
          ]),
        );
        const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0 + 6, batchSize: 3 });
        expect(task.nodeId).toMatch(/^[a-zA-Z0-9-_]+$/);
        // Known at once, running or done.
        expect((await index.taskStatus(task))?.task).toEqual(task);

        const status = await completion(index, task);
        expect(status.error).toBeUndefined();
        expect(status.task).toEqual(task);
        expect(status.runTimeNanos).toBeGreaterThanOrEqual(0);
        expect(status.status).toMatchObject({ total: 9, deleted: 9, batches: 3, version_conflicts: 0 });
        expect(await times(index, query())).toEqual([7]);
        expect(await times(index, query({ urn: urn('other') }))).toEqual([9]);
        expect(await index.count(PROFILE.entity, PROFILE.aspect)).toBe(2);
        expect(await index.count(USAGE.entity, USAGE.aspect)).toBe(1);
      });

      it('keeps a task’s status across closing and reopening', async () => {
        const { index, reopen } = await open();
        const { point } = scope();
        await index.apply(puts([0, 1, 2, 3, 4].map((offset) => point({ timestampMillis: T0 + offset }))));
        const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0 + 4, batchSize: 2 });
        const status = await completion(index, task);
        expect(status.status).toMatchObject({ total: 5, deleted: 5, batches: 3 });
        await index.close();

        const again = await reopen();
        const reopened = await again.taskStatus(task);
        expect(reopened).toMatchObject({ task, completed: true, status: status.status });
        expect(reopened?.error).toBeUndefined();
      });

      it('knows no task it did not start', async () => {
        const { index } = await open();
        const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0, batchSize: 10 });
        await completion(index, task);
        expect(await index.taskStatus({ nodeId: task.nodeId, number: task.number + 1_000_000 })).toBeUndefined();
        expect(await index.taskStatus({ nodeId: 'noSuchNode', number: task.number })).toBeUndefined();
      });

      it('refuses a batch size under 1 or an aspect it was not opened for', async () => {
        const { index } = await open();
        await expect(index.startTruncation({ ...PROFILE, endTimeMillis: T0, batchSize: 0 })).rejects.toBeInstanceOf(
          ValidationError,
        );
        await expect(
          index.startTruncation({ entity: 'dataset', aspect: 'noSuchAspect', endTimeMillis: T0, batchSize: 10 }),
        ).rejects.toBeInstanceOf(ValidationError);
      });
    });

    describe('clear', () => {
      /** Points in every index, of two entities; the test's scope. */
      async function filled(index: TimeseriesIndex) {
        const test = scope();
        const { urn, point } = test;
        await index.apply(
          puts([
            ...[0, 1, 2].map((offset) => point({ timestampMillis: T0 + offset, fields: { rowCount: offset } })),
            point({ timestampMillis: T0 + 1, urn: urn('other') }),
            point({ timestampMillis: T0 + 2 }, USAGE),
            point({ timestampMillis: T0 + 3, urn: urn('run') }, RUN_EVENT),
          ]),
        );
        return test;
      }

      /** What every read of the test's entities answers: each index's points and counts. */
      async function reads(index: TimeseriesIndex, urn: (name?: string) => string) {
        const answers = [];
        for (const ref of ASPECTS) {
          answers.push({
            ...ref,
            points: await index.query({ ...ref, urn: urn(), limit: 100 }),
            others: await index.query({ ...ref, urn: urn('other'), limit: 100 }),
            runs: await index.query({ ...ref, urn: urn('run'), limit: 100 }),
            filtered: await index.query({
              ...ref,
              urn: urn(),
              limit: 100,
              filter: [[{ field: 'rowCount', condition: 'GREATER_THAN', values: ['0'], negated: false }]],
            }),
            count: await index.count(ref.entity, ref.aspect),
            countTo: await index.count(ref.entity, ref.aspect, T0 + 1),
          });
        }
        return answers;
      }

      it('removes every point of every index: queries and counts answer empty, sizes still list every index', async () => {
        const { index } = await open();
        const { urn } = await filled(index);
        expect((await reads(index, urn)).map(({ count }) => count)).toEqual([4, 1, 1]);

        await index.clear();
        expect(await reads(index, urn)).toEqual(
          ASPECTS.map((ref) => ({ ...ref, points: [], others: [], runs: [], filtered: [], count: 0, countTo: 0 })),
        );
        const sizes = await index.sizes();
        expect(sizes.map(({ indexName, entity, aspect }) => ({ indexName, entity, aspect }))).toEqual(
          ASPECTS.map((ref) => ({ indexName: index.indexName(ref.entity, ref.aspect), ...ref })),
        );
      });

      it('takes writes after a clear as new indices take them, a point of an id seen before included', async () => {
        const { index } = await open();
        const { index: fresh } = await open();
        const { urn, point, query } = await filled(index);
        const [earlier] = await index.query(query());
        if (earlier === undefined) throw new Error('The points written are not found');
        await index.clear();

        const again: TimeseriesChange[] = [
          ...puts([
            point({ timestampMillis: T0 + 5, fields: { rowCount: 5 } }),
            { ...earlier, value: JSON.stringify({ timestampMillis: earlier.timestampMillis, rowCount: 9 }) },
            point({ timestampMillis: T0 + 1 }, USAGE),
          ]),
          { kind: 'deleteRange', ...USAGE, urn: urn(), endTimeMillis: T0 },
        ];
        await index.apply(again);
        await fresh.apply(again);
        const answers = await reads(index, urn);
        expect(answers).toEqual(await reads(fresh, urn));
        expect(await times(index, query())).toEqual([5, earlier.timestampMillis - T0]);
        expect(answers.map(({ count }) => count)).toEqual([2, 1, 0]);
      });

      it('keeps tasks: a truncation’s status is reported after a clear, and a new one gets a new id', async () => {
        const { index } = await open();
        await filled(index);
        const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0, batchSize: 10 });
        const status = await completion(index, task);

        expect(status.status).toMatchObject({ total: 1, deleted: 1 });
        const reported = { task, completed: true, status: status.status };

        await index.clear();
        expect(await index.taskStatus(task)).toMatchObject(reported);
        const later = await index.startTruncation({ ...PROFILE, endTimeMillis: T0 + 10, batchSize: 10 });
        expect(later).not.toEqual(task);
        expect((await completion(index, later)).status).toMatchObject({ total: 0, deleted: 0 });
        expect(await index.taskStatus(task)).toMatchObject(reported);
      });

      it('keeps the clear and the tasks across closing and reopening, and clears indices cleared already', async () => {
        const { index, reopen } = await open();
        const { urn, point, query } = await filled(index);
        const task = await index.startTruncation({ ...PROFILE, endTimeMillis: T0, batchSize: 10 });
        const status = await completion(index, task);
        await index.clear();
        await index.clear();
        await index.close();

        const again = await reopen();
        expect((await reads(again, urn)).map(({ count, points }) => ({ count, points }))).toEqual(
          ASPECTS.map(() => ({ count: 0, points: [] })),
        );
        expect(await again.taskStatus(task)).toMatchObject({ task, completed: true, status: status.status });
        const kept = point({ timestampMillis: T0 + 7 });
        await again.apply(puts([kept]));
        expect(await again.query(query())).toEqual([kept]);
      });
    });
  });
}
