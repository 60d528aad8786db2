/**
 * The GraphQL API as DataHub's CLI and SDK use it, on the shared standalone process and on the shared distributed
 * deployment (every service its own process over Kafka, authentication on), over HTTP only. A small catalog is written
 * over Rest.li (`ingestProposalBatch`, read-your-writes): datasets on two platforms and two environments, a container
 * hierarchy, a chart, a data job, a lineage chain of three hops and more with a fan-out and column lineage, soft-deleted
 * datasets, owners, tags, terms, a domain, links, a profile, an ingestion source with a run. Then every document of
 * e2e/fixtures/datahub-graphql is sent exactly as its caller sends it (minified as DataHub's client minifies; as
 * written for the callers that do not), with the variables the fixtures' notes list for each caller, and the fields the
 * caller reads are checked against the catalog. Then the entity page's reads, the curation mutations (read back over
 * REST and GraphQL), and access: a 401 without credentials, and on a standalone process of its own with a policy that
 * hides one dataset from a user, GraphQL refusing what REST refuses.
 *
 * The graph (an arrow points downstream; `load` is a data job, `revenue` a chart):
 *
 *     raw ─► clean ─► features ─► report ─► revenue
 *              │
 *              └► load ─► audit
 *
 * and column lineage raw.id ─► clean.id ─► features.id. Names carry the run's tag: the deployments are shared.
 */
import { randomUUID } from 'node:crypto';
import { TokenService } from '@strata/auth';
import {
  eventually,
  proposalOf,
  REFUSED_CREDENTIALS,
  authorizationHeaders,
  sharedDeployment,
  startDeployment,
  TestHttpClient,
  type ProposalJson,
  type RunningDeployment,
  type SharedDeployment,
} from '@strata/testing';
import { GraphqlClient } from './support/graphql-client';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureDocument, GRAPHQL_FIXTURES, minifyGraphql } from './support/graphql-documents';

const SYNC = { 'X-DataHub-Sync-Index-Update': 'true' };
const ROOT = 'urn:li:corpuser:datahub';
const OBSERVED = 1_700_000_000_000;
const stamp = { time: OBSERVED, actor: ROOT };

// --- The catalog ---------------------------------------------------------------------------------------------------

/** The names of one run's catalog. */
function catalogOf(run: string) {
  const lake = `${run}lake`;
  const mart = `${run}mart`;
  const bi = `${run}bi`;
  const edit = `${run}edit`;
  const platform = (name: string) => `urn:li:dataPlatform:${name}`;
  const dataset = (on: string, name: string, env = 'PROD') =>
    `urn:li:dataset:(urn:li:dataPlatform:${on},${run}.${name},${env})`;
  const flow = `urn:li:dataFlow:(airflow,${run}_flow,PROD)`;
  const raw = dataset(lake, 'sales.raw');
  const clean = dataset(lake, 'sales.clean');
  const features = dataset(lake, 'sales.features');
  return {
    run,
    lake,
    mart,
    bi,
    edit,
    platform,
    raw,
    clean,
    features,
    rawDev: dataset(lake, 'sales.raw', 'DEV'),
    old: dataset(lake, 'sales.old'),
    report: dataset(mart, 'daily.report'),
    audit: dataset(mart, 'daily.audit'),
    scratch: dataset(mart, 'daily.scratch', 'DEV'),
    edited: dataset(edit, 'curated.orders'),
    editedToo: dataset(edit, 'curated.returns'),
    flow,
    load: `urn:li:dataJob:(${flow},load)`,
    chart: `urn:li:chart:(${bi},${run}.revenue)`,
    database: `urn:li:container:${run}db`,
    schema: `urn:li:container:${run}schema`,
    alice: `urn:li:corpuser:${run}.alice`,
    team: `urn:li:corpGroup:${run}.team`,
    pii: `urn:li:tag:${run}.pii`,
    gold: `urn:li:tag:${run}.gold`,
    revenue: `urn:li:glossaryTerm:${run}.revenue`,
    cost: `urn:li:glossaryTerm:${run}.cost`,
    sales: `urn:li:domain:${run}.sales`,
    finance: `urn:li:domain:${run}.finance`,
    source: `urn:li:dataHubIngestionSource:${run}`,
    execution: `urn:li:dataHubExecutionRequest:${run}-exec`,
    field: (parent: string, path: string) => `urn:li:schemaField:(${parent},${path})`,
    /** A word only raw's description has. */
    landed: `${run}landed`,
  };
}
type Catalog = ReturnType<typeof catalogOf>;

const schemaOf = (platformUrn: string, fields: readonly (readonly [string, string, string])[]) => ({
  schemaName: 'sales',
  platform: platformUrn,
  version: 0,
  hash: '',
  platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
  fields: fields.map(([fieldPath, nativeDataType, type]) => ({
    fieldPath,
    nullable: fieldPath !== 'id',
    type: { type: { [`com.linkedin.schema.${type}`]: {} } },
    nativeDataType,
    recursive: false,
    isPartOfKey: fieldPath === 'id',
  })),
});

const upstream = (dataset: string) => ({ auditStamp: stamp, dataset, type: 'TRANSFORMED' });
const columnEdge = (from: string, to: string) => ({
  upstreamType: 'FIELD_SET',
  upstreams: [from],
  downstreamType: 'FIELD',
  downstreams: [to],
});

