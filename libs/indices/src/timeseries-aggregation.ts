import { ValidationError } from '@strata/model';

import { calendarBucketStart, nextCalendarBucket } from './timeseries-calendar';
import type { TimeseriesAggregationRow, TimeseriesBucket, TimeseriesMetric } from './timeseries-index';
import { MAX_AGGREGATION_ROWS } from './timeseries-requests';

/**
 * What an engine without Elasticsearch's aggregations does after grouping: from the innermost groups that hold
 * documents, the rows an Elasticsearch aggregation answers — groups in each bucket's order, at most `size` groups of a
 * string bucket per parent, and, when the innermost bucket is a date bucket, the empty periods between the first and
 * the last group of each parent (SUM and CARDINALITY 0, LATEST null). Refuses more than {@link MAX_AGGREGATION_ROWS}
 * rows, as Elasticsearch refuses too many buckets.
 */
export function assembleAggregationRows(
  groups: readonly TimeseriesAggregationRow[],
  buckets: readonly TimeseriesBucket[],
  metrics: readonly TimeseriesMetric[],
): TimeseriesAggregationRow[] {
  if (buckets.length === 0) return [...groups];
  const rows: TimeseriesAggregationRow[] = [];
  const walk = (members: readonly TimeseriesAggregationRow[], level: number, prefix: readonly RowKey[]): void => {
    const bucket = buckets[level];
    if (bucket === undefined) return;
    const byKey = new Map<string, { key: RowKey; members: TimeseriesAggregationRow[] }>();
    for (const member of members) {
      const key = member.keys[level] as RowKey;
      const slot = JSON.stringify([typeof key, key]);
      const entry = byKey.get(slot) ?? { key, members: [] };
      entry.members.push(member);
      byKey.set(slot, entry);
    }
    let entries = [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key));
    if (bucket.kind === 'string') {
      if (!bucket.ascending) entries.reverse();
      entries = entries.slice(0, bucket.size);
    }
    const last = level === buckets.length - 1;
    if (last && bucket.kind === 'date') {
      entries = withEmptyPeriods(entries, bucket, metrics);
    }
    for (const entry of entries) {
      if (last) {
        for (const member of entry.members) {
          rows.push({ keys: [...prefix, entry.key], values: member.values });
          if (rows.length > MAX_AGGREGATION_ROWS) throw tooMany();
        }
      } else {
        walk(entry.members, level + 1, [...prefix, entry.key]);
      }
    }
  };
  walk(groups, 0, []);
  return rows;
}

type RowKey = string | number | boolean;

/** The values of a group without documents. */
export function emptyMetricValues(metrics: readonly TimeseriesMetric[]): (number | null)[] {
  return metrics.map((metric) => (metric.kind === 'LATEST' ? null : 0));
}

function withEmptyPeriods(
  entries: readonly { key: RowKey; members: TimeseriesAggregationRow[] }[],
  bucket: Extract<TimeseriesBucket, { kind: 'date' }>,
  metrics: readonly TimeseriesMetric[],
): { key: RowKey; members: TimeseriesAggregationRow[] }[] {
  const first = entries[0];
  const last = entries[entries.length - 1];
  if (first === undefined || last === undefined) return [];
  const present = new Map(entries.map((entry) => [entry.key, entry]));
  const filled: { key: RowKey; members: TimeseriesAggregationRow[] }[] = [];
  const empty = emptyMetricValues(metrics);
  let start = calendarBucketStart(Number(first.key), bucket.unit, bucket.timeZone);
  const end = Number(last.key);
  while (start <= end) {
    filled.push(present.get(start) ?? { key: start, members: [{ keys: [], values: empty }] });
    if (filled.length > MAX_AGGREGATION_ROWS) throw tooMany();
    start = nextCalendarBucket(start, bucket.unit, bucket.timeZone);
  }
  return filled;
}

/**
 * The order of group keys, as Elasticsearch orders terms by key: numbers as numbers, text by its UTF-8 bytes (so by
 * code point), false before true; values of different types (which one field never holds) numbers, then booleans,
 * then text.
 */
export function compareKeys(a: RowKey, b: RowKey): number {
  const rank = (value: RowKey) => (typeof value === 'number' ? 0 : typeof value === 'boolean' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return Number(a) - Number(b);
}

function tooMany(): ValidationError {
  return new ValidationError(
    `The aggregation answers more than ${MAX_AGGREGATION_ROWS} rows: narrow the filter, or use larger time buckets`,
  );
}
