import { createHash } from 'node:crypto';

import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import { ValidationError } from '@strata/model';

import { orOfAndQuery, RANGES } from './elasticsearch-filters';

import {
  clientOf,
  deleteAllDocuments,
  ensureIndex,
  errorType,
  indexPrefixOf,
  type ElasticsearchConnection,
} from './elasticsearch-connection';
import { valueNumber } from './search-documents';
import type { Criterion, Filter } from './search-index';
import { CALENDAR_INTERVALS } from './timeseries-calendar';
import {
  formatTaskId,
  timeseriesIndexName,
  type TaskCounters,
  type TimeseriesAggregation,
  type TimeseriesAggregationRow,
  type TimeseriesBucket,
  type TimeseriesMetric,
  type TaskId,
  type TaskStatus,
  type TimeseriesAspectRef,
  type TimeseriesChange,
  type TimeseriesIndex,
  type TimeseriesIndexSize,
  type TimeseriesPoint,
  type TimeseriesQuery,
  type TruncationRequest,
} from './timeseries-index';
import {
  checkAggregation,
  checkPoint,
  checkTimeseriesQuery,
  checkTruncation,
  indicesOf,
  indicesOfEntity,
  initialCounters,
  itemsOf,
  knownIndex,
  MAX_AGGREGATION_ROWS,
  TIME_FIELD,
} from './timeseries-requests';

/** Options of {@link ElasticsearchTimeseriesIndex}. */
export type ElasticsearchTimeseriesIndexOptions = ElasticsearchConnection & {
  /**
   * Prepended to every index name with `_` (`<prefix>_dataset_datasetprofileaspect_v1`, DataHub's `INDEX_PREFIX`),
   * lowercased. Default: none.
   */
  readonly indexPrefix?: string;
  /** Every timeseries aspect of the registry: one index each, created at open. */
  readonly aspects: readonly TimeseriesAspectRef[];
  /**
   * The `refresh` of every bulk write. Default `wait_for`: a write resolves once queries see it. `false` lets a heavy
   * ingest go faster, its points visible within the index's refresh interval (one second by default).
   */
  readonly refresh?: boolean | 'wait_for';
};

type Query = estypes.QueryDslQueryContainer;

/** The longest keyword indexed (Lucene's term limit is 32,766 bytes); a longer string is kept but not searchable. */
const MAX_KEYWORD_LENGTH = 8191;

/**
 * The keys of a document that are not among the point's fields (a field of the same name would be lost: none of the
 * registry's is). `pointId` repeats `_id`, which recent Elasticsearch versions refuse to sort on.
 */
const DOCUMENT_KEYS = ['urn', 'timestampMillis', '@timestamp', 'event', 'systemMetadata', 'isExploded', 'pointId'];

/** A point's document: DataHub's timeseries document, and the point's fields at its top level. */
interface TimeseriesDocument {
  readonly urn: string;
  readonly timestampMillis: number;
  readonly '@timestamp': number;
  readonly event: unknown;
  readonly systemMetadata?: unknown;
  readonly isExploded: boolean;
  readonly pointId: string;
  readonly [field: string]: unknown;
}

/**
 * Settings and mappings of every timeseries index, close to DataHub's: the identifying fields as keywords, the times
 * as dates, the value (`event`) and system metadata kept in `_source` only, and any other string field (the aspect's
 * `@TimeseriesField`s) a keyword. Numbers map dynamically (`long`, or `double` rather than the lossy default
 * `float`); date detection is off, so that a string that looks like a date stays a keyword.
 */
export function timeseriesIndexDefinition(): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  const keyword: estypes.MappingProperty = { type: 'keyword', ignore_above: MAX_KEYWORD_LENGTH };
  return {
    settings: { number_of_shards: 1 },
    mappings: {
      date_detection: false,
      dynamic_templates: [
        { strings: { match_mapping_type: 'string', mapping: keyword } },
        { doubles: { match_mapping_type: 'double', mapping: { type: 'double' } } },
      ],
      properties: {
        urn: keyword,
        pointId: keyword,
        runId: keyword,
        messageId: keyword,
        eventGranularity: keyword,
        partitionSpec: { properties: { partition: keyword } },
        '@timestamp': { type: 'date' },
        timestampMillis: { type: 'date' },
        event: { type: 'object', enabled: false },
        systemMetadata: { type: 'object', enabled: false },
        isExploded: { type: 'boolean' },
      },
    },
  };
}

