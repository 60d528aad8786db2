/**
 * What DataHub's own clients do against a metadata service, against the standalone process, over HTTP only (on every
 * deployment before; e2e/parity.e2e.spec.ts now walks the same calls on the others):
 * the `datahub-rest` sink's first call (`GET /config`), then records of the entity types DataHub's connectors emit
 * (containers, pipelines and their jobs, ML models, domains, glossary nodes), in the sink's request shapes — batch
 * and single proposals with JSON-string aspect values and the sink's system metadata, and a legacy snapshot — read
 * back, searched, and followed through their relationships. The breadth (every entity type and aspect) is tested
 * in-process, in `libs/model`.
 */
import { datasetUrn, eventually, startDeployment, TestHttpClient, type RunningDeployment } from '@strata/testing';
import { TokenService } from '@strata/auth';

/** The headers the sink sends, plus read-your-writes so the reads below see the writes. */
const sink = {
  'X-RestLi-Protocol-Version': '2.0.0',
  'User-Agent': 'DataHub-Client/1.0 (ingestion; datahub-rest; 1.0.0)',
  'X-DataHub-Sync-Index-Update': 'true',
};

const systemMetadata = {
  lastObserved: 1_700_000_000_000,
  runId: 'postgres-2026_11_23-10_00_00',
  lastRunId: 'no-run-id-provided',
  properties: { clientId: 'acryl-datahub', clientVersion: '1.0.0' },
};

/** A proposal as the sink serializes it: the aspect is a JSON string with its content type. */
function mcp(entityUrn: string, aspectName: string, value: unknown) {
  const entityType = /^urn:li:([^:]+):/.exec(entityUrn)?.[1] ?? '';
  return {
    entityType,
    entityUrn,
    changeType: 'UPSERT',
    aspectName,
    aspect: { value: JSON.stringify(value), contentType: 'application/json' },
    systemMetadata,
  };
}

const container = 'urn:li:container:4e2b6c0f9a1d43c1b8d1d2a3c4e5f6a7';
const orders = datasetUrn('shop.public.orders', 'postgres');
const revenue = datasetUrn('shop.public.revenue', 'postgres');
const flow = 'urn:li:dataFlow:(airflow,nightly_revenue,prod)';
const job = `urn:li:dataJob:(${flow},aggregate_orders)`;
const model = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn-predictor,PROD)';
const domain = 'urn:li:domain:sales';
const node = 'urn:li:glossaryNode:Finance';

const connectorOutput = [
  mcp(container, 'containerProperties', {
    customProperties: { platform: 'postgres', database: 'shop' },
    name: 'shop',
  }),
  mcp(container, 'subTypes', { typeNames: ['Database'] }),
  mcp(container, 'dataPlatformInstance', { platform: 'urn:li:dataPlatform:postgres' }),
  mcp(container, 'status', { removed: false }),
  mcp(orders, 'container', { container }),
  mcp(orders, 'datasetProperties', { customProperties: {}, name: 'orders', tags: [] }),
  mcp(revenue, 'container', { container }),
  mcp(flow, 'dataFlowInfo', { customProperties: {}, name: 'nightly_revenue', env: 'PROD' }),
  mcp(job, 'dataJobInfo', {
    customProperties: { operator: 'PostgresOperator' },
    name: 'aggregate_orders',
    type: { string: 'COMMAND' },
    env: 'PROD',
  }),
  mcp(job, 'dataJobInputOutput', { inputDatasets: [orders], outputDatasets: [revenue], inputDatajobs: [] }),
  mcp(model, 'mlModelProperties', { customProperties: {}, description: 'Predicts churn', tags: [] }),
  mcp(model, 'domains', { domains: [domain] }),
  mcp(domain, 'domainProperties', { name: 'Sales', description: 'Everything sold' }),
];

let http: TestHttpClient;

async function search(entity: string, input: string): Promise<string[]> {
  const response = await http.post('/entities?action=search', { entity, input, start: 0, count: 10 });
  expect(response.status).toBe(200);
  // Rest.li's search answers the matching URNs as `entities` (DataHub's SearchResult).
  return (response.json as { value: { entities: string[] } }).value.entities;
}

async function related(urn: string, types: string, direction: 'INCOMING' | 'OUTGOING'): Promise<string[]> {
  const query = `urn=${encodeURIComponent(urn)}&types=List(${types})&direction=${direction}`;
  const response = await http.get(`/relationships?${query}`);
  expect(response.status).toBe(200);
  return (response.json as { relationships: { entity: string }[] }).relationships.map(({ entity }) => entity).sort();
}

