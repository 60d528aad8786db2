import { lazy, Suspense, useId } from 'react';
import { useSearchParams } from 'react-router';
import { useGql } from '../../api/graphql';
import { EmptyState, EntityLink, ErrorNotice, Loading, Time } from '../../ui/components';
import {
  fieldStatsRows,
  formatBytes,
  formatCount,
  profileSeries,
  topByCount,
  USAGE_RANGES,
  usageRangeOf,
  usageSeries,
  type GqlProfile,
  type GqlUsageBucket,
} from '../../logic/entity-stats';
import { PROFILE_POINTS, STATS_QUERY } from './queries';

/** The charts (recharts): a chunk of their own, loaded when the stats are first shown. */
const StatsCharts = lazy(() => import('./stats-charts').then((module) => ({ default: module.StatsCharts })));

interface StatsAnswer {
  dataset: {
    urn: string;
    latest: GqlProfile[] | null;
    series: GqlProfile[] | null;
    usageStats: {
      buckets: (GqlUsageBucket | null)[] | null;
      aggregations: {
        totalSqlQueries: number | null;
        uniqueUserCount: number | null;
        users:
          | ({
              count: number | null;
              userEmail: string | null;
              user: { urn: string; username: string; properties: { displayName: string | null } | null } | null;
            } | null)[]
          | null;
        fields: ({ fieldName: string | null; count: number | null } | null)[] | null;
      } | null;
    } | null;
  } | null;
}

/**
 * A dataset's statistics: its latest profile (rows, columns, size, per-field statistics), its profiles and usage
 * over time as charts, and who and which fields its queries used most — over a window kept in the URL.
 */
export function StatsTab({ urn }: { readonly urn: string }) {
  const [params, setParams] = useSearchParams();
  const range = usageRangeOf(params.get('range'));
  const rangeId = useId();
  const read = useGql<StatsAnswer>(STATS_QUERY, { urn, range, points: PROFILE_POINTS });
  if (read.error !== undefined && read.error !== null && read.data === undefined) {
    return <ErrorNotice error={read.error} retry={read.refetch} />;
  }
  if (read.data === undefined) return <Loading what="Loading the statistics" />;
  const dataset = read.data.dataset;
  const latest = dataset?.latest?.[0];
  const profiles = profileSeries(dataset?.series ?? []);
  const usage = usageSeries(dataset?.usageStats?.buckets ?? []);
  const aggregations = dataset?.usageStats?.aggregations;
  const fields = fieldStatsRows(latest);
  const users = topByCount(
    (aggregations?.users ?? []).flatMap((user) => (user === null ? [] : [{ ...user, count: user.count ?? 0 }])),
    10,
  );
  const usedFields = topByCount(
    (aggregations?.fields ?? []).flatMap((field) =>
      field === null || field.fieldName === null ? [] : [{ name: field.fieldName, count: field.count ?? 0 }],
    ),
    10,
  );
  return (
    <div className="entity-stats">
      <section aria-labelledby="profile-heading" className="entity-section">
        <h2 id="profile-heading">Latest profile</h2>
        {latest === undefined ? (
          <EmptyState>No profile of this dataset is recorded.</EmptyState>
        ) : (
          <>
            <p className="muted">
              Profiled <Time millis={latest.timestampMillis} />
            </p>
            <dl className="stat-cards">
              <StatCard label="Rows" value={latest.rowCount} format={formatCount} />
              <StatCard label="Columns" value={latest.columnCount} format={formatCount} />
              <StatCard label="Size" value={latest.sizeInBytes} format={formatBytes} />
            </dl>
          </>
        )}
      </section>

      <section aria-labelledby="usage-heading" className="entity-section">
        <h2 id="usage-heading">Usage</h2>
        <div className="form-row">
          <label htmlFor={rangeId}>Window</label>
          <select
            id={rangeId}
            value={range}
            onChange={(event) => {
              setParams(
                (current) => {
                  const next = new URLSearchParams(current);
                  next.set('range', event.target.value);
                  return next;
                },
                { preventScrollReset: true },
              );
            }}
          >
            {USAGE_RANGES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          {read.fetching ? <span className="muted">Updating…</span> : null}
        </div>
        {usage.length === 0 ? (
          <EmptyState>No usage is recorded in this window.</EmptyState>
        ) : (
          <dl className="stat-cards">
            <StatCard label="Queries" value={aggregations?.totalSqlQueries} format={formatCount} />
            <StatCard label="Distinct users" value={aggregations?.uniqueUserCount} format={formatCount} />
          </dl>
        )}
      </section>

      {profiles.length === 0 && usage.length === 0 ? null : (
        <Suspense fallback={<Loading what="Loading the charts" />}>
          <StatsCharts profiles={profiles} usage={usage} />
        </Suspense>
      )}

      {fields.length === 0 ? null : (
        <section aria-labelledby="field-stats-heading" className="entity-section">
          <h2 id="field-stats-heading">Field statistics</h2>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Nulls</th>
                  <th scope="col">Distinct</th>
                  <th scope="col">Min</th>
                  <th scope="col">Max</th>
                  <th scope="col">Mean</th>
                  <th scope="col">Median</th>
                  <th scope="col">Std. dev.</th>
                  <th scope="col">Samples</th>
                </tr>
              </thead>
              <tbody>
                {fields.map((field) => (
                  <tr key={field.fieldPath}>
                    <th scope="row" className="mono" title={field.fieldPath}>
                      {field.path}
                    </th>
                    <Cell value={field.nulls} />
                    <Cell value={field.distinct} />
                    <Cell value={field.min} />
                    <Cell value={field.max} />
                    <Cell value={field.mean} />
                    <Cell value={field.median} />
                    <Cell value={field.stdev} />
                    <Cell value={field.samples.slice(0, 5).join(', ')} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}

      {users.length === 0 && usedFields.length === 0 ? null : (
        <div className="stats-tops">
          {users.length === 0 ? null : (
            <section aria-labelledby="top-users-heading" className="entity-section">
              <h2 id="top-users-heading">Top users</h2>
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">User</th>
                    <th scope="col">Queries</th>
                  </tr>
                </thead>
                <tbody>
                  {users.map((user, index) => (
                    <tr key={user.user?.urn ?? user.userEmail ?? index}>
                      <th scope="row">
                        {user.user === null ? (
                          (user.userEmail ?? '—')
                        ) : (
                          <EntityLink
                            urn={user.user.urn}
                            name={user.user.properties?.displayName ?? user.user.username}
                          />
                        )}
                      </th>
                      <td>{formatCount(user.count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          {usedFields.length === 0 ? null : (
            <section aria-labelledby="top-fields-heading" className="entity-section">
              <h2 id="top-fields-heading">Most used fields</h2>
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Queries</th>
                  </tr>
                </thead>
                <tbody>
                  {usedFields.map((field) => (
                    <tr key={field.name}>
                      <th scope="row" className="mono">
                        {field.name}
                      </th>
                      <td>{formatCount(field.count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </div>
      )}
    </div>
  );
}

function StatCard({
  label,
  value,
  format,
}: {
  readonly label: string;
  readonly value: number | null | undefined;
  readonly format: (value: number) => string;
}) {
  return (
    <div className="stat-card card">
      <dt>{label}</dt>
      <dd>{value === null || value === undefined ? <span className="muted">—</span> : format(value)}</dd>
    </div>
  );
}

function Cell({ value }: { readonly value: string | undefined }) {
  return <td>{value === undefined || value === '' ? <span className="muted">—</span> : value}</td>;
}
