import type { Filter } from './search-index';
import type { CalendarUnit } from './timeseries-calendar';

/**
 * The timeseries indices: one per (entity type, timeseries aspect), named as DataHub names them
 * (`<prefix_><entity>_<aspect>aspect_v1`, lowercased: `dataset_datasetusagestatisticsaspect_v1`), holding one document
 * per point. The timeseries indexer keeps them (embedded: one SQLite table per index; at scale: one Elasticsearch index
 * each) from the timeseries change logs, and serves `getTimeseriesAspectValues`, the index sizes and the truncations.
 *
 * Invariants every adapter guarantees (and `describeTimeseriesIndexContract` checks):
 * - **Idempotent writes.** A point is identified by its `id` within its index (see `timeseriesPointId`): writing a
 *   point again replaces it. A resolved `apply` is durable, and every later read sees it.
 * - **Order.** A query answers points newest first (`timestampMillis` descending, then `id` ascending), or in the order
 *   of the requested sort field, ties broken the same way.
 * - **Bounds.** `startTimeMillis` and `endTimeMillis` are both inclusive; truncation removes points with
 *   `timestampMillis <= endTimeMillis`.
 * - **Filters** are OR-of-AND groups over the point's fields ({@link TimeseriesPoint.fields}, plus `urn`, `runId`,
 *   `messageId`, `timestampMillis`, `eventGranularity` and `partitionSpec.partition`), with the search filter's
 *   conditions; a condition on a field the point lacks fails (and passes negated), as on Elasticsearch.
 * - **Tasks** (truncation) are durable: a task's status survives a restart, and a task a crash interrupted reports that
 *   it failed; it never vanishes.
 * - **Collection items** ({@link TimeseriesPoint.collections}) are documents of their point for aggregations only:
 *   queries and counts never see them; deletes, truncations and clears remove them with their point.
 */
export interface TimeseriesIndex {
  /** The name of the index of (entity type, aspect), with the configured prefix. */
  indexName(entity: string, aspect: string): string;
  /** Applies changes in order. Resolves once they are durable and visible to queries. */
  apply(changes: readonly TimeseriesChange[]): Promise<void>;
  /**
   * Removes every point of every index, leaving the indices open, empty and writable with the same layout (mappings,
   * tables); what a full rebuild from the primary store starts with. Resolves once that is durable: every later read
   * answers as empty indices (`sizes` still lists each one), and later writes work as on new indices. Tasks are kept:
   * a task's status is reported after a clear as before. A write concurrent with it may or may not survive it.
   */
  clear(): Promise<void>;
  /** Points of one entity in one index, newest first, at most `limit`. */
  query(query: TimeseriesQuery): Promise<readonly TimeseriesPoint[]>;
  /**
   * Aggregates the documents of one index (every point, and every item of its collections) that match the filter:
   * grouped by the buckets, nested in their order, with the metrics computed in each innermost group. Answers the
   * groups in the buckets' order, as Elasticsearch's aggregations answer them (see {@link TimeseriesAggregation}).
   */
  aggregate(aggregation: TimeseriesAggregation): Promise<readonly TimeseriesAggregationRow[]>;
  /** How many points the index holds, all of them or those with `timestampMillis <= endTimeMillis`. */
  count(entity: string, aspect: string, endTimeMillis?: number): Promise<number>;
  /** One record per index the adapter was opened for (every timeseries aspect of the registry), with its size on disk. */
  sizes(): Promise<readonly TimeseriesIndexSize[]>;
  /**
   * Starts removing the points of one index with `timestampMillis <= endTimeMillis`, in batches of `batchSize`, as an
   * asynchronous task; resolves with the task's id at once.
   */
  startTruncation(request: TruncationRequest): Promise<TaskId>;
  /** The status of a task this index ran or runs; undefined when it knows no such task. */
  taskStatus(task: TaskId): Promise<TaskStatus | undefined>;
  close(): Promise<void>;
}

/** The (entity type, aspect) pairs an index is opened for: every timeseries aspect of the registry. */
export interface TimeseriesAspectRef {
  /** Entity type name as the registry writes it (`dataset`, `dataJob`). */
  readonly entity: string;
  /** Aspect name as the registry writes it (`datasetUsageStatistics`). */
  readonly aspect: string;
}