/**
 * The scale timeseries indices: Elasticsearch, one index per (entity type, aspect) named and shaped as DataHub's
 * (`<prefix>_<entity>_<aspect>aspect_v1`), a document per point under the point's id, with the semantics of the port
 * (`timeseries-index.ts`) that the SQLite adapter also implements. Plain Query DSL of Elasticsearch 8 and 9.
 *
 * - **Writes.** The puts between two deletes go as one `_bulk` of `index` operations; an item the cluster rejects
 *   rejects the call, naming the points (the others stay written; applying them again is harmless). A delete is a
 *   `_delete_by_query` (conflicts proceeding, refreshed), so the puts before it are refreshed first, whatever
 *   `refresh` says, for it to see them. A call is not atomic across requests; replaying it converges.
 * - **Collection items** are DataHub's exploded documents (`isExploded: true`, the point's id in `pointId`, an id of
 *   their own). The items of the points a bulk replaces them for are deleted by query before it, which sees the items
 *   earlier writes made once they are refreshed: with `refresh: false`, an item a point no longer has may outlive a
 *   replacement written within the refresh interval of the item.
 * - **Aggregations** are one search of size 0: a `date_histogram` (calendar interval, time zone) or `terms` (by key)
 *   aggregation per bucket, nested, and per metric a `sum`, a `cardinality` (precision threshold 40,000) or, for
 *   LATEST, a `terms` of size 1 ordered by the newest `timestampMillis` of each value, then its count, then the value.
 * - **Queries.** A `bool` filter on the URN, the time range and the filter (`terms`, case-insensitive `wildcard`,
 *   `range`, `exists`; a negated criterion as `must_not`), exploded documents (DataHub's `isExploded`) left out; sorted
 *   by the requested field (missing values last), then `timestampMillis` desc and `pointId` asc. A value that is not a
 *   number, compared with a numeric field, is refused by the cluster.
 * - **Clear** is a refresh, then one `_delete_by_query` matching every document of every index, waiting for
 *   completion and refreshed; the indices and their mappings stay.
 * - **Truncations** are delete-by-query tasks of the cluster (`wait_for_completion=false`), their status read from the
 *   tasks API, which keeps it once they finished. `timeoutSeconds` becomes the request's `timeout`, which bounds how
 *   long each batch waits for its shards, not the task: a task on Elasticsearch does not stop for it.
 */
export class ElasticsearchTimeseriesIndex implements TimeseriesIndex {
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly indices: ReadonlyMap<string, TimeseriesAspectRef>;
  private readonly refresh: boolean | 'wait_for';
  private closed = false;

  constructor(options: ElasticsearchTimeseriesIndexOptions) {
    this.prefix = indexPrefixOf(options.indexPrefix);
    this.indices = indicesOf(options.aspects, this.prefix);
    this.refresh = options.refresh ?? 'wait_for';
    const { client, owned } = clientOf(options);
    this.client = client;
    this.ownsClient = owned;
  }

  /** Opens the indices: builds the handle, then creates each index or adds its mappings. Closes the handle on failure. */
  static async open(options: ElasticsearchTimeseriesIndexOptions): Promise<ElasticsearchTimeseriesIndex> {
    const index = new ElasticsearchTimeseriesIndex(options);
    try {
      const definition = timeseriesIndexDefinition();
      await Promise.all([...index.indices.keys()].map((name) => ensureIndex(index.client, name, definition)));
    } catch (error) {
      await index.close();
      throw error;
    }
    return index;
  }

  indexName(entity: string, aspect: string): string {
    return timeseriesIndexName(entity, aspect, this.prefix);
  }