/** Every proposal of the catalog, in the JSON DataHub's emitters send. */
function catalogProposals(c: Catalog): ProposalJson[] {
  const ingested = { systemMetadata: { runId: `${c.run}-ingest`, lastObserved: OBSERVED } };
  const props = (name: string, description: string, customProperties: Record<string, string> = {}) => ({
    name,
    description,
    customProperties,
  });
  return [
    ...[
      [c.lake, 'Lake'],
      [c.mart, 'Mart'],
      [c.bi, 'Dashboards'],
      [c.edit, 'Curated'],
    ].map(([name, displayName]) =>
      proposalOf(c.platform(name!), 'dataPlatformInfo', {
        name,
        displayName,
        type: 'RELATIONAL_DB',
        datasetNameDelimiter: '.',
      }),
    ),
    proposalOf(c.alice, 'corpUserInfo', { active: true, displayName: 'Alice Liddell', email: 'alice@example.com' }),
    proposalOf(c.team, 'corpGroupInfo', { displayName: 'Sales team', admins: [], members: [c.alice], groups: [] }),
    proposalOf(c.pii, 'tagProperties', { name: 'PII', description: 'Personal data' }),
    proposalOf(c.gold, 'tagProperties', { name: 'Gold', description: 'Curated' }),
    proposalOf(c.revenue, 'glossaryTermInfo', { name: 'Revenue', definition: 'Money in', termSource: 'INTERNAL' }),
    proposalOf(c.cost, 'glossaryTermInfo', { name: 'Cost', definition: 'Money out', termSource: 'INTERNAL' }),
    proposalOf(c.sales, 'domainProperties', { name: 'Sales', description: 'Selling things' }),
    proposalOf(c.finance, 'domainProperties', { name: 'Finance' }),
    // The containers: a database, and a schema in it.
    proposalOf(c.database, 'containerProperties', { name: 'sales_db', description: 'The sales database' }),
    proposalOf(c.database, 'subTypes', { typeNames: ['Database'] }),
    proposalOf(c.database, 'dataPlatformInstance', { platform: c.platform(c.lake) }),
    proposalOf(c.schema, 'containerProperties', { name: 'sales', description: 'The sales schema' }),
    proposalOf(c.schema, 'subTypes', { typeNames: ['Schema'] }),
    proposalOf(c.schema, 'dataPlatformInstance', { platform: c.platform(c.lake) }),
    proposalOf(c.schema, 'container', { container: c.database }),
    // raw: everything an entity page shows, as one ingestion run wrote it.
    ...(
      [
        ['datasetProperties', props('raw', `Sales as ${c.landed}, unfiltered`, { source: 'pos' })],
        [
          'schemaMetadata',
          schemaOf(c.platform(c.lake), [
            ['id', 'BIGINT', 'NumberType'],
            ['amount', 'DECIMAL(10,2)', 'NumberType'],
            ['customer', 'VARCHAR', 'StringType'],
          ]),
        ],
        [
          'editableSchemaMetadata',
          {
            editableSchemaFieldInfo: [
              { fieldPath: 'amount', description: 'Gross amount', globalTags: { tags: [{ tag: c.pii }] } },
            ],
          },
        ],
        [
          'ownership',
          {
            owners: [
              { owner: c.alice, type: 'TECHNICAL_OWNER' },
              { owner: c.team, type: 'BUSINESS_OWNER' },
            ],
            lastModified: stamp,
          },
        ],
        ['globalTags', { tags: [{ tag: c.pii }] }],
        ['glossaryTerms', { terms: [{ urn: c.revenue }], auditStamp: stamp }],
        ['domains', { domains: [c.sales] }],
        [
          'institutionalMemory',
          {
            elements: [{ url: 'https://wiki.example.com/sales', description: 'Sales wiki', createStamp: stamp }],
          },
        ],
        ['subTypes', { typeNames: ['Table'] }],
        ['container', { container: c.schema }],
        [
          'browsePathsV2',
          {
            path: [
              { id: c.database, urn: c.database },
              { id: c.schema, urn: c.schema },
            ],
          },
        ],
        ['status', { removed: false }],
      ] as const
    ).map(([aspect, value]) => proposalOf(c.raw, aspect, value, ingested)),
    proposalOf(c.clean, 'datasetProperties', props('clean', 'Sales cleaned')),
    proposalOf(
      c.clean,
      'schemaMetadata',
      schemaOf(c.platform(c.lake), [
        ['id', 'BIGINT', 'NumberType'],
        ['amount', 'DECIMAL(10,2)', 'NumberType'],
      ]),
    ),
    proposalOf(c.clean, 'container', { container: c.schema }),
    proposalOf(c.clean, 'upstreamLineage', {
      upstreams: [upstream(c.raw)],
      fineGrainedLineages: [columnEdge(c.field(c.raw, 'id'), c.field(c.clean, 'id'))],
    }),
    // features is PROD, but says env=DEV in its custom properties: the CLI's --env DEV matches it too.
    proposalOf(c.features, 'datasetProperties', props('features', 'Features of sales', { env: 'DEV' })),
    proposalOf(
      c.features,
      'schemaMetadata',
      schemaOf(c.platform(c.lake), [
        ['id', 'BIGINT', 'NumberType'],
        ['score', 'DOUBLE', 'NumberType'],
      ]),
    ),
    proposalOf(c.features, 'container', { container: c.schema }),
    proposalOf(c.features, 'upstreamLineage', {
      upstreams: [upstream(c.clean)],
      fineGrainedLineages: [columnEdge(c.field(c.clean, 'id'), c.field(c.features, 'id'))],
    }),
    proposalOf(c.rawDev, 'datasetProperties', props('raw', 'Development copy')),
    proposalOf(c.old, 'datasetProperties', props('old', 'Retired sales')),
    proposalOf(c.old, 'container', { container: c.schema }),
    proposalOf(c.old, 'status', { removed: true }),
    proposalOf(c.report, 'datasetProperties', props('report', 'Daily report')),
    proposalOf(c.report, 'upstreamLineage', { upstreams: [upstream(c.features)] }),
    proposalOf(c.audit, 'datasetProperties', props('audit', 'Audit trail')),
    proposalOf(
      c.audit,
      'schemaMetadata',
      schemaOf(c.platform(c.mart), [
        ['id', 'BIGINT', 'NumberType'],
        ['checked', 'BOOLEAN', 'BooleanType'],
      ]),
    ),
    proposalOf(c.scratch, 'datasetProperties', props('scratch', 'Scratch space')),
    proposalOf(c.scratch, 'status', { removed: true }),
    proposalOf(c.flow, 'dataFlowInfo', { name: 'sales flow' }),
    proposalOf(c.load, 'dataJobInfo', { name: 'load audit', type: { string: 'COMMAND' }, description: 'Loads audit' }),
    proposalOf(c.load, 'dataPlatformInstance', { platform: 'urn:li:dataPlatform:airflow' }),
    proposalOf(c.load, 'dataJobInputOutput', { inputDatasets: [c.clean], outputDatasets: [c.audit] }),
    proposalOf(c.chart, 'chartInfo', {
      title: 'Revenue chart',
      description: 'Revenue by day',
      lastModified: { created: stamp, lastModified: stamp },
      inputs: [{ string: c.report }],
    }),
    proposalOf(c.edited, 'datasetProperties', props('orders', 'Orders to curate')),
    proposalOf(
      c.edited,
      'schemaMetadata',
      schemaOf(c.platform(c.edit), [
        ['id', 'BIGINT', 'NumberType'],
        ['name', 'VARCHAR', 'StringType'],
      ]),
    ),
    proposalOf(c.editedToo, 'datasetProperties', props('returns', 'Returns to curate')),
    proposalOf(c.source, 'dataHubIngestionSourceInfo', {
      name: `${c.run} nightly`,
      type: 'mysql',
      config: { recipe: '{"source":{"type":"mysql"}}', version: '0.13.0', executorId: 'default' },
    }),
    proposalOf(c.execution, 'dataHubExecutionRequestInput', {
      task: 'RUN_INGEST',
      args: { recipe: '{}' },
      executorId: 'default',
      source: { type: 'MANUAL_INGESTION_SOURCE', ingestionSource: c.source },
      requestedAt: OBSERVED + 100_000,
    }),
    proposalOf(c.execution, 'dataHubExecutionRequestResult', {
      status: 'SUCCESS',
      startTimeMs: OBSERVED + 100_500,
      durationMs: 2_000,
    }),
  ];
}

// --- What the clients send -----------------------------------------------------------------------------------------

const notRemoved = { field: 'removed', condition: 'EQUAL', values: ['true'], negated: true };
const onlyRemoved = { field: 'removed', condition: 'EQUAL', values: ['true'] };
const platformIs = (urn: string) => ({ field: 'platform.keyword', condition: 'EQUAL', values: [urn] });
/** `generate_filter`'s `--env`: the AND-list made four OR branches, each with one of the env clauses. */
const envBranches = (env: string, clauses: readonly object[]) =>
  [
    { field: 'origin', value: env, condition: 'EQUAL' },
    { field: 'customProperties', value: `env=${env}` },
    { field: 'customProperties', value: `instance=${env}` },
    { field: 'env', value: env },
  ].map((clause) => ({ and: [...clauses, clause] }));

/** The variables of `get_urns_by_filter` / `datahub delete` (client.py, `_scroll_across_entities`). */
const scrollVariables = (overrides: Record<string, unknown>) => ({
  types: null,
  query: '*',
  orFilters: [],
  batchSize: 3000,
  scrollId: null,
  skipCache: false,
  sortInput: null,
  includeSoftDeleted: false,
  ...overrides,
});

interface ScrollPage {
  scrollAcrossEntities: {
    nextScrollId: string | null;
    searchResults: {
      entity: { urn: string; schemaMetadata?: { fields: { fieldPath: string; nativeDataType: string }[] } | null };
      extraProperties?: { name: string; value: string }[] | null;
    }[];
  };
}

interface LineagePage {
  scrollAcrossLineage: {
    nextScrollId: string | null;
    searchResults: {
      degree: number;
      entity: Record<string, unknown> & { urn: string; type: string };
      paths: { path: ({ urn: string; type: string } | null)[] }[] | null;
    }[];
  };
}

const sorted = (values: readonly string[]) => [...values].sort();

