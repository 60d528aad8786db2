/**
 * Restoring the indices, and reading a large timeseries index, on the built standalone process.
 *
 * Restore throughput: BENCH_RESTORE_ASPECTS versioned aspects (default 100,000: 25,000 datasets × 4 aspects) are
 * written straight into the writer's SQLite store file before Strata starts on it (through HTTP they would take
 * minutes), then `restoreIndices` replays them, counted from the first call until the search indexer's progress shows
 * every restated change log applied (and the timeseries indexer's, for BENCH_RESTORE_POINTS durable points, default
 * none). Baseline from the same process, just before: BENCH_RESTORE_BASELINE async `ingestProposal`s of a
 * `datasetProperties` (default 5,000, to datasets already stored, so one change log each), timed the same way.
 *
 * getTimeseriesAspectValues latency: BENCH_TIMESERIES_POINTS `datasetProfile` points (default 1,000,000, 1,000 per
 * dataset) written straight into the timeseries indexer's SQLite file, then autocannon at 16 connections for
 * BENCH_DURATION_S seconds: the newest 10 points of a random dataset, and 100 points in a random time range. Baseline:
 * the same requests against a process whose index holds 1,000 points in all (one dataset of the same shape), so that
 * the ratio is what the index's size costs.
 */
import autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { readSchemas } from '@strata/schemas';
import {
  createEntityRegistry,
  timeseriesAspectsOf,
  timeseriesFieldsOf,
  timeseriesPointId,
  type AspectSpec,
  type EntityRegistry,
  type JsonObject,
} from '@strata/model';
import { SqliteAspectStore, type AspectMutation } from '@strata/store';
import { SqliteTimeseriesIndex, type TimeseriesChange } from '@strata/indices';
import {
  datasetUrn,
  eventually,
  ingestProposalBody,
  proposalOf,
  repositoryRoot,
  startStandalone,
  TestHttpClient,
  type StandaloneProcess,
} from '@strata/testing';

const durationSeconds = Number(process.env['BENCH_DURATION_S'] ?? 10);
const restoreAspects = Number(process.env['BENCH_RESTORE_ASPECTS'] ?? 100_000);
const restorePoints = Number(process.env['BENCH_RESTORE_POINTS'] ?? 0);
const restoreBaseline = Number(process.env['BENCH_RESTORE_BASELINE'] ?? 5_000);
const restoreBatch = Number(process.env['BENCH_RESTORE_BATCH'] ?? 100_000);
const timeseriesPoints = Number(process.env['BENCH_TIMESERIES_POINTS'] ?? 1_000_000);

/** Points per dataset, in the large index and in the baseline's (which holds one dataset). */
const POINTS_PER_DATASET = 1_000;
/** Points of the baseline's index, in all. */
const BASELINE_POINTS = POINTS_PER_DATASET;
/** The versioned aspects of each seeded dataset, in the order they are taken (fewer for the last one if need be). */
const ASPECTS_PER_DATASET = 4;
/** The first point's time, and the time between two points of a dataset (hourly profiles). */
const FIRST_POINT_MILLIS = Date.UTC(2024, 0, 1);
const POINT_INTERVAL_MILLIS = 3_600_000;
/** Points the time-range variant selects: its bounds are both inclusive. */
const RANGE_POINTS = 100;
const CONNECTIONS = 16;

const SEARCH_PROGRESS = '/openapi/operations/indices/progress';
const TIMESERIES_PROGRESS = '/openapi/operations/indices/timeseries/progress';

interface Figures {
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  readonly requests: number;
  readonly failures: number;
}

export interface ReadComparison {
  readonly scenario: string;
  readonly connections: number;
  /** Against the index of BENCH_TIMESERIES_POINTS points. */
  readonly strata: Figures;
  /** The same requests against an index of 1,000 points. */
  readonly baseline: Figures;
  /** Strata's requests per second over the baseline's. */
  readonly throughputRatio: number;
  readonly p50Ratio: number;
  readonly p99Ratio: number;
  /** Points in the answer to the request checked before the load (the limit, or the range's points). */
  readonly values: number;
}