  async apply(changes: readonly TimeseriesChange[]): Promise<void> {
    this.assertOpen();
    // Every request built before any is sent, so that a list with a change refused changes nothing.
    const requests: Request[] = [];
    for (const change of changes) {
      const last = requests.at(-1);
      if (change.kind === 'put') {
        const { point } = change;
        const index = this.index(point.entity, point.aspect);
        // Another put of a point whose items this bulk replaces starts a bulk of its own (its items' deletion first).
        const bulk =
          last?.kind === 'bulk' && !(point.collections !== undefined && last.replacing.has(`${index}/${point.id}`))
            ? last
            : undefined;
        const target = bulk ?? { kind: 'bulk', operations: [], ids: [], replacing: new Set<string>() };
        if (bulk === undefined) requests.push(target);
        target.operations.push({ index: { _index: index, _id: point.id } }, documentOf(point));
        target.ids.push(point.id);
        if (point.collections !== undefined) {
          target.replacing.add(`${index}/${point.id}`);
          for (const item of itemsOf(point)) {
            target.operations.push(
              { index: { _index: index, _id: itemIdOf(point.id, item) } },
              itemDocumentOf(point, item),
            );
            target.ids.push(`${point.id} (${item.collection} ${item.key})`);
          }
        }
        continue;
      }
      const urn: Query = { term: { urn: change.urn } };
      if (change.kind === 'deleteRange') {
        // A run's points, and the exploded documents of their items, hold its id in `runId` (a keyword).
        const narrowing = [
          timeRange(change.startTimeMillis, change.endTimeMillis),
          change.runId === undefined ? undefined : { term: { runId: change.runId } },
        ].filter((query) => query !== undefined);
        requests.push({
          kind: 'delete',
          indices: [this.index(change.entity, change.aspect)],
          query: narrowing.length === 0 ? urn : { bool: { filter: [urn, ...narrowing] } },
        });
      } else {
        requests.push({ kind: 'delete', indices: indicesOfEntity(this.indices, change.entity), query: urn });
      }
    }
    // The items a bulk replaces go first, in one deletion per index.
    for (let position = requests.length - 1; position >= 0; position -= 1) {
      const request = requests[position];
      if (request?.kind !== 'bulk' || request.replacing.size === 0) continue;
      const byIndex = new Map<string, string[]>();
      for (const replaced of request.replacing) {
        const slash = replaced.indexOf('/');
        const index = replaced.slice(0, slash);
        byIndex.set(index, [...(byIndex.get(index) ?? []), replaced.slice(slash + 1)]);
      }
      const deletions: Request[] = [...byIndex].map(([index, ids]) => ({
        kind: 'delete',
        indices: [index],
        query: { bool: { filter: [{ term: { isExploded: true } }, { terms: { pointId: ids } }] } },
      }));
      requests.splice(position, 0, ...deletions);
    }
    for (const [position, request] of requests.entries()) {
      if (request.kind === 'delete') {
        await this.deleteByQuery(request.indices, request.query);
      } else {
        // A delete after the puts must see them: they are refreshed, whatever `refresh` says.
        const beforeDelete = position < requests.length - 1;
        await this.write(request, beforeDelete && this.refresh === false ? true : this.refresh);
      }
    }
  }

  /**
   * Deletes every point of every index it was opened for ({@link deleteAllDocuments}); the indices stay, and so do the
   * tasks, which the cluster keeps apart (its tasks API, `.tasks`).
   */
  async clear(): Promise<void> {
    this.assertOpen();
    await deleteAllDocuments(this.client, [...this.indices.keys()]);
  }