/** One point: one value of a timeseries aspect of one entity, as the change log carried it. */
export interface TimeseriesPoint {
  readonly entity: string;
  readonly aspect: string;
  /** Unique within the index; the same point written twice has the same id. */
  readonly id: string;
  readonly urn: string;
  readonly timestampMillis: number;
  /** The aspect value, serialized JSON, exactly as the change log carried it. */
  readonly value: string;
  /** The change log's system metadata, serialized JSON. */
  readonly systemMetadata: string | undefined;
  /**
   * The point's fields that filters and sorts may name: the aspect's `@TimeseriesField`s at top level (`pipelineName`,
   * `uniqueUserCount`), plus `runId`, `messageId`, `eventGranularity` (its JSON) and `partitionSpec.partition`. Strings
   * compare as keywords, numbers as numbers, booleans as `true`/`false`.
   */
  readonly fields: Readonly<Record<string, string | number | boolean>>;
  /**
   * The items of the aspect's collection fields (DataHub's `@TimeseriesFieldCollection`: `userCounts` keyed by
   * `user`, `fieldCounts` keyed by `fieldPath`), by collection name. Each item is a document of its own for
   * aggregations (DataHub's exploded documents): it holds the point's `urn`, `timestampMillis`, `runId`, `messageId`,
   * `eventGranularity` and `partitionSpec.partition`, and the item's own fields. Written, never answered by `query`.
   * Absent, a put keeps the items the point had; present (even empty), it replaces them.
   */
  readonly collections?: Readonly<Record<string, readonly TimeseriesCollectionItem[]>>;
}

/** One item of a collection field of a point. */
export interface TimeseriesCollectionItem {
  /** The value of the collection's key field, as text; unique within the collection of its point (the last wins). */
  readonly key: string;
  /** The item's fields under their full paths (`userCounts.user`, `userCounts.count`), typed as the point's fields. */
  readonly fields: Readonly<Record<string, string | number | boolean>>;
}

/** The point's fields an item of its collections carries too (DataHub's common document). */
export const ITEM_COMMON_FIELDS = ['runId', 'messageId', 'eventGranularity', 'partitionSpec.partition'] as const;

export type TimeseriesChange =
  | { readonly kind: 'put'; readonly point: TimeseriesPoint }
  /**
   * Removes the points of one entity in one index whose timestamp lies in the inclusive range (a missing bound: open),
   * with their collection items; only those whose `runId` field is `runId`, when given (a run's rollback).
   */
  | {
      readonly kind: 'deleteRange';
      readonly entity: string;
      readonly aspect: string;
      readonly urn: string;
      readonly startTimeMillis?: number | undefined;
      readonly endTimeMillis?: number | undefined;
      readonly runId?: string | undefined;
    }
  /** Removes every point of one entity, in every index of its type. */
  | { readonly kind: 'deleteEntity'; readonly entity: string; readonly urn: string };

export interface TimeseriesQuery {
  readonly entity: string;
  readonly aspect: string;
  readonly urn: string;
  readonly startTimeMillis?: number | undefined;
  readonly endTimeMillis?: number | undefined;
  readonly filter?: Filter | undefined;
  /** Ascending or descending by one field instead of newest first. */
  readonly sort?: { readonly field: string; readonly order: 'ASCENDING' | 'DESCENDING' } | undefined;
  /** 0 to {@link TIMESERIES_MAX_LIMIT}. */
  readonly limit: number;
}

/** The most points one query answers, as DataHub's timeseries service. */
export const TIMESERIES_MAX_LIMIT = 10_000;

/**
 * An aggregation over one index, with the semantics of Elasticsearch's aggregations as DataHub builds them:
 *
 * - **Documents** are the points and the items of their collections ({@link TimeseriesPoint.collections}); the filter
 *   (as in queries) keeps those whose own fields match it. A document without a field a bucket or metric names takes
 *   no part in it.
 * - **Buckets** nest in order. A `date` bucket cuts `timestampMillis` by a calendar unit in a time zone (see
 *   `timeseries-calendar.ts`); its groups come in time order, and at the innermost level the empty periods between
 *   the first and the last group of their parent are answered too (their SUM and CARDINALITY 0, LATEST null), as a
 *   date histogram does. A `string` bucket groups by a field's value, in value order (numbers as numbers, text by
 *   code point), ascending or not, at most `size` groups per parent. Without buckets, one row covers every document.
 * - **Metrics**: `SUM` of a field's numbers (0 without any); `CARDINALITY`, how many distinct values it takes (exact on
 *   the embedded index; on Elasticsearch, exact up to 40,000 distinct values and an estimate beyond); `LATEST`, its
 *   value in the newest document having it — among documents of the same time, the value most of them hold, then
 *   the least value — or null.
 */
