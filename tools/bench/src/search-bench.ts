/**
 * Search, browse and autocomplete latency with 100,000 datasets indexed (BENCH_SEARCH_DATASETS), and index lag under
 * sustained ingest (BENCH_LAG_RATE proposals/s for BENCH_LAG_SECONDS), on a fresh standalone process.
 *
 * Latency is measured closed-loop, one request at a time (BENCH_SEARCH_REQUESTS per query), and beside it the same
 * requests against the baseline server of the same run, so each figure also reads as a ratio. A repeated search may be
 * answered from the pages the index keeps; the two broad searches are therefore also measured each first after an
 * edit of a dataset (indexed before the search leaves), which nothing kept can answer. Index lag is measured
 * twice: by the indexer itself (append of each change log → applied, the progress endpoint's recent percentiles),
 * and from outside, for a sample of the writes: a synchronous ingest is acknowledged, then search is polled until the
 * dataset shows (every 20 ms for 200 ms, then backing off to 250 ms: the figure is that coarse beyond 200 ms).
 * Between the two, a search page of 20 datasets with their properties, owners and tags over GraphQL, beside the REST
 * calls that answer the same page (`graphql-bench.ts`).
 */
import { performance } from 'node:perf_hooks';
import {
  datasetUrn,
  eventually,
  ingestProposalBatchBody,
  ingestProposalBody,
  proposalOf,
  startStandalone,
  TestHttpClient,
} from '@strata/testing';
import { compareGraphqlWithRest, graphqlQuery, printGraphqlComparisons, type GraphqlRow } from './graphql-bench';
import { percentiles, type Percentiles } from './latency';

const datasets = Number(process.env['BENCH_SEARCH_DATASETS'] ?? 100_000);
const requestsPerQuery = Number(process.env['BENCH_SEARCH_REQUESTS'] ?? 500);
const lagRate = Number(process.env['BENCH_LAG_RATE'] ?? 500);
const lagSeconds = Number(process.env['BENCH_LAG_SECONDS'] ?? 20);

export interface QueryLatency {
  readonly query: string;
  readonly strataMs: Percentiles;
  readonly baselineMs: Percentiles;
  /** Strata's p95 over the baseline's p95. */
  readonly p95Ratio: number;
  /** Total hits (search), entities under the path (browse), or suggestions (autocomplete) of the last answer. */
  readonly results: number;
}

export interface SearchBenchReport {
  readonly datasets: number;
  readonly loadSeconds: number;
  /** From the last write acknowledged to everything indexed. */
  readonly indexCatchUpSeconds: number;
  readonly queries: readonly QueryLatency[];
  /** GraphQL's page of 20 datasets with properties, owners and tags, beside REST's search and batch read of them. */
  readonly graphql: readonly GraphqlRow[];
  readonly lag: {
    readonly targetRate: number;
    readonly achievedRate: number;
    readonly proposals: number;
    /** Ingests or probes that failed (a refused connection, a non-200). */
    readonly failures: number;
    readonly ingestLatencyMs: Percentiles;
    /** The indexer's own measure: change log appended → applied, over the run's records. */
    readonly indexerLagMs: Percentiles | undefined;
    /** From outside: sync ingest acknowledged → visible in search, for a sample of the writes. */
    readonly ackToSearchableMs: Percentiles;
    readonly sampled: number;
  };
}

const name = (n: number) => `test_dataset_${n}`;
const urnOf = (n: number) => datasetUrn(name(n), 'bigquery');

function proposal(n: number, aspectName: string, value: unknown) {
  return proposalOf(urnOf(n), aspectName, value);
}

/** The datasets of DataHub's perf-test (`locustfiles/ingest.py`): description, browse path, owners, and some tags. */
function datasetProposals(n: number) {
  return [
    proposal(n, 'browsePaths', { paths: [`/perf/testing/${n % 100}`] }),
    proposal(n, 'datasetProperties', { description: `Dataset ${n} for performance testing`, customProperties: {} }),
    proposal(n, 'ownership', {
      owners: [
        { owner: `urn:li:corpuser:test_${n % 1000}`, type: 'DATAOWNER' },
        { owner: 'urn:li:corpuser:common', type: 'DATAOWNER' },
      ],
      lastModified: { time: 0, actor: 'urn:li:corpuser:bench' },
    }),
    proposal(n, 'globalTags', { tags: [{ tag: `urn:li:tag:tag_${n % 50}` }] }),
  ];
}

