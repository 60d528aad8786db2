/**
 * GraphQL beside REST: the same read asked both ways of the same process, one request at a time, the two
 * interleaved (and their order alternated) so that whatever drifts during the run weighs on both alike. The figure
 * is GraphQL's latency over REST's: what the GraphQL layer costs — parsing, validation, the limits, resolvers calling
 * the public routes, the entity loader — beyond the REST calls a client would make for the same answer.
 */
import { performance } from 'node:perf_hooks';
import type { TestHttpClient } from '@strata/testing';
import { percentiles, type Percentiles } from './latency';

export interface GraphqlComparison {
  readonly query: string;
  readonly graphqlMs: Percentiles;
  readonly restMs: Percentiles;
  /** GraphQL's p50 over REST's p50. */
  readonly p50Ratio: number;
  /** GraphQL's p95 over REST's p95. */
  readonly p95Ratio: number;
  readonly requests: number;
  /** Results per GraphQL answer, on average (the first answer of each side is checked to hold the same ones). */
  readonly meanResults: number;
  /** REST answers that said a limit cut the work (the lineage walk's `truncated`), where REST says so. */
  readonly restTruncated?: number;
}

/** A comparison that could not be measured: GraphQL (or REST) failed, or the two answered different things. */
export interface GraphqlComparisonFailure {
  readonly query: string;
  readonly error: string;
}

export type GraphqlRow = GraphqlComparison | GraphqlComparisonFailure;

/** One timed request (or sequence of requests, for the REST side) and the results it answered. */
export interface TimedAnswer {
  readonly ms: number;
  readonly results: number;
  /** Whether the answer said a limit cut the work; absent where the answer cannot say. */
  readonly truncated?: boolean;
}

/** A GraphQL answer's data; a non-200 or any entry in `errors` is a failure of the bench, never a figure. */
export async function graphqlQuery(
  http: TestHttpClient,
  query: string,
  variables: Record<string, unknown>,
): Promise<{ ms: number; data: Record<string, unknown> }> {
  const started = performance.now();
  const response = await http.post('/api/graphql', { query, variables });
  const ms = performance.now() - started;
  const body = response.json as { data?: Record<string, unknown> | null; errors?: unknown[] } | undefined;
  if (response.status !== 200 || body?.data === undefined || body.data === null || (body.errors?.length ?? 0) > 0) {
    throw new Error(`/api/graphql answered ${response.status}: ${response.text.slice(0, 2000)}`);
  }
  return { ms, data: body.data };
}

export interface ComparisonPlan {
  readonly label: string;
  readonly requests: number;
  readonly warmUp: number;
  readonly graphql: (i: number) => Promise<TimedAnswer>;
  readonly rest: (i: number) => Promise<TimedAnswer>;
  /** Checks, before anything is timed, that both sides answer the same thing; throws when they do not. */
  readonly check: () => Promise<void>;
}

/**
 * Measures one comparison. A failure is reported as the row's `error` rather than thrown, so that the scenarios after
 * it still run (as the Kafka path is reported skipped when its broker cannot start).
 */
export async function compareGraphqlWithRest(plan: ComparisonPlan): Promise<GraphqlRow> {
  process.stdout.write(`graphql: ${plan.label}…\n`);
  try {
    return await measure(plan);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`graphql:   not measured: ${message}\n`);
    return { query: plan.label, error: message };
  }
}

async function measure(plan: ComparisonPlan): Promise<GraphqlComparison> {
  await plan.check();
  for (let i = 0; i < plan.warmUp; i++) {
    await plan.graphql(i);
    await plan.rest(i);
  }
  const graphqlSamples: number[] = [];
  const restSamples: number[] = [];
  let results = 0;
  let restTruncated: number | undefined;
  const rest = async (i: number) => {
    const answer = await plan.rest(i);
    restSamples.push(answer.ms);
    if (answer.truncated !== undefined) restTruncated = (restTruncated ?? 0) + (answer.truncated ? 1 : 0);
  };
  for (let i = 0; i < plan.requests; i++) {
    const graphqlFirst = i % 2 === 0;
    if (!graphqlFirst) await rest(i);
    const answer = await plan.graphql(i);
    graphqlSamples.push(answer.ms);
    results += answer.results;
    if (graphqlFirst) await rest(i);
  }
  const graphqlMs = percentiles(graphqlSamples);
  const restMs = percentiles(restSamples);
  const comparison = {
    query: plan.label,
    graphqlMs,
    restMs,
    p50Ratio: graphqlMs.p50 / restMs.p50,
    p95Ratio: graphqlMs.p95 / restMs.p95,
    requests: plan.requests,
    meanResults: results / plan.requests,
    ...(restTruncated === undefined ? {} : { restTruncated }),
  };
  process.stdout.write(`graphql:   ${JSON.stringify(comparison)}\n`);
  return comparison;
}

export function printGraphqlComparisons(rows: readonly GraphqlRow[]): void {
  const format = (p: Percentiles) => `${p.p50.toFixed(1)}/${p.p95.toFixed(1)}/${p.p99.toFixed(1)}`;
  const table = rows.map((row) =>
    'error' in row
      ? [row.query, `not measured: ${row.error.slice(0, 200)}`]
      : [
          row.query,
          format(row.graphqlMs),
          format(row.restMs),
          `${row.p50Ratio.toFixed(2)}×`,
          `${row.p95Ratio.toFixed(2)}×`,
          row.meanResults.toFixed(1),
          row.restTruncated === undefined ? '' : String(row.restTruncated),
        ],
  );
  const header = [
    'GraphQL beside REST (1 connection)',
    'graphql p50/p95/p99 ms',
    'rest p50/p95/p99 ms',
    'p50 ratio',
    'p95 ratio',
    'results (mean)',
    'rest truncated',
  ];
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((row) => row[column]?.length ?? 0)));
  for (const row of [header, ...table]) {
    process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}\n`);
  }
}