async function aspectsOf(urn: string): Promise<Record<string, { value: unknown }>> {
  const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}`);
  expect(response.status).toBe(200);
  return (response.json as { aspects: Record<string, { value: unknown }> }).aspects;
}

describe('standalone', () => {
  let strata: RunningDeployment;

  beforeAll(async () => {
    strata = await startDeployment('standalone');
    http = new TestHttpClient(strata.baseUrl);
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it('answers GET /config as the sink requires, without authentication', async () => {
    const response = await http.get('/config');
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      noCode: 'true',
      patchCapable: true,
      statefulIngestionCapable: true,
      versions: { 'acryldata/datahub': { version: 'v1.7.0' }, strata: { version: expect.any(String) as unknown } },
      datahub: { serverType: 'prod' },
    });
    expect(response.json).not.toHaveProperty('userType');
    const verbose = await http.get('/config?verbose=true');
    expect(verbose.json).toMatchObject({ noCode: 'true', userType: 'anonymous' });
  });

  it("advertises a version past every client threshold Strata serves, read as DataHub's client reads it", async () => {
    const config = (await http.get('/config')).json as { versions: Record<string, { version: string }> };
    // The client's parse: an optional `v`, three or four numbers, any suffix ignored; compared as tuples.
    const match = /^v?(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?/.exec(config.versions['acryldata/datahub']?.version ?? '');
    const version = match === null ? [0, 0, 0, 0] : [1, 2, 3, 4].map((group) => Number(match[group] ?? 0));
    const atLeast = (...wanted: number[]) => {
      for (const [index, part] of version.entries()) {
        const other = wanted[index] ?? 0;
        if (part !== other) return part > other;
      }
      return true;
    };
    // server_config_util.py: OPEN_API_SDK and API_TRACING (the SDK writes over /openapi/v3 and traces its writes).
    expect(atLeast(1, 0, 1, 0)).toBe(true);
    // auto_status_aspect.py: ingestion sends the status it adds as a JSON Patch.
    expect(atLeast(1, 7, 0)).toBe(true);
    // Not DataHub Cloud: the cloud thresholds never apply.
    expect((await http.get('/config')).json).toMatchObject({ datahub: { serverEnv: 'core' } });
    // The status patch ingestion then sends is applied, keeping what the aspect held besides `removed`.
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,status_patch_threshold,PROD)';
    const patch = {
      proposal: {
        entityType: 'dataset',
        entityUrn: urn,
        changeType: 'PATCH',
        aspectName: 'status',
        aspect: {
          value: JSON.stringify([{ op: 'add', path: '/removed', value: false }]),
          contentType: 'application/json-patch+json',
        },
      },
      async: 'false',
    };
    expect((await http.post('/aspects?action=ingestProposal', patch)).status).toBe(200);
    const read = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=status&version=0`);
    expect(read.json).toMatchObject({ aspect: { 'com.linkedin.common.Status': { removed: false } } });
  });

  it('accepts a connector’s batch of new entity types, and reads each back as written', async () => {
    const response = await http.post(
      '/aspects?action=ingestProposalBatch',
      { proposals: connectorOutput, async: 'false' },
      sink,
    );
    expect(response.status).toBe(200);
    const aspects = await aspectsOf(job);
    expect(aspects['dataJobInfo']?.value).toEqual({
      customProperties: { operator: 'PostgresOperator' },
      name: 'aggregate_orders',
      type: { string: 'COMMAND' },
      env: 'PROD',
    });
    expect(Object.keys(aspects)).toEqual(expect.arrayContaining(['dataJobKey', 'dataJobInputOutput']));
    expect((await aspectsOf(container))['containerProperties']?.value).toMatchObject({ name: 'shop' });
    expect((await aspectsOf(domain))['domainProperties']?.value).toEqual({
      name: 'Sales',
      description: 'Everything sold',
    });
  });

  it('finds the new entity types by search', async () => {
    expect(await search('dataJob', 'aggregate_orders')).toEqual([job]);
    expect(await search('dataFlow', 'nightly_revenue')).toEqual([flow]);
    expect(await search('container', 'shop')).toEqual([container]);
    expect(await search('mlModel', 'churn')).toEqual([model]);
  });

  it('searches across entity types, as DataHub’s smoke test and CLI lookups do', async () => {
    const across = async (body: Record<string, unknown>) => {
      const response = await http.post('/entities?action=searchAcrossEntities', body);
      expect(response.status).toBe(200);
      return (
        response.json as {
          value: {
            numEntities: number;
            entities: string[];
            metadata: { searchResultMetadatas: { name: string; aggregations: Record<string, number> }[] };
          };
        }
      ).value;
    };
    const named = await across({ input: 'nightly_revenue', entities: ['dataJob', 'dataFlow'], start: 0, count: 10 });
    // Grouped by type, in the order asked: the job's URN names its flow, so it matches too.
    expect(named.entities).toEqual([job, flow]);
    const all = await across({ input: '*', entities: [], start: 0, count: 10 });
    const byType = all.metadata.searchResultMetadatas.find((facet) => facet.name === 'entity')?.aggregations ?? {};
    expect(byType).toMatchObject({ container: 1, dataFlow: 1, dataJob: 1, mlModel: 1, domain: 1 });
    expect(all.numEntities).toBe(Object.values(byType).reduce((sum, count) => sum + count, 0));
    // Paging runs across the types: the second page starts where the first ended.
    const first = await across({ input: '*', start: 0, count: 3 });
    const second = await across({ input: '*', start: 3, count: 3 });
    expect([...first.entities, ...second.entities]).toEqual(all.entities.slice(0, 6));
    const unknown = await http.post('/entities?action=searchAcrossEntities', {
      input: '*',
      entities: ['spaceship'],
      start: 0,
      count: 1,
    });
    expect(unknown.status).toBe(400);
  });

  it('follows DataHub’s relationships: IsPartOf, Consumes, Produces, AssociatedWith', async () => {
    expect(await related(container, 'IsPartOf', 'INCOMING')).toEqual([orders, revenue].sort());
    expect(await related(job, 'Consumes', 'OUTGOING')).toEqual([orders]);
    expect(await related(job, 'Produces', 'OUTGOING')).toEqual([revenue]);
    expect(await related(domain, 'AssociatedWith', 'INCOMING')).toEqual([model]);
  });

  it('serves every path under /api/gms as well, as DataHub’s documentation writes them', async () => {
    expect((await http.get('/api/gms/config')).json).toMatchObject({ noCode: 'true' });
    const search = await http.post('/api/gms/entities?action=search', {
      entity: 'dataJob',
      input: 'aggregate_orders',
      start: 0,
      count: 10,
    });
    expect((search.json as { value: { entities: string[] } }).value.entities).toEqual([job]);
    const read = await http.get(`/api/gms/entitiesV2/${encodeURIComponent(job)}`);
    expect(read.status).toBe(200);
    expect((await http.get('/api/gms/nowhere')).status).toBe(404);
  });

  it('follows DataHub’s documentation: a term whose id looks like a tuple, and the key of an entity never written', async () => {
    const term = 'urn:li:glossaryTerm:(instruments,instruments.FinancialInstrument_v1)';
    const written = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: mcp(term, 'glossaryTermInfo', { definition: 'A contract', termSource: 'INTERNAL' }) },
      sink,
    );
    expect(written.status).toBe(200);
    expect((await aspectsOf(term))['glossaryTermKey']?.value).toEqual({
      name: '(instruments,instruments.FinancialInstrument_v1)',
    });
    const unknown = await http.get(`/entitiesV2/${encodeURIComponent('urn:li:corpuser:never-written')}`);
    expect(unknown.json).toMatchObject({
      aspects: {
        corpUserKey: {
          value: { username: 'never-written' },
          created: { actor: 'urn:li:corpuser:__datahub_system', time: expect.any(Number) as unknown },
        },
      },
    });
  });

  it('accepts a legacy glossary-node snapshot, as the business-glossary connector sends it', async () => {
    const response = await http.post(
      '/entities?action=ingest',
      {
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.GlossaryNodeSnapshot': {
              urn: node,
              aspects: [
                { 'com.linkedin.glossary.GlossaryNodeInfo': { definition: 'Money matters', name: 'Finance' } },
                {
                  'com.linkedin.common.Ownership': {
                    owners: [{ owner: 'urn:li:corpuser:datahub', type: 'DATAOWNER' }],
                    lastModified: { time: 0, actor: 'urn:li:corpuser:unknown' },
                  },
                },
              ],
            },
          },
        },
        systemMetadata,
      },
      sink,
    );
    expect(response.status).toBe(200);
    expect((await aspectsOf(node))['glossaryNodeInfo']?.value).toEqual({
      definition: 'Money matters',
      name: 'Finance',
    });
    expect(await search('glossaryNode', 'Finance')).toEqual([node]);
  });

  describe('PATCH and conditional writes, as the Python SDK sends them', () => {
    const patched = datasetUrn('shop.public.customers', 'postgres');

    function patchProposal(aspectName: string, document: unknown, headers?: Record<string, string>) {
      return {
        entityType: 'dataset',
        entityUrn: patched,
        changeType: 'PATCH',
        aspectName,
        aspect: { value: JSON.stringify(document), contentType: 'application/json-patch+json' },
        systemMetadata,
        ...(headers === undefined ? {} : { headers }),
      };
    }

    async function ingest(proposal: unknown) {
      return http.post('/aspects?action=ingestProposal', { proposal, async: 'false' }, sink);
    }

    it('patches dataset properties and tags, plain and generic, and reads the merged values back', async () => {
      const properties = await ingest(
        patchProposal('datasetProperties', [
          { op: 'add', path: '/description', value: 'Everyone who ordered' },
          { op: 'add', path: '/customProperties/owner~1team', value: 'crm' },
        ]),
      );
      expect(properties.status).toBe(200);
      const tag = (name: string) => ({ tag: `urn:li:tag:${name}` });
      for (const name of ['pii', 'gold']) {
        const response = await ingest(
          patchProposal('globalTags', {
            arrayPrimaryKeys: { tags: ['attribution\u241Fsource', 'tag'] },
            patch: [{ op: 'add', path: `/tags//urn:li:tag:${name}`, value: tag(name) }],
          }),
        );
        expect(response.status).toBe(200);
      }
      const aspects = await aspectsOf(patched);
      expect(aspects['datasetProperties']?.value).toEqual({
        customProperties: { 'owner/team': 'crm' },
        description: 'Everyone who ordered',
        tags: [],
      });
      expect(aspects['globalTags']?.value).toEqual({ tags: [tag('pii'), tag('gold')] });
      expect(await search('dataset', 'Everyone who ordered')).toEqual([patched]);
    });

    it('refuses a patch that cannot apply with 422 naming the operation, and writes nothing', async () => {
      const response = await ingest(patchProposal('status', [{ op: 'replace', path: '/nowhere/deep', value: true }]));
      expect(response.status).toBe(422);
      expect((response.json as { message: string }).message).toMatch(
        /Patch operation 0 \(replace \/nowhere\/deep\) cannot apply to aspect status/,
      );
      expect(Object.keys(await aspectsOf(patched))).not.toContain('status');
    });

    it('answers 412 when If-Version-Match does not hold, and writes nothing', async () => {
      const before = await http.get(`/aspects/${encodeURIComponent(patched)}?aspect=globalTags&version=0`);
      const response = await ingest(
        patchProposal('globalTags', [{ op: 'add', path: '/tags/urn:li:tag:late', value: { tag: 'urn:li:tag:late' } }], {
          'If-Version-Match': '1',
        }),
      );
      expect(response.status).toBe(412);
      expect((response.json as { message: string }).message).toBe('Expected version 1, actual version 2');
      const after = await http.get(`/aspects/${encodeURIComponent(patched)}?aspect=globalTags&version=0`);
      expect(after.json).toEqual(before.json);
    });

    it('keeps DataHub’s silent success for If-None-Match: * on CREATE of what exists, and says so', async () => {
      const response = await ingest({
        ...patchProposal('globalTags', { tags: [] }, { 'If-None-Match': '*' }),
        changeType: 'CREATE',
        aspect: { value: JSON.stringify({ tags: [] }), contentType: 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-strata-outcome')).toBe('UNCHANGED');
      expect((await aspectsOf(patched))['globalTags']?.value).toEqual({
        tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:gold' }],
      });
    });
  });

  describe('hard delete, as `datahub delete --hard` calls it', () => {
    const doomed = datasetUrn('shop.public.doomed', 'postgres');
    const profile = (timestampMillis: number) => mcp(doomed, 'datasetProfile', { timestampMillis, rowCount: 10 });
    const remove = (body: Record<string, unknown>) => http.post('/entities?action=delete', body, sink);

    it('deletes a timeseries aspect’s values in an inclusive range, then the whole entity, counting what went', async () => {
      const proposals = [
        mcp(doomed, 'datasetProperties', { customProperties: {}, name: 'doomed', tags: [] }),
        mcp(doomed, 'datasetProperties', { customProperties: {}, name: 'doomed', description: 'v2', tags: [] }),
        profile(1000),
        profile(2000),
        profile(3000),
      ];
      for (const proposal of proposals) {
        expect((await http.post('/aspects?action=ingestProposal', { proposal }, sink)).status).toBe(200);
      }
      const ranged = await remove({
        urn: doomed,
        aspectName: 'datasetProfile',
        startTimeMillis: 1500,
        endTimeMillis: 3000,
      });
      expect(ranged.json).toEqual({ value: { urn: doomed, timeseriesRows: 2 } });

      // Versions: datasetKey, browsePaths, browsePathsV2, dataPlatformInstance (1 each), datasetProperties (2).
      const whole = await remove({ urn: doomed });
      expect(whole.json).toEqual({ value: { urn: doomed, rows: 6, timeseriesRows: 1 } });
      expect(Object.keys(await aspectsOf(doomed))).toEqual(['datasetKey']);
      expect(await search('dataset', 'doomed')).toEqual([]);
      expect((await http.get(`/aspects/${encodeURIComponent(doomed)}?aspect=datasetKey&version=0`)).status).toBe(404);
    });

    it('answers a URN never written with nothing deleted, and refuses what it cannot do with a 400', async () => {
      const never = datasetUrn('never.written', 'postgres');
      expect((await remove({ urn: never })).json).toEqual({ value: { urn: never, rows: 0, timeseriesRows: 0 } });
      const versioned = await remove({ urn: never, aspectName: 'datasetProperties' });
      expect(versioned.status).toBe(400);
      expect((versioned.json as { message: string }).message).toBe(
        'Not supported for non-timeseries aspect datasetProperties.',
      );
      const unknown = await remove({ urn: 'urn:li:spaceship:x' });
      expect(unknown.status).toBe(400);
      expect((unknown.json as { message: string }).message).toBe(
        'Failed to find entity with name spaceship in EntityRegistry',
      );
    });
  });

  describe('references cleanup, as `datahub delete --hard` and `datahub delete references` call it', () => {
    const tag = 'urn:li:tag:NeedsDocs';
    const leaver = 'urn:li:corpuser:leaver';
    const folder = 'urn:li:container:8a1f0c2d3e4b5a6978c0d1e2f3a4b5c6';
    const tagged = datasetUrn('shop.public.tagged', 'postgres');
    const filed = datasetUrn('shop.public.filed', 'postgres');
    const references = async (urn: string, dryRun?: boolean) => {
      const response = await http.post(
        '/entities?action=deleteReferences',
        dryRun === undefined ? { urn } : { urn, dryRun },
        sink,
      );
      expect(response.status).toBe(200);
      return (response.json as { value: { total: number; relatedAspects: Record<string, string>[] } }).value;
    };
    const owners = (...owner: string[]) => ({
      owners: owner.map((urn) => ({ owner: urn, type: 'DATAOWNER' })),
      lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' },
    });

    it('finds the references to a hard-deleted tag, then takes them out of every aspect holding them', async () => {
      const field = {
        fieldPath: 'id',
        nativeDataType: 'int',
        type: { type: { 'com.linkedin.schema.NumberType': {} } },
        globalTags: { tags: [{ tag }] },
      };
      const batch = [
        mcp(tag, 'tagProperties', { name: 'Needs Documentation' }),
        mcp(tagged, 'globalTags', { tags: [{ tag }, { tag: 'urn:li:tag:gold' }] }),
        mcp(tagged, 'editableSchemaMetadata', {
          editableSchemaFieldInfo: [{ fieldPath: field.fieldPath, globalTags: field.globalTags }],
        }),
        mcp(tagged, 'ownership', owners(leaver, 'urn:li:corpuser:datahub')),
      ];
      for (const proposal of batch) {
        expect((await http.post('/aspects?action=ingestProposal', { proposal }, sink)).status).toBe(200);
      }
      // The CLI deletes the tag itself first; its references stay until cleaned.
      expect((await http.post('/entities?action=delete', { urn: tag }, sink)).status).toBe(200);

      const dry = await references(tag, true);
      expect(dry.total).toBe(2);
      expect(dry.relatedAspects.map((related) => Object.keys(related))).toEqual([
        ['relationship', 'entity', 'aspect'],
        ['relationship', 'entity', 'aspect'],
      ]);
      expect(dry.relatedAspects).toEqual(
        expect.arrayContaining([
          { relationship: 'TaggedWith', entity: tagged, aspect: 'globalTags' },
          { relationship: 'EditableSchemaFieldTaggedWith', entity: tagged, aspect: 'editableSchemaMetadata' },
        ]),
      );
      expect((await aspectsOf(tagged))['globalTags']?.value).toEqual({
        tags: [{ tag }, { tag: 'urn:li:tag:gold' }],
      });

      expect(await references(tag)).toEqual(dry); // dryRun defaults to false: this one cleans
      const cleaned = await aspectsOf(tagged);
      expect(cleaned['globalTags']?.value).toEqual({ tags: [{ tag: 'urn:li:tag:gold' }] });
      expect(cleaned['editableSchemaMetadata']?.value).toMatchObject({
        editableSchemaFieldInfo: [{ fieldPath: 'id', globalTags: { tags: [] } }],
      });
      expect(await search('dataset', 'tagged')).toEqual([tagged]);
      expect(await related(tag, 'TaggedWith,EditableSchemaFieldTaggedWith', 'INCOMING')).toEqual([]);
      expect(await references(tag, true)).toEqual({ total: 0, relatedAspects: [] });
    });

    it('drops an owner and deletes an aspect that was nothing but the reference', async () => {
      const batch = [mcp(filed, 'container', { container: folder }), mcp(filed, 'ownership', owners(leaver))];
      for (const proposal of batch) {
        expect((await http.post('/aspects?action=ingestProposal', { proposal }, sink)).status).toBe(200);
      }
      expect(await references(folder, false)).toEqual({
        total: 1,
        relatedAspects: [{ relationship: 'IsPartOf', entity: filed, aspect: 'container' }],
      });
      expect(await aspectsOf(filed)).not.toHaveProperty('container');
      expect(await related(folder, 'IsPartOf', 'INCOMING')).toEqual([]);

      expect((await references(leaver, false)).total).toBe(2); // tagged (above) and filed
      expect((await aspectsOf(filed))['ownership']?.value).toMatchObject({ owners: [] });
      expect((await aspectsOf(tagged))['ownership']?.value).toMatchObject({
        owners: [{ owner: 'urn:li:corpuser:datahub', type: 'DATAOWNER' }],
      });
    });

    it('answers a URN nothing references with nothing, and refuses what is no URN with a 400', async () => {
      expect(await references('urn:li:tag:unused', true)).toEqual({ total: 0, relatedAspects: [] });
      const bad = await http.post('/entities?action=deleteReferences', { urn: 'not a urn' }, sink);
      expect(bad.status).toBe(400);
      const unknown = await http.post('/entities?action=deleteReferences', { urn: 'urn:li:spaceship:x' }, sink);
      expect(unknown.status).toBe(400);
      expect((unknown.json as { message: string }).message).toBe(
        'Failed to find entity with name spaceship in EntityRegistry',
      );
    });
  });

  describe('the security entities, with authentication off', () => {
    const policy = {
      displayName: 'Everyone may manage policies',
      description: 'An escalation nobody anonymous may write',
      type: 'PLATFORM',
      state: 'ACTIVE',
      privileges: ['MANAGE_POLICIES'],
      actors: { allUsers: true },
    };
    const credentials = { salt: 'c2FsdA==', hashedPassword: 'scrypt$32768$8$1$AAAA' };
    const writes = [
      mcp('urn:li:dataHubPolicy:escalation', 'dataHubPolicyInfo', policy),
      mcp('urn:li:corpuser:datahub', 'corpUserCredentials', credentials),
    ];
    const bearer = async (user: string) => {
      const tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
      return { Authorization: `Bearer ${(await tokens.mint(user, 'SESSION', 3_600_000)).token}` };
    };

    it('refuses an anonymous write of credentials or a policy with 401, and a user without the privilege with 403', async () => {
      for (const proposal of writes) {
        const anonymous = await http.post('/aspects?action=ingestProposal', { proposal }, sink);
        expect(anonymous.status).toBe(401);
        expect((anonymous.json as { message: string }).message).toBe('Unauthorized to perform this action.');
      }
      const batch = await http.post(
        '/aspects?action=ingestProposalBatch',
        { proposals: [mcp(orders, 'status', { removed: false }), ...writes] },
        sink,
      );
      expect(batch.status).toBe(401);
      // Creating a user is a security write too: root does it.
      expect(
        (
          await http.post(
            '/aspects?action=ingestProposal',
            { proposal: mcp('urn:li:corpuser:reader', 'corpUserInfo', { active: true }) },
            { ...sink, ...(await bearer('datahub')) },
          )
        ).status,
      ).toBe(200);
      const reader = await http.post(
        '/aspects?action=ingestProposal',
        { proposal: writes[0] },
        { ...sink, ...(await bearer('reader')) },
      );
      expect(reader.status).toBe(403);
      expect((reader.json as { message: string }).message).toBe(
        'User urn:li:corpuser:reader is unauthorized to modify entity: HttpStatus: 403 Urn: urn:li:dataHubPolicy:escalation (dataHubPolicyInfo needs MANAGE_POLICIES)',
      );
      const deleting = await http.post('/entities?action=delete', { urn: 'urn:li:dataHubPolicy:0' }, sink);
      expect(deleting.status).toBe(401);
      // Nor does the audit trail open to anyone.
      const audit = await http.post('/openapi/v1/events/audit/search', {}, sink);
      expect(audit.status).toBe(401);
      expect(audit.json).toEqual({ error: 'Unauthorized to perform this action.' });
      const reading = await http.post('/openapi/v1/events/audit/search', {}, { ...sink, ...(await bearer('reader')) });
      expect(reading.status).toBe(403);
    });

    it('lets the root user write them, and never returns a password hash', async () => {
      const root = { ...sink, ...(await bearer('datahub')) };
      for (const proposal of writes) {
        expect((await http.post('/aspects?action=ingestProposal', { proposal }, root)).status).toBe(200);
      }
      expect(Object.keys(await aspectsOf('urn:li:corpuser:datahub'))).not.toContain('corpUserCredentials');
      const explicit = await http.get(
        `/entitiesV2/${encodeURIComponent('urn:li:corpuser:datahub')}?aspects=List(corpUserCredentials)`,
      );
      expect(Object.keys((explicit.json as { aspects: object }).aspects)).toEqual(['corpUserKey']);
      const version = await http.get(
        `/aspects/${encodeURIComponent('urn:li:corpuser:datahub')}?aspect=corpUserCredentials&version=0`,
      );
      expect(version.status).toBe(403);
      expect(JSON.stringify(version.json)).not.toContain('scrypt');
    });
  });

  describe('rollback of an ingestion run, as `datahub ingest rollback` calls it', () => {
    const kept = datasetUrn('warehouse.kept', 'postgres');
    const created = datasetUrn('warehouse.created', 'postgres');
    const ingestAs = async (runId: string, urn: string, aspectName: string, value: unknown) => {
      const proposal = { ...mcp(urn, aspectName, value), systemMetadata: { ...systemMetadata, runId } };
      expect((await http.post('/aspects?action=ingestProposal', { proposal }, sink)).status).toBe(200);
    };
    const properties = (description: string) => ({ customProperties: {}, description, tags: [] });
    const rollback = async (body: Record<string, unknown>) => {
      const response = await http.post('/runs?action=rollback', body, sink);
      expect(response.status).toBe(200);
      return (response.json as { value: Record<string, unknown> }).value;
    };

    it('reverts what a run wrote last, hides what it created, and keeps what other runs wrote (soft, the default)', async () => {
      await ingestAs('run-a', kept, 'datasetProperties', properties('from run a'));
      await ingestAs('run-b', kept, 'datasetProperties', properties('from run b'));
      await ingestAs('run-b', kept, 'globalTags', { tags: [{ tag: 'urn:li:tag:b' }] });
      await ingestAs('run-b', created, 'datasetProperties', properties('created by run b'));
      await ingestAs('run-c', created, 'globalTags', { tags: [{ tag: 'urn:li:tag:c' }] });

      const dry = await rollback({ runId: 'run-b', dryRun: true, safe: true });
      // The created entity's key and its three default aspects are the run's too; a soft dry run lists no key rows.
      expect(dry).toMatchObject({ entitiesAffected: 2, entitiesDeleted: 1, unsafeEntitiesCount: 1 });
      expect(dry).not.toHaveProperty('aspectsAffected');
      const rows = dry['aspectRowSummaries'] as {
        urn: string;
        aspectName: string;
        runId: string;
        keyAspect: boolean;
      }[];
      expect(rows.every((row) => row.runId === 'run-b' && !row.keyAspect)).toBe(true);
      expect((await aspectsOf(kept))['datasetProperties']?.value).toMatchObject({ description: 'from run b' });

      const done = await rollback({ runId: 'run-b', dryRun: false, safe: true });
      expect(done).toMatchObject({
        entitiesAffected: 2,
        entitiesDeleted: 1,
        aspectsAffected: 1,
        unsafeEntitiesCount: 1,
      });
      const keptAspects = await aspectsOf(kept);
      expect(keptAspects['datasetProperties']?.value).toMatchObject({ description: 'from run a' });
      expect(keptAspects).not.toHaveProperty('globalTags');
      const createdAspects = await aspectsOf(created);
      expect(createdAspects['status']?.value).toEqual({ removed: true });
      expect(createdAspects['globalTags']?.value).toEqual({ tags: [{ tag: 'urn:li:tag:c' }] });
      expect(createdAspects).not.toHaveProperty('datasetProperties');
    });

    it('removes the timeseries values a run wrote, and only those, counting them as DataHub does', async () => {
      const profiled = datasetUrn('warehouse.profiled', 'postgres');
      const day = 86_400_000;
      const t0 = 1_700_006_400_000; // a day's start, UTC
      const usage = (timestampMillis: number, user: string) => ({
        timestampMillis,
        eventGranularity: { unit: 'DAY', multiple: 1 },
        uniqueUserCount: 1,
        totalSqlQueries: 2,
        userCounts: [{ user: `urn:li:corpuser:${user}`, count: 2 }],
      });
      // Another run made the entity; run-t rewrites its properties and writes values beside run-u's.
      await ingestAs('run-t0', profiled, 'datasetProperties', properties('from run t0'));
      await ingestAs('run-t', profiled, 'datasetProperties', properties('from run t'));
      await ingestAs('run-t', profiled, 'datasetProfile', { timestampMillis: t0, rowCount: 1, columnCount: 2 });
      await ingestAs('run-t', profiled, 'datasetProfile', { timestampMillis: t0 + 1000, rowCount: 2, columnCount: 2 });
      await ingestAs('run-u', profiled, 'datasetProfile', { timestampMillis: t0 + 2000, rowCount: 3, columnCount: 2 });
      await ingestAs('run-t', profiled, 'datasetUsageStatistics', usage(t0, 'ann'));
      await ingestAs('run-u', profiled, 'datasetUsageStatistics', usage(t0 + day, 'bob'));
      const times = async (aspect: string) => {
        const response = await http.post(
          '/aspects?action=getTimeseriesAspectValues',
          { urn: profiled, entity: 'dataset', aspect, limit: 10 },
          sink,
        );
        expect(response.status).toBe(200);
        return (response.json as { value: { values: { aspect: { value: string } }[] } }).value.values.map(
          (found) => (JSON.parse(found.aspect.value) as { timestampMillis: number }).timestampMillis - t0,
        );
      };
      expect(await times('datasetProfile')).toEqual([2000, 1000, 0]);
      expect(await times('datasetUsageStatistics')).toEqual([day, 0]);

      // A dry run counts what DataHub's counts: the versioned values, no timeseries value; and removes nothing.
      const dry = await rollback({ runId: 'run-t', dryRun: true });
      expect(dry).toMatchObject({ entitiesAffected: 1, aspectsReverted: 1, entitiesDeleted: 0 });
      expect(await times('datasetProfile')).toEqual([2000, 1000, 0]);

      const done = await rollback({ runId: 'run-t', dryRun: false });
      // The properties, then the three timeseries values; the rows listed are the versioned ones, as in DataHub.
      expect(done).toMatchObject({ entitiesAffected: 1, aspectsReverted: 4, entitiesDeleted: 0 });
      expect((done['aspectRowSummaries'] as { aspectName: string }[]).map((row) => row.aspectName)).toEqual([
        'datasetProperties',
      ]);
      expect((await aspectsOf(profiled))['datasetProperties']?.value).toMatchObject({ description: 'from run t0' });
      await eventually(async () => {
        expect(await times('datasetProfile')).toEqual([2000]);
        expect(await times('datasetUsageStatistics')).toEqual([day]);
      });
      // Nothing of the run is left to roll back.
      expect(await rollback({ runId: 'run-t', dryRun: false })).toMatchObject({ aspectsReverted: 0 });
      expect(await times('datasetProfile')).toEqual([2000]);
    });

    it('deletes what a run created for good when hard, and refuses the reserved run id', async () => {
      const done = await rollback({ runId: 'run-a', dryRun: false, hardDelete: true });
      expect(done).toMatchObject({ entitiesDeleted: 1 });
      expect(Object.keys(await aspectsOf(kept))).toEqual(['datasetKey']);
      const reserved = await http.post('/runs?action=rollback', { runId: 'no-run-id-provided', dryRun: true }, sink);
      expect(reserved.status).toBe(400);
      expect((reserved.json as { message: string }).message).toMatch(/You cannot delete using this reserved run-id/);
    });
  });
});