  async query(query: TimeseriesQuery): Promise<readonly TimeseriesPoint[]> {
    this.assertOpen();
    const { filter, sortField } = checkTimeseriesQuery(query);
    const index = this.index(query.entity, query.aspect);
    const range = timeRange(query.startTimeMillis, query.endTimeMillis);
    const filterClause = filterQuery(filter);
    const sort: estypes.SortCombinations[] = [{ timestampMillis: { order: 'desc' } }, { pointId: { order: 'asc' } }];
    if (query.sort !== undefined && sortField !== undefined) {
      const order = query.sort.order === 'ASCENDING' ? 'asc' : 'desc';
      // A field no document has is not mapped: sorting on it would be refused.
      sort.unshift({ [sortField]: { order, unmapped_type: 'keyword' } });
    }
    const response = await this.client.search<TimeseriesDocument>({
      index,
      query: {
        bool: {
          filter: [
            { term: { urn: query.urn } },
            ...(range === undefined ? [] : [range]),
            ...(filterClause === undefined ? [] : [filterClause]),
          ],
          must_not: [{ term: { isExploded: true } }],
        },
      },
      sort,
      size: query.limit,
      track_total_hits: false,
    });
    return response.hits.hits.flatMap((hit) =>
      hit._source === undefined ? [] : [pointOf(query.entity, query.aspect, hit._source)],
    );
  }

  async aggregate(aggregation: TimeseriesAggregation): Promise<readonly TimeseriesAggregationRow[]> {
    this.assertOpen();
    const { filter, buckets, metrics } = checkAggregation(aggregation);
    const index = this.index(aggregation.entity, aggregation.aspect);
    const filterClause = filterQuery(filter);
    let response: estypes.SearchResponse;
    try {
      response = await this.client.search({
        index,
        size: 0,
        track_total_hits: false,
        query: filterClause === undefined ? { match_all: {} } : { bool: { filter: [filterClause] } },
        aggs: aggregationsOf(buckets, metrics, 0),
      });
    } catch (error) {
      if (tooManyBuckets(error)) {
        throw new ValidationError(
          `The aggregation answers more than ${MAX_AGGREGATION_ROWS} rows: narrow the filter, or use larger time buckets`,
          { cause: error },
        );
      }
      throw error;
    }
    return rowsOf(response.aggregations ?? {}, buckets, metrics);
  }

  async count(entity: string, aspect: string, endTimeMillis?: number): Promise<number> {
    this.assertOpen();
    const response = await this.client.count({
      index: this.index(entity, aspect),
      query: {
        bool: {
          ...(endTimeMillis === undefined ? {} : { filter: [{ range: { timestampMillis: { lte: endTimeMillis } } }] }),
          must_not: [{ term: { isExploded: true } }],
        },
      },
    });
    return response.count;
  }

  async sizes(): Promise<readonly TimeseriesIndexSize[]> {
    this.assertOpen();
    const response = await this.client.indices.stats({
      index: `${this.prefix === '' ? '' : `${this.prefix}_`}*aspect_v1`,
      metric: 'store',
    });
    const stats = response.indices ?? {};
    return [...this.indices].map(([name, ref]) => ({
      indexName: name,
      entity: ref.entity,
      aspect: ref.aspect,
      bytes: stats[name]?.primaries?.store?.size_in_bytes ?? 0,
    }));
  }

  async startTruncation(request: TruncationRequest): Promise<TaskId> {
    this.assertOpen();
    checkTruncation(request);
    const response = await this.client.deleteByQuery({
      index: this.index(request.entity, request.aspect),
      query: { range: { timestampMillis: { lte: request.endTimeMillis } } },
      wait_for_completion: false,
      conflicts: 'proceed',
      scroll_size: request.batchSize,
      ...(request.timeoutSeconds === undefined ? {} : { timeout: `${request.timeoutSeconds}s` }),
      refresh: true,
    });
    if (response.task === undefined) throw new Error('Elasticsearch started a delete-by-query without a task id');
    return parseTaskId(response.task);
  }

