/**
 * One very large aspect against a responsive service: an `ownership` with BENCH_LARGE_OWNERS owners (default 50,000,
 * about 3 MB of JSON) written with `X-DataHub-Sync-Index-Update`, so the answer waits until the aspect is stored and
 * its 50,000 edges and search document are indexed. Meanwhile `/health` is polled back to back: its latency during
 * the write shows how long any single step held the event loop, since every service shares one thread in the
 * standalone process.
 *
 * Each of the BENCH_LARGE_REPEATS writes (default 5) goes to a new dataset, so each creates all its edges. Baselines
 * from the same run and process: the same writes with 3 owners (median against median), and `/health` polled the same
 * way while nothing else runs.
 */
import { performance } from 'node:perf_hooks';
import { datasetUrn, ingestProposalBody, proposalOf, startStandalone, TestHttpClient } from '@strata/testing';
import { percentiles, type Percentiles } from './latency';

const owners = Number(process.env['BENCH_LARGE_OWNERS'] ?? 50_000);
const repeats = Number(process.env['BENCH_LARGE_REPEATS'] ?? 5);

export interface LargeAspectReport {
  readonly owners: number;
  readonly bodyBytes: number;
  /** Median of the large writes and of the small ones, each acknowledged once indexed. */
  readonly largeWriteMs: number;
  readonly smallWriteMs: number;
  /** `/health` latency while the large writes run, and while nothing runs. */
  readonly healthDuringWriteMs: Percentiles;
  readonly healthIdleMs: Percentiles;
  /** Incoming `OwnedBy` edges of the last owner once the writes were acknowledged: `repeats` when all are indexed. */
  readonly lastOwnerEdges: number;
}

const median = (samples: readonly number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;

function ownershipBody(urn: string, count: number): string {
  const value = {
    owners: Array.from({ length: count }, (_, i) => ({ owner: `urn:li:corpuser:owner_${i}`, type: 'DATAOWNER' })),
    lastModified: { time: 0, actor: 'urn:li:corpuser:bench' },
  };
  return JSON.stringify(ingestProposalBody(proposalOf(urn, 'ownership', value)));
}

/** Polls `/health` back to back until `until` settles, and returns each answer's latency. */
async function pollHealth(http: TestHttpClient, until: Promise<unknown>): Promise<number[]> {
  const settled = { yet: false };
  const settle = () => {
    settled.yet = true;
  };
  void until.then(settle, settle);
  const samples: number[] = [];
  while (!settled.yet) {
    const started = performance.now();
    await http.get('/health');
    samples.push(performance.now() - started);
  }
  return samples;
}

export async function largeAspectScenario(): Promise<LargeAspectReport> {
  process.stdout.write(`large aspect: ownership with ${owners} owners, sync index update, ${repeats} times…\n`);
  const strata = await startStandalone();
  try {
    const http = new TestHttpClient(strata.baseUrl);
    const write = async (urn: string, count: number) => {
      const body = ownershipBody(urn, count);
      const started = performance.now();
      const response = await http.post('/aspects?action=ingestProposal', body, {
        'X-DataHub-Sync-Index-Update': 'true',
      });
      if (response.status !== 200) throw new Error(`write answered ${response.status}: ${response.text}`);
      return { ms: performance.now() - started, bytes: Buffer.byteLength(body) };
    };

    const small: number[] = [];
    for (let round = 0; round < repeats; round++) small.push((await write(datasetUrn(`bench.small_${round}`), 3)).ms);

    const idle = await pollHealth(http, new Promise((resolve) => setTimeout(resolve, 2_000)));

    const large: number[] = [];
    let bodyBytes = 0;
    const writes = (async () => {
      for (let round = 0; round < repeats; round++) {
        const { ms, bytes } = await write(datasetUrn(`bench.large_${round}`), owners);
        large.push(ms);
        bodyBytes = bytes;
      }
    })();
    const during = await pollHealth(http, writes);
    await writes;

    const edges = await http.get(
      `/relationships?direction=INCOMING&types=OwnedBy&urn=${encodeURIComponent(`urn:li:corpuser:owner_${owners - 1}`)}`,
    );
    return {
      owners,
      bodyBytes,
      largeWriteMs: median(large),
      smallWriteMs: median(small),
      healthDuringWriteMs: percentiles(during),
      healthIdleMs: percentiles(idle),
      lastOwnerEdges: (edges.json as { total?: number } | undefined)?.total ?? 0,
    };
  } finally {
    await strata.stop();
    strata.cleanUp();
  }
}

export function printLargeAspectReport(report: LargeAspectReport): void {
  const { healthDuringWriteMs: during, healthIdleMs: idle } = report;
  const ms = (value: number) => value.toFixed(0);
  process.stdout.write(
    [
      `large aspect (${report.owners} owners, ${(report.bodyBytes / 1e6).toFixed(1)} MB): written and indexed in ` +
        `${ms(report.largeWriteMs)} ms (3 owners: ${ms(report.smallWriteMs)} ms); last owner's edges: ${report.lastOwnerEdges}`,
      `  /health during the write p50/p99/max ${ms(during.p50)}/${ms(during.p99)}/${ms(during.max)} ms, ` +
        `idle ${ms(idle.p50)}/${ms(idle.p99)}/${ms(idle.max)} ms`,
    ].join('\n') + '\n',
  );
}