export interface TimeseriesBenchReport {
  readonly restore: {
    /** Versioned aspects and durable timeseries points seeded into the store. */
    readonly seededAspects: number;
    readonly seededPoints: number;
    readonly datasets: number;
    readonly seedSeconds: number;
    /** Rows the restore calls restated, in all (the seeded ones, and those Strata wrote at its first start). */
    readonly rowsRestated: number;
    readonly rowsIgnored: number;
    readonly calls: number;
    readonly batchSize: number;
    /** From the first call to the last answer (the writer has emitted every change log). */
    readonly restateSeconds: number;
    /** From the first call until every index has applied the restated change logs. */
    readonly seconds: number;
    readonly rowsPerSecond: number;
    /** What each indexer's progress counted while the restore was applied. */
    readonly searchIndexerApplied: number;
    readonly timeseriesIndexerApplied: number;
    /** Datasets a search for `*` counts once the restore is applied (every seeded one: the check that it indexed). */
    readonly datasetsSearchable: number;
    readonly baseline: { readonly proposals: number; readonly seconds: number; readonly aspectsPerSecond: number };
    /** Restore's rows per second over async ingest's aspects per second. */
    readonly ratio: number;
  };
  readonly reads: {
    readonly points: number;
    readonly datasets: number;
    readonly baselinePoints: number;
    readonly seedSeconds: number;
    /** The large index's SQLite file (with its WAL), in bytes. */
    readonly indexBytes: number;
    readonly comparisons: readonly ReadComparison[];
  };
}

export async function timeseriesScenarios(): Promise<TimeseriesBenchReport> {
  const registry = createEntityRegistry(readSchemas());
  const restore = await restoreScenario();
  const reads = await readScenarios(registry);
  return { restore, reads };
}

/** A fresh data directory for a standalone process this module seeds before starting it; removed in the end. */
function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'strata-bench-timeseries-'));
}

async function stopAndRemove(strata: StandaloneProcess | undefined, dataDir: string): Promise<void> {
  if (strata !== undefined) await strata.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const restoredDataset = (n: number) => datasetUrn(`bench.restored_${n}`);

/** The versioned aspects of seeded dataset `n`, as a client would have written them. */
function datasetAspects(n: number): [string, JsonObject][] {
  return [
    ['datasetKey', { platform: 'urn:li:dataPlatform:hive', name: `bench.restored_${n}`, origin: 'PROD' }],
    [
      'datasetProperties',
      { name: `restored_${n}`, description: `Restored dataset ${n} of the benchmark`, customProperties: {} },
    ],
    ['status', { removed: false }],
    ['globalTags', { tags: [{ tag: `urn:li:tag:tag_${n % 50}` }] }],
  ];
}

/** A datasetProfile point: a few counts and two column profiles (about 300 bytes of JSON). */
function profileValue(dataset: number, i: number): JsonObject {
  return {
    timestampMillis: FIRST_POINT_MILLIS + i * POINT_INTERVAL_MILLIS,
    rowCount: 1_000_000 + dataset * 10 + i,
    columnCount: 12,
    sizeInBytes: 64_000_000 + i * 1_000,
    fieldProfiles: [
      { fieldPath: 'id', uniqueCount: 1_000_000 + i, uniqueProportion: 1, nullCount: 0, min: '1', max: String(i) },
      { fieldPath: 'country', uniqueCount: 190, nullCount: i % 7, sampleValues: ['FR', 'DE', 'US'] },
    ],
  };
}

/**
 * Writes the rows straight into the writer's store file, as committed proposals leave them (version 1, the stamped
 * system metadata), with no outbox records: Strata starts on the file with nothing to publish. Resolves with the
 * number of datasets.
 */
async function seedStore(dataDir: string, aspects: number, points: number): Promise<number> {
  const store = new SqliteAspectStore({ path: join(dataDir, 'metadata-writer.sqlite'), synchronous: 'NORMAL' });
  try {
    const createdOn = Date.now();
    const createdBy = 'urn:li:corpuser:bench';
    const systemMetadata = { lastObserved: createdOn, runId: 'bench-seed', lastRunId: 'bench-seed', version: '1' };
    const datasets = Math.max(1, Math.ceil(aspects / ASPECTS_PER_DATASET));
    const mutations: AspectMutation[] = [];
    const flush = async () => {
      await store.commit({ mutations, outbox: [], appliedProposalIds: [] });
      mutations.length = 0;
    };
    for (let n = 0; n * ASPECTS_PER_DATASET < aspects; n++) {
      const urn = restoredDataset(n);
      for (const [aspect, value] of datasetAspects(n).slice(0, aspects - n * ASPECTS_PER_DATASET)) {
        mutations.push({
          kind: 'put',
          urn,
          aspect,
          expectedVersion: 0,
          row: { version: 1, value, systemMetadata, createdOn, createdBy },
        });
      }
      if (mutations.length >= 20_000) await flush();
    }
    // Spread over the datasets: point i of dataset n is the (i × datasets + n)-th.
    for (let p = 0; p < points; p++) {
      const urn = restoredDataset(p % datasets);
      const value = profileValue(p % datasets, Math.floor(p / datasets));
      mutations.push({
        kind: 'putTimeseries',
        value: {
          urn,
          aspect: 'datasetProfile',
          id: timeseriesPointId(urn, value),
          timestampMillis: value['timestampMillis'] as number,
          value,
          systemMetadata: { lastObserved: createdOn, runId: 'bench-seed', lastRunId: 'bench-seed' },
          createdOn,
          createdBy,
        },
      });
      if (mutations.length >= 20_000) await flush();
    }
    await flush();
    return datasets;
  } finally {
    await store.close();
  }
}

/** An access token of the root user, from `npm run token`'s module on the process's data directory. */
async function mintToken(dataDir: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(repositoryRoot, 'apps', 'standalone', 'dist', 'token.js'), '--duration', 'ONE_HOUR'],
    { env: { ...process.env, DATA_DIR: dataDir } },
  );
  return stdout.trim();
}

