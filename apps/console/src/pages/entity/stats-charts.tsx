import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatCount, shortDate, type ProfilePoint, type UsagePoint } from '../../logic/entity-stats';

/**
 * The stats tab's charts (recharts, in a chunk of their own): row count over the profiles, and queries and users per
 * day of usage. Each chart has its numbers as a table too, for whoever does not see it.
 */
export function StatsCharts({
  profiles,
  usage,
}: {
  readonly profiles: readonly ProfilePoint[];
  readonly usage: readonly UsagePoint[];
}) {
  const rows = profiles.filter((point) => point.rowCount !== undefined);
  return (
    <div className="stats-charts">
      {rows.length === 0 ? null : (
        <figure className="stats-chart card" aria-labelledby="rows-chart-caption">
          <figcaption id="rows-chart-caption">Rows over time</figcaption>
          <div className="stats-chart-canvas" aria-hidden="true">
            <ResponsiveContainer width="100%" height={240}>
              <LineChart accessibilityLayer={false} data={[...rows]} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid stroke="#d0d7de" strokeDasharray="3 3" />
                <XAxis dataKey="time" tickFormatter={shortDate} stroke="#57606a" />
                <YAxis tickFormatter={formatCount} stroke="#57606a" width={72} />
                <Tooltip
                  labelFormatter={(value) => shortDate(Number(value))}
                  formatter={(value) => formatCount(Number(value))}
                />
                <Line
                  type="monotone"
                  dataKey="rowCount"
                  name="Rows"
                  stroke="#0b57d0"
                  strokeWidth={2}
                  dot={rows.length < 40}
                  isAnimationActive={false}
                />
              </LineChart>
            </ResponsiveContainer>
          </div>
          <DataTable
            caption="Rows by profile"
            headers={['Profiled', 'Rows', 'Columns']}
            rows={rows.map((point) => [
              shortDate(point.time),
              point.rowCount === undefined ? '—' : formatCount(point.rowCount),
              point.columnCount === undefined ? '—' : formatCount(point.columnCount),
            ])}
          />
        </figure>
      )}
      {usage.length === 0 ? null : (
        <figure className="stats-chart card" aria-labelledby="usage-chart-caption">
          <figcaption id="usage-chart-caption">Queries and users per day</figcaption>
          <div className="stats-chart-canvas" aria-hidden="true">
            <ResponsiveContainer width="100%" height={240}>
              <BarChart accessibilityLayer={false} data={[...usage]} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid stroke="#d0d7de" strokeDasharray="3 3" />
                <XAxis dataKey="time" tickFormatter={shortDate} stroke="#57606a" />
                <YAxis tickFormatter={formatCount} stroke="#57606a" width={56} />
                <Tooltip
                  labelFormatter={(value) => shortDate(Number(value))}
                  formatter={(value) => formatCount(Number(value))}
                />
                <Legend />
                <Bar dataKey="queries" name="Queries" fill="#0b57d0" isAnimationActive={false} />
                <Bar dataKey="users" name="Users" fill="#146c2e" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
          <DataTable
            caption="Usage by day"
            headers={['Day', 'Queries', 'Users']}
            rows={usage.map((point) => [shortDate(point.time), formatCount(point.queries), formatCount(point.users)])}
          />
        </figure>
      )}
    </div>
  );
}

/** A chart's numbers as a table, folded under the chart. */
function DataTable({
  caption,
  headers,
  rows,
}: {
  readonly caption: string;
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
}) {
  return (
    <details className="stats-chart-data">
      <summary>Show the numbers</summary>
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {headers.map((header) => (
                <th key={header} scope="col">
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                {row.map((cell, column) =>
                  column === 0 ? (
                    <th key={column} scope="row">
                      {cell}
                    </th>
                  ) : (
                    <td key={column}>{cell}</td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
