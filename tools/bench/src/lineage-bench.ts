/**
 * Multi-hop lineage latency over a large lineage graph (BENCH_LINEAGE_DATASETS datasets, BENCH_LINEAGE_UPSTREAMS
 * upstreams each: 100,000 datasets and 300,000 `DownstreamOf` edges by default), beside a one-hop `GET /relationships`
 * read of the same graph in the same run, on a fresh standalone process.
 *
 * Dataset n (from BENCH_LINEAGE_UPSTREAMS on) is DownstreamOf BENCH_LINEAGE_UPSTREAMS datasets of smaller numbers,
 * chosen by a fixed hash: a DAG in which a dataset far enough from the start has that many upstreams per hop, and
 * as many downstreams on average. Every request is closed-loop, one at a time (BENCH_LINEAGE_REQUESTS per row, after
 * 10 warm-up requests), from datasets spread over the upper half of the numbers. Then the lineage `datahub lineage`
 * asks for over GraphQL, beside REST's `scrollAcrossLineage` of the same query (`graphql-bench.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  datasetUrn,
  eventually,
  ingestProposalBatchBody,
  proposalOf,
  repositoryRoot,
  startStandalone,
  TestHttpClient,
} from '@strata/testing';
import { compareGraphqlWithRest, graphqlQuery, printGraphqlComparisons, type GraphqlRow } from './graphql-bench';
import { percentiles, type Percentiles } from './latency';

const datasets = Number(process.env['BENCH_LINEAGE_DATASETS'] ?? 100_000);
const upstreamsPerDataset = Number(process.env['BENCH_LINEAGE_UPSTREAMS'] ?? 3);
const requests = Number(process.env['BENCH_LINEAGE_REQUESTS'] ?? 200);
const hops = Number(process.env['BENCH_LINEAGE_HOPS'] ?? 3);

export interface LineageRow {
  readonly query: string;
  readonly latencyMs: Percentiles;
  /** p95 over the one-hop read's p95. */
  readonly p95Ratio: number;
  /** Entities answered per request, on average. */
  readonly meanResults: number;
  /** Answers that said a limit cut the walk. */
  readonly truncated: number;
}

export interface LineageBenchReport {
  readonly datasets: number;
  readonly edges: number;
  readonly hops: number;
  readonly loadSeconds: number;
  readonly indexCatchUpSeconds: number;
  readonly rows: readonly LineageRow[];
  /** GraphQL's `scrollAcrossLineage` with the CLI's degree filter, beside REST's `scrollAcrossLineage` of the same query. */
  readonly graphql: readonly GraphqlRow[];
}

const urnOf = (n: number) => datasetUrn(`lineage.table_${n}`, 'hive');

/** The datasets `n` is DownstreamOf: distinct smaller numbers, by a fixed integer hash of (n, k). */
function upstreamsOf(n: number): number[] {
  if (n < upstreamsPerDataset) return [];
  const chosen = new Set<number>();
  for (let k = 0; chosen.size < upstreamsPerDataset; k++) chosen.add(mix(Math.imul(n, 31) + k) % n);
  return [...chosen];
}