  async taskStatus(task: TaskId): Promise<TaskStatus | undefined> {
    this.assertOpen();
    let response: estypes.TasksGetResponse;
    try {
      response = await this.client.tasks.get({ task_id: formatTaskId(task) });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return statusOf(response);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  /** One bulk of puts; rejects naming the points the cluster refused. */
  private async write(request: BulkRequest, refresh: boolean | 'wait_for'): Promise<void> {
    const response = await this.client.bulk({ operations: request.operations, refresh });
    if (!response.errors) return;
    const failures = response.items.flatMap((item, position) => {
      const error = item.index?.error;
      return error === undefined ? [] : [`${request.ids[position] ?? '?'} (${error.type}: ${error.reason ?? ''})`];
    });
    throw new Error(
      `Elasticsearch rejected ${failures.length} of ${request.ids.length} timeseries points: ${failures
        .slice(0, 10)
        .join('; ')}${failures.length > 10 ? '; …' : ''}`,
    );
  }

  private async deleteByQuery(indices: readonly string[], query: Query): Promise<void> {
    if (indices.length === 0) return;
    await this.client.deleteByQuery({ index: [...indices], query, conflicts: 'proceed', refresh: true });
  }

  private index(entity: string, aspect: string): string {
    return knownIndex(this.indices, entity, aspect, this.prefix);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('ElasticsearchTimeseriesIndex is closed');
  }
}

/** The requests of an `apply`: the puts between two deletes as one bulk, each delete a delete-by-query. */
type Request = BulkRequest | { readonly kind: 'delete'; readonly indices: readonly string[]; readonly query: Query };

interface BulkRequest {
  readonly kind: 'bulk';
  readonly operations: unknown[];
  /** The point (or item) of each pair of operations. */
  readonly ids: string[];
  /** `<index>/<point id>` of the points whose items this bulk replaces. */
  readonly replacing: Set<string>;
}

function documentOf(point: TimeseriesPoint): TimeseriesDocument {
  checkPoint(point);
  return {
    ...point.fields,
    urn: point.urn,
    timestampMillis: point.timestampMillis,
    '@timestamp': point.timestampMillis,
    // Parsed, so that it is an object the mapping keeps unindexed; `_source` keeps its keys in their order.
    event: JSON.parse(point.value) as unknown,
    ...(point.systemMetadata === undefined ? {} : { systemMetadata: JSON.parse(point.systemMetadata) as unknown }),
    isExploded: false,
    pointId: point.id,
  };
}

function pointOf(entity: string, aspect: string, document: TimeseriesDocument): TimeseriesPoint {
  const fields = Object.fromEntries(
    Object.entries(document).filter(([key]) => !DOCUMENT_KEYS.includes(key)),
  ) as TimeseriesPoint['fields'];
  return {
    entity,
    aspect,
    id: document.pointId,
    urn: document.urn,
    timestampMillis: document.timestampMillis,
    value: JSON.stringify(document.event),
    systemMetadata: document.systemMetadata === undefined ? undefined : JSON.stringify(document.systemMetadata),
    fields,
  };
}

/** `timestampMillis` within the inclusive bounds; undefined when both are open. */
function timeRange(start: number | undefined, end: number | undefined): Query | undefined {
  if (start === undefined && end === undefined) return undefined;
  return {
    range: {
      timestampMillis: { ...(start === undefined ? {} : { gte: start }), ...(end === undefined ? {} : { lte: end }) },
    },
  };
}

/** `<node>:<number>`; the node id never holds a colon. */
function parseTaskId(task: string): TaskId {
  const colon = task.lastIndexOf(':');
  const number = Number(task.slice(colon + 1));
  if (colon <= 0 || !Number.isSafeInteger(number))
    throw new Error(`Elasticsearch answered a malformed task id ${task}`);
  return { nodeId: task.slice(0, colon), number };
}

function isNotFound(error: unknown): boolean {
  const status = (error as { meta?: { statusCode?: unknown } } | null)?.meta?.statusCode;
  return status === 404 || errorType(error) === 'resource_not_found_exception';
}

/**
 * A task as the port reports it. A finished delete-by-query that timed out or failed on some documents (its
 * `response`) failed, as one that raised an `error`.
 */
function statusOf(response: estypes.TasksGetResponse): TaskStatus {
  const status = (response.task.status ?? {}) as Partial<TaskCounters> & { retries?: Partial<TaskCounters['retries']> };
  const initial = initialCounters(0);
  const counters: TaskCounters = {
    ...initial,
    ...Object.fromEntries(
      Object.entries(status).filter(([key, value]) => key in initial && key !== 'retries' && typeof value === 'number'),
    ),
    retries: { bulk: status.retries?.bulk ?? 0, search: status.retries?.search ?? 0 },
  };
  const error = errorOf(response);
  return {
    task: { nodeId: response.task.node, number: response.task.id },
    completed: response.completed,
    runTimeNanos: response.task.running_time_in_nanos,
    status: counters,
    ...(error === undefined ? {} : { error }),
  };
}

function errorOf(response: estypes.TasksGetResponse): TaskStatus['error'] {
  if (response.error !== undefined) {
    return { type: response.error.type, reason: response.error.reason ?? '' };
  }
  const result = response.response as
    { timed_out?: boolean; failures?: { cause?: { type?: string; reason?: string } }[] } | undefined;
  if (result?.timed_out === true) return { type: 'timeout', reason: 'a batch of the delete-by-query timed out' };
  const failure = result?.failures?.[0];
  if (failure === undefined) return undefined;
  return {
    type: failure.cause?.type ?? 'exception',
    reason: `${result?.failures?.length ?? 0} documents failed: ${failure.cause?.reason ?? ''}`,
  };
}

/** An item's document id: the point's, its collection and its key, hashed (keys may be long URNs). */
function itemIdOf(pointId: string, item: { collection: string; key: string }): string {
  return createHash('md5')
    .update(JSON.stringify([pointId, item.collection, item.key]), 'utf8')
    .digest('hex');
}

/** An item's document: DataHub's exploded document, the item's fields (and the point's common ones) at its top. */
function itemDocumentOf(point: TimeseriesPoint, item: { fields: Record<string, unknown> }): Record<string, unknown> {
  return {
    ...item.fields,
    urn: point.urn,
    timestampMillis: point.timestampMillis,
    '@timestamp': point.timestampMillis,
    isExploded: true,
    pointId: point.id,
  };
}

// --- Aggregations ------------------------------------------------------------------------------------------------------

type Aggregations = Record<string, estypes.AggregationsAggregationContainer>;

/** The aggregations of the buckets from `level` on, the metrics innermost. */
function aggregationsOf(
  buckets: readonly TimeseriesBucket[],
  metrics: readonly TimeseriesMetric[],
  level: number,
): Aggregations {
  const bucket = buckets[level];
  if (bucket === undefined) return metricAggregations(metrics);
  const nested = aggregationsOf(buckets, metrics, level + 1);
  if (bucket.kind === 'date') {
    return {
      [`g${level}`]: {
        date_histogram: {
          field: bucket.field,
          calendar_interval: CALENDAR_INTERVALS[bucket.unit] as estypes.AggregationsCalendarInterval,
          time_zone: bucket.timeZone,
          min_doc_count: 0,
        },
        aggs: nested,
      },
    };
  }
  return {
    [`g${level}`]: {
      terms: { field: bucket.field, size: bucket.size, order: { _key: bucket.ascending ? 'asc' : 'desc' } },
      aggs: nested,
    },
  };
}

function metricAggregations(metrics: readonly TimeseriesMetric[]): Aggregations {
  return Object.fromEntries(
    metrics.map((metric, position): [string, estypes.AggregationsAggregationContainer] => {
      switch (metric.kind) {
        case 'SUM':
          return [`m${position}`, { sum: { field: metric.field } }];
        case 'CARDINALITY':
          return [`m${position}`, { cardinality: { field: metric.field, precision_threshold: 40_000 } }];
        case 'LATEST':
          return [
            `m${position}`,
            {
              terms: { field: metric.field, size: 1, order: [{ newest: 'desc' }, { _count: 'desc' }, { _key: 'asc' }] },
              aggs: { newest: { max: { field: TIME_FIELD } } },
            },
          ];
      }
    }),
  );
}

interface BucketAnswer {
  readonly key: string | number;
  readonly key_as_string?: string;
  readonly [aggregation: string]: unknown;
}

/** The rows of an aggregation's answer, the groups in the order the cluster answers them. */
function rowsOf(
  answer: Record<string, unknown>,
  buckets: readonly TimeseriesBucket[],
  metrics: readonly TimeseriesMetric[],
): TimeseriesAggregationRow[] {
  const rows: TimeseriesAggregationRow[] = [];
  const walk = (aggregations: Record<string, unknown>, level: number, keys: (string | number | boolean)[]) => {
    if (level === buckets.length) {
      rows.push({ keys, values: metrics.map((metric, position) => metricValue(metric, aggregations[`m${position}`])) });
      return;
    }
    const group = aggregations[`g${level}`] as { buckets?: BucketAnswer[] } | undefined;
    for (const bucket of group?.buckets ?? []) walk(bucket, level + 1, [...keys, keyOf(bucket)]);
  };
  walk(answer, 0, []);
  return rows;
}

function metricValue(metric: TimeseriesMetric, answer: unknown): string | number | boolean | null {
  if (metric.kind === 'LATEST') {
    const first = (answer as { buckets?: BucketAnswer[] } | undefined)?.buckets?.[0];
    return first === undefined ? null : keyOf(first);
  }
  const value = (answer as { value?: number | null } | undefined)?.value;
  return typeof value === 'number' ? value : 0;
}

/** A bucket's key as the field holds it: a boolean's `true`/`false` (which terms key as 1 and 0), else the key. */
function keyOf(bucket: BucketAnswer): string | number | boolean {
  if (typeof bucket.key === 'number' && (bucket.key_as_string === 'true' || bucket.key_as_string === 'false')) {
    return bucket.key_as_string === 'true';
  }
  return bucket.key;
}

function tooManyBuckets(error: unknown): boolean {
  return (
    error instanceof errors.ResponseError && JSON.stringify(error.body ?? {}).includes('too_many_buckets_exception')
  );
}

// --- Filters -----------------------------------------------------------------------------------------------------------

/** OR of AND groups (resolved). Undefined when it filters nothing: no groups, or a group without criteria. */
function filterQuery(filter: Filter): Query | undefined {
  return orOfAndQuery(filter, criterionQuery);
}

/** A criterion as a query matching the points it keeps, or (`negate`) those it drops. */
function criterionQuery(criterion: Criterion): { query: Query; negate: boolean } {
  const field = criterion.field;
  // The time is a date: its values go as numbers (epoch milliseconds), which a date field reads as such.
  const typed = (value: string): string | number => (field === TIME_FIELD ? (valueNumber(value) ?? value) : value);
  const matches = (query: Query): { query: Query; negate: boolean } => ({ query, negate: criterion.negated });
  const wildcard = (pattern: (value: string) => string): Query =>
    anyOf(
      criterion.values.map((value) => ({
        wildcard: { [field]: { value: pattern(literal(value)), case_insensitive: true } },
      })),
    );
  switch (criterion.condition) {
    case 'EQUAL':
    case 'IN':
      return matches({ terms: { [field]: criterion.values.map(typed) } });
    case 'CONTAIN':
      return matches(wildcard((value) => `*${value}*`));
    case 'START_WITH':
      return matches(wildcard((value) => `${value}*`));
    case 'END_WITH':
      return matches(wildcard((value) => `*${value}`));
    case 'GREATER_THAN':
    case 'GREATER_THAN_OR_EQUAL_TO':
    case 'LESS_THAN':
    case 'LESS_THAN_OR_EQUAL_TO': {
      const operator = RANGES[criterion.condition];
      return matches(anyOf(criterion.values.map((value) => ({ range: { [field]: { [operator]: typed(value) } } }))));
    }
    case 'EXISTS':
      return matches({ exists: { field } });
    case 'IS_NULL':
      return { query: { exists: { field } }, negate: !criterion.negated };
  }
}

/** Points matching any of the queries; none for no query. */
function anyOf(queries: readonly Query[]): Query {
  const [first, ...rest] = queries;
  if (first === undefined) return { match_none: {} };
  return rest.length === 0 ? first : { bool: { should: [...queries], minimum_should_match: 1 } };
}

/** Text matched literally by a wildcard value. */
function literal(text: string): string {
  return text.replace(/[\\*?]/g, '\\$&');
}
