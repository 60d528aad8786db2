import { BadRequestError, type AspectSpec, type AvroSchema } from '@strata/model';
import type { CalendarUnit, TimeseriesAggregationRow, TimeseriesBucket, TimeseriesMetric } from '@strata/indices';
import { collectionFieldsOf, presentType } from './timeseries-points';

/**
 * DataHub's aggregated timeseries statistics (`getAggregatedStats`), as pure functions: which fields a request may name
 * and their types, the aggregation the index runs, and the answer as DataHub's `GenericTable` — every cell a string,
 * numbers written as Java writes them, a missing value `NULL`.
 */

/** DataHub's `AggregationSpec`. */
export interface AggregationSpec {
  readonly fieldPath: string;
  readonly aggregationType: 'LATEST' | 'SUM' | 'CARDINALITY';
}

/** DataHub's `GroupingBucket`; `orderByMetric` is accepted and ignored, as DataHub's single-entity query ignores it. */
export interface GroupingBucket {
  readonly type: 'DATE_GROUPING_BUCKET' | 'STRING_GROUPING_BUCKET';
  readonly key: string;
  readonly timeWindowSize?: { readonly unit: string; readonly multiple?: number } | undefined;
  readonly timeZone?: string | undefined;
  readonly ascending?: boolean | undefined;
  readonly size?: number | undefined;
  readonly orderByMetric?: boolean | undefined;
}

/** DataHub's `GenericTable`. */
export interface GenericTable {
  readonly columnNames: string[];
  readonly columnTypes: string[];
  readonly rows: string[][];
}

/** What DataHub writes for a value an aggregation did not find. */
export const NULL_CELL = 'NULL';

/** DataHub's limit of terms per string bucket (the minutes of a day), the default `size`. */
export const DEFAULT_STRING_BUCKET_SIZE = 24 * 60;

const TIME_FIELD = 'timestampMillis';
const PARTITION_MEMBERS = new Set(['partition', 'timePartition']);

/**
 * The type of a field path of a timeseries aspect, as DataHub resolves it (its Pegasus type, lowercase): the time
 * (`long`), the URN (`string`), the granularity (`record`), an aspect's `@TimeseriesField`, a collection itself
 * (`array`), a collection's key (`string`) or one of its item's `@TimeseriesField`s, and `partitionSpec.partition` or
 * `.timePartition` (`string`); beyond DataHub, `runId` and `messageId` (`string`), which every document carries. A
 * `.keyword` suffix names the same field. Anything else is a 400.
 */
export function fieldTypeOf(aspect: AspectSpec, fieldPath: string): string {
  const path = fieldPath.endsWith('.keyword') ? fieldPath.slice(0, -'.keyword'.length) : fieldPath;
  if (path === TIME_FIELD) return 'long';
  if (path === 'urn' || path === 'runId' || path === 'messageId') return 'string';
  if (path === 'eventGranularity') return 'record';
  const parts = path.split('.');
  const collections = collectionFieldsOf(aspect);
  if (parts.length === 1) {
    const field = aspect.schema.field(path);
    if (field !== undefined && field.annotations['TimeseriesField'] !== undefined) return typeName(field.type);
    if (collections.some((collection) => collection.name === path)) return 'array';
  } else if (parts.length === 2) {
    const [head = '', member = ''] = parts;
    if (head === 'partitionSpec') {
      if (PARTITION_MEMBERS.has(member)) return 'string';
      throw new BadRequestError(`Unknown partitionSpec member ${member}`);
    }
    const collection = collections.find((candidate) => candidate.name === head);
    if (collection !== undefined) {
      if (collection.key === member) return 'string';
      const stat = collection.item.field(member);
      if (stat !== undefined && stat.annotations['TimeseriesField'] !== undefined) return typeName(stat.type);
    }
  }
  throw new BadRequestError(`Unknown TimeseriesField or TimeseriesFieldCollection: ${fieldPath}`);
}

function typeName(type: AvroSchema): string {
  const present = presentType(type);
  return present.type;
}

const NUMERIC = new Set(['int', 'long', 'float', 'double']);

/** The aggregation to run, and how to write its answer. */
export interface AggregationPlan {
  readonly buckets: TimeseriesBucket[];
  readonly metrics: TimeseriesMetric[];
  readonly columnNames: string[];
  readonly columnTypes: string[];
  /** Per bucket, then per metric: how a cell is written. */
  readonly bucketFields: readonly { readonly path: string; readonly type: string }[];
  readonly metricFields: readonly {
    readonly path: string;
    readonly type: string;
    readonly kind: AggregationSpec['aggregationType'];
  }[];
}

/**
 * Checks a request's metrics and buckets against the aspect and plans the aggregation: a 400 for a field DataHub does
 * not know, a SUM of what is not a number, a date bucket of another field than the time, without a window, of a unit
 * or multiple a calendar does not have (Elasticsearch's calendar intervals are one unit long).
 */