/** Writes datasets 0…count-1 ({@link datasetProposals}), 250 a batch, four batches in flight. */
export async function loadPerfDatasets(http: TestHttpClient, count: number): Promise<void> {
  const perBatch = 250;
  const inFlight = new Set<Promise<void>>();
  for (let first = 0; first < count; first += perBatch) {
    const proposals = [];
    for (let n = first; n < Math.min(first + perBatch, count); n++) proposals.push(...datasetProposals(n));
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
}

async function timed(client: TestHttpClient, path: string, body: unknown): Promise<{ ms: number; json: unknown }> {
  const started = performance.now();
  const response = await client.post(path, body);
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text}`);
  return { ms, json: response.json };
}

export async function searchScenarios(baselineUrl: string): Promise<SearchBenchReport> {
  const strata = await startStandalone({ startTimeoutMs: 60_000 });
  try {
    const http = new TestHttpClient(strata.baseUrl);
    const baseline = new TestHttpClient(baselineUrl);

    process.stdout.write(`search: loading ${datasets} datasets (4 aspects each)…\n`);
    const loadStarted = performance.now();
    await loadPerfDatasets(http, datasets);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const stored = performance.now();
    await eventually(
      async () => {
        const { json } = await timed(http, '/entities?action=search', {
          input: '*',
          entity: 'dataset',
          start: 0,
          count: 0,
        });
        const total = (json as { value: { numEntities: number } }).value.numEntities;
        if (total < datasets) throw new Error(`${total} of ${datasets} indexed`);
      },
      { timeoutMs: 1_800_000, intervalMs: 500 },
    );
    const indexCatchUpSeconds = (performance.now() - stored) / 1000;
    process.stdout.write(
      `search: stored in ${loadSeconds.toFixed(1)} s, fully indexed ${indexCatchUpSeconds.toFixed(1)} s later\n`,
    );

    /** An edit of dataset `n`, indexed when answered: the index's kept pages for datasets no longer hold. */
    let edits = 0;
    const editDataset = async (n: number) => {
      edits += 1;
      const edit = edits;
      const response = await http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(
          proposal(n, 'datasetProperties', {
            description: `Dataset ${n} for performance testing, edit ${edit}`,
            customProperties: {},
          }),
        ),
        { 'X-DataHub-Sync-Index-Update': 'true' },
      );
      if (response.status !== 200) throw new Error(`edit answered ${response.status}: ${response.text}`);
    };
    const filteredSearch = (i: number) => ({
      input: 'performance',
      entity: 'dataset',
      start: 0,
      count: 10,
      filter: {
        or: [
          {
            and: [
              { field: 'platform', value: 'urn:li:dataPlatform:bigquery' },
              { field: 'tags', value: `urn:li:tag:tag_${i % 50}` },
            ],
          },
        ],
      },
    });
    interface Query {
      label: string;
      path: string;
      body: (i: number) => Record<string, unknown>;
      count: (json: unknown) => number;
      /** Untimed, before each timed request. */
      before?: (i: number) => Promise<void>;
      /** Fewer requests than BENCH_SEARCH_REQUESTS, for the slow rows. */
      requests?: number;
    }
    /** A search, each request sent right after a dataset edit is indexed: no kept page can answer it. */
    const firstAfterAnEdit = (label: string, body: Query['body']): Query => ({
      label,
      path: '/entities?action=search',
      body,
      count: (json) => (json as { value: { numEntities: number } }).value.numEntities,
      before: (i) => editDataset((i * 7919) % datasets),
      requests: Math.min(requestsPerQuery, 100),
    });
    const queries: Query[] = [
      {
        label: 'search "test" (matches all, perf-test search.py)',
        path: '/entities?action=search',
        body: () => ({ input: 'test', entity: 'dataset', start: 0, count: 10 }),
        count: (json) => (json as { value: { numEntities: number } }).value.numEntities,
      },
      {
        label: 'search one name (test_dataset_<n>)',
        path: '/entities?action=search',
        body: (i) => ({ input: name((i * 7919) % datasets), entity: 'dataset', start: 0, count: 10 }),
        count: (json) => (json as { value: { numEntities: number } }).value.numEntities,
      },
      {
        label: 'search tags:tag_<k> owners:test_<m> (2% × 0.1%)',
        path: '/entities?action=search',
        body: (i) => ({ input: `tags:tag_${i % 50} owners:test_${i % 1000}`, entity: 'dataset', start: 0, count: 10 }),
        count: (json) => (json as { value: { numEntities: number } }).value.numEntities,
      },
      {
        label: 'search "performance" + filter platform AND tag (2%)',
        path: '/entities?action=search',
        body: filteredSearch,
        count: (json) => (json as { value: { numEntities: number } }).value.numEntities,
      },
      firstAfterAnEdit('search "test", each first after a dataset edit', () => ({
        input: 'test',
        entity: 'dataset',
        start: 0,
        count: 10,
      })),
      firstAfterAnEdit('search "performance testing" (two words, all), each first after an edit', () => ({
        input: 'performance testing',
        entity: 'dataset',
        start: 0,
        count: 10,
      })),
      firstAfterAnEdit('search "performance" + filter, each first after a dataset edit', filteredSearch),
      {
        label: 'browse /perf/testing (100 groups)',
        path: '/entities?action=browse',
        body: () => ({ path: '/perf/testing', entity: 'dataset', start: 0, limit: 10 }),
        count: (json) =>
          (json as { value: { metadata: { totalNumEntities: number } } }).value.metadata.totalNumEntities,
      },
      {
        label: 'browse /perf/testing/<k> (1,000 entities, page 10)',
        path: '/entities?action=browse',
        body: (i) => ({ path: `/perf/testing/${i % 100}`, entity: 'dataset', start: 0, limit: 10 }),
        count: (json) =>
          (json as { value: { metadata: { totalNumEntities: number } } }).value.metadata.totalNumEntities,
      },
      {
        label: 'autocomplete "test_dat" (prefix of all)',
        path: '/entities?action=autocomplete',
        body: () => ({ query: 'test_dat', entity: 'dataset', limit: 10 }),
        count: (json) => (json as { value: { suggestions: string[] } }).value.suggestions.length,
      },
      {
        label: 'autocomplete "test_dataset_<n>" (narrow prefix)',
        path: '/entities?action=autocomplete',
        body: (i) => ({ query: name((i * 31) % datasets), entity: 'dataset', limit: 10 }),
        count: (json) => (json as { value: { suggestions: string[] } }).value.suggestions.length,
      },
    ];

    const results: QueryLatency[] = [];
    for (const query of queries) {
      process.stdout.write(`search: ${query.label}…\n`);
      const strataSamples: number[] = [];
      const baselineSamples: number[] = [];
      let last: unknown;
      for (let i = 0; i < 20; i++) await timed(http, query.path, query.body(i)); // warm-up
      for (let i = 0; i < (query.requests ?? requestsPerQuery); i++) {
        const body = query.body(i);
        await query.before?.(i);
        const answer = await timed(http, query.path, body);
        strataSamples.push(answer.ms);
        last = answer.json;
        baselineSamples.push((await timed(baseline, query.path, body)).ms);
      }
      const strataMs = percentiles(strataSamples);
      const baselineMs = percentiles(baselineSamples);
      const result = {
        query: query.label,
        strataMs,
        baselineMs,
        p95Ratio: strataMs.p95 / baselineMs.p95,
        results: query.count(last),
      };
      results.push(result);
      process.stdout.write(`search:   ${JSON.stringify(result)}\n`);
    }

    const graphql = [await graphqlSearchPage(http)];
    const lag = await sustainedIngest(http);
    return { datasets, loadSeconds, indexCatchUpSeconds, queries: results, graphql, lag };
  } finally {
    await strata.stop();
    strata.cleanUp();
  }
}

/** The page a search screen shows: 20 datasets, each with its properties, owners and tags, in one GraphQL request. */
const SEARCH_PAGE_QUERY = `query searchPage($query: String!, $start: Int!) {
  searchAcrossEntities(input: { types: [DATASET], query: $query, start: $start, count: 20 }) {
    start
    count
    total
    searchResults {
      entity {
        urn
        ... on Dataset {
          name
          properties { name description customProperties { key value } }
          ownership { owners { owner { ... on CorpUser { urn username } } } }
          tags { tags { tag { urn name } } }
        }
      }
    }
  }
}`;

interface PageDataset {
  readonly urn: string;
  readonly name?: string | null;
  readonly properties?: { readonly description?: string | null } | null;
  readonly ownership?: {
    readonly owners?: readonly { readonly owner?: { readonly username?: string } | null }[];
  } | null;
  readonly tags?: { readonly tags?: readonly { readonly tag?: { readonly name?: string } | null }[] } | null;
}

/**
 * A page of 20 datasets with properties, owners and tags: GraphQL's `searchAcrossEntities` beside what a REST client
 * sends for the same page — `searchAcrossEntities`, then a batch read of the 20 entities' aspects. Pages spread over
 * the first 1,000 matches of "test" (every dataset matches).
 */
async function graphqlSearchPage(http: TestHttpClient): Promise<GraphqlRow> {
  const query = 'test';
  const startOf = (i: number) => (i % 50) * 20;
  const graphqlPage = async (i: number) => {
    const { ms, data } = await graphqlQuery(http, SEARCH_PAGE_QUERY, { query, start: startOf(i) });
    const page = data['searchAcrossEntities'] as { total: number; searchResults: { entity: PageDataset }[] };
    return { ms, page };
  };
  const restPage = async (i: number) => {
    const started = performance.now();
    const search = await http.post(
      '/entities?action=searchAcrossEntities',
      { input: query, entities: ['dataset'], start: startOf(i), count: 20 },
      { 'X-RestLi-Protocol-Version': '2.0.0', 'X-Strata-Response-Shape': 'current' },
    );
    if (search.status !== 200) throw new Error(`searchAcrossEntities answered ${search.status}: ${search.text}`);
    const urns = (search.json as { value: { entities: { entity: string }[] } }).value.entities.map(
      (found) => found.entity,
    );
    const read = await http.get(`/entitiesV2?ids=List(${urns.map((urn) => encodeURIComponent(urn)).join(',')})`, {
      'X-RestLi-Protocol-Version': '2.0.0',
    });
    const ms = performance.now() - started;
    if (read.status !== 200) throw new Error(`GET /entitiesV2 answered ${read.status}: ${read.text}`);
    const entities = (read.json as { results: Record<string, { aspects: Record<string, unknown> }> }).results;
    return { ms, urns, entities };
  };
  return compareGraphqlWithRest({
    label: `search page of 20 datasets + properties, owners, tags ("${query}")`,
    requests: requestsPerQuery,
    warmUp: 20,
    graphql: async (i) => {
      const { ms, page } = await graphqlPage(i);
      return { ms, results: page.searchResults.length };
    },
    rest: async (i) => {
      const { ms, urns } = await restPage(i);
      return { ms, results: urns.length };
    },
    check: async () => {
      const [{ page }, rest] = [await graphqlPage(0), await restPage(0)];
      const graphqlUrns = page.searchResults.map((result) => result.entity.urn);
      if (graphqlUrns.length !== 20 || [...graphqlUrns].sort().join() !== [...rest.urns].sort().join()) {
        throw new Error(`GraphQL's page (${graphqlUrns.join()}) is not REST's (${rest.urns.join()})`);
      }
      for (const { entity } of page.searchResults) {
        const complete =
          typeof entity.name === 'string' &&
          typeof entity.properties?.description === 'string' &&
          entity.ownership?.owners?.length === 2 &&
          entity.ownership.owners.every((owner) => typeof owner.owner?.username === 'string') &&
          entity.tags?.tags?.length === 1 &&
          typeof entity.tags.tags[0]?.tag?.name === 'string';
        if (!complete) throw new Error(`GraphQL answered an incomplete dataset: ${JSON.stringify(entity)}`);
        const aspects = rest.entities[entity.urn]?.aspects ?? {};
        if (!('ownership' in aspects && 'globalTags' in aspects && 'datasetProperties' in aspects)) {
          throw new Error(`GET /entitiesV2 lacks aspects of ${entity.urn}: ${Object.keys(aspects).join()}`);
        }
      }
    },
  });
}

/**
 * Sends synchronous ingests at a steady rate (open loop: a request leaves on schedule whether or not the previous ones
 * answered), each creating a new dataset; for one in fifty, polls search for it from its acknowledgement on. A failed
 * request is counted, not fatal.
 */
async function sustainedIngest(http: TestHttpClient): Promise<SearchBenchReport['lag']> {
  process.stdout.write(`search: index lag at ${lagRate} proposals/s for ${lagSeconds} s…\n`);
  const total = lagRate * lagSeconds;
  const ingestLatencies: number[] = [];
  const searchable: number[] = [];
  const pending: Promise<void>[] = [];
  let failures = 0;
  const before = await indexerRecords(http);
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / lagRate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const n = datasets + i;
    const probe = async () => {
      const sent = performance.now();
      const response = await http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposal(n, 'datasetProperties', { description: `lag probe ${n}`, customProperties: {} })),
      );
      const acknowledged = performance.now();
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${response.text}`);
      ingestLatencies.push(acknowledged - sent);
      if (i % 50 !== 0) return;
      // Every 20 ms for the first 200 ms, then less and less often: probes polling at a fixed rate would add load in
      // proportion to the lag they measure, and on one event loop that feeds the lag itself.
      let interval = 20;
      for (;;) {
        const { json } = await timed(http, '/entities?action=search', {
          input: `id:${name(n)}`,
          entity: 'dataset',
          start: 0,
          count: 1,
        });
        if ((json as { value: { numEntities: number } }).value.numEntities > 0) break;
        await new Promise((resolve) => setTimeout(resolve, interval));
        if (performance.now() - acknowledged >= 200) interval = Math.min(interval * 1.5, 250);
      }
      searchable.push(performance.now() - acknowledged);
    };
    pending.push(
      probe().catch((error: unknown) => {
        failures += 1;
        if (failures <= 3) process.stdout.write(`search:   a lag probe failed: ${String(error)}\n`);
      }),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  const after = await indexerRecords(http);
  return {
    targetRate: lagRate,
    achievedRate: ingestLatencies.length / seconds,
    proposals: total,
    failures,
    ingestLatencyMs: percentiles(ingestLatencies),
    indexerLagMs: after.recentLagMs && after.recordsApplied - before.recordsApplied > 0 ? after.recentLagMs : undefined,
    ackToSearchableMs: percentiles(searchable),
    sampled: searchable.length,
  };
}

