/**
 * The ingest and read examples of DataHub's documentation, against the standalone process started as a user starts it,
 * over HTTP only. Shapes and texts follow `docs/http-interface.md`, which records DataHub's behaviour. (They ran on
 * every deployment before; e2e/parity.e2e.spec.ts now shows the other deployments answer the same.)
 */
import { TokenService } from '@strata/auth';
import {
  datasetUrn,
  eventually,
  ingestProposalBatchBody,
  ingestProposalBody,
  proposalOf,
  startDeployment,
  TestHttpClient,
  type RunningDeployment,
} from '@strata/testing';

const restli = { 'X-RestLi-Protocol-Version': '2.0.0' };
const svc = { 'X-Svc-Protocol-Version': '2.0.0' };
const fooBar = datasetUrn('bar', 'foo');
const encoded = (urn: string) => encodeURIComponent(urn);

let http: TestHttpClient;

async function ingestProposal(body: unknown) {
  const response = await http.post('/aspects?action=ingestProposal', body, svc);
  expect({ status: response.status, body: response.json }).toEqual({ status: 200, body: { value: 'success' } });
  return response;
}

describe('standalone', () => {
  let strata: RunningDeployment;
  /** Root's token: creating users and writing group membership need it, with authentication off too. */
  let root: Record<string, string>;

  beforeAll(async () => {
    strata = await startDeployment('standalone');
    http = new TestHttpClient(strata.baseUrl);
    const tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    root = { Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}` };
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  describe('legacy snapshot ingest (POST /entities?action=ingest)', () => {
    it('creates a user, readable as a legacy snapshot with the key aspect first', async () => {
      const ingest = await http.post(
        '/entities?action=ingest',
        {
          entity: {
            value: {
              'com.linkedin.metadata.snapshot.CorpUserSnapshot': {
                urn: 'urn:li:corpuser:footbarusername',
                aspects: [
                  {
                    'com.linkedin.identity.CorpUserInfo': {
                      active: true,
                      displayName: 'Foo Bar',
                      fullName: 'Foo Bar',
                      email: 'fbar@linkedin.com',
                    },
                  },
                ],
              },
            },
          },
        },
        { ...restli, ...root },
      );
      expect(ingest.status).toBe(200);
      expect(ingest.text).toBe('');

      const read = await http.get('/entities/urn:li:corpuser:footbarusername', restli);
      expect(read.status).toBe(200);
      expect(read.json).toEqual({
        value: {
          'com.linkedin.metadata.snapshot.CorpUserSnapshot': {
            urn: 'urn:li:corpuser:footbarusername',
            aspects: [
              { 'com.linkedin.metadata.key.CorpUserKey': { username: 'footbarusername' } },
              {
                'com.linkedin.identity.CorpUserInfo': {
                  active: true,
                  displayName: 'Foo Bar',
                  fullName: 'Foo Bar',
                  email: 'fbar@linkedin.com',
                },
              },
            ],
          },
        },
      });
    });

    it('takes several snapshots at once (batchIngest), each with its system metadata, all or nothing', async () => {
      const snapshot = (name: string, description: unknown) => ({
        value: {
          'com.linkedin.metadata.snapshot.DatasetSnapshot': {
            urn: datasetUrn(name, 'batch'),
            aspects: [{ 'com.linkedin.dataset.DatasetProperties': { description } }],
          },
        },
      });
      const batch = await http.post(
        '/entities?action=batchIngest',
        {
          entities: [snapshot('orders', 'Orders'), snapshot('customers', 'Customers')],
          systemMetadata: [{ runId: 'batch-run' }, { runId: 'batch-run' }],
        },
        restli,
      );
      expect({ status: batch.status, text: batch.text }).toEqual({ status: 200, text: '' });
      for (const [name, description] of [
        ['orders', 'Orders'],
        ['customers', 'Customers'],
      ]) {
        const read = await http.get(
          `/entitiesV2/${encoded(datasetUrn(name!, 'batch'))}?aspects=List(datasetProperties)`,
        );
        expect(read.json).toMatchObject({
          aspects: {
            datasetProperties: { value: { description }, systemMetadata: { runId: 'batch-run' } },
          },
        });
      }

      // One invalid snapshot refuses the request, naming it; nothing of the others is written.
      const refused = await http.post(
        '/entities?action=batchIngest',
        { entities: [snapshot('never', 'Never written'), snapshot('bad', 42)] },
        restli,
      );
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({ status: 422, message: expect.stringContaining('entities[1]') });
      const key = await http.get(`/aspects/${encoded(datasetUrn('never', 'batch'))}?aspect=datasetKey&version=0`);
      expect(key.status).toBe(404);

      // DataHub's own check: one system metadata per snapshot.
      const mismatched = await http.post(
        '/entities?action=batchIngest',
        { entities: [snapshot('never', 'Never written')], systemMetadata: [{}, {}] },
        restli,
      );
      expect(mismatched.status).toBe(412);
      expect(mismatched.json).toMatchObject({ message: 'entities and systemMetadata length must match' });
    });

    it('creates a group whose members are typed user URNs', async () => {
      const response = await http.post(
        '/entities?action=ingest',
        {
          entity: {
            value: {
              'com.linkedin.metadata.snapshot.CorpGroupSnapshot': {
                urn: 'urn:li:corpGroup:dev',
                aspects: [
                  {
                    'com.linkedin.identity.CorpGroupInfo': {
                      email: 'dev@linkedin.com',
                      admins: ['urn:li:corpuser:jdoe'],
                      members: ['urn:li:corpuser:datahub', 'urn:li:corpuser:jdoe'],
                      groups: [],
                    },
                  },
                ],
              },
            },
          },
        },
        root,
      );
      expect(response.status).toBe(200);
      const read = await http.get(`/entitiesV2/${encoded('urn:li:corpGroup:dev')}`, svc);
      expect(read.json).toMatchObject({
        urn: 'urn:li:corpGroup:dev',
        entityName: 'corpGroup',
        aspects: {
          corpGroupKey: { name: 'corpGroupKey', value: { name: 'dev' } },
          corpGroupInfo: { value: { members: ['urn:li:corpuser:datahub', 'urn:li:corpuser:jdoe'] } },
        },
      });
    });

    it('creates a dataset with ownership, institutional memory and a Kafka schema, with its default aspects', async () => {
      const stamp = { time: 0, actor: 'urn:li:corpuser:fbar' };
      const response = await http.post('/entities?action=ingest', {
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {
              urn: fooBar,
              aspects: [
                {
                  'com.linkedin.common.Ownership': {
                    owners: [{ owner: 'urn:li:corpuser:fbar', type: 'DATAOWNER' }],
                    lastModified: stamp,
                  },
                },
                {
                  'com.linkedin.common.InstitutionalMemory': {
                    elements: [{ url: 'https://www.linkedin.com', description: 'Sample doc', createStamp: stamp }],
                  },
                },
                {
                  'com.linkedin.schema.SchemaMetadata': {
                    schemaName: 'FooEvent',
                    platform: 'urn:li:dataPlatform:foo',
                    version: 0,
                    created: stamp,
                    lastModified: stamp,
                    hash: '',
                    platformSchema: {
                      'com.linkedin.schema.KafkaSchema': {
                        documentSchema: '{"type":"record","name":"MetadataChangeEvent"}',
                      },
                    },
                    fields: [
                      {
                        fieldPath: 'foo',
                        description: 'Bar',
                        nativeDataType: 'string',
                        nullable: false,
                        recursive: false,
                        isPartOfKey: false,
                        type: { type: { 'com.linkedin.schema.StringType': {} } },
                      },
                    ],
                  },
                },
              ],
            },
          },
        },
      });
      expect(response.status).toBe(200);

      const read = await http.get(`/entitiesV2/${encoded(fooBar)}`, svc);
      expect(read.status).toBe(200);
      const body = read.json as { urn: string; entityName: string; aspects: Record<string, Record<string, unknown>> };
      expect(body.urn).toBe(fooBar);
      expect(body.entityName).toBe('dataset');
      expect(Object.keys(body.aspects).sort()).toEqual(
        [
          'browsePaths',
          'browsePathsV2',
          'dataPlatformInstance',
          'datasetKey',
          'institutionalMemory',
          'ownership',
          'schemaMetadata',
        ].sort(),
      );
      expect(body.aspects['datasetKey']).toMatchObject({
        name: 'datasetKey',
        type: 'VERSIONED',
        version: 0,
        value: { platform: 'urn:li:dataPlatform:foo', name: 'bar', origin: 'PROD' },
        created: { actor: 'urn:li:corpuser:UNKNOWN', time: expect.any(Number) },
      });
      expect(body.aspects['browsePaths']?.['value']).toEqual({ paths: ['/prod/foo'] });
      expect(body.aspects['dataPlatformInstance']?.['value']).toEqual({ platform: 'urn:li:dataPlatform:foo' });
      expect(body.aspects['ownership']?.['systemMetadata']).toMatchObject({
        runId: 'no-run-id-provided',
        version: '1',
      });
    });

    it('creates a chart, a dashboard and a tag, and attaches the tag to the dataset and to a schema field', async () => {
      const stamp = { time: 0, actor: 'urn:li:corpuser:fbar' };
      const snapshot = (type: string, urn: string, aspects: unknown[]) => ({
        entity: { value: { [`com.linkedin.metadata.snapshot.${type}`]: { urn, aspects } } },
      });
      const ingests = [
        snapshot('ChartSnapshot', 'urn:li:chart:(looker,baz1)', [
          {
            'com.linkedin.chart.ChartInfo': {
              title: 'Baz Chart 1',
              description: 'Baz Chart 1',
              inputs: [{ string: 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)' }],
              lastModified: { created: stamp, lastModified: stamp },
            },
          },
        ]),
        snapshot('DashboardSnapshot', 'urn:li:dashboard:(looker,baz)', [
          {
            'com.linkedin.dashboard.DashboardInfo': {
              title: 'Baz Dashboard',
              description: 'Baz Dashboard',
              charts: ['urn:li:chart:(looker,baz1)'],
              lastModified: { created: stamp, lastModified: stamp },
            },
          },
        ]),
        snapshot('TagSnapshot', 'urn:li:tag:NeedsDocumentation', [
          { 'com.linkedin.tag.TagProperties': { name: 'NeedsDocumentation', description: 'Needs documentation' } },
        ]),
        snapshot('DatasetSnapshot', fooBar, [
          { 'com.linkedin.common.GlobalTags': { tags: [{ tag: 'urn:li:tag:NeedsDocumentation' }] } },
          {
            'com.linkedin.schema.EditableSchemaMetadata': {
              editableSchemaFieldInfo: [
                { fieldPath: 'foo', globalTags: { tags: [{ tag: 'urn:li:tag:NeedsDocumentation' }] } },
              ],
            },
          },
        ]),
      ];
      for (const body of ingests) expect((await http.post('/entities?action=ingest', body)).status).toBe(200);

      const chart = await http.get('/entities/urn:li:chart:(looker,baz1)');
      expect(chart.json).toEqual({
        value: {
          'com.linkedin.metadata.snapshot.ChartSnapshot': {
            urn: 'urn:li:chart:(looker,baz1)',
            aspects: expect.arrayContaining([
              { 'com.linkedin.metadata.key.ChartKey': { dashboardTool: 'looker', chartId: 'baz1' } },
              { 'com.linkedin.common.BrowsePaths': { paths: ['/looker'] } },
              expect.objectContaining({
                'com.linkedin.chart.ChartInfo': expect.objectContaining({ title: 'Baz Chart 1' }),
              }),
            ]),
          },
        },
      });
      const aspects = (chart.json as { value: Record<string, { aspects: object[] }> }).value[
        'com.linkedin.metadata.snapshot.ChartSnapshot'
      ]!.aspects;
      expect(Object.keys(aspects[0]!)).toEqual(['com.linkedin.metadata.key.ChartKey']);

      const tags = await http.get(`/aspects/${encoded(fooBar)}?aspect=globalTags&version=0`, restli);
      expect(tags.json).toEqual({
        version: 0,
        aspect: { 'com.linkedin.common.GlobalTags': { tags: [{ tag: 'urn:li:tag:NeedsDocumentation' }] } },
      });
    });

    it('reads a glossary term snapshot with its aspects as direct members too', async () => {
      const urn = 'urn:li:glossaryTerm:instruments.FinancialInstrument_v1';
      const info = {
        definition: 'written contract that gives rise to both a financial asset of one entity',
        customProperties: { FQDN: 'full' },
        sourceRef: 'FIBO',
        sourceUrl:
          'https://spec.edmcouncil.org/fibo/ontology/FBC/FinancialInstruments/FinancialInstruments/FinancialInstrument',
        termSource: 'EXTERNAL',
      };
      const ownership = {
        owners: [{ owner: 'urn:li:corpuser:fbar', type: 'DATAOWNER' }],
        lastModified: { time: 0, actor: 'urn:li:corpuser:fbar' },
      };
      const ingest = await http.post('/entities?action=ingest', {
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.GlossaryTermSnapshot': {
              urn,
              aspects: [
                { 'com.linkedin.glossary.GlossaryTermInfo': info },
                { 'com.linkedin.common.Ownership': ownership },
              ],
            },
          },
        },
      });
      expect(ingest.status).toBe(200);
      const read = await http.get(`/entities/${encoded(urn)}`);
      expect(read.json).toMatchObject({
        value: { 'com.linkedin.metadata.snapshot.GlossaryTermSnapshot': { urn, glossaryTermInfo: info, ownership } },
      });
    });

    it('soft-deletes and restores an entity through status; reads still show it', async () => {
      const status = (removed: boolean) => ({
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {
              urn: fooBar,
              aspects: [{ 'com.linkedin.common.Status': { removed } }],
            },
          },
        },
      });
      expect((await http.post('/entities?action=ingest', status(true))).status).toBe(200);
      const deleted = await http.get(`/entitiesV2/${encoded(fooBar)}?aspects=List(status,ownership)`);
      expect(deleted.json).toMatchObject({ aspects: { status: { value: { removed: true } }, ownership: {} } });

      expect((await http.post('/entities?action=ingest', status(false))).status).toBe(200);
      const restored = await http.get(`/aspects/${encoded(fooBar)}?aspect=status&version=0`);
      expect(restored.json).toEqual({ version: 0, aspect: { 'com.linkedin.common.Status': { removed: false } } });
    });
  });

  describe("DataHub's sample data", () => {
    it('stores its metadata tests whose definition is empty, and the results pushed for them, in one batch', async () => {
      // As bootstrap_mce.json holds them, sent as the sink sends a batch: an empty definition selects nothing.
      const test = (id: string, name: string) =>
        proposalOf(`urn:li:test:${id}`, 'testInfo', {
          name,
          category: 'Examples',
          description: `${name}, as DataHub's sample data has it`,
          definition: { type: 'JSON', json: '{}' },
        });
      const first = test('953001aa-fb7b-4a43-916f-3efd95ab9047', 'Sample Test 1');
      const second = test('76ca947d-d988-4f0d-8c2f-055de2c6f4b5', 'Sample Test 2');
      const sample = datasetUrn('SampleHiveDataset');
      const results = proposalOf(sample, 'testResults', {
        failing: [{ test: first.entityUrn, type: 'FAILURE' }],
        passing: [{ test: second.entityUrn, type: 'SUCCESS' }],
      });
      const response = await http.post(
        '/aspects?action=ingestProposalBatch',
        ingestProposalBatchBody([first, second, results]),
        svc,
      );
      expect({ status: response.status, body: response.json }).toEqual({ status: 200, body: { value: 'success' } });
      const stored = await http.get(`/aspects/${encoded(first.entityUrn)}?aspect=testInfo&version=0`, svc);
      expect(stored.json).toMatchObject({
        aspect: { 'com.linkedin.test.TestInfo': { definition: { type: 'JSON', json: '{}' } } },
      });
    });
  });

  describe('ingestProposal and versioned reads', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
    const upstream = (dataset: string) => ({
      upstreams: [{ auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' }, dataset, type: 'TRANSFORMED' }],
    });

    it('versions an aspect: 0 is the latest, 1 the oldest, negatives count back, identical writes are no-ops', async () => {
      const first = upstream('urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)');
      const second = upstream('urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)');
      const created = await ingestProposal(ingestProposalBody(proposalOf(urn, 'upstreamLineage', first)));
      expect(created.headers.get('x-strata-outcome')).toBe('APPLIED');
      expect(created.headers.get('x-strata-aspect-version')).toBe('1');
      const again = await ingestProposal(ingestProposalBody(proposalOf(urn, 'upstreamLineage', first)));
      expect(again.headers.get('x-strata-outcome')).toBe('UNCHANGED');
      await ingestProposal(ingestProposalBody(proposalOf(urn, 'upstreamLineage', second)));

      const path = (version: number) => `/aspects/${encoded(urn)}?aspect=upstreamLineage&version=${version}`;
      const aspectOf = (response: { json: unknown }) =>
        (response.json as { aspect: Record<string, unknown> }).aspect['com.linkedin.dataset.UpstreamLineage'];
      expect(aspectOf(await http.get(path(0)))).toEqual(second);
      expect(aspectOf(await http.get(path(1)))).toEqual(first);
      // As in DataHub, the latest is version 0 only: its own ordinal (2) answers 404.
      expect((await http.get(path(2))).status).toBe(404);
      expect(aspectOf(await http.get(path(-1)))).toEqual(first);
      expect((await http.get(path(3))).status).toBe(404);
      expect((await http.get(path(-2))).status).toBe(404);
      const latest = await http.get(`/aspects/${encoded(urn)}?aspect=upstreamLineage`);
      expect(aspectOf(latest)).toEqual(second);

      const v2 = await http.get(`/entitiesV2/${encoded(urn)}?aspects=List(upstreamLineage)`, svc);
      expect(v2.json).toMatchObject({
        aspects: { upstreamLineage: { value: second, systemMetadata: { version: '2' } } },
      });
      expect(Object.keys((v2.json as { aspects: object }).aspects).sort()).toEqual(['datasetKey', 'upstreamLineage']);
    });

    it('accepts the URN raw in the path, and the aspect list in protocol-1 form', async () => {
      const raw = await http.get(`/entitiesV2/${urn}?aspects=upstreamLineage&aspects=browsePaths`);
      expect(raw.status).toBe(200);
      expect(Object.keys((raw.json as { aspects: object }).aspects).sort()).toEqual([
        'browsePaths',
        'datasetKey',
        'upstreamLineage',
      ]);
    });

    it('reads an unknown URN as its key aspect alone, as DataHub does', async () => {
      const response = await http.get('/entities/urn:li:dashboard:(looker,foo)');
      expect(response.json).toEqual({
        value: {
          'com.linkedin.metadata.snapshot.DashboardSnapshot': {
            urn: 'urn:li:dashboard:(looker,foo)',
            aspects: [{ 'com.linkedin.metadata.key.DashboardKey': { dashboardTool: 'looker', dashboardId: 'foo' } }],
          },
        },
      });
      expect((await http.get(`/aspects/${encoded('urn:li:dashboard:(looker,foo)')}?aspect=dashboardInfo`)).status).toBe(
        404,
      );
    });

    it('accepts a timeseries aspect, creating the entity, without versioning it', async () => {
      const usageUrn = 'urn:li:dataset:(urn:li:dataPlatform:mysql,db.usage,PROD)';
      const response = await ingestProposal(
        ingestProposalBody(
          proposalOf(usageUrn, 'datasetUsageStatistics', {
            timestampMillis: 1650000000000,
            uniqueUserCount: 3,
            totalSqlQueries: 10,
            fieldCounts: [{ fieldPath: 'id', count: 4 }],
          }),
        ),
      );
      expect(response.headers.get('x-strata-outcome')).toBe('APPLIED');
      const read = await http.get(`/entitiesV2/${encoded(usageUrn)}`);
      expect(read.json).toMatchObject({
        aspects: { datasetKey: {}, browsePaths: { value: { paths: ['/prod/mysql/db'] } } },
      });
      expect((read.json as { aspects: object }).aspects).not.toHaveProperty('datasetUsageStatistics');
    });

    it('answers at once with the request id when async=true, and the write then applies', async () => {
      const asyncUrn = 'urn:li:tag:AsyncTag';
      const response = await http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposalOf(asyncUrn, 'tagProperties', { name: 'AsyncTag' }), { async: 'true' }),
      );
      expect(response.status).toBe(200);
      const requestId = (response.json as { value: string }).value;
      expect(response.headers.get('x-request-id')).toBe(requestId);
      await eventually(async () => {
        expect((await http.get(`/aspects/${encoded(asyncUrn)}?aspect=tagProperties`)).status).toBe(200);
      });
    });

    it('ingests a batch of proposals', async () => {
      const batch = await http.post(
        '/aspects?action=ingestProposalBatch',
        ingestProposalBatchBody([
          proposalOf('urn:li:tag:One', 'tagProperties', { name: 'One' }),
          proposalOf('urn:li:tag:Two', 'tagProperties', { name: 'Two' }),
        ]),
      );
      expect(batch.status).toBe(200);
      expect(batch.headers.get('x-strata-outcome')).toBe('APPLIED, APPLIED');
      expect((await http.get('/entitiesV2?ids=List(urn:li:tag:One,urn:li:tag:Two)')).json).toMatchObject({
        results: {
          'urn:li:tag:One': { aspects: { tagProperties: { value: { name: 'One' } } } },
          'urn:li:tag:Two': { aspects: { tagProperties: { value: { name: 'Two' } } } },
        },
      });
    });

    it('deletes an aspect, and deleting the key aspect deletes the entity', async () => {
      const tag = 'urn:li:tag:Doomed';
      await ingestProposal(ingestProposalBody(proposalOf(tag, 'tagProperties', { name: 'Doomed' })));
      await ingestProposal(ingestProposalBody(proposalOf(tag, 'status', { removed: false })));
      await ingestProposal(ingestProposalBody(proposalOf(tag, 'status', undefined, { changeType: 'DELETE' })));
      expect((await http.get(`/aspects/${encoded(tag)}?aspect=status`)).status).toBe(404);
      expect((await http.get(`/aspects/${encoded(tag)}?aspect=tagProperties`)).status).toBe(200);

      await ingestProposal(ingestProposalBody(proposalOf(tag, 'tagKey', undefined, { changeType: 'DELETE' })));
      expect((await http.get(`/aspects/${encoded(tag)}?aspect=tagProperties`)).status).toBe(404);
      expect((await http.get(`/aspects/${encoded(tag)}?aspect=tagKey`)).status).toBe(404);
    });

    it('rejects CREATE of an aspect that exists, leaving it unchanged', async () => {
      const tag = 'urn:li:tag:Created';
      await ingestProposal(
        ingestProposalBody(proposalOf(tag, 'tagProperties', { name: 'Created' }, { changeType: 'CREATE' })),
      );
      const again = await http.post(
        '/aspects?action=ingestProposal',
        ingestProposalBody(proposalOf(tag, 'tagProperties', { name: 'Other' }, { changeType: 'CREATE' })),
      );
      expect(again.status).toBe(422);
      expect(again.json).toMatchObject({ status: 422, message: expect.stringContaining('already exists') });
      const read = await http.get(`/aspects/${encoded(tag)}?aspect=tagProperties`);
      expect(read.json).toEqual({ version: 0, aspect: { 'com.linkedin.tag.TagProperties': { name: 'Created' } } });
    });

    it('drops unknown fields inside an aspect, as DataHub does', async () => {
      const dashboard = 'urn:li:dashboard:(looker,unknownfields)';
      await ingestProposal(
        ingestProposalBody(
          proposalOf(dashboard, 'dashboardInfo', {
            title: 't',
            description: 'd',
            charts: [],
            lastModified: {
              created: { time: 0, actor: 'urn:li:corpuser:x' },
              lastModified: { time: 0, actor: 'urn:li:corpuser:x' },
            },
            notAField: 'dropped',
          }),
        ),
      );
      const read = await http.get(`/aspects/${encoded(dashboard)}?aspect=dashboardInfo`);
      const value = (read.json as { aspect: Record<string, Record<string, unknown>> }).aspect[
        'com.linkedin.dashboard.DashboardInfo'
      ];
      expect(value).toMatchObject({ title: 't' });
      expect(value).not.toHaveProperty('notAField');
    });
  });

  describe('request ids', () => {
    it('applies two different writes that carry the same client X-Request-Id, and answers each with its own id', async () => {
      const tag = 'urn:li:tag:SameClientRequestId';
      const headers = { 'X-Request-Id': 'client-chosen-id' };
      const write = (name: string) =>
        http.post(
          '/aspects?action=ingestProposal',
          ingestProposalBody(proposalOf(tag, 'tagProperties', { name })),
          headers,
        );
      const first = await write('first');
      const second = await write('second');
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
      const read = await http.get(`/aspects/${encoded(tag)}?aspect=tagProperties`);
      expect(read.json).toEqual({ version: 0, aspect: { 'com.linkedin.tag.TagProperties': { name: 'second' } } });
    });
  });
});