export function planAggregation(
  aspect: AspectSpec,
  metrics: readonly AggregationSpec[],
  buckets: readonly GroupingBucket[],
): AggregationPlan {
  if (metrics.length === 0) throw new BadRequestError('metrics must name at least one aggregation');
  const bucketFields = buckets.map((bucket) => ({ path: bucket.key, type: fieldTypeOf(aspect, bucket.key) }));
  const metricFields = metrics.map((metric) => {
    const type = fieldTypeOf(aspect, metric.fieldPath);
    if (metric.aggregationType === 'SUM' && !NUMERIC.has(type)) {
      throw new BadRequestError(
        `Unexpected type encountered for sum aggregation: ${type.toUpperCase()} (${metric.fieldPath})`,
      );
    }
    return { path: metric.fieldPath, type, kind: metric.aggregationType };
  });
  const planned = buckets.map((bucket): TimeseriesBucket => {
    if (bucket.type === 'DATE_GROUPING_BUCKET') {
      if (stripKeyword(bucket.key) !== TIME_FIELD) {
        throw new BadRequestError(`A DATE_GROUPING_BUCKET groups ${TIME_FIELD}, not ${bucket.key}`);
      }
      const window = bucket.timeWindowSize;
      if (window === undefined) throw new BadRequestError('A DATE_GROUPING_BUCKET needs a timeWindowSize');
      if (!CALENDAR.has(window.unit)) {
        throw new BadRequestError(`Unknown date grouping bucket time window size unit: ${window.unit}`);
      }
      if ((window.multiple ?? 1) !== 1) {
        throw new BadRequestError(
          `A DATE_GROUPING_BUCKET's timeWindowSize must have multiple 1: a calendar interval is one ${window.unit}`,
        );
      }
      return {
        kind: 'date',
        field: TIME_FIELD,
        unit: window.unit as CalendarUnit,
        timeZone: bucket.timeZone ?? 'GMT',
      };
    }
    return {
      kind: 'string',
      field: bucket.key,
      ascending: bucket.ascending ?? true,
      size: bucket.size ?? DEFAULT_STRING_BUCKET_SIZE,
    };
  });
  return {
    buckets: planned,
    metrics: metrics.map((metric) => ({ kind: metric.aggregationType, field: metric.fieldPath })),
    columnNames: [
      ...buckets.map((bucket) => bucket.key),
      ...metrics.map((metric) => `${metric.aggregationType.toLowerCase()}_${metric.fieldPath}`),
    ],
    columnTypes: [
      ...bucketFields.map((field) => (NUMERIC.has(field.type) ? field.type : 'string')),
      ...metricFields.map((field) =>
        field.kind === 'SUM' ? 'double' : field.kind === 'CARDINALITY' ? 'long' : field.type,
      ),
    ],
    bucketFields,
    metricFields,
  };
}

const CALENDAR = new Set<string>(['MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR']);

function stripKeyword(path: string): string {
  return path.endsWith('.keyword') ? path.slice(0, -'.keyword'.length) : path;
}

/** The index's rows as DataHub's table: bucket keys, then metrics, each cell written as DataHub writes it. */
export function genericTableOf(plan: AggregationPlan, rows: readonly TimeseriesAggregationRow[]): GenericTable {
  return {
    columnNames: plan.columnNames,
    columnTypes: plan.columnTypes,
    rows: rows.map((row) => [
      ...row.keys.map((key, level) => {
        const bucket = plan.buckets[level];
        if (bucket?.kind === 'date') return String(key);
        const field = plan.bucketFields[level];
        return field === undefined ? String(key) : termText(field.path, field.type, key);
      }),
      ...row.values.map((value, position) => {
        const field = plan.metricFields[position];
        if (field === undefined || value === null) return NULL_CELL;
        switch (field.kind) {
          case 'SUM':
            return field.type === 'float' || field.type === 'double'
              ? javaDouble(Number(value))
              : String(Math.trunc(Number(value)));
          case 'CARDINALITY':
            return String(Math.trunc(Number(value)));
          case 'LATEST':
            return termText(field.path, field.type, value);
        }
      }),
    ]),
  };
}

/**
 * A value as Elasticsearch writes a terms key: the time as a date (ISO 8601, milliseconds, UTC), other numbers as
 * Java writes a long or a double, booleans as `true`/`false`, text as it is.
 */
export function termText(path: string, type: string, value: string | number | boolean): string {
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (stripKeyword(path) === TIME_FIELD) return new Date(value).toISOString();
    if (type === 'float' || type === 'double') return javaDouble(value);
    return Number.isInteger(value) ? String(value) : javaDouble(value);
  }
  return value;
}

/** A double as Java's `Double.toString` writes it: `3.0`, `0.001`, `1.0E7`, `1.5E-4`. */
export function javaDouble(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    const text = String(value);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}
