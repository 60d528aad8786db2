/**
 * The console's sample catalog (e2e/fixtures/console/sample-catalog.json: DataHub-shaped proposals, each with the
 * ingestion run that wrote it), made unique to one test run: every id that another suite of the shared deployments
 * might also use (users, groups, tags, terms, the domain, containers, datasets, runs) gets the run's tag, while
 * display names stay as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestHttpClient } from '@strata/testing';

interface SampleProposal {
  readonly entityType: string;
  readonly entityUrn: string;
  readonly changeType: string;
  readonly aspectName: string;
  readonly aspect: { readonly json: unknown };
  readonly systemMetadata: { readonly runId: string; readonly lastObserved: number };
}

/** The ids made unique: each gets the tag appended. */
const IDS = [
  'jdoe',
  'asmith',
  'data-engineering',
  'tag:PII',
  'tag:Gold',
  'glossaryNode:Classification',
  'glossaryTerm:Classification',
  'Finance.Revenue',
  'domain:sales',
  '5f4dcc3b5aa765d61d8327deb882cf99',
  '8f14e45fceea167a5a36dedd4bea2543',
  'analytics.sales',
  'finance.ledger',
  'legacy.clickstream',
  'daily_revenue',
  'sales_overview',
  'finance_daily',
  '-demo',
  '-import',
];

/** The sample catalog for the run tagged `tag` (letters and digits), and the names its tests look for. */
export function sampleCatalog(tag: string) {
  const text = readFileSync(join(__dirname, '..', 'fixtures', 'console', 'sample-catalog.json'), 'utf8');
  const pattern = new RegExp(IDS.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const proposals = JSON.parse(text.replace(pattern, (id) => `${id}${tag}`)) as SampleProposal[];
  const dataset = (name: string, platform = 'snowflake') =>
    `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
  return {
    proposals,
    urns: {
      raw: dataset(`analytics.sales${tag}.orders_raw`),
      clean: dataset(`analytics.sales${tag}.orders_clean`),
      daily: dataset(`analytics.sales${tag}.orders_daily`),
      customers: dataset(`analytics.sales${tag}.customers`),
      hostile: dataset(`analytics.sales${tag}.hostile_notes`),
      retired: dataset(`analytics.sales${tag}.orders_2019`),
      ledger: dataset(`finance.ledger${tag}`, 'hive'),
      legacy: (index: number) => dataset(`legacy.clickstream${tag}_${String(index).padStart(2, '0')}`, 'hive'),
      chart: `urn:li:chart:(looker,daily_revenue${tag})`,
      gold: `urn:li:tag:Gold${tag}`,
      pii: `urn:li:tag:PII${tag}`,
    },
    runs: {
      legacy: `hive-legacy-2025_11_25-import${tag}`,
      snowflake: `snowflake-2025_11_24-demo${tag}`,
      snowflakeLater: `snowflake-2025_11_26-demo${tag}`,
    },
  };
}

/** Writes the proposals in order, 50 a batch, waiting until search shows each, as `headers`' user. */
export async function writeSampleCatalog(
  http: TestHttpClient,
  proposals: readonly SampleProposal[],
  headers: Record<string, string>,
): Promise<void> {
  for (let start = 0; start < proposals.length; start += 50) {
    const batch = proposals.slice(start, start + 50).map((proposal) => ({
      ...proposal,
      aspect: { value: JSON.stringify(proposal.aspect.json), contentType: 'application/json' },
    }));
    const response = await http.post(
      '/aspects?action=ingestProposalBatch',
      { proposals: batch },
      { ...headers, 'X-RestLi-Protocol-Version': '2.0.0', 'X-DataHub-Sync-Index-Update': 'true' },
    );
    if (response.status !== 200) {
      throw new Error(`The sample catalog was refused (${response.status}): ${response.text.slice(0, 500)}`);
    }
  }
}
