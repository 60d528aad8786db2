import { ValidationError } from '@strata/model';

import { MAX_FILTER_CRITERIA, MAX_FILTER_VALUES, valueNumber } from './search-documents';
import { CONDITIONS, type Condition, type Filter } from './search-index';
import { CALENDAR_UNITS, checkTimeZone } from './timeseries-calendar';
import {
  TIMESERIES_MAX_BUCKETS,
  TIMESERIES_MAX_LIMIT,
  timeseriesIndexName,
  type TaskCounters,
  type TimeseriesAggregation,
  type TimeseriesAspectRef,
  type TimeseriesBucket,
  type TimeseriesMetric,
  type TimeseriesPoint,
  type TimeseriesQuery,
  type TruncationRequest,
  ITEM_COMMON_FIELDS,
} from './timeseries-index';

/**
 * What both timeseries adapters check and resolve the same way before their engine sees a request, so that they
 * refuse the same requests with the same `ValidationError`.
 */

/** The point's own fields that are not among its {@link TimeseriesPoint.fields}: the URN and the time. */
export const URN_FIELD = 'urn';
export const TIME_FIELD = 'timestampMillis';

/**
 * The largest truncation batch: Elasticsearch refuses a delete-by-query `scroll_size` over its result window (10,000),
 * so the embedded index refuses it too.
 */
export const MAX_TRUNCATION_BATCH = 10_000;

/** The indices an adapter was opened for, by name (two refs naming the same index count once). */
export function indicesOf(
  aspects: readonly TimeseriesAspectRef[],
  prefix: string,
): ReadonlyMap<string, TimeseriesAspectRef> {
  const indices = new Map<string, TimeseriesAspectRef>();
  for (const ref of aspects) {
    const name = timeseriesIndexName(ref.entity, ref.aspect, prefix);
    if (!indices.has(name)) indices.set(name, { entity: ref.entity, aspect: ref.aspect });
  }
  return indices;
}

/** The index of (entity, aspect), refused when the adapter was not opened for it. */
export function knownIndex(
  indices: ReadonlyMap<string, TimeseriesAspectRef>,
  entity: string,
  aspect: string,
  prefix: string,
): string {
  const name = timeseriesIndexName(entity, aspect, prefix);
  if (!indices.has(name)) throw new ValidationError(`No timeseries index for aspect ${aspect} of entity ${entity}`);
  return name;
}

/** The indices of every timeseries aspect of an entity type. */
export function indicesOfEntity(indices: ReadonlyMap<string, TimeseriesAspectRef>, entity: string): string[] {
  return [...indices].flatMap(([name, ref]) => (ref.entity === entity ? [name] : []));
}

/** A query's limit, bounds, sort and filter checked, its filter resolved ({@link resolveTimeseriesFilter}). */
export function checkTimeseriesQuery(query: TimeseriesQuery): { filter: Filter; sortField: string | undefined } {
  if (!Number.isSafeInteger(query.limit) || query.limit < 0 || query.limit > TIMESERIES_MAX_LIMIT) {
    throw new ValidationError(`limit must be an integer from 0 to ${TIMESERIES_MAX_LIMIT}, got ${query.limit}`);
  }
  for (const [name, bound] of [
    ['startTimeMillis', query.startTimeMillis],
    ['endTimeMillis', query.endTimeMillis],
  ] as const) {
    if (bound !== undefined && !Number.isSafeInteger(bound)) {
      throw new ValidationError(`${name} must be an integer (epoch milliseconds), got ${bound}`);
    }
  }
  return {
    filter: resolveTimeseriesFilter(query.filter ?? []),
    sortField: query.sort === undefined ? undefined : fieldName(query.sort.field),
  };
}

/**
 * A filter with `.keyword` dropped from field names and criteria without values (other than `EXISTS`, `IS_NULL`)
 * removed, as DataHub ignores them. Refuses an unknown condition, a filter over the search filter's limits
 * ({@link MAX_FILTER_CRITERIA} criteria, {@link MAX_FILTER_VALUES} values), and a value of `timestampMillis` that is
 * not a number or a condition on it other than equality, ranges and presence (Elasticsearch holds it as a date).
 */
export function resolveTimeseriesFilter(filter: Filter): Filter {
  const criteria = filter.reduce((sum, group) => sum + group.length, 0);
  if (criteria > MAX_FILTER_CRITERIA) {
    throw new ValidationError(`The filter holds ${criteria} criteria, over the limit of ${MAX_FILTER_CRITERIA}`);
  }
  const values = filter.reduce(
    (sum, group) => group.reduce((inner, criterion) => inner + criterion.values.length, sum),
    0,
  );
  if (values > MAX_FILTER_VALUES) {
    throw new ValidationError(`The filter's criteria hold ${values} values, over the limit of ${MAX_FILTER_VALUES}`);
  }
  return filter.map((group) =>
    group
      .map((criterion) => {
        if (!(CONDITIONS as readonly string[]).includes(criterion.condition)) {
          throw new ValidationError(`Unsupported condition: ${criterion.condition}`);
        }
        const field = fieldName(criterion.field);
        if (field === TIME_FIELD) checkTimeCriterion(criterion.condition, criterion.values);
        return { ...criterion, field };
      })
      .filter((criterion) => !needsValues(criterion.condition) || criterion.values.length > 0),
  );
}

function checkTimeCriterion(condition: Condition, values: readonly string[]): void {
  if (condition === 'CONTAIN' || condition === 'START_WITH' || condition === 'END_WITH') {
    throw new ValidationError(`${condition} does not apply to ${TIME_FIELD}, a time`);
  }
  const wrong = values.find((value) => valueNumber(value) === undefined);
  if (needsValues(condition) && wrong !== undefined) {
    throw new ValidationError(`${TIME_FIELD} compares with epoch milliseconds, got "${wrong}"`);
  }
}

