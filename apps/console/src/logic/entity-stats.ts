/**
 * The stats tab's rules: the usage window the URL names, a dataset's profiles and usage as chart series (oldest
 * first), the latest profile's per-field statistics as table rows, and how the numbers read. Pure (unit-tested in
 * entity-stats.spec.ts).
 */
import { simplifyFieldPath } from './schema-fields';

/** The usage windows GraphQL's `usageStats(range:)` takes, as the tab offers them. */
export const USAGE_RANGES = [
  { value: 'WEEK', label: 'Last week' },
  { value: 'MONTH', label: 'Last month' },
  { value: 'QUARTER', label: 'Last quarter' },
  { value: 'HALF_YEAR', label: 'Last six months' },
  { value: 'YEAR', label: 'Last year' },
  { value: 'ALL', label: 'All time' },
] as const;
export type UsageRange = (typeof USAGE_RANGES)[number]['value'];

/** The usage window of the URL (`?range=`), all time when it names none or an unknown one. */
export function usageRangeOf(value: string | null): UsageRange {
  return USAGE_RANGES.find((range) => range.value === value)?.value ?? 'ALL';
}

/** A profile as GraphQL answers it. */
export interface GqlProfile {
  readonly timestampMillis: number;
  readonly rowCount?: number | null;
  readonly columnCount?: number | null;
  readonly sizeInBytes?: number | null;
  readonly fieldProfiles?: readonly GqlFieldProfile[] | null;
}

export interface GqlFieldProfile {
  readonly fieldPath: string;
  readonly nullCount?: number | null;
  readonly nullProportion?: number | null;
  readonly uniqueCount?: number | null;
  readonly uniqueProportion?: number | null;
  readonly min?: string | null;
  readonly max?: string | null;
  readonly mean?: string | null;
  readonly median?: string | null;
  readonly stdev?: string | null;
  readonly sampleValues?: readonly string[] | null;
}

/** One point of the profile charts. */
export interface ProfilePoint {
  readonly time: number;
  readonly rowCount?: number;
  readonly columnCount?: number;
  readonly sizeInBytes?: number;
}

function present(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The profiles as chart points, oldest first (GraphQL answers newest first); one point per time. */
export function profileSeries(profiles: readonly GqlProfile[]): ProfilePoint[] {
  const byTime = new Map<number, ProfilePoint>();
  for (const profile of profiles) {
    if (byTime.has(profile.timestampMillis)) continue;
    byTime.set(profile.timestampMillis, {
      time: profile.timestampMillis,
      ...(present(profile.rowCount) ? { rowCount: profile.rowCount } : {}),
      ...(present(profile.columnCount) ? { columnCount: profile.columnCount } : {}),
      ...(present(profile.sizeInBytes) ? { sizeInBytes: profile.sizeInBytes } : {}),
    });
  }
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/** Usage buckets as GraphQL answers them. */
export interface GqlUsageBucket {
  readonly bucket?: number | null;
  readonly metrics?: { readonly totalSqlQueries?: number | null; readonly uniqueUserCount?: number | null } | null;
}

/** One point of the usage chart. */
export interface UsagePoint {
  readonly time: number;
  readonly queries: number;
  readonly users: number;
}

/** The usage buckets as chart points, oldest first (buckets without a time are left out). */
export function usageSeries(buckets: readonly (GqlUsageBucket | null)[]): UsagePoint[] {
  return buckets
    .flatMap((bucket) =>
      bucket === null || !present(bucket.bucket)
        ? []
        : [
            {
              time: bucket.bucket,
              queries: bucket.metrics?.totalSqlQueries ?? 0,
              users: bucket.metrics?.uniqueUserCount ?? 0,
            },
          ],
    )
    .sort((a, b) => a.time - b.time);
}

/** A field's statistics as the table shows them. */
export interface FieldStatsRow {
  readonly fieldPath: string;
  readonly path: string;
  readonly nulls?: string;
  readonly distinct?: string;
  readonly min?: string;
  readonly max?: string;
  readonly mean?: string;
  readonly median?: string;
  readonly stdev?: string;
  readonly samples: readonly string[];
}

/** The per-field statistics of a profile, in its order. */
export function fieldStatsRows(profile: GqlProfile | undefined): FieldStatsRow[] {
  return (profile?.fieldProfiles ?? []).map((field) => {
    const nulls = countWithShare(field.nullCount, field.nullProportion);
    const distinct = countWithShare(field.uniqueCount, field.uniqueProportion);
    const texts = { min: field.min, max: field.max, mean: field.mean, median: field.median, stdev: field.stdev };
    return {
      fieldPath: field.fieldPath,
      path: simplifyFieldPath(field.fieldPath),
      ...(nulls === undefined ? {} : { nulls }),
      ...(distinct === undefined ? {} : { distinct }),
      ...Object.fromEntries(
        Object.entries(texts).flatMap(([key, value]) =>
          value === null || value === undefined || value === '' ? [] : [[key, value]],
        ),
      ),
      samples: field.sampleValues ?? [],
    };
  });
}

/** `12 (1.2%)`, or the count alone, or the share alone. */
export function countWithShare(count: number | null | undefined, share: number | null | undefined): string | undefined {
  if (present(count) && present(share)) return `${formatCount(count)} (${formatPercent(share)})`;
  if (present(count)) return formatCount(count);
  if (present(share)) return formatPercent(share);
  return undefined;
}

/** A count with thousands separators. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** A proportion (0–1) as a percentage with at most one decimal. */
export function formatPercent(share: number): string {
  const percent = share * 100;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(1)}%`;
}

/** A size in bytes in the largest unit that keeps it ≥ 1 (`1.5 MB`). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit] ?? 'B'}`;
}

/** A chart axis's short date (`18 Nov`), in UTC so that a day's bucket reads as its day. */
export function shortDate(millis: number): string {
  return new Date(millis).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** The `limit` entries with the highest counts, highest first (ties keep their order). */
export function topByCount<T extends { readonly count: number }>(entries: readonly T[], limit: number): T[] {
  return [...entries].sort((a, b) => b.count - a.count).slice(0, limit);
}