function mix(value: number): number {
  let x = value >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

async function timed(run: () => Promise<{ status: number; text: string; json: unknown }>) {
  const started = performance.now();
  const response = await run();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${response.text}`);
  return { ms, json: response.json };
}

export async function lineageScenarios(): Promise<LineageBenchReport> {
  const strata = await startStandalone({ startTimeoutMs: 60_000 });
  try {
    const http = new TestHttpClient(strata.baseUrl);
    const edges = Array.from({ length: datasets }, (_, n) => upstreamsOf(n).length).reduce((sum, k) => sum + k, 0);
    process.stdout.write(`lineage: loading ${datasets} datasets, ${edges} DownstreamOf edges…\n`);
    const loadStarted = performance.now();
    const perBatch = 500;
    const inFlight = new Set<Promise<void>>();
    for (let first = 0; first < datasets; first += perBatch) {
      const proposals = [];
      for (let n = first; n < Math.min(first + perBatch, datasets); n++) {
        proposals.push(
          proposalOf(urnOf(n), 'upstreamLineage', {
            upstreams: upstreamsOf(n).map((upstream) => ({
              auditStamp: { time: 0, actor: 'urn:li:corpuser:bench' },
              dataset: urnOf(upstream),
              type: 'TRANSFORMED',
            })),
          }),
        );
      }
      const sent = http
        .post('/aspects?action=ingestProposalBatch', ingestProposalBatchBody(proposals))
        .then((response) => {
          if (response.status !== 200) throw new Error(`batch answered ${response.status}: ${response.text}`);
        });
      const tracked = sent.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (inFlight.size >= 4) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const stored = performance.now();
    const last = urnOf(datasets - 1);
    await eventually(
      async () => {
        const search = await http.post('/entities?action=search', {
          input: '*',
          entity: 'dataset',
          start: 0,
          count: 0,
        });
        const total = (search.json as { value: { numEntities: number } }).value.numEntities;
        const relationships = await http.get(
          `/relationships?urn=${encodeURIComponent(last)}&direction=OUTGOING&types=List(DownstreamOf)&count=0`,
        );
        const lastEdges = (relationships.json as { total: number }).total;
        if (total < datasets || lastEdges < upstreamsOf(datasets - 1).length) {
          throw new Error(`${total} of ${datasets} indexed`);
        }
      },
      { timeoutMs: 1_800_000, intervalMs: 500 },
    );
    const indexCatchUpSeconds = (performance.now() - stored) / 1000;
    process.stdout.write(
      `lineage: stored in ${loadSeconds.toFixed(1)} s, fully indexed ${indexCatchUpSeconds.toFixed(1)} s later\n`,
    );

    /** Datasets spread over the upper half: far enough from the start to have `hops` full hops upstream. */
    const from = (i: number) => urnOf(Math.floor(datasets / 2) + ((i * 7919) % Math.ceil(datasets / 2)));
    interface Row {
      readonly label: string;
      readonly send: (i: number) => Promise<{ status: number; text: string; json: unknown }>;
      readonly results: (json: unknown) => { count: number; truncated: boolean };
    }
    const lineageSearch = (direction: string) => (i: number) =>
      http.post('/entities?action=searchAcrossLineage', {
        urn: from(i),
        direction,
        entities: [],
        input: '*',
        maxHops: hops,
        start: 0,
        count: 10,
      });
    const searchResults = (json: unknown) => {
      const value = (json as { value: { numEntities: number; truncated: boolean } }).value;
      return { count: value.numEntities, truncated: value.truncated };
    };
    const rows: Row[] = [
      {
        label: 'GET /relationships (1 hop, OUTGOING DownstreamOf)',
        send: (i) =>
          http.get(`/relationships?urn=${encodeURIComponent(from(i))}&direction=OUTGOING&types=List(DownstreamOf)`),
        results: (json) => ({ count: (json as { total: number }).total, truncated: false }),
      },
      {
        label: `searchAcrossLineage UPSTREAM (${hops} hops)`,
        send: lineageSearch('UPSTREAM'),
        results: searchResults,
      },
      {
        label: `searchAcrossLineage DOWNSTREAM (${hops} hops)`,
        send: lineageSearch('DOWNSTREAM'),
        results: searchResults,
      },
      {
        label: `getLineage UPSTREAM (${hops} hops, the graph alone)`,
        send: (i) =>
          http.post('/relationships?action=getLineage', {
            urn: from(i),
            direction: 'UPSTREAM',
            maxHops: hops,
            count: 10,
          }),
        results: (json) => {
          const value = (json as { value: { total: number; truncated: boolean } }).value;
          return { count: value.total, truncated: value.truncated };
        },
      },
    ];

    const measured: { label: string; latencyMs: Percentiles; meanResults: number; truncated: number }[] = [];
    for (const row of rows) {
      process.stdout.write(`lineage: ${row.label}…\n`);
      for (let i = 0; i < 10; i++) await timed(() => row.send(i)); // warm-up
      const samples: number[] = [];
      let results = 0;
      let truncated = 0;
      for (let i = 0; i < requests; i++) {
        const answer = await timed(() => row.send(i));
        samples.push(answer.ms);
        const found = row.results(answer.json);
        results += found.count;
        if (found.truncated) truncated += 1;
      }
      measured.push({ label: row.label, latencyMs: percentiles(samples), meanResults: results / requests, truncated });
    }
    const graphql: GraphqlRow[] = [];
    for (const direction of ['UPSTREAM', 'DOWNSTREAM'] as const) {
      for (const selection of ['cli', 'urns'] as const) {
        graphql.push(await graphqlLineage(http, from, direction, selection));
      }
    }
    const oneHop = measured[0]?.latencyMs.p95 ?? 1;
    return {
      datasets,
      edges,
      hops,
      loadSeconds,
      indexCatchUpSeconds,
      rows: measured.map((row) => ({
        query: row.label,
        latencyMs: row.latencyMs,
        p95Ratio: row.latencyMs.p95 / oneHop,
        meanResults: row.meanResults,
        truncated: row.truncated,
      })),
      graphql,
    };
  } finally {
    await strata.stop();
    strata.cleanUp();
  }
}

/**
 * The degree values DataHub's lineage client sends for `hops` (`datahub lineage --hops N`, the SDK's `max_hops`): each
 * degree up to 2, and "3+" (three hops or more: no bound on the walk) beyond.
 */
function degreeValues(maxHops: number): string[] {
  return maxHops <= 2 ? Array.from({ length: maxHops }, (_, k) => String(k + 1)) : ['1', '2', '3+'];
}

/** What `datahub lineage` selects (DataHub's CLI's document, kept as a fixture of the e2e tests). */
const CLI_LINEAGE_QUERY = readFileSync(
  join(repositoryRoot, 'e2e/fixtures/datahub-graphql/lineage-cli.graphql'),
  'utf8',
);

/** The same walk with nothing of the entities but what the walk itself answers. */
const URNS_LINEAGE_QUERY = `query scrollAcrossLineage($input: ScrollAcrossLineageInput!) {
  scrollAcrossLineage(input: $input) { nextScrollId total searchResults { degree entity { urn type } } }
}`;

/**
 * The first page (100 results) of the lineage of a dataset as `datahub lineage --hops <hops>` asks it — its degree
 * filter and its filter on soft-deleted entities — over GraphQL, beside REST's `scrollAcrossLineage` of the same query.
 * With `cli`, GraphQL answers what the CLI shows of each entity (name, platform, description, every path), the
 * entities read through the entity loader; with `urns`, only each entity's URN, type and degree: the layer's own cost,
 * without the entities' reads and the paths (which the REST answer carries too).
 */
async function graphqlLineage(
  http: TestHttpClient,
  from: (i: number) => string,
  direction: 'UPSTREAM' | 'DOWNSTREAM',
  selection: 'cli' | 'urns',
): Promise<GraphqlRow> {
  const count = 100;
  const criteria = [
    { field: 'degree', condition: 'EQUAL', values: degreeValues(hops) },
    { field: 'removed', condition: 'EQUAL', values: ['true'], negated: true },
  ];
  const graphqlPage = async (i: number) => {
    const { ms, data } = await graphqlQuery(http, selection === 'cli' ? CLI_LINEAGE_QUERY : URNS_LINEAGE_QUERY, {
      input: { urn: from(i), direction, count, types: null, orFilters: [{ and: criteria }] },
    });
    const page = data['scrollAcrossLineage'] as { searchResults: { entity: { urn: string } }[] };
    return { ms, urns: page.searchResults.map((result) => result.entity.urn) };
  };
  const restPage = async (i: number) => {
    const started = performance.now();
    const response = await http.post(
      '/entities?action=scrollAcrossLineage',
      { urn: from(i), direction, entities: [], input: '*', count, filter: { or: [{ and: criteria }] } },
      { 'X-RestLi-Protocol-Version': '2.0.0' },
    );
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`scrollAcrossLineage answered ${response.status}: ${response.text}`);
    const value = (response.json as { value: { entities: { entity: string }[]; truncated: boolean } }).value;
    return { ms, urns: value.entities.map((found) => found.entity), truncated: value.truncated };
  };
  return compareGraphqlWithRest({
    label:
      `scrollAcrossLineage ${direction}, degree ${degreeValues(hops).join(',')}, ${count} a page` +
      (selection === 'cli' ? ' (the CLI’s selection)' : ' (urn, type, degree)'),
    requests,
    warmUp: 10,
    graphql: async (i) => {
      const { ms, urns } = await graphqlPage(i);
      return { ms, results: urns.length };
    },
    rest: async (i) => {
      const { ms, urns, truncated } = await restPage(i);
      return { ms, results: urns.length, truncated };
    },
    check: async () => {
      for (const i of [0, 1, 2]) {
        const [graphql, rest] = [await graphqlPage(i), await restPage(i)];
        if ([...graphql.urns].sort().join() !== [...rest.urns].sort().join()) {
          throw new Error(
            `GraphQL's lineage of ${from(i)} (${graphql.urns.length}) is not REST's (${rest.urns.length})`,
          );
        }
      }
    },
  });
}

export function printLineageReport(report: LineageBenchReport): void {
  const format = (p: Percentiles) => `${p.p50.toFixed(1)}/${p.p95.toFixed(1)}/${p.p99.toFixed(1)}`;
  process.stdout.write(
    `\nlineage: ${report.datasets} datasets, ${report.edges} edges: stored in ${report.loadSeconds.toFixed(1)} s, ` +
      `indexed ${report.indexCatchUpSeconds.toFixed(1)} s after\n`,
  );
  const rows = report.rows.map((row) => [
    row.query,
    format(row.latencyMs),
    `${row.p95Ratio.toFixed(1)}×`,
    row.meanResults.toFixed(1),
    String(row.truncated),
  ]);
  const header = ['lineage query (1 connection)', 'p50/p95/p99 ms', 'p95 vs 1 hop', 'results (mean)', 'truncated'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  for (const row of [header, ...rows]) {
    process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}\n`);
  }
  printGraphqlComparisons(report.graphql);
}
