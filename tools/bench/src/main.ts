/**
 * `npm run bench`: Strata's ingest and read throughput and latency, each beside a baseline measured in the same run —
 * a minimal express server that parses the same bodies — so figures read as ratios, whatever the machine.
 *
 * Strata runs as a user runs it (the built standalone process, fresh data directory); the load comes from autocannon
 * in this process. Writes a JSON report to bench-results/ and prints a table. BENCH_DURATION_S sets each run's length.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { TokenService } from '@strata/auth';
import { readSchemas } from '@strata/schemas';
import { createEventSerde } from '@strata/events';
import { KafkaMessageLog } from '@strata/log';
import { consoleScenarios, printConsoleReport } from './console-bench';
import { largeAspectScenario, printLargeAspectReport } from './large-aspect-bench';
import { lineageScenarios, printLineageReport } from './lineage-bench';
import { printSearchReport, searchScenarios } from './search-bench';
import { printTimeseriesReport, timeseriesScenarios } from './timeseries-bench';
import {
  datasetUrn,
  eventually,
  ingestProposalBody,
  proposalOf,
  repositoryRoot,
  startDeployment,
  startKafkaTestBroker,
  startStandalone,
  TestHttpClient,
  type KafkaTestBroker,
} from '@strata/testing';

const durationSeconds = Number(process.env['BENCH_DURATION_S'] ?? 10);
/**
 * `search`, `ingest` (with reads), `large-aspect`, `timeseries`, `lineage` or `console` runs only those scenarios;
 * unset, all of them but `console` (which needs Chromium: run it on its own).
 */
const only = process.env['BENCH_ONLY'];

interface Figures {
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  readonly requests: number;
  readonly failures: number;
}

interface Comparison {
  readonly scenario: string;
  readonly connections: number;
  readonly strata: Figures;
  readonly baseline: Figures;
  /** Strata's throughput as a fraction of the baseline's. */
  readonly throughputRatio: number;
}

interface LoadOptions {
  readonly baseUrl: string;
  readonly connections: number;
  readonly method: 'GET' | 'POST';
  /** Path and body of the n-th request. */
  readonly request: (sequence: number) => { path: string; body?: string };
  /** Headers of every request besides the protocol's (credentials). */
  readonly headers?: Readonly<Record<string, string>>;
}

let sequence = 0;
/** The highest request sequence answered with a 2xx (autocannon prepares requests it may never send). */
let lastAcknowledged = -1;