/** Change logs an indexer has applied since the process started (its progress report's `recordsApplied`). */
async function recordsApplied(http: TestHttpClient, path: string, auth: Record<string, string>): Promise<number> {
  const response = await http.get(path, auth);
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text}`);
  return (response.json as { recordsApplied: number }).recordsApplied;
}

/** Runs `count` tasks, `concurrency` at a time. */
async function pool(count: number, concurrency: number, task: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

async function restoreScenario(): Promise<TimeseriesBenchReport['restore']> {
  const dataDir = freshDataDir();
  let strata: StandaloneProcess | undefined;
  try {
    process.stdout.write(
      `timeseries: seeding the store with ${restoreAspects} aspects` +
        `${restorePoints > 0 ? ` and ${restorePoints} timeseries points` : ''}…\n`,
    );
    const seedStarted = performance.now();
    const datasets = await seedStore(dataDir, restoreAspects, restorePoints);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    strata = await startStandalone({ dataDir, startTimeoutMs: 60_000 });
    const http = new TestHttpClient(strata.baseUrl);
    const auth = { authorization: `Bearer ${await mintToken(dataDir)}` };

    // Baseline: async ingest of the same kind of aspect, to datasets already stored (one change log each).
    process.stdout.write(`timeseries: ${restoreBaseline} async ingestProposals (baseline of the restore)…\n`);
    const ingestBefore = await recordsApplied(http, SEARCH_PROGRESS, auth);
    const ingestStarted = performance.now();
    await pool(restoreBaseline, CONNECTIONS, async (i) => {
      const n = i % datasets;
      const proposal = proposalOf(restoredDataset(n), 'datasetProperties', {
        name: `restored_${n}`,
        description: `Restored dataset ${n} of the benchmark, edit ${i}`,
        customProperties: {},
      });
      const response = await http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposal, { async: 'true' }),
      );
      if (response.status !== 200) throw new Error(`async ingest answered ${response.status}: ${response.text}`);
    });
    await eventually(
      async () => {
        const applied = (await recordsApplied(http, SEARCH_PROGRESS, auth)) - ingestBefore;
        if (applied < restoreBaseline) throw new Error(`${applied} of ${restoreBaseline} async ingests applied`);
      },
      { timeoutMs: 600_000, intervalMs: 250 },
    );
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;

    process.stdout.write(`timeseries: restoreIndices of every stored row, ${restoreBatch} per call…\n`);
    const searchBefore = await recordsApplied(http, SEARCH_PROGRESS, auth);
    const timeseriesBefore = await recordsApplied(http, TIMESERIES_PROGRESS, auth);
    const started = performance.now();
    let start = 0;
    let rows = 0;
    let ignored = 0;
    let calls = 0;
    for (;;) {
      const response = await http.post('/operations?action=restoreIndices', { start, batchSize: restoreBatch }, auth);
      if (response.status !== 200) throw new Error(`restoreIndices answered ${response.status}: ${response.text}`);
      const answer = restoreAnswer((response.json as { value: string }).value);
      calls += 1;
      rows += answer.rowsMigrated;
      ignored += answer.ignored;
      start = answer.nextStart;
      if (answer.complete) break;
    }
    const restateSeconds = (performance.now() - started) / 1000;
    // The restore replays the latest rows first, then the durable timeseries points; the seeded points are the only
    // ones in the store, so every other row restated is a versioned one.
    const versioned = rows - restorePoints;
    let searchApplied = 0;
    let timeseriesApplied = 0;
    await eventually(
      async () => {
        searchApplied = (await recordsApplied(http, SEARCH_PROGRESS, auth)) - searchBefore;
        timeseriesApplied = (await recordsApplied(http, TIMESERIES_PROGRESS, auth)) - timeseriesBefore;
        if (searchApplied < versioned || timeseriesApplied < restorePoints) {
          throw new Error(
            `search indexer ${searchApplied} of ${versioned}, timeseries indexer ${timeseriesApplied} of ${restorePoints}`,
          );
        }
      },
      { timeoutMs: 900_000, intervalMs: 250 },
    );
    const seconds = (performance.now() - started) / 1000;
    const search = await http.post('/entities?action=search', { input: '*', entity: 'dataset', start: 0, count: 0 });
    const datasetsSearchable =
      (search.json as { value?: { numEntities?: number } } | undefined)?.value?.numEntities ?? 0;
    const rowsPerSecond = rows / seconds;
    const aspectsPerSecond = restoreBaseline / ingestSeconds;
    return {
      seededAspects: restoreAspects,
      seededPoints: restorePoints,
      datasets,
      seedSeconds,
      rowsRestated: rows,
      rowsIgnored: ignored,
      calls,
      batchSize: restoreBatch,
      restateSeconds,
      seconds,
      rowsPerSecond,
      searchIndexerApplied: searchApplied,
      timeseriesIndexerApplied: timeseriesApplied,
      datasetsSearchable,
      baseline: { proposals: restoreBaseline, seconds: ingestSeconds, aspectsPerSecond },
      ratio: rowsPerSecond / aspectsPerSecond,
    };
  } finally {
    await stopAndRemove(strata, dataDir);
  }
}

/** The counters of restoreIndices' answer (`…rowsMigrated=N, … nextStart=N, complete=true)}`). */
function restoreAnswer(value: string): { rowsMigrated: number; ignored: number; nextStart: number; complete: boolean } {
  const field = (name: string) => {
    const match = new RegExp(`\\b${name}=(\\w+)`).exec(value);
    if (match?.[1] === undefined) throw new Error(`restoreIndices answered no ${name}: ${value}`);
    return match[1];
  };
  return {
    rowsMigrated: Number(field('rowsMigrated')),
    ignored: Number(field('ignored')),
    nextStart: Number(field('nextStart')),
    complete: field('complete') === 'true',
  };
}

const profiledDataset = (d: number) => datasetUrn(`bench.profiled_${d}`);

/**
 * Writes `points` datasetProfile points (POINTS_PER_DATASET per dataset, hourly) straight into the timeseries
 * indexer's file, as it indexes those a change log carries: the same id, fields and system metadata.
 */
async function seedTimeseriesIndex(dataDir: string, registry: EntityRegistry, points: number): Promise<void> {
  const index = new SqliteTimeseriesIndex({
    path: join(dataDir, 'timeseries-indexer.sqlite'),
    aspects: timeseriesAspectsOf(registry),
  });
  const aspect: AspectSpec | undefined = registry.entity('dataset')?.aspect('datasetProfile');
  if (aspect === undefined) throw new Error('the registry has no datasetProfile aspect of dataset');
  try {
    const lastObserved = Date.now();
    const systemMetadata = { lastObserved, runId: 'bench-seed', lastRunId: 'bench-seed' };
    const systemMetadataJson = JSON.stringify(systemMetadata);
    const changes: TimeseriesChange[] = [];
    for (let p = 0; p < points; p++) {
      const dataset = Math.floor(p / POINTS_PER_DATASET);
      const urn = profiledDataset(dataset);
      const value = profileValue(dataset, p % POINTS_PER_DATASET);
      changes.push({
        kind: 'put',
        point: {
          entity: 'dataset',
          aspect: 'datasetProfile',
          id: timeseriesPointId(urn, value),
          urn,
          timestampMillis: value['timestampMillis'] as number,
          value: JSON.stringify(value),
          systemMetadata: systemMetadataJson,
          fields: timeseriesFieldsOf(aspect, value, systemMetadata),
        },
      });
      if (changes.length >= 50_000) {
        await index.apply(changes);
        changes.length = 0;
      }
    }
    await index.apply(changes);
  } finally {
    await index.close();
  }
}

/** The size of a SQLite file with its write-ahead log. */
function fileBytes(path: string): number {
  return [path, `${path}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

