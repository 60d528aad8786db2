/**
 * The console's pages over a large catalog: 100,000 datasets (BENCH_CONSOLE_DATASETS; the search benchmark's, with
 * descriptions, browse paths, owners and tags) plus the console's sample catalog (schemas, lineage, versions), on a
 * fresh standalone process. Each page is opened in Debian's Chromium (playwright-core) and timed from the navigation's
 * start until the element a person waits for is shown (results, the entity's name, schema rows, lineage nodes,
 * versions): cold (a new browser context each time: nothing cached, the bundle downloaded) and warm (the same context:
 * the hashed assets cached, as for a returning user). BENCH_CONSOLE_RUNS visits per page and mode (default 15).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type BrowserContext } from 'playwright-core';
import {
  CHROMIUM_FLAGS,
  chromiumPath,
  eventually,
  repositoryRoot,
  startStandalone,
  TestHttpClient,
} from '@strata/testing';
import { percentiles, type Percentiles } from './latency';
import { loadPerfDatasets } from './search-bench';

const datasets = Number(process.env['BENCH_CONSOLE_DATASETS'] ?? 100_000);
const runs = Number(process.env['BENCH_CONSOLE_RUNS'] ?? 15);

export interface ConsolePageTiming {
  readonly page: string;
  readonly path: string;
  readonly cold: Percentiles;
  readonly warm: Percentiles;
}

export interface ConsoleBenchReport {
  readonly datasets: number;
  readonly runs: number;
  readonly pages: readonly ConsolePageTiming[];
}

interface SampleProposal {
  readonly aspect: { readonly json: unknown };
}

const entity = (urn: string, tab?: string) => `/entity/${encodeURIComponent(urn)}${tab === undefined ? '' : `/${tab}`}`;
const sampleDataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:snowflake,analytics.sales.${name},PROD)`;

export async function consoleScenarios(): Promise<ConsoleBenchReport> {
  const strata = await startStandalone({ startTimeoutMs: 60_000 });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_FLAGS] });
  try {
    const http = new TestHttpClient(strata.baseUrl);
    process.stdout.write(`console: loading ${datasets} datasets and the sample catalog…\n`);
    const login = await http.post('/logIn', { username: 'datahub', password: 'datahub' });
    const root = { Authorization: `Bearer ${(login.json as { accessToken: string }).accessToken}` };
    await loadPerfDatasets(http, datasets);
    const sample = JSON.parse(
      readFileSync(join(repositoryRoot, 'e2e', 'fixtures', 'console', 'sample-catalog.json'), 'utf8'),
    ) as SampleProposal[];
    for (let start = 0; start < sample.length; start += 50) {
      const batch = sample.slice(start, start + 50).map((proposal) => ({
        ...proposal,
        aspect: { value: JSON.stringify(proposal.aspect.json), contentType: 'application/json' },
      }));
      const response = await http.post(
        '/aspects?action=ingestProposalBatch',
        { proposals: batch },
        // Stored when answered; indexed with the rest, waited for below (the indexers are busy with 100,000 datasets).
        root,
      );
      if (response.status !== 200) throw new Error(`sample answered ${response.status}: ${response.text}`);
    }
    await eventually(
      async () => {
        const response = await http.post('/entities?action=search', {
          input: '*',
          entity: 'dataset',
          start: 0,
          count: 0,
        });
        const total = (response.json as { value: { numEntities: number } }).value.numEntities;
        // The bench's datasets and the sample's (30 more), every one indexed.
        if (total < datasets + 30) throw new Error(`${total} of ${datasets + 30} indexed`);
      },
      { timeoutMs: 1_800_000, intervalMs: 500 },
    );

    const pages = [
      { page: 'Home (counts, recent)', path: '/', ready: '[data-testid="type-count"]' },
      { page: 'Search "test" (all 100,000)', path: '/search?query=test', ready: '[data-testid="search-result"]' },
      {
        page: 'Search "performance" + platform facet',
        path: `/search?query=performance&filter_platform=${encodeURIComponent('urn:li:dataPlatform:bigquery')}`,
        ready: '[data-testid="search-result"]',
      },
      {
        page: 'Entity page (a bench dataset)',
        path: entity('urn:li:dataset:(urn:li:dataPlatform:bigquery,test_dataset_4242,PROD)'),
        ready: '[data-testid="entity-name"]',
      },
      {
        page: 'Entity schema tab',
        path: entity(sampleDataset('orders_clean'), 'schema'),
        ready: '[data-testid="schema-field"]',
      },
      {
        page: 'Entity lineage tab',
        path: entity(sampleDataset('orders_daily'), 'lineage'),
        ready: '[data-testid="lineage-node"]',
      },
      {
        page: 'Entity history tab',
        path: `${entity(sampleDataset('orders_clean'), 'history')}?aspect=datasetProperties`,
        ready: '[data-testid="aspect-version"]',
      },
      { page: 'Browse', path: '/browse', ready: '[data-testid="browse-group"], [data-testid="browse-entity"]' },
    ];
    const visit = async (context: BrowserContext, path: string, ready: string): Promise<number> => {
      const page = await context.newPage();
      try {
        const started = performance.now();
        await page.goto(`${strata.baseUrl}${path}`, { waitUntil: 'commit' });
        await page.locator(ready).first().waitFor({ state: 'visible', timeout: 30_000 });
        return performance.now() - started;
      } finally {
        await page.close();
      }
    };
    const timings: ConsolePageTiming[] = [];
    for (const { page, path, ready } of pages) {
      process.stdout.write(`console: ${page}…\n`);
      const cold: number[] = [];
      for (let run = 0; run < runs; run++) {
        const context = await browser.newContext({ viewport: { width: 1366, height: 850 } });
        try {
          cold.push(await visit(context, path, ready));
        } finally {
          await context.close();
        }
      }
      const warm: number[] = [];
      const context = await browser.newContext({ viewport: { width: 1366, height: 850 } });
      try {
        await visit(context, path, ready);
        for (let run = 0; run < runs; run++) warm.push(await visit(context, path, ready));
      } finally {
        await context.close();
      }
      const timing = { page, path, cold: percentiles(cold), warm: percentiles(warm) };
      timings.push(timing);
      process.stdout.write(`console:   ${JSON.stringify(timing)}\n`);
    }
    return { datasets, runs, pages: timings };
  } finally {
    await browser.close();
    await strata.stop();
  }
}

export function printConsoleReport(report: ConsoleBenchReport): void {
  process.stdout.write(
    `\nconsole pages over ${report.datasets.toLocaleString('en-US')} datasets: navigation start → content shown, ms (${report.runs} visits each)\n`,
  );
  const width = Math.max(...report.pages.map((row) => row.page.length));
  process.stdout.write(`  ${'page'.padEnd(width)}  cold p50   cold p95   warm p50   warm p95\n`);
  for (const row of report.pages) {
    const cell = (value: number) => value.toFixed(0).padStart(8);
    process.stdout.write(
      `  ${row.page.padEnd(width)}  ${cell(row.cold.p50)}   ${cell(row.cold.p95)}   ${cell(row.warm.p50)}   ${cell(row.warm.p95)}\n`,
    );
  }
}