describe.each(['standalone', 'distributed'] as const)('%s', (deploymentName) => {
  const c = catalogOf(`gql${deploymentName.slice(0, 4)}${randomUUID().slice(0, 8)}`);
  let deployment: SharedDeployment;
  let http: TestHttpClient;
  let root: Record<string, string>;
  let graphql: GraphqlClient;

  beforeAll(async () => {
    deployment = await sharedDeployment(deploymentName);
    http = new TestHttpClient(deployment.baseUrl);
    const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
    root = { Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}` };
    graphql = new GraphqlClient(http, root);
    const written = await http.post(
      '/aspects?action=ingestProposalBatch',
      { proposals: catalogProposals(c) },
      {
        ...root,
        ...SYNC,
      },
    );
    if (written.status !== 200) throw new Error(`the catalog was refused: ${written.status} ${written.text}`);
    // The profile is a time series: its own index, written apart.
    const profile = await http.post(
      '/aspects?action=ingestProposal',
      {
        proposal: proposalOf(c.raw, 'datasetProfile', {
          timestampMillis: OBSERVED + 200_000,
          rowCount: 1234,
          columnCount: 3,
          fieldProfiles: [{ fieldPath: 'id', uniqueCount: 1234, nullCount: 0 }],
        }),
      },
      { ...root, ...SYNC },
    );
    expect(profile.status).toBe(200);
  }, 120_000);

  /** Every URN the scroll document answers, page after page until `nextScrollId` is null, as the client pages. */
  async function scrollAll(
    document: string,
    variables: Record<string, unknown>,
  ): Promise<{ urns: string[]; pages: number; results: ScrollPage['scrollAcrossEntities']['searchResults'] }> {
    const results: ScrollPage['scrollAcrossEntities']['searchResults'] = [];
    let scrollId: string | null = null;
    let pages = 0;
    do {
      const data: ScrollPage = await graphql.execute<ScrollPage>(document, { variables: { ...variables, scrollId } });
      results.push(...data.scrollAcrossEntities.searchResults);
      scrollId = data.scrollAcrossEntities.nextScrollId;
      pages += 1;
      if (pages > 50) throw new Error('the scroll does not end');
    } while (scrollId !== null);
    const urns = results.map((result) => result.entity.urn);
    expect(new Set(urns).size).toBe(urns.length);
    return { urns: sorted(urns), pages, results };
  }

  describe('datahub delete by filter (scrollUrnsWithFilters, minified, no operationName)', () => {
    const document = fixtureDocument('delete-by-filter');

    it('--platform: every entity on the platform but the soft-deleted, paged by nextScrollId until it is null', async () => {
      const variables = scrollVariables({ orFilters: [{ and: [platformIs(c.platform(c.lake)), notRemoved] }] });
      const expected = sorted([c.raw, c.clean, c.features, c.rawDev, c.database, c.schema]);
      const whole = await scrollAll(document, variables);
      expect(whole).toMatchObject({ urns: expected, pages: 1 });
      const paged = await scrollAll(document, { ...variables, batchSize: 2 });
      expect(paged.urns).toEqual(expected);
      expect(paged.pages).toBeGreaterThanOrEqual(3);
      // The pretty form, as written, answers the same; so does graphql-core's own minified text (the fixtures' notes).
      const pretty = await graphql.execute<ScrollPage>(document, { variables, raw: true });
      expect(sorted(pretty.scrollAcrossEntities.searchResults.map((result) => result.entity.urn))).toEqual(expected);
      const readme = readFileSync(join(GRAPHQL_FIXTURES, 'README.md'), 'utf8');
      const example = /```\n\s*(query scrollUrnsWithFilters\([^\n]+)\n\s*```/.exec(readme)?.[1];
      expect(example).toBeDefined();
      const asCore = await graphql.execute<ScrollPage>(example!, { variables, raw: true });
      expect(sorted(asCore.scrollAcrossEntities.searchResults.map((result) => result.entity.urn))).toEqual(expected);
    });

    it('--env: the four OR branches with the singular value key (origin, custom properties, env)', async () => {
      const variables = scrollVariables({
        orFilters: envBranches('DEV', [platformIs(c.platform(c.lake)), notRemoved]),
      });
      expect((await scrollAll(document, variables)).urns).toEqual(sorted([c.rawDev, c.features]));
    });

    it('--entity-type with --only-soft-deleted and --hard: the soft-deleted only, or everything', async () => {
      const onlySoftDeleted = scrollVariables({
        types: ['DATASET'],
        orFilters: [{ and: [platformIs(c.platform(c.mart)), onlyRemoved] }],
        includeSoftDeleted: true,
      });
      expect((await scrollAll(document, onlySoftDeleted)).urns).toEqual([c.scratch]);
      const hard = scrollVariables({
        types: ['DATASET'],
        orFilters: [{ and: [platformIs(c.platform(c.lake))] }],
        includeSoftDeleted: true,
      });
      expect((await scrollAll(document, hard)).urns).toEqual(sorted([c.raw, c.clean, c.features, c.rawDev, c.old]));
    });

    it('--query: the text the user gave', async () => {
      const variables = scrollVariables({
        query: c.landed,
        orFilters: [{ and: [platformIs(c.platform(c.lake)), notRemoved] }],
      });
      expect((await scrollAll(document, variables)).urns).toEqual([c.raw]);
    });
  });

  describe("the SDK's scrolls: get_urns_by_filter, DataHubClient.search.get_urns, get_results_by_filter", () => {
    it('get_urns_by_filter with sortInput and includeSoftDeleted (status ALL), and its default (NOT_SOFT_DELETED)', async () => {
      const document = fixtureDocument('get-urns-by-filter');
      const all = await scrollAll(
        document,
        scrollVariables({
          types: ['DATASET'],
          orFilters: [{ and: [platformIs(c.platform(c.lake))] }],
          batchSize: 5000,
          sortInput: { sortCriteria: [{ field: 'lastModifiedAt', sortOrder: 'ASCENDING' }] },
          includeSoftDeleted: true,
        }),
      );
      expect(all.urns).toEqual(sorted([c.raw, c.clean, c.features, c.rawDev, c.old]));
      const current = await scrollAll(
        document,
        scrollVariables({
          types: ['DATASET'],
          orFilters: [{ and: [platformIs(c.platform(c.lake)), notRemoved] }],
          batchSize: 5000,
          includeSoftDeleted: null,
        }),
      );
      expect(current.urns).toEqual(sorted([c.raw, c.clean, c.features, c.rawDev]));
    });

    it('probes SearchFlags for the lifecycle flag first, then sends it (include_hidden_lifecycle_stages)', async () => {
      const probe = await graphql.execute<{ __type: { inputFields: { name: string }[] } | null }>(
        fixtureDocument('graph-input-type-fields'),
        { variables: { name: 'SearchFlags' }, operationName: 'inputTypeFields' },
      );
      const names = probe.__type?.inputFields.map((field) => field.name) ?? [];
      expect(names).toEqual(
        expect.arrayContaining([
          'skipHighlighting',
          'skipAggregates',
          'skipCache',
          'includeSoftDeleted',
          'maxAggValues',
          'groupingSpec',
          'fetchExtraFields',
          'includeHiddenLifecycleStages',
        ]),
      );
      const document = fixtureDocument('get-urns-by-filter')
        .replace(
          '$includeSoftDeleted: Boolean)',
          '$includeHiddenLifecycleStages: Boolean!,\n$includeSoftDeleted: Boolean)',
        )
        .replace(
          'includeSoftDeleted: $includeSoftDeleted',
          'includeHiddenLifecycleStages: $includeHiddenLifecycleStages\nincludeSoftDeleted: $includeSoftDeleted',
        );
      const found = await scrollAll(
        document,
        scrollVariables({
          types: ['DATASET'],
          orFilters: [{ and: [platformIs(c.platform(c.mart)), notRemoved] }],
          includeHiddenLifecycleStages: true,
          includeSoftDeleted: null,
        }),
      );
      expect(found.urns).toEqual(sorted([c.report, c.audit]));
    });

    it('DataHubClient.search.get_urns: the compiled filter, always without the soft-deleted', async () => {
      const found = await scrollAll(
        fixtureDocument('sdk-search-get-urns'),
        scrollVariables({
          types: ['DATASET'],
          orFilters: [{ and: [platformIs(c.platform(c.mart)), notRemoved] }],
          batchSize: 5000,
          includeSoftDeleted: null,
        }),
      );
      expect(found.urns).toEqual(sorted([c.report, c.audit]));
    });

    it('get_results_by_filter with fetchExtraFields: each result carries the fields asked for, as JSON text', async () => {
      const document = fixtureDocument('get-results-by-filter');
      const variables = {
        types: ['DATASET'],
        query: '*',
        orFilters: [{ and: [platformIs(c.platform(c.mart)), notRemoved] }],
        batchSize: 5000,
        scrollId: null,
        skipCache: false,
      };
      const plain = await scrollAll(document, { ...variables, fetchExtraFields: null });
      expect(plain.urns).toEqual(sorted([c.report, c.audit]));
      for (const result of plain.results) {
        expect((result.extraProperties ?? []).map((property) => property.name)).not.toContain('id');
      }
      // Fields Strata's index holds come back; one it does not hold (DataHub's `lastModifiedAt`) is left out.
      const extra = await scrollAll(document, { ...variables, fetchExtraFields: ['id', 'platform', 'lastModifiedAt'] });
      expect(extra.urns).toEqual(plain.urns);
      for (const result of extra.results) {
        const byName = Object.fromEntries((result.extraProperties ?? []).map((property) => [property.name, property]));
        expect(Object.keys(byName).sort()).toEqual(['id', 'platform']);
        const name = /,([^,]+),PROD\)$/.exec(result.entity.urn)?.[1] ?? '';
        expect(JSON.stringify(JSON.parse(byName['id']!.value))).toContain(name);
        expect(JSON.parse(byName['platform']!.value)).toBe(c.platform(c.mart));
      }
    });

    it('the schema resolver’s bulk fetch: each dataset’s fields, null where it has no schema, and by name prefix', async () => {
      const document = fixtureDocument('schema-resolver-bulk-fetch');
      const bulk = async (platform: string, extra: object[] = []) => {
        const { results } = await scrollAll(document, {
          types: ['DATASET'],
          query: '*',
          orFilters: envBranches('PROD', [platformIs(c.platform(platform)), notRemoved, ...extra]),
          batchSize: 100,
        });
        return Object.fromEntries(
          results.map((result) => [
            result.entity.urn,
            result.entity.schemaMetadata?.fields.map((field) => [field.fieldPath, field.nativeDataType]) ?? null,
          ]),
        );
      };
      expect(await bulk(c.lake)).toEqual({
        [c.raw]: [
          ['id', 'BIGINT'],
          ['amount', 'DECIMAL(10,2)'],
          ['customer', 'VARCHAR'],
        ],
        [c.clean]: [
          ['id', 'BIGINT'],
          ['amount', 'DECIMAL(10,2)'],
        ],
        [c.features]: [
          ['id', 'BIGINT'],
          ['score', 'DOUBLE'],
        ],
      });
      expect(await bulk(c.mart)).toEqual({
        [c.report]: null,
        [c.audit]: [
          ['id', 'BIGINT'],
          ['checked', 'BOOLEAN'],
        ],
      });
      const prefixed = await bulk(c.lake, [{ field: 'id', condition: 'START_WITH', values: [`${c.run}.sales.r`] }]);
      expect(Object.keys(prefixed)).toEqual([c.raw]);
    });
  });

  describe('datahub search (search-cli.graphql, operationName search)', () => {
    const document = fixtureDocument('search-cli');
    interface SearchAnswer {
      searchAcrossEntities: {
        start: number;
        count: number;
        total: number;
        searchResults: { entity: Record<string, any> & { urn: string; type: string } }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
        facets:
          | {
              field: string;
              displayName: string | null;
              aggregations: { value: string; count: number; entity: Record<string, unknown> | null }[];
            }[]
          | null;
      };
    }
    const search = (variables: Record<string, unknown>, raw = false) =>
      graphql.execute<SearchAnswer>(document, {
        variables: {
          query: '*',
          types: null,
          orFilters: [{ and: [notRemoved] }],
          count: 10,
          start: 0,
          viewUrn: null,
          ...variables,
        },
        operationName: 'search',
        raw,
      });

    it('answers the page the CLI prints: start, count, total, and each entity’s name, description and platform', async () => {
      const answer = await search({
        types: ['DATASET'],
        orFilters: [{ and: [notRemoved, platformIs(c.platform(c.lake))] }],
      });
      const page = answer.searchAcrossEntities;
      expect({ start: page.start, count: page.count, total: page.total }).toEqual({ start: 0, count: 10, total: 4 });
      expect(sorted(page.searchResults.map((result) => result.entity.urn))).toEqual(
        sorted([c.raw, c.clean, c.features, c.rawDev]),
      );
      const raw = page.searchResults.find((result) => result.entity.urn === c.raw)?.entity;
      expect(raw).toMatchObject({
        urn: c.raw,
        type: 'DATASET',
        name: `${c.run}.sales.raw`,
        origin: 'PROD',
        properties: {
          name: 'raw',
          description: `Sales as ${c.landed}, unfiltered`,
          customProperties: [{ key: 'source', value: 'pos' }],
        },
        platform: { urn: c.platform(c.lake), name: c.lake, properties: { displayName: 'Lake' } },
        tags: {
          tags: [
            { tag: { urn: c.pii, name: `${c.run}.pii`, properties: { name: 'PII', description: 'Personal data' } } },
          ],
        },
        glossaryTerms: { terms: [{ term: { urn: c.revenue, properties: { name: 'Revenue' } } }] },
        domain: { domain: { urn: c.sales, properties: { name: 'Sales', description: 'Selling things' } } },
        container: { urn: c.schema, properties: { name: 'sales' }, platform: { name: c.lake } },
      });
      expect(raw?.ownership?.owners).toHaveLength(2);
      expect(raw?.ownership?.owners).toEqual(
        expect.arrayContaining([
          { owner: { urn: c.alice, username: `${c.run}.alice` } },
          { owner: { urn: c.team, name: `${c.run}.team` } },
        ]),
      );
    });

    it('answers the facets the CLI prints, at most maxAggValues values each, with their entities', async () => {
      const answer = await search({
        types: ['DATASET'],
        orFilters: [{ and: [notRemoved, platformIs(c.platform(c.lake))] }],
      });
      const facets = answer.searchAcrossEntities.facets ?? [];
      for (const facet of facets) expect(facet.aggregations.length).toBeLessThanOrEqual(5);
      const platform = facets.find((facet) => facet.field === 'platform');
      expect(platform?.aggregations).toEqual([
        expect.objectContaining({
          value: c.platform(c.lake),
          count: 4,
          entity: expect.objectContaining({ urn: c.platform(c.lake), type: 'DATA_PLATFORM', name: c.lake }),
        }),
      ]);
      const origin = facets.find((facet) => facet.field === 'origin');
      expect(
        sorted(origin?.aggregations.map((aggregation) => `${aggregation.value}:${aggregation.count}`) ?? []),
      ).toEqual(['DEV:1', 'PROD:3']);
    });

    it('finds by the text the user typed, sorts with --sort-by, pages with --offset, and reads every entity type', async () => {
      const texted = await search({ query: c.landed });
      expect(texted.searchAcrossEntities.searchResults.map((result) => result.entity.urn)).toEqual([c.raw]);

      const byName = (sortOrder: string) =>
        search({
          types: ['DATASET'],
          orFilters: [{ and: [notRemoved, platformIs(c.platform(c.lake))] }],
          sortInput: { sortCriteria: [{ field: 'name', sortOrder }] },
        });
      const names = (answer: SearchAnswer) =>
        answer.searchAcrossEntities.searchResults.map((result) => result.entity.properties.name as string);
      expect(names(await byName('ASCENDING'))).toEqual(['clean', 'features', 'raw', 'raw']);
      expect(names(await byName('DESCENDING'))).toEqual(['raw', 'raw', 'features', 'clean']);

      const second = await search({
        types: ['DATASET'],
        orFilters: [{ and: [notRemoved, platformIs(c.platform(c.lake))] }],
        start: 2,
        count: 2,
      });
      expect(second.searchAcrossEntities).toMatchObject({ start: 2, count: 2, total: 4 });
      expect(second.searchAcrossEntities.searchResults).toHaveLength(2);

      const charts = await search({
        types: ['CHART'],
        orFilters: [{ and: [notRemoved, platformIs(c.platform(c.bi))] }],
      });
      expect(charts.searchAcrossEntities.searchResults.map((result) => result.entity)).toEqual([
        expect.objectContaining({
          urn: c.chart,
          type: 'CHART',
          properties: { name: 'Revenue chart', description: 'Revenue by day' },
          platform: expect.objectContaining({ name: c.bi }),
        }),
      ]);
      const containers = await search({
        types: ['CONTAINER'],
        orFilters: [{ and: [notRemoved, platformIs(c.platform(c.lake))] }],
      });
      expect(
        sorted(
          containers.searchAcrossEntities.searchResults.map(
            (result) => `${result.entity.urn} ${result.entity.properties.name}`,
          ),
        ),
      ).toEqual(sorted([`${c.database} sales_db`, `${c.schema} sales`]));
    });

    it('answers the pretty form (with its comments) as the minified one', async () => {
      const variables = { types: ['DATASET'], orFilters: [{ and: [notRemoved, platformIs(c.platform(c.lake))] }] };
      const minified = await search(variables);
      const pretty = await search(variables, true);
      const urns = (answer: SearchAnswer) =>
        sorted(answer.searchAcrossEntities.searchResults.map((result) => result.entity.urn));
      expect(urns(pretty)).toEqual(urns(minified));
      expect(minifyGraphql(document)).not.toContain('#');
    });
  });

  describe('datahub search diagnose', () => {
    it('pings, searches by keyword, and finds no semantic search (introspection and config)', async () => {
      const ping = await graphql.execute<{ appConfig: { telemetryConfig: { enableThirdPartyLogging: unknown } } }>(
        fixtureDocument('search-diagnose-ping'),
        { operationName: 'ping' },
      );
      expect(typeof ping.appConfig.telemetryConfig.enableThirdPartyLogging).toBe('boolean');
      const keyword = await graphql.execute<{ searchAcrossEntities: { total: number } }>(
        fixtureDocument('search-diagnose-keyword'),
        { operationName: 'testKeywordSearch' },
      );
      expect(keyword.searchAcrossEntities.total).toBeGreaterThanOrEqual(10);
      const introspection = await graphql.execute<{ __type: { fields: { name: string }[] } }>(
        fixtureDocument('search-diagnose-semantic-introspection'),
        { operationName: 'testSemanticSearch' },
      );
      const fields = introspection.__type.fields.map((field) => field.name);
      expect(fields).toEqual(
        expect.arrayContaining(['searchAcrossEntities', 'scrollAcrossEntities', 'scrollAcrossLineage']),
      );
      expect(fields).not.toContain('semanticSearchAcrossEntities');
      const config = await graphql.execute<{ appConfig: { semanticSearchConfig: { enabled: boolean } | null } }>(
        fixtureDocument('search-diagnose-semantic-config'),
        { operationName: 'getSemanticSearchConfig' },
      );
      expect(config.appConfig.semanticSearchConfig?.enabled ?? false).toBe(false);
    });
  });

  describe('datahub lineage (scrollAcrossLineage, no operationName)', () => {
    const document = fixtureDocument('lineage-cli');
    const degrees = { 1: ['1'], 2: ['1', '2'], 3: ['1', '2', '3+'] } as const;

    /** Every result of the CLI's request, page after page; `[urn, degree]` sorted, and the results by URN. */
    async function lineage(
      urn: string,
      direction: 'UPSTREAM' | 'DOWNSTREAM',
      hops: 1 | 2 | 3,
      extra: Record<string, unknown> = {},
      count = 100,
      source = document,
    ) {
      const results: LineagePage['scrollAcrossLineage']['searchResults'] = [];
      let scrollId: string | undefined;
      let pages = 0;
      do {
        const input = {
          urn,
          direction,
          count,
          types: null,
          orFilters: [{ and: [{ field: 'degree', condition: 'EQUAL', values: degrees[hops] }, notRemoved] }],
          ...extra,
          ...(scrollId === undefined ? {} : { scrollId }),
        };
        const data = await graphql.execute<LineagePage>(source, { variables: { input } });
        results.push(...data.scrollAcrossLineage.searchResults);
        scrollId = data.scrollAcrossLineage.nextScrollId ?? undefined;
        pages += 1;
        if (pages > 20) throw new Error('the lineage scroll does not end');
      } while (scrollId !== undefined);
      return {
        found: results.map((result) => `${result.entity.urn} ${result.degree}`).sort(),
        byUrn: Object.fromEntries(results.map((result) => [result.entity.urn, result])),
        pages,
      };
    }

    it('downstream, hop by hop as the degree filter widens (1, then 1 and 2, then 1, 2 and 3+)', async () => {
      expect((await lineage(c.raw, 'DOWNSTREAM', 1)).found).toEqual([`${c.clean} 1`]);
      expect((await lineage(c.raw, 'DOWNSTREAM', 2)).found).toEqual(
        [`${c.clean} 1`, `${c.features} 2`, `${c.load} 2`].sort(),
      );
      const all = await lineage(c.raw, 'DOWNSTREAM', 3);
      expect(all.found).toEqual(
        [`${c.clean} 1`, `${c.features} 2`, `${c.load} 2`, `${c.report} 3`, `${c.audit} 3`, `${c.chart} 4`].sort(),
      );
      // What the CLI prints of each: type, name, platform, description.
      expect(all.byUrn[c.report]?.entity).toEqual({
        urn: c.report,
        type: 'DATASET',
        name: `${c.run}.daily.report`,
        platform: { name: c.mart },
        properties: { description: 'Daily report' },
      });
      expect(all.byUrn[c.chart]?.entity).toEqual({ urn: c.chart, type: 'CHART' });
      // Each path from the start to the result, every entity on it with its type.
      expect(all.byUrn[c.report]?.paths).toEqual([
        {
          path: [
            { urn: c.raw, type: 'DATASET' },
            { urn: c.clean, type: 'DATASET' },
            { urn: c.features, type: 'DATASET' },
            { urn: c.report, type: 'DATASET' },
          ],
        },
      ]);
      expect(all.byUrn[c.audit]?.paths).toEqual([
        {
          path: [
            { urn: c.raw, type: 'DATASET' },
            { urn: c.clean, type: 'DATASET' },
            { urn: c.load, type: 'DATA_JOB' },
            { urn: c.audit, type: 'DATASET' },
          ],
        },
      ]);
    });

    it('answers what the CLI prints of a data job: its id, its platform (from dataPlatformInstance) and its name', async () => {
      const all = await lineage(c.raw, 'DOWNSTREAM', 2);
      expect(all.byUrn[c.load]?.entity).toEqual({
        urn: c.load,
        type: 'DATA_JOB',
        jobId: 'load',
        dataPlatformInstance: { platform: { name: 'airflow' } },
        properties: { name: 'load audit', description: 'Loads audit' },
      });
    });

    it('upstream likewise, through the chart’s input and the job', async () => {
      expect((await lineage(c.chart, 'UPSTREAM', 1)).found).toEqual([`${c.report} 1`]);
      expect((await lineage(c.chart, 'UPSTREAM', 2)).found).toEqual([`${c.report} 1`, `${c.features} 2`].sort());
      expect((await lineage(c.chart, 'UPSTREAM', 3)).found).toEqual(
        [`${c.report} 1`, `${c.features} 2`, `${c.clean} 3`, `${c.raw} 4`].sort(),
      );
      expect((await lineage(c.audit, 'UPSTREAM', 3)).found).toEqual(
        [`${c.load} 1`, `${c.clean} 2`, `${c.raw} 3`].sort(),
      );
    });

    it('pages with scrollId until nextScrollId is null, and answers the SDK’s default count of 500 alike', async () => {
      const whole = await lineage(c.raw, 'DOWNSTREAM', 3);
      const paged = await lineage(c.raw, 'DOWNSTREAM', 3, {}, 2);
      expect(paged.found).toEqual(whole.found);
      expect(paged.pages).toBeGreaterThanOrEqual(3);
      const sdk = await lineage(c.raw, 'DOWNSTREAM', 3, {}, 500, fixtureDocument('sdk-lineage-get-lineage'));
      expect(sdk.found).toEqual(whole.found);
      // The pretty form, as written.
      const pretty = await graphql.execute<LineagePage>(document, {
        variables: { input: { urn: c.raw, direction: 'DOWNSTREAM', count: 100 } },
        raw: true,
      });
      expect(pretty.scrollAcrossLineage.searchResults.map((result) => result.entity.urn)).toContain(c.clean);
    });

    it('--column: schema fields upstream of a column, with their paths of schema fields', async () => {
      const grouping = {
        searchFlags: {
          groupingSpec: { groupingCriteria: { baseEntityType: 'SCHEMA_FIELD', groupingEntityType: 'SCHEMA_FIELD' } },
        },
      };
      const columns = await lineage(c.field(c.features, 'id'), 'UPSTREAM', 3, grouping);
      expect(columns.found).toEqual([`${c.field(c.clean, 'id')} 1`, `${c.field(c.raw, 'id')} 2`].sort());
      expect(columns.byUrn[c.field(c.raw, 'id')]?.entity.type).toBe('SCHEMA_FIELD');
      expect(columns.byUrn[c.field(c.raw, 'id')]?.paths).toEqual([
        {
          path: [c.field(c.features, 'id'), c.field(c.clean, 'id'), c.field(c.raw, 'id')].map((urn) => ({
            urn,
            type: 'SCHEMA_FIELD',
          })),
        },
      ]);
      const downstream = await lineage(c.field(c.raw, 'id'), 'DOWNSTREAM', 1, grouping);
      expect(downstream.found).toEqual([`${c.field(c.clean, 'id')} 1`]);
    });
  });

  describe('datahub ingest list-source-runs (raw: not minified, no operationName)', () => {
    it('lists the sources with their runs, and narrows by name', async () => {
      const query = fixtureDocument('ingest-list-source-runs');
      type Sources = {
        listIngestionSources: {
          ingestionSources: {
            urn: string;
            name: string;
            executions: { executionRequests: { id: string; result: { status: string; startTimeMs: number } | null }[] };
          }[];
        };
      };
      const expected = {
        urn: c.source,
        name: `${c.run} nightly`,
        executions: {
          executionRequests: [{ id: `${c.run}-exec`, result: { status: 'SUCCESS', startTimeMs: OBSERVED + 100_500 } }],
        },
      };
      const all = await graphql.send({ query, variables: { input: { start: 0, count: 100, filters: [] } } });
      expect({ status: all.status, errors: all.errors }).toEqual({ status: 200, errors: undefined });
      expect((all.data as Sources).listIngestionSources.ingestionSources).toContainEqual(expected);
      const named = await graphql.send({
        query,
        variables: {
          input: {
            start: 0,
            count: 100,
            filters: [{ field: 'name', values: [`${c.run} nightly`], condition: 'CONTAIN' }],
          },
        },
      });
      expect((named.data as Sources).listIngestionSources.ingestionSources).toEqual([expected]);
      const byUrn = await graphql.send({
        query,
        variables: {
          input: { start: 0, count: 100, filters: [{ field: 'urn', values: [c.source], condition: 'CONTAIN' }] },
        },
      });
      expect((byUrn.data as Sources).listIngestionSources.ingestionSources).toEqual([expected]);
    });
  });

  describe('datahub init (createAccessToken at the web tier’s /api/v2/graphql)', () => {
    it('makes a personal token that acts as its user, until it is revoked', async () => {
      // The CLI logs in with the user's password first; Strata's /logIn answers a session token.
      const login = await http.post('/logIn', { username: 'datahub', password: deployment.rootPassword });
      expect(login.status).toBe(200);
      const session = new GraphqlClient(http, {
        Authorization: `Bearer ${(login.json as { accessToken: string }).accessToken}`,
      });
      const name = `cli token ${c.run}`;
      const created = await session.execute<{
        createAccessToken: {
          accessToken: string;
          metadata: { id: string; actorUrn: string; ownerUrn: string; name: string; description: string | null };
        };
      }>(fixtureDocument('init-create-access-token'), {
        variables: { input: { type: 'PERSONAL', actorUrn: ROOT, duration: 'ONE_HOUR', name } },
        raw: true,
        path: '/api/v2/graphql',
      });
      const { accessToken, metadata } = created.createAccessToken;
      expect(accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(metadata).toEqual({ id: expect.any(String), actorUrn: ROOT, ownerUrn: ROOT, name, description: null });
      const asToken = new GraphqlClient(http, { Authorization: `Bearer ${accessToken}` });
      const me = await asToken.execute<{ me: { corpUser: { urn: string; username: string } } }>(
        '{ me { corpUser { urn username } } }',
      );
      expect(me.me.corpUser).toEqual({ urn: ROOT, username: 'datahub' });
      expect(
        (await http.get(`/entitiesV2/${encodeURIComponent(c.raw)}`, { Authorization: `Bearer ${accessToken}` })).status,
      ).toBe(200);
      const revoked = await graphql.execute<{ revokeAccessToken: boolean }>(
        'mutation revoke($id: String!) { revokeAccessToken(tokenId: $id) }',
        { variables: { id: metadata.id } },
      );
      expect(revoked.revokeAccessToken).toBe(true);
      await eventually(async () => {
        const refused = await asToken.answer('{ me { corpUser { urn } } }');
        expect(refused.status).toBe(401);
      });
    });
  });

  describe('the entity page', () => {
    it('reads a dataset whole: properties, schema, editable schema, owners, tags, terms, domain, links, status…', async () => {
      const data = await graphql.execute(
        `query page($urn: String!) {
          dataset(urn: $urn) {
            urn type name origin exists lastIngested
            platform { urn name properties { displayName } }
            properties { name description customProperties { key value associatedUrn } }
            schemaMetadata(version: 0) { name platformUrn fields { fieldPath nativeDataType type nullable isPartOfKey } }
            editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description globalTags { tags { tag { urn } } } } }
            ownership { owners { owner { ... on CorpUser { urn username properties { displayName email } } ... on CorpGroup { urn name properties { displayName } } } type associatedUrn } }
            tags { tags { tag { urn name properties { name } } associatedUrn } }
            globalTags { tags { tag { urn } } }
            glossaryTerms { terms { term { urn properties { name definition } } associatedUrn } }
            domain { domain { urn properties { name } } associatedUrn }
            institutionalMemory { elements { url description label author { urn } created { time actor } associatedUrn } }
            status { removed }
            subTypes { typeNames }
            container { urn properties { name } subTypes { typeNames } container { urn properties { name } } }
            parentContainers { count containers { urn properties { name } } }
            browsePathV2 { path { name entity { urn type } } }
            aspects(input: { aspectNames: ["datasetProperties"] }) { aspectName payload }
          }
        }`,
        { variables: { urn: c.raw } },
      );
      expect(data).toEqual({
        dataset: {
          urn: c.raw,
          type: 'DATASET',
          name: `${c.run}.sales.raw`,
          origin: 'PROD',
          exists: true,
          lastIngested: OBSERVED,
          platform: { urn: c.platform(c.lake), name: c.lake, properties: { displayName: 'Lake' } },
          properties: {
            name: 'raw',
            description: `Sales as ${c.landed}, unfiltered`,
            customProperties: [{ key: 'source', value: 'pos', associatedUrn: c.raw }],
          },
          schemaMetadata: {
            name: 'sales',
            platformUrn: c.platform(c.lake),
            fields: [
              { fieldPath: 'id', nativeDataType: 'BIGINT', type: 'NUMBER', nullable: false, isPartOfKey: true },
              {
                fieldPath: 'amount',
                nativeDataType: 'DECIMAL(10,2)',
                type: 'NUMBER',
                nullable: true,
                isPartOfKey: false,
              },
              { fieldPath: 'customer', nativeDataType: 'VARCHAR', type: 'STRING', nullable: true, isPartOfKey: false },
            ],
          },
          editableSchemaMetadata: {
            editableSchemaFieldInfo: [
              { fieldPath: 'amount', description: 'Gross amount', globalTags: { tags: [{ tag: { urn: c.pii } }] } },
            ],
          },
          ownership: {
            owners: [
              {
                owner: {
                  urn: c.alice,
                  username: `${c.run}.alice`,
                  properties: { displayName: 'Alice Liddell', email: 'alice@example.com' },
                },
                type: 'TECHNICAL_OWNER',
                associatedUrn: c.raw,
              },
              {
                owner: { urn: c.team, name: `${c.run}.team`, properties: { displayName: 'Sales team' } },
                type: 'BUSINESS_OWNER',
                associatedUrn: c.raw,
              },
            ],
          },
          tags: {
            tags: [{ tag: { urn: c.pii, name: `${c.run}.pii`, properties: { name: 'PII' } }, associatedUrn: c.raw }],
          },
          globalTags: { tags: [{ tag: { urn: c.pii } }] },
          glossaryTerms: {
            terms: [
              {
                term: { urn: c.revenue, properties: { name: 'Revenue', definition: 'Money in' } },
                associatedUrn: c.raw,
              },
            ],
          },
          domain: { domain: { urn: c.sales, properties: { name: 'Sales' } }, associatedUrn: c.raw },
          institutionalMemory: {
            elements: [
              {
                url: 'https://wiki.example.com/sales',
                description: 'Sales wiki',
                label: 'Sales wiki',
                author: { urn: ROOT },
                created: { time: OBSERVED, actor: ROOT },
                associatedUrn: c.raw,
              },
            ],
          },
          status: { removed: false },
          subTypes: { typeNames: ['Table'] },
          container: {
            urn: c.schema,
            properties: { name: 'sales' },
            subTypes: { typeNames: ['Schema'] },
            container: { urn: c.database, properties: { name: 'sales_db' } },
          },
          parentContainers: {
            count: 2,
            containers: [
              { urn: c.schema, properties: { name: 'sales' } },
              { urn: c.database, properties: { name: 'sales_db' } },
            ],
          },
          browsePathV2: {
            path: [
              { name: c.database, entity: { urn: c.database, type: 'CONTAINER' } },
              { name: c.schema, entity: { urn: c.schema, type: 'CONTAINER' } },
            ],
          },
          aspects: [{ aspectName: 'datasetProperties', payload: expect.any(String) }],
        },
      });
      const payload = (data as { dataset: { aspects: { payload: string }[] } }).dataset.aspects[0]!.payload;
      expect(JSON.parse(payload)).toMatchObject({ name: 'raw', customProperties: { source: 'pos' } });
    });

    it('reads lineage and relationships of one hop, the profile, and a soft-deleted dataset’s status', async () => {
      const data = await graphql.execute(
        `query hops($urn: String!, $old: String!) {
          dataset(urn: $urn) {
            downstream: lineage(input: { direction: DOWNSTREAM, start: 0, count: 10 }) { total relationships { type degree entity { urn type } } }
            upstream: lineage(input: { direction: UPSTREAM, start: 0, count: 10 }) { total relationships { type degree entity { urn } } }
            relationships(input: { types: ["DownstreamOf"], direction: INCOMING, start: 0, count: 10 }) { total relationships { type direction entity { urn } } }
          }
          soft: dataset(urn: $old) { urn status { removed } }
        }`,
        { variables: { urn: c.clean, old: c.old } },
      );
      expect(data).toEqual({
        dataset: {
          downstream: {
            total: 2,
            relationships: expect.arrayContaining([
              { type: 'DownstreamOf', degree: 1, entity: { urn: c.features, type: 'DATASET' } },
              { type: 'Consumes', degree: 1, entity: { urn: c.load, type: 'DATA_JOB' } },
            ]),
          },
          upstream: { total: 1, relationships: [{ type: 'DownstreamOf', degree: 1, entity: { urn: c.raw } }] },
          relationships: {
            total: 1,
            relationships: [{ type: 'DownstreamOf', direction: 'INCOMING', entity: { urn: c.features } }],
          },
        },
        soft: { urn: c.old, status: { removed: true } },
      });
      await eventually(async () => {
        const profile = await graphql.execute<{ dataset: { datasetProfiles: unknown[] } }>(
          `query profile($urn: String!) { dataset(urn: $urn) { datasetProfiles(limit: 1) { timestampMillis rowCount columnCount fieldProfiles { fieldPath uniqueCount nullCount } } } }`,
          { variables: { urn: c.raw } },
        );
        expect(profile.dataset.datasetProfiles).toEqual([
          {
            timestampMillis: OBSERVED + 200_000,
            rowCount: 1234,
            columnCount: 3,
            fieldProfiles: [{ fieldPath: 'id', uniqueCount: 1234, nullCount: 0 }],
          },
        ]);
      });
    });

    it('reads other entities: chart, container, job, people, labels, a schema field, by type and through entity(urn)', async () => {
      const data = await graphql.execute(
        `query others($chart: String!, $schema: String!, $job: String!, $alice: String!, $team: String!, $tag: String!, $term: String!, $domain: String!, $field: String!, $raw: String!) {
          chart(urn: $chart) { urn type chartId tool properties { name description } platform { name } }
          container(urn: $schema) { urn properties { name description } subTypes { typeNames } platform { name } container { urn } parentContainers { count } }
          dataJob(urn: $job) { urn jobId dataFlow { urn flowId orchestrator cluster } properties { name description } }
          corpUser(urn: $alice) { urn username properties { displayName email } }
          corpGroup(urn: $team) { urn name properties { displayName } }
          tag(urn: $tag) { urn name properties { name description } }
          glossaryTerm(urn: $term) { urn properties { name definition } }
          domain(urn: $domain) { urn properties { name description } }
          entity(urn: $field) { urn type ... on SchemaFieldEntity { fieldPath parent { urn } } }
          entities(urns: [$raw, $chart, $schema]) { urn type }
          exists: entityExists(urn: $raw)
          versionedDataset(urn: $raw) { urn type name properties { name } }
        }`,
        {
          variables: {
            chart: c.chart,
            schema: c.schema,
            job: c.load,
            alice: c.alice,
            team: c.team,
            tag: c.pii,
            term: c.revenue,
            domain: c.sales,
            field: c.field(c.clean, 'id'),
            raw: c.raw,
          },
        },
      );
      expect(data).toEqual({
        chart: {
          urn: c.chart,
          type: 'CHART',
          chartId: `${c.run}.revenue`,
          tool: c.bi,
          properties: { name: 'Revenue chart', description: 'Revenue by day' },
          platform: { name: c.bi },
        },
        container: {
          urn: c.schema,
          properties: { name: 'sales', description: 'The sales schema' },
          subTypes: { typeNames: ['Schema'] },
          platform: { name: c.lake },
          container: { urn: c.database },
          parentContainers: { count: 1 },
        },
        dataJob: {
          urn: c.load,
          jobId: 'load',
          dataFlow: { urn: c.flow, flowId: `${c.run}_flow`, orchestrator: 'airflow', cluster: 'PROD' },
          properties: { name: 'load audit', description: 'Loads audit' },
        },
        corpUser: {
          urn: c.alice,
          username: `${c.run}.alice`,
          properties: { displayName: 'Alice Liddell', email: 'alice@example.com' },
        },
        corpGroup: { urn: c.team, name: `${c.run}.team`, properties: { displayName: 'Sales team' } },
        tag: { urn: c.pii, name: `${c.run}.pii`, properties: { name: 'PII', description: 'Personal data' } },
        glossaryTerm: { urn: c.revenue, properties: { name: 'Revenue', definition: 'Money in' } },
        domain: { urn: c.sales, properties: { name: 'Sales', description: 'Selling things' } },
        entity: { urn: c.field(c.clean, 'id'), type: 'SCHEMA_FIELD', fieldPath: 'id', parent: { urn: c.clean } },
        entities: [
          { urn: c.raw, type: 'DATASET' },
          { urn: c.chart, type: 'CHART' },
          { urn: c.schema, type: 'CONTAINER' },
        ],
        exists: true,
        versionedDataset: { urn: c.raw, type: 'DATASET', name: `${c.run}.sales.raw`, properties: { name: 'raw' } },
      });
      const never = await graphql.execute<{ exists: boolean }>('query($u: String!) { exists: entityExists(urn: $u) }', {
        variables: { u: `urn:li:dataset:(urn:li:dataPlatform:${c.lake},${c.run}.never,PROD)` },
      });
      expect(never.exists).toBe(false);
    });

    it('answers a URN that is not one with no entity, and at most a client error for that field, never a 500', async () => {
      const answer = await graphql.answer('{ dataset(urn: "not a urn") { urn } }');
      expect(answer.status).toBe(200);
      expect(answer.data).toEqual({ dataset: null });
      for (const error of answer.errors ?? []) {
        expect({ path: error.path, code: error.extensions?.code }).toEqual({ path: ['dataset'], code: 400 });
      }
    });
  });

  describe('curation mutations, read back over REST and GraphQL', () => {
    const aspectOf = async (urn: string, aspect: string) => {
      const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(${aspect})`, root);
      expect(response.status).toBe(200);
      return (response.json as { aspects: Record<string, { value: unknown } | undefined> }).aspects[aspect]?.value;
    };
    const mutate = async (document: string, variables: Record<string, unknown>) => {
      const data = await graphql.execute(document, { variables });
      expect(Object.values(data)).toEqual([true]);
    };
    const read = (selection: string) =>
      graphql.execute<{ dataset: Record<string, unknown> }>(
        `query($u: String!) { dataset(urn: $u) { ${selection} } }`,
        {
          variables: { u: c.edited },
        },
      );

    it('addTag and removeTag, on the dataset and on a field', async () => {
      await mutate('mutation($i: TagAssociationInput!) { addTag(input: $i) }', {
        i: { tagUrn: c.gold, resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'globalTags')).toEqual({ tags: [{ tag: c.gold }] });
      expect((await read('tags { tags { tag { urn } } }')).dataset).toEqual({
        tags: { tags: [{ tag: { urn: c.gold } }] },
      });
      await mutate('mutation($i: TagAssociationInput!) { addTag(input: $i) }', {
        i: { tagUrn: c.pii, resourceUrn: c.edited, subResource: 'name', subResourceType: 'DATASET_FIELD' },
      });
      expect(await aspectOf(c.edited, 'editableSchemaMetadata')).toMatchObject({
        editableSchemaFieldInfo: [{ fieldPath: 'name', globalTags: { tags: [{ tag: c.pii }] } }],
      });
      expect(
        (
          await read(
            'editableSchemaMetadata { editableSchemaFieldInfo { fieldPath globalTags { tags { tag { urn } } } } }',
          )
        ).dataset,
      ).toEqual({
        editableSchemaMetadata: {
          editableSchemaFieldInfo: [{ fieldPath: 'name', globalTags: { tags: [{ tag: { urn: c.pii } }] } }],
        },
      });
      await mutate('mutation($i: TagAssociationInput!) { removeTag(input: $i) }', {
        i: { tagUrn: c.gold, resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'globalTags')).toEqual({ tags: [] });
      expect((await read('tags { tags { tag { urn } } }')).dataset).toEqual({ tags: { tags: [] } });
    });

    it('addTerm and removeTerm; addOwner and removeOwner; setDomain and unsetDomain', async () => {
      await mutate('mutation($i: TermAssociationInput!) { addTerm(input: $i) }', {
        i: { termUrn: c.cost, resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'glossaryTerms')).toMatchObject({ terms: [{ urn: c.cost }] });
      expect((await read('glossaryTerms { terms { term { urn } } }')).dataset).toEqual({
        glossaryTerms: { terms: [{ term: { urn: c.cost } }] },
      });
      await mutate('mutation($i: TermAssociationInput!) { removeTerm(input: $i) }', {
        i: { termUrn: c.cost, resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'glossaryTerms')).toMatchObject({ terms: [] });

      await mutate('mutation($i: AddOwnerInput!) { addOwner(input: $i) }', {
        i: { ownerUrn: c.alice, ownerEntityType: 'CORP_USER', type: 'TECHNICAL_OWNER', resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'ownership')).toMatchObject({
        owners: [expect.objectContaining({ owner: c.alice, type: 'TECHNICAL_OWNER' })],
      });
      expect((await read('ownership { owners { owner { ... on CorpUser { urn } } type } }')).dataset).toEqual({
        ownership: { owners: [{ owner: { urn: c.alice }, type: 'TECHNICAL_OWNER' }] },
      });
      await mutate('mutation($i: RemoveOwnerInput!) { removeOwner(input: $i) }', {
        i: { ownerUrn: c.alice, resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'ownership')).toMatchObject({ owners: [] });

      await mutate('mutation($d: String!, $e: String!) { setDomain(domainUrn: $d, entityUrn: $e) }', {
        d: c.finance,
        e: c.edited,
      });
      expect(await aspectOf(c.edited, 'domains')).toEqual({ domains: [c.finance] });
      expect((await read('domain { domain { urn properties { name } } }')).dataset).toEqual({
        domain: { domain: { urn: c.finance, properties: { name: 'Finance' } } },
      });
      await mutate('mutation($e: String!) { unsetDomain(entityUrn: $e) }', { e: c.edited });
      expect(await aspectOf(c.edited, 'domains')).toEqual({ domains: [] });
      expect((await read('domain { domain { urn } }')).dataset).toEqual({ domain: null });
    });

    it('updateDescription of the dataset and of a field; addLink and removeLink; updateDeprecation', async () => {
      await mutate('mutation($i: DescriptionUpdateInput!) { updateDescription(input: $i) }', {
        i: { description: 'Curated orders', resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'editableDatasetProperties')).toMatchObject({ description: 'Curated orders' });
      expect((await read('editableProperties { description } properties { description }')).dataset).toEqual({
        editableProperties: { description: 'Curated orders' },
        properties: { description: 'Orders to curate' },
      });
      await mutate('mutation($i: DescriptionUpdateInput!) { updateDescription(input: $i) }', {
        i: {
          description: 'The customer’s name',
          resourceUrn: c.edited,
          subResource: 'name',
          subResourceType: 'DATASET_FIELD',
        },
      });
      expect(await aspectOf(c.edited, 'editableSchemaMetadata')).toMatchObject({
        editableSchemaFieldInfo: [{ fieldPath: 'name', description: 'The customer’s name' }],
      });

      await mutate('mutation($i: AddLinkInput!) { addLink(input: $i) }', {
        i: { linkUrl: 'https://wiki.example.com/orders', label: 'Orders wiki', resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'institutionalMemory')).toMatchObject({
        elements: [{ url: 'https://wiki.example.com/orders', description: 'Orders wiki' }],
      });
      expect((await read('institutionalMemory { elements { url label } }')).dataset).toEqual({
        institutionalMemory: { elements: [{ url: 'https://wiki.example.com/orders', label: 'Orders wiki' }] },
      });
      await mutate('mutation($i: RemoveLinkInput!) { removeLink(input: $i) }', {
        i: { linkUrl: 'https://wiki.example.com/orders', resourceUrn: c.edited },
      });
      expect(await aspectOf(c.edited, 'institutionalMemory')).toMatchObject({ elements: [] });

      await mutate('mutation($i: UpdateDeprecationInput!) { updateDeprecation(input: $i) }', {
        i: { urn: c.edited, deprecated: true, note: 'Use returns', decommissionTime: OBSERVED + 1_000 },
      });
      expect(await aspectOf(c.edited, 'deprecation')).toMatchObject({
        deprecated: true,
        note: 'Use returns',
        decommissionTime: OBSERVED + 1_000,
        actor: ROOT,
      });
      expect((await read('deprecation { deprecated note decommissionTime actor }')).dataset).toEqual({
        deprecation: { deprecated: true, note: 'Use returns', decommissionTime: OBSERVED + 1_000, actor: ROOT },
      });
    });

    it('batchAddTags, batchRemoveTags and batchUpdateSoftDeleted over two datasets; search sees the soft delete', async () => {
      const resources = [{ resourceUrn: c.edited }, { resourceUrn: c.editedToo }];
      await mutate('mutation($i: BatchAddTagsInput!) { batchAddTags(input: $i) }', {
        i: { tagUrns: [c.gold, c.pii], resources },
      });
      for (const urn of [c.edited, c.editedToo]) {
        expect(await aspectOf(urn, 'globalTags')).toEqual({ tags: [{ tag: c.gold }, { tag: c.pii }] });
      }
      await mutate('mutation($i: BatchRemoveTagsInput!) { batchRemoveTags(input: $i) }', {
        i: { tagUrns: [c.gold], resources },
      });
      for (const urn of [c.edited, c.editedToo]) {
        expect(await aspectOf(urn, 'globalTags')).toEqual({ tags: [{ tag: c.pii }] });
      }
      await mutate('mutation($i: BatchUpdateSoftDeletedInput!) { batchUpdateSoftDeleted(input: $i) }', {
        i: { urns: [c.editedToo], deleted: true },
      });
      expect(await aspectOf(c.editedToo, 'status')).toEqual({ removed: true });
      // The index follows the write (at once in one process; over Kafka, as in DataHub, a moment later).
      await eventually(async () => {
        const search = await graphql.execute<ScrollPage>(fixtureDocument('sdk-search-get-urns'), {
          variables: scrollVariables({ orFilters: [{ and: [platformIs(c.platform(c.edit)), notRemoved] }] }),
        });
        expect(search.scrollAcrossEntities.searchResults.map((result) => result.entity.urn)).toEqual([c.edited]);
      });
    });

    it('refuses a tag that does not exist with a client error, and writes nothing', async () => {
      const missing = `urn:li:tag:${c.run}.missing`;
      const answer = await graphql.answer('mutation($i: TagAssociationInput!) { addTag(input: $i) }', {
        variables: { i: { tagUrn: missing, resourceUrn: c.edited } },
      });
      expect(answer.status).toBe(200);
      expect(answer.data).toEqual({ addTag: null });
      expect(answer.errors).toEqual([
        expect.objectContaining({
          path: ['addTag'],
          message: expect.stringContaining('does not exist'),
          extensions: { code: 400 },
        }),
      ]);
      expect(JSON.stringify(await aspectOf(c.edited, 'globalTags'))).not.toContain(missing);
    });
  });

  if (deploymentName === 'distributed') {
    describe('authentication (on, as the distributed deployment runs)', () => {
      it.each(REFUSED_CREDENTIALS)(
        'refuses %s with 401 in GraphQL’s error body, by POST and GET',
        async (_case, authorization) => {
          const anonymous = new GraphqlClient(http, authorizationHeaders(authorization));
          const posted = await anonymous.answer(
            '{ dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)") { urn } }',
          );
          expect({ status: posted.status, body: posted.response.json }).toEqual({
            status: 401,
            body: { errors: [{ message: 'Unauthorized to perform this action.', extensions: { code: 401 } }] },
          });
          const got = await http.get(
            `/api/graphql?query=${encodeURIComponent('{ __typename }')}`,
            authorizationHeaders(authorization),
          );
          expect({ status: got.status, body: got.json }).toEqual({
            status: 401,
            body: { errors: [{ message: 'Unauthorized to perform this action.', extensions: { code: 401 } }] },
          });
        },
      );
    });
  }
});

describe('standalone with authentication on: a policy that hides one dataset from a user', () => {
  const run = `gqlauth${randomUUID().slice(0, 8)}`;
  const visible = `urn:li:dataset:(urn:li:dataPlatform:hive,${run}.visible,PROD)`;
  const hidden = `urn:li:dataset:(urn:li:dataPlatform:hive,${run}.hidden,PROD)`;
  const viewer = `urn:li:corpuser:${run}.viewer`;
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let asViewer: Record<string, string>;

  beforeAll(async () => {
    strata = await startDeployment('standalone', { env: { METADATA_SERVICE_AUTH_ENABLED: 'true' } });
    http = new TestHttpClient(strata.baseUrl);
    const system = { Authorization: `Basic __datahub_system:${strata.systemClientSecret}` };
    const viewAll = 'urn:li:dataHubPolicy:view-entity-page-all';
    const read = await http.get(`/entitiesV2/${encodeURIComponent(viewAll)}?aspects=List(dataHubPolicyInfo)`, system);
    const policy = (read.json as { aspects: { dataHubPolicyInfo: { value: Record<string, unknown> } } }).aspects
      .dataHubPolicyInfo.value;
    const written = await http.post(
      '/aspects?action=ingestProposalBatch',
      {
        proposals: [
          proposalOf(viewer, 'corpUserInfo', { active: true }),
          proposalOf(visible, 'datasetProperties', { description: 'anyone may read this', customProperties: {} }),
          proposalOf(hidden, 'datasetProperties', { description: 'a secret description', customProperties: {} }),
          // No user reads everything any more; the viewer reads the visible dataset only.
          proposalOf(viewAll, 'dataHubPolicyInfo', { ...policy, state: 'INACTIVE' }),
          proposalOf(`urn:li:dataHubPolicy:${run}-visible`, 'dataHubPolicyInfo', {
            displayName: 'view the visible dataset',
            description: 'written by the GraphQL tests',
            type: 'METADATA',
            state: 'ACTIVE',
            privileges: ['VIEW_ENTITY_PAGE'],
            actors: { users: [viewer] },
            resources: { filter: { criteria: [{ field: 'URN', values: [visible], condition: 'EQUALS' }] } },
          }),
        ],
      },
      { ...system, ...SYNC },
    );
    expect(written.status).toBe(200);
    const tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    asViewer = { Authorization: `Bearer ${(await tokens.mint(`${run}.viewer`, 'SESSION', 3_600_000)).token}` };
  }, 60_000);

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it('reads the visible dataset, and gets a field error, not the entity, for the hidden one (as REST refuses it)', async () => {
    expect((await http.get(`/entitiesV2/${encodeURIComponent(visible)}`, asViewer)).status).toBe(200);
    const rest = await http.get(`/entitiesV2/${encodeURIComponent(hidden)}`, asViewer);
    expect(rest.status).toBe(403);
    const graphql = new GraphqlClient(http, asViewer);
    const answer = await graphql.answer(
      'query($v: String!, $h: String!) { visible: dataset(urn: $v) { urn properties { description } } hidden: dataset(urn: $h) { urn properties { description } } }',
      { variables: { v: visible, h: hidden } },
    );
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({
      visible: { urn: visible, properties: { description: 'anyone may read this' } },
      hidden: null,
    });
    expect(answer.errors).toEqual([
      {
        message: (rest.json as { message: string }).message,
        locations: expect.any(Array),
        path: ['hidden'],
        extensions: { code: 403 },
      },
    ]);
    expect(answer.response.text).not.toContain('a secret description');
  });

  it('answers GraphQL search as REST search answers the same user: refused, with the same status and message', async () => {
    const rest = await http.post(
      '/entities?action=search',
      { input: '*', entity: 'dataset', start: 0, count: 10 },
      asViewer,
    );
    // DataHub's answer for a user without READ on the type searched.
    expect({ status: rest.status, message: (rest.json as { message?: string }).message }).toEqual({
      status: 403,
      message: 'User is unauthorized to search.',
    });
    const graphql = await new GraphqlClient(http, asViewer).answer(
      '{ searchAcrossEntities(input: { types: [DATASET], query: "*", start: 0, count: 10 }) { total searchResults { entity { urn } } } }',
    );
    expect(graphql.status).toBe(200);
    expect(graphql.data).toEqual({ searchAcrossEntities: null });
    expect(graphql.errors).toEqual([
      expect.objectContaining({
        message: 'User is unauthorized to search.',
        path: ['searchAcrossEntities'],
        extensions: { code: 403 },
      }),
    ]);
    expect(graphql.response.text).not.toContain(hidden);
    // The scroll the CLI uses is refused alike.
    const scroll = await new GraphqlClient(http, asViewer).answer(fixtureDocument('sdk-search-get-urns'), {
      variables: scrollVariables({ types: ['DATASET'] }),
    });
    expect(scroll.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      ['User is unauthorized to search.', 403],
    ]);
  });
});

describe('the minifier of DataHub’s client, as these tests apply it', () => {
  it('prints one line, drops comments, keeps string literals as printed, and sends what does not parse as it is', () => {
    const document =
      '# a comment\nquery q {\n  a(b: "x   y", c: """\n  line  one\n\n  line two\n""") {\n    d\n  }\n}\n';
    // graphql-js prints the block string re-indented; its inside, newlines and double spaces, stays as printed.
    expect(minifyGraphql(document)).toBe('query q { a(b: "x   y", c: """\n  line  one\n  \n  line two\n  """) { d } }');
    expect(minifyGraphql('{ a(b: "say \\"hi\\"   there") }')).toBe('{ a(b: "say \\"hi\\"   there") }');
    expect(minifyGraphql('{ not graphql')).toBe('{ not graphql');
  });
});