interface ReadVariant {
  readonly scenario: string;
  /** The body of a request to a random dataset of `datasets`. */
  readonly body: (datasets: number) => Record<string, unknown>;
  /** Points the answer holds. */
  readonly values: number;
}

const random = (below: number) => Math.floor(Math.random() * below);

const READ_VARIANTS: readonly ReadVariant[] = [
  {
    scenario: 'getTimeseriesAspectValues (newest 10 of a dataset)',
    body: (datasets) => ({
      urn: profiledDataset(random(datasets)),
      entity: 'dataset',
      aspect: 'datasetProfile',
      limit: 10,
    }),
    values: 10,
  },
  {
    scenario: 'getTimeseriesAspectValues (time range, 100 points)',
    body: (datasets) => {
      const first = random(POINTS_PER_DATASET - RANGE_POINTS + 1);
      return {
        urn: profiledDataset(random(datasets)),
        entity: 'dataset',
        aspect: 'datasetProfile',
        startTimeMillis: FIRST_POINT_MILLIS + first * POINT_INTERVAL_MILLIS,
        endTimeMillis: FIRST_POINT_MILLIS + (first + RANGE_POINTS - 1) * POINT_INTERVAL_MILLIS,
        limit: RANGE_POINTS,
      };
    },
    values: RANGE_POINTS,
  },
];