async function load({ baseUrl, connections, method, request, headers }: LoadOptions): Promise<Figures> {
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration: durationSeconds,
    requests: [
      {
        method,
        headers: { 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0', ...headers },
        setupRequest: (req: autocannon.Request, context: object) => {
          (context as { sequence?: number }).sequence = sequence;
          const next = request(sequence++);
          return { ...req, path: next.path, ...(next.body === undefined ? {} : { body: next.body }) };
        },
        onResponse: (status: number, _body: string, context: object) => {
          const answered = (context as { sequence?: number }).sequence;
          if (status < 300 && typeof answered === 'number') lastAcknowledged = Math.max(lastAcknowledged, answered);
        },
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

const benchTable = (n: number) => datasetUrn(`bench.table_${n}`);

/** A first write to a new dataset: the key and default aspects are created with it. */
function ingestBody(n: number, asyncFlag: boolean): string {
  const proposal = proposalOf(benchTable(n), 'datasetProperties', {
    description: `Benchmark table ${n}`,
    customProperties: { owner: 'bench', sequence: String(n) },
  });
  return JSON.stringify(ingestProposalBody(proposal, asyncFlag ? { async: 'true' } : {}));
}

async function startBaseline(): Promise<{ baseUrl: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [join(__dirname, 'baseline-server.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => {
      resolve((JSON.parse(chunk.toString('utf8')) as { port: number }).port);
    });
    child.once('exit', () => {
      reject(new Error('baseline server exited'));
    });
  });
  return { baseUrl: `http://127.0.0.1:${port}`, process: child };
}

/** Peak resident memory of a process, where the system tells it (Linux's /proc). */
function peakRssMegabytes(pid: number): number | undefined {
  if (!existsSync(`/proc/${pid}/status`)) return undefined;
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match?.[1] ? Number(match[1]) / 1024 : undefined;
}

async function main(): Promise<void> {
  if (only === 'search') {
    const baseline = await startBaseline();
    try {
      const search = await searchScenarios(baseline.baseUrl);
      writeReport({ date: new Date().toISOString(), machine: machine(), search });
      printSearchReport(search);
    } finally {
      baseline.process.kill('SIGTERM');
    }
    return;
  }
  if (only === 'large-aspect') {
    const largeAspect = await largeAspectScenario();
    writeReport({ date: new Date().toISOString(), machine: machine(), largeAspect });
    printLargeAspectReport(largeAspect);
    return;
  }
  if (only === 'lineage') {
    const lineage = await lineageScenarios();
    writeReport({ date: new Date().toISOString(), machine: machine(), lineage });
    printLineageReport(lineage);
    return;
  }
  if (only === 'console') {
    const consolePages = await consoleScenarios();
    writeReport({ date: new Date().toISOString(), machine: machine(), console: consolePages });
    printConsoleReport(consolePages);
    return;
  }
  if (only === 'timeseries') {
    const timeseries = await timeseriesScenarios();
    writeReport({ date: new Date().toISOString(), machine: machine(), durationSeconds, timeseries });
    printTimeseriesReport(timeseries);
    return;
  }
  const baseline = await startBaseline();
  const strata = await startStandalone().catch((error: unknown) => {
    baseline.process.kill('SIGTERM');
    throw error;
  });
  const comparisons: Comparison[] = [];
  const compare: Compare = async (scenario, connections, options, target = strata.baseUrl) => {
    process.stdout.write(`${scenario}, ${connections} connections…\n`);
    const baselineFigures = await load({ ...options, baseUrl: baseline.baseUrl, connections });
    const strataFigures = await load({ ...options, baseUrl: target, connections });
    comparisons.push({
      scenario,
      connections,
      strata: strataFigures,
      baseline: baselineFigures,
      throughputRatio: strataFigures.requestsPerSecond / baselineFigures.requestsPerSecond,
    });
  };
  try {
    const ingest = (asyncFlag: boolean) =>
      ({
        method: 'POST',
        request: (n: number) => ({ path: '/aspects?action=ingestProposal', body: ingestBody(n, asyncFlag) }),
      }) as const;
    for (const connections of [1, 16, 64])
      await compare('sync ingestProposal (new dataset)', connections, ingest(false));

    const firstAsync = sequence;
    await compare('async ingestProposal (new dataset)', 16, ingest(true));
    const lastAsync = lastAcknowledged;
    const drainStarted = Date.now();
    const http = new TestHttpClient(strata.baseUrl);
    await eventually(
      async () => {
        const response = await http.get(
          `/aspects/${encodeURIComponent(benchTable(lastAsync))}?aspect=datasetProperties`,
        );
        if (response.status !== 200) throw new Error('not applied yet');
      },
      { timeoutMs: 300_000, intervalMs: 100 },
    );
    const drainMs = Date.now() - drainStarted;

    const written = firstAsync;
    await compare('GET /entitiesV2 (dataset, 4 aspects)', 16, {
      method: 'GET',
      request: (n: number) => ({ path: `/entitiesV2/${encodeURIComponent(benchTable(n % written))}` }),
    });

    await authenticatedIngest(compare, ingest(false));
    const kafka = await kafkaScenarios(compare, ingest(false));
    const strataPeakRssMb = peakRssMegabytes(strata.pid);
    const largeAspect = only === 'ingest' ? undefined : await largeAspectScenario();
    const search = only === 'ingest' ? undefined : await searchScenarios(baseline.baseUrl);
    const timeseries = only === 'ingest' ? undefined : await timeseriesScenarios();
    const lineage = only === 'ingest' ? undefined : await lineageScenarios();

    const report = {
      date: new Date().toISOString(),
      machine: machine(),
      durationSeconds,
      comparisons,
      asyncBacklogDrainMs: drainMs,
      asyncProposalsAccepted: lastAsync - firstAsync + 1,
      strataPeakRssMb,
      kafka,
      ...(largeAspect === undefined ? {} : { largeAspect }),
      ...(search === undefined ? {} : { search }),
      ...(timeseries === undefined ? {} : { timeseries }),
      ...(lineage === undefined ? {} : { lineage }),
    };
    const file = writeReport(report);
    printTable(comparisons);
    if (largeAspect !== undefined) printLargeAspectReport(largeAspect);
    if (search !== undefined) printSearchReport(search);
    if (timeseries !== undefined) printTimeseriesReport(timeseries);
    if (lineage !== undefined) printLineageReport(lineage);
    if ('directProducer' in kafka) {
      const { proposals, seconds, proposalsPerSecond } = kafka.directProducer;
      process.stdout.write(
        `direct Kafka producer: ${proposals} proposals stored and change-logged in ${seconds.toFixed(2)} s (${proposalsPerSecond.toFixed(0)}/s)\n`,
      );
    } else {
      process.stdout.write(`Kafka path skipped: ${kafka.skipped}\n`);
    }
    process.stdout.write(
      `async backlog drained ${drainMs} ms after the async run; Strata peak RSS ${strataPeakRssMb?.toFixed(0) ?? '?'} MB\nreport: ${file}\n`,
    );
  } finally {
    await strata.stop();
    strata.cleanUp();
    baseline.process.kill('SIGTERM');
  }
}

function machine() {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version };
}

/** Writes the report to bench-results/ and returns its path. */
function writeReport(report: { readonly date: string } & Record<string, unknown>): string {
  const directory = join(repositoryRoot, 'bench-results');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `bench-${report.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`report: ${file}\n`);
  return file;
}

/** Runs one load against the baseline and then against Strata at `target` (default: the standalone process). */
type Compare = (
  scenario: string,
  connections: number,
  options: Omit<LoadOptions, 'baseUrl' | 'connections'>,
  target?: string,
) => Promise<void>;

/**
 * Sync ingest with authentication on, on a standalone process of its own: every request carries a token of the root
 * user, which the gateway verifies and checks against the catalog's security marks (docs/adr/0020).
 */
async function authenticatedIngest(
  compare: Compare,
  ingest: Omit<LoadOptions, 'baseUrl' | 'connections'>,
): Promise<void> {
  const strata = await startStandalone({ env: { METADATA_SERVICE_AUTH_ENABLED: 'true' } });
  try {
    const signingKey = readFileSync(join(strata.dataDir, 'secrets', 'token-signing-key'), 'utf8').trim();
    const { token } = await new TokenService({ signingKey, now: Date.now }).mint('datahub', 'SESSION', 3_600_000);
    await compare(
      'sync ingestProposal (new dataset), auth on',
      16,
      { ...ingest, headers: { authorization: `Bearer ${token}` } },
      strata.baseUrl,
    );
  } finally {
    await strata.stop();
    strata.cleanUp();
  }
}

/**
 * The Kafka path, on librdkafka's mock cluster (Debian's kcat): sync ingest through the gateway of the distributed
 * deployment, and the throughput of proposals produced straight onto the log, measured until the writer has emitted
 * a change log for each (that is, stored it).
 */
async function kafkaScenarios(
  compare: Compare,
  ingest: Omit<LoadOptions, 'baseUrl' | 'connections'>,
): Promise<
  { directProducer: { proposals: number; seconds: number; proposalsPerSecond: number } } | { skipped: string }
> {
  let broker: KafkaTestBroker;
  try {
    broker = await startKafkaTestBroker();
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
  // librdkafka's mock broker holds every fetch for its full maximum wait instead of answering when records arrive (a
  // real broker answers at once), and a synchronous write crosses two fetches: keep the wait short so the figure shows
  // Strata's cost more than the mock's.
  const distributed = await startDeployment('distributed', {
    kafkaBrokers: broker.brokers,
    env: { KAFKA_FETCH_MAX_WAIT_MS: '10' },
  });
  // A short fetch wait, as the deployments under test use: the mock broker keeps only a few megabytes per partition, so
  // a reader that waits 5 s per fetch falls behind 80,000 change logs, its position drops off the log, and (starting
  // from the end) it would never see them.
  const log = new KafkaMessageLog({
    brokers: broker.brokers,
    clientId: 'bench-producer',
    consumer: { maxWaitTimeMs: 100 },
  });
  try {
    await compare('Kafka: sync ingestProposal via gateway (distributed)', 16, ingest, distributed.baseUrl);

    const proposals = Number(process.env['BENCH_DIRECT_PROPOSALS'] ?? 20_000);
    const serde = createEventSerde(readSchemas());
    const changeLogTopic = `MetadataChangeLog_Versioned_v1.${distributed.namespace}`;
    const proposalTopic = `MetadataChangeProposal_v1.${distributed.namespace}`;
    let seen = 0;
    const marker = `direct-${randomUUID().slice(0, 8)}`;
    const subscription = await log.subscribe({
      groupId: `bench-${marker}`,
      topics: [changeLogTopic],
      fromBeginning: false,
      handleBatch: (records) => {
        for (const record of records) {
          const changeLog = serde.changeLog.decode(record.value);
          if (changeLog.aspectName === 'datasetProperties' && changeLog.entityUrn?.includes(marker)) seen++;
        }
        return Promise.resolve();
      },
    });
    process.stdout.write(`Kafka: ${proposals} proposals produced straight onto the log…\n`);
    const started = Date.now();
    for (let offset = 0; offset < proposals; offset += 1_000) {
      const batch = [];
      for (let n = offset; n < Math.min(offset + 1_000, proposals); n++) {
        const urn = datasetUrn(`${marker}.t${n}`, 'kafka');
        const proposal = proposalOf(urn, 'datasetProperties', { description: `t${n}` });
        // Confluent-framed Avro, as a Kafka producer sends it: the record form the JSON proposal decodes to.
        const record = serde.proposal.decodeAny(Buffer.from(JSON.stringify(proposal)));
        batch.push({ topic: proposalTopic, key: urn, value: serde.proposal.encode(record) });
      }
      await log.publish(batch);
    }
    await eventually(
      () => {
        if (seen < proposals) throw new Error(`${seen} of ${proposals} change logs so far`);
      },
      { timeoutMs: 600_000, intervalMs: 100 },
    );
    const seconds = (Date.now() - started) / 1000;
    await subscription.stop();
    return { directProducer: { proposals, seconds, proposalsPerSecond: proposals / seconds } };
  } finally {
    await log.close();
    await distributed.stop();
    distributed.cleanUp();
    await broker.stop();
  }
}

function printTable(comparisons: readonly Comparison[]): void {
  const rows = comparisons.map((row) => [
    row.scenario,
    String(row.connections),
    row.strata.requestsPerSecond.toFixed(0),
    `${row.strata.latencyMs.p50}/${row.strata.latencyMs.p90}/${row.strata.latencyMs.p99}`,
    String(row.strata.failures),
    row.baseline.requestsPerSecond.toFixed(0),
    `${row.baseline.latencyMs.p50}/${row.baseline.latencyMs.p90}/${row.baseline.latencyMs.p99}`,
    `${(row.throughputRatio * 100).toFixed(1)}%`,
  ]);
  const header = [
    'scenario',
    'conns',
    'strata req/s',
    'p50/p90/p99 ms',
    'failed',
    'baseline req/s',
    'p50/p90/p99 ms',
    'ratio',
  ];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  for (const row of [header, ...rows]) {
    process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