export function needsValues(condition: Condition): boolean {
  return condition !== 'EXISTS' && condition !== 'IS_NULL';
}

/** A filter or sort field's name: a `.keyword` suffix names the same field. */
function fieldName(field: string): string {
  return field.endsWith('.keyword') ? field.slice(0, -'.keyword'.length) : field;
}

/** Checks what a put needs of its point: a time both engines store exactly, and items with distinct field paths. */
export function checkPoint(point: TimeseriesPoint): void {
  if (!Number.isSafeInteger(point.timestampMillis)) {
    throw new ValidationError(`A point's timestampMillis must be an integer, got ${point.timestampMillis}`);
  }
}

/** The items of a point's collections, each collection's keys once (the last item of a key wins), in order. */
export function itemsOf(
  point: TimeseriesPoint,
): { collection: string; key: string; fields: Record<string, unknown> }[] {
  const items = new Map<string, { collection: string; key: string; fields: Record<string, unknown> }>();
  for (const [collection, list] of Object.entries(point.collections ?? {})) {
    for (const item of list) {
      const common: Record<string, unknown> = {};
      for (const field of ITEM_COMMON_FIELDS) {
        const value = point.fields[field];
        if (value !== undefined) common[field] = value;
      }
      items.set(JSON.stringify([collection, item.key]), {
        collection,
        key: item.key,
        fields: { ...common, ...item.fields },
      });
    }
  }
  return [...items.values()];
}

/** The most rows an aggregation answers: Elasticsearch's default `search.max_buckets`. */
export const MAX_AGGREGATION_ROWS = 65_535;

const METRIC_KINDS = new Set<string>(['LATEST', 'SUM', 'CARDINALITY']);

/** The most metrics, and the most buckets, one aggregation takes. */
export const MAX_AGGREGATION_METRICS = 20;
export const MAX_AGGREGATION_BUCKETS = 5;

/**
 * An aggregation checked, its field names resolved (`.keyword` dropped) and its filter resolved
 * ({@link resolveTimeseriesFilter}); refused with a `ValidationError` naming what is wrong.
 */
export function checkAggregation(aggregation: TimeseriesAggregation): {
  filter: Filter;
  buckets: TimeseriesBucket[];
  metrics: TimeseriesMetric[];
} {
  const { metrics, buckets } = aggregation;
  if (metrics.length === 0) throw new ValidationError('An aggregation needs at least one metric');
  if (metrics.length > MAX_AGGREGATION_METRICS) {
    throw new ValidationError(`An aggregation takes at most ${MAX_AGGREGATION_METRICS} metrics, got ${metrics.length}`);
  }
  if (buckets.length > MAX_AGGREGATION_BUCKETS) {
    throw new ValidationError(`An aggregation takes at most ${MAX_AGGREGATION_BUCKETS} buckets, got ${buckets.length}`);
  }
  const resolvedMetrics = metrics.map((metric): TimeseriesMetric => {
    // Callers in JavaScript may pass anything: the kinds are checked as text.
    const kind: string = metric.kind;
    if (!METRIC_KINDS.has(kind)) throw new ValidationError(`Unknown aggregation type: ${kind}`);
    return { kind: metric.kind, field: checkedField(metric.field) };
  });
  const resolvedBuckets = buckets.map((bucket): TimeseriesBucket => {
    const field = checkedField(bucket.field);
    if (bucket.kind === 'date') {
      if (field !== TIME_FIELD) throw new ValidationError(`A date grouping bucket groups ${TIME_FIELD}, not ${field}`);
      const unit: string = bucket.unit;
      if (!(CALENDAR_UNITS as readonly string[]).includes(unit))
        throw new ValidationError(`Unknown calendar unit: ${unit}`);
      checkTimeZone(bucket.timeZone);
      return { ...bucket, field };
    }
    if (!Number.isSafeInteger(bucket.size) || bucket.size < 1 || bucket.size > TIMESERIES_MAX_BUCKETS) {
      throw new ValidationError(`A bucket's size must be an integer from 1 to ${TIMESERIES_MAX_BUCKETS}`);
    }
    return { ...bucket, field };
  });
  return {
    filter: resolveTimeseriesFilter(aggregation.filter ?? []),
    buckets: resolvedBuckets,
    metrics: resolvedMetrics,
  };
}

function checkedField(field: string): string {
  const name = fieldName(field);
  if (name === '') throw new ValidationError('A field path must not be empty');
  return name;
}

/** Checks a truncation's batch size, end and timeout. */
export function checkTruncation(request: TruncationRequest): void {
  if (!Number.isSafeInteger(request.endTimeMillis)) {
    throw new ValidationError(`endTimeMillis must be an integer (epoch milliseconds), got ${request.endTimeMillis}`);
  }
  if (!Number.isSafeInteger(request.batchSize) || request.batchSize < 1 || request.batchSize > MAX_TRUNCATION_BATCH) {
    throw new ValidationError(
      `batchSize must be an integer from 1 to ${MAX_TRUNCATION_BATCH}, got ${request.batchSize}`,
    );
  }
  const timeout = request.timeoutSeconds;
  if (timeout !== undefined && (!Number.isSafeInteger(timeout) || timeout < 1)) {
    throw new ValidationError(`timeoutSeconds must be a positive integer, got ${timeout}`);
  }
}

/** The counters of a delete-by-query that has deleted nothing yet, as Elasticsearch writes them unthrottled. */
export function initialCounters(total: number): TaskCounters {
  return {
    total,
    updated: 0,
    created: 0,
    deleted: 0,
    batches: 0,
    version_conflicts: 0,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: -1,
    throttled_until_millis: 0,
  };
}