const TIMESERIES_VALUES = '/aspects?action=getTimeseriesAspectValues';

/** autocannon for BENCH_DURATION_S seconds (or `amount` requests) at CONNECTIONS, each request built by `body`. */
async function load(baseUrl: string, body: () => Record<string, unknown>, amount?: number): Promise<Figures> {
  const result = await autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    ...(amount === undefined ? { duration: durationSeconds } : { amount }),
    requests: [
      {
        method: 'POST',
        path: TIMESERIES_VALUES,
        headers: { 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' },
        setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify(body()) }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    requests: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

/** Checks that a request of the variant answers its points, so that the load measures what it says. */
async function checkVariant(http: TestHttpClient, variant: ReadVariant, datasets: number): Promise<number> {
  const response = await http.post(TIMESERIES_VALUES, variant.body(datasets));
  if (response.status !== 200) throw new Error(`${variant.scenario} answered ${response.status}: ${response.text}`);
  const values = (response.json as { value: { values: unknown[] } }).value.values.length;
  if (values !== variant.values)
    throw new Error(`${variant.scenario} answered ${values} points, not ${variant.values}`);
  return values;
}

/** Each variant's figures against one process: a warm-up of 500 requests, then the measured run. */
async function measureReads(dataDir: string, datasets: number): Promise<{ figures: Figures[]; values: number[] }> {
  let strata: StandaloneProcess | undefined;
  try {
    strata = await startStandalone({ dataDir, startTimeoutMs: 60_000 });
    const http = new TestHttpClient(strata.baseUrl);
    const figures: Figures[] = [];
    const values: number[] = [];
    for (const variant of READ_VARIANTS) {
      process.stdout.write(`timeseries: ${variant.scenario}, ${datasets * POINTS_PER_DATASET} points…\n`);
      values.push(await checkVariant(http, variant, datasets));
      await load(strata.baseUrl, () => variant.body(datasets), 500);
      figures.push(await load(strata.baseUrl, () => variant.body(datasets)));
    }
    return { figures, values };
  } finally {
    await stopAndRemove(strata, dataDir);
  }
}

async function readScenarios(registry: EntityRegistry): Promise<TimeseriesBenchReport['reads']> {
  const datasets = Math.max(1, Math.ceil(timeseriesPoints / POINTS_PER_DATASET));
  const smallDir = freshDataDir();
  let largeDir: string | undefined;
  try {
    await seedTimeseriesIndex(smallDir, registry, BASELINE_POINTS);
    largeDir = freshDataDir();
    process.stdout.write(`timeseries: seeding the timeseries index with ${timeseriesPoints} points…\n`);
    const seedStarted = performance.now();
    await seedTimeseriesIndex(largeDir, registry, timeseriesPoints);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const indexBytes = fileBytes(join(largeDir, 'timeseries-indexer.sqlite'));

    const baseline = await measureReads(smallDir, 1);
    const strata = await measureReads(largeDir, datasets);
    const comparisons = READ_VARIANTS.map((variant, i): ReadComparison => {
      const ours = strata.figures[i] as Figures;
      const theirs = baseline.figures[i] as Figures;
      return {
        scenario: variant.scenario,
        connections: CONNECTIONS,
        strata: ours,
        baseline: theirs,
        throughputRatio: ours.requestsPerSecond / theirs.requestsPerSecond,
        p50Ratio: ours.latencyMs.p50 / theirs.latencyMs.p50,
        p99Ratio: ours.latencyMs.p99 / theirs.latencyMs.p99,
        values: strata.values[i] ?? 0,
      };
    });
    return {
      points: timeseriesPoints,
      datasets,
      baselinePoints: BASELINE_POINTS,
      seedSeconds,
      indexBytes,
      comparisons,
    };
  } finally {
    rmSync(smallDir, { recursive: true, force: true });
    if (largeDir !== undefined) rmSync(largeDir, { recursive: true, force: true });
  }
}

/** A latency ratio; n/a when the baseline's latency rounded to 0 ms. */
const times = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(1)}×` : 'n/a');

export function printTimeseriesReport(report: TimeseriesBenchReport): void {
  const { restore, reads } = report;
  const rate = (value: number) => value.toFixed(0);
  process.stdout.write(
    [
      '',
      `restore: ${restore.rowsRestated} rows restated (${restore.seededAspects} aspects of ${restore.datasets} datasets` +
        `${restore.seededPoints > 0 ? `, ${restore.seededPoints} timeseries points` : ''} seeded in ` +
        `${restore.seedSeconds.toFixed(1)} s), ${restore.calls} call(s) of ${restore.batchSize}: emitted in ` +
        `${restore.restateSeconds.toFixed(1)} s (${rate(restore.rowsRestated / restore.restateSeconds)}/s), ` +
        `applied by every index in ${restore.seconds.toFixed(1)} s`,
      `  restore ${rate(restore.rowsPerSecond)} aspects/s, ${restore.ratio.toFixed(1)}× async ingest ` +
        `(${restore.baseline.proposals} async ingestProposals applied in ${restore.baseline.seconds.toFixed(1)} s: ` +
        `${rate(restore.baseline.aspectsPerSecond)} aspects/s); applied: search indexer ${restore.searchIndexerApplied}, ` +
        `timeseries indexer ${restore.timeseriesIndexerApplied}; datasets searchable ${restore.datasetsSearchable}`,
      `timeseries index: ${reads.points} datasetProfile points of ${reads.datasets} datasets (seeded in ` +
        `${reads.seedSeconds.toFixed(1)} s, ${(reads.indexBytes / 1e6).toFixed(0)} MB), baseline ${reads.baselinePoints} points`,
    ].join('\n') + '\n',
  );
  const rows = reads.comparisons.map((row) => [
    row.scenario,
    String(row.connections),
    row.strata.requestsPerSecond.toFixed(0),
    `${row.strata.latencyMs.p50}/${row.strata.latencyMs.p90}/${row.strata.latencyMs.p99}`,
    String(row.strata.failures),
    row.baseline.requestsPerSecond.toFixed(0),
    `${row.baseline.latencyMs.p50}/${row.baseline.latencyMs.p90}/${row.baseline.latencyMs.p99}`,
    `${(row.throughputRatio * 100).toFixed(1)}%`,
    `${times(row.p50Ratio)}/${times(row.p99Ratio)}`,
  ]);
  const header = [
    `timeseries reads (${reads.points} points; baseline ${reads.baselinePoints})`,
    'conns',
    'strata req/s',
    'p50/p90/p99 ms',
    'failed',
    'baseline req/s',
    'p50/p90/p99 ms',
    'ratio',
    'p50/p99 ratio',
  ];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  for (const row of [header, ...rows]) {
    process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}\n`);
  }
}