async function indexerRecords(http: TestHttpClient): Promise<{ recordsApplied: number; recentLagMs?: Percentiles }> {
  const response = await http.get('/openapi/operations/indices/progress');
  return response.json as { recordsApplied: number; recentLagMs?: Percentiles };
}

export function printSearchReport(report: SearchBenchReport): void {
  const format = (p: Percentiles) => `${p.p50.toFixed(1)}/${p.p95.toFixed(1)}/${p.p99.toFixed(1)}`;
  process.stdout.write(
    `\n${report.datasets} datasets: stored in ${report.loadSeconds.toFixed(1)} s, indexed ${report.indexCatchUpSeconds.toFixed(1)} s after\n`,
  );
  const rows = report.queries.map((q) => [
    q.query,
    format(q.strataMs),
    format(q.baselineMs),
    `${q.p95Ratio.toFixed(1)}×`,
    String(q.results),
  ]);
  const header = ['query (1 connection)', 'strata p50/p95/p99 ms', 'baseline p50/p95/p99 ms', 'p95 ratio', 'results'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  for (const row of [header, ...rows]) {
    process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}\n`);
  }
  printGraphqlComparisons(report.graphql);
  const { lag } = report;
  process.stdout.write(
    `index lag at ${lag.targetRate}/s (achieved ${lag.achievedRate.toFixed(0)}/s, ${lag.proposals} sync ingests, ${lag.failures} failed, ingest p50/p95/p99 ${format(lag.ingestLatencyMs)} ms):\n` +
      `  indexer (append → applied) p50/p95/p99/max ${lag.indexerLagMs ? `${format(lag.indexerLagMs)}/${lag.indexerLagMs.max.toFixed(0)}` : 'n/a'} ms\n` +
      `  outside (ack → searchable, ${lag.sampled} sampled) p50/p95/p99/max ${format(lag.ackToSearchableMs)}/${lag.ackToSearchableMs.max.toFixed(0)} ms\n`,
  );
}