export interface TimeseriesAggregation {
  readonly entity: string;
  readonly aspect: string;
  readonly filter?: Filter | undefined;
  readonly buckets: readonly TimeseriesBucket[];
  /** At least one. */
  readonly metrics: readonly TimeseriesMetric[];
}

export type TimeseriesBucket =
  | {
      readonly kind: 'date';
      /** `timestampMillis`, the only time a document has. */
      readonly field: string;
      readonly unit: CalendarUnit;
      /** `UTC`, or a zone of the time-zone database (`Europe/Paris`). */
      readonly timeZone: string;
    }
  | {
      readonly kind: 'string';
      readonly field: string;
      readonly ascending: boolean;
      /** Most groups per parent group, 1 to {@link TIMESERIES_MAX_BUCKETS}. */
      readonly size: number;
    };

export interface TimeseriesMetric {
  readonly kind: 'LATEST' | 'SUM' | 'CARDINALITY';
  readonly field: string;
}

/** One innermost group of an aggregation. */
export interface TimeseriesAggregationRow {
  /** One per bucket: a date group's start (epoch milliseconds); a string group's value, typed as the field holds it. */
  readonly keys: readonly (string | number | boolean)[];
  /** One per metric: a number for SUM and CARDINALITY; LATEST's value, typed as the field holds it, or null. */
  readonly values: readonly (string | number | boolean | null)[];
}

/** The most groups one string bucket answers per parent group: Elasticsearch's default limit of buckets. */
export const TIMESERIES_MAX_BUCKETS = 10_000;

export interface TimeseriesIndexSize {
  readonly indexName: string;
  readonly entity: string;
  readonly aspect: string;
  /** Bytes on disk of the primary copy. */
  readonly bytes: number;
}

export interface TruncationRequest {
  readonly entity: string;
  readonly aspect: string;
  /** Inclusive. */
  readonly endTimeMillis: number;
  /** Points removed per batch, at least 1. */
  readonly batchSize: number;
  /** The task stops (and reports that it timed out) after this long; undefined: no limit. */
  readonly timeoutSeconds?: number | undefined;
}

/** A task's id as Elasticsearch writes it: `<nodeId>:<number>`. */
export interface TaskId {
  readonly nodeId: string;
  readonly number: number;
}

/**
 * A task's status in Elasticsearch's terms (the tasks API): whether it completed, how long it has run, and the
 * counters of a delete-by-query. `error` is set when it failed (a crash interrupted it, it timed out, the engine failed).
 */
export interface TaskStatus {
  readonly task: TaskId;
  readonly completed: boolean;
  readonly runTimeNanos: number;
  readonly status: TaskCounters;
  readonly error?: { readonly type: string; readonly reason: string } | undefined;
}

/** The counters of a delete-by-query or reindex task, with Elasticsearch's names. */
export interface TaskCounters {
  readonly total: number;
  readonly updated: number;
  readonly created: number;
  readonly deleted: number;
  readonly batches: number;
  readonly version_conflicts: number;
  readonly noops: number;
  readonly retries: { readonly bulk: number; readonly search: number };
  readonly throttled_millis: number;
  readonly requests_per_second: number;
  readonly throttled_until_millis: number;
}

/** `<prefix_><entity>_<aspect>aspect_v1`, lowercased, as DataHub names a timeseries index. */
export function timeseriesIndexName(entity: string, aspect: string, prefix = ''): string {
  const base = `${entity}_${aspect}`.toLowerCase();
  return `${prefix === '' ? '' : `${prefix}_`}${base}aspect_v1`;
}

/** `<nodeId>:<number>`. */
export function formatTaskId(task: TaskId): string {
  return `${task.nodeId}:${task.number}`;
}
