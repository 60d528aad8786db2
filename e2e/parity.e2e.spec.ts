/**
 * Parity: the same walk through every capability of the interface, with the same expectations, on each way Strata is
 * deployed — the standalone process on the embedded engines, the standalone process with its log on Kafka, and every
 * service its own process over Kafka behind a gateway (authentication on). The behaviours themselves are tested in
 * depth once, on the standalone process, by the other suites; this one proves each deployment answers them alike.
 * The deployments are shared with other suites (libs/testing/src/shared-deployments.ts): everything written here is
 * named after this run, and every call carries root's token, which works whether authentication is on or off.
 */
import { randomUUID } from 'node:crypto';
import { TokenService } from '@strata/auth';
import {
  datasetUrn,
  eventually,
  expositionLintProblems,
  expositionProblems,
  proposalOf,
  sharedDeployment,
  TestHttpClient,
  type SharedDeployment,
} from '@strata/testing';

const SYNC = { 'X-DataHub-Sync-Index-Update': 'true' };
const stamp = { time: 0, actor: 'urn:li:corpuser:datahub' };
const encoded = encodeURIComponent;

describe.each(['standalone', 'standalone-kafka', 'distributed'] as const)('%s', (name) => {
  const run = `parity_${name.replace('-', '_')}_${randomUUID().slice(0, 8)}`;
  const orders = datasetUrn(`${run}.orders`, 'hive');
  const customers = datasetUrn(`${run}.customers`, 'hive');
  const owner = `urn:li:corpuser:${run}_owner`;
  const tag = `urn:li:tag:${run}_pii`;
  let deployment: SharedDeployment;
  let http: TestHttpClient;
  let tokens: TokenService;
  let root: Record<string, string>;

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await http.post(path, body, { ...root, ...headers });
    expect({ path, status: response.status, body: response.json }).toMatchObject({ status: 200 });
    return response.json as { value: unknown } & Record<string, unknown>;
  };
  const get = async (path: string) => {
    const response = await http.get(path, root);
    expect({ path, status: response.status, body: response.json }).toMatchObject({ status: 200 });
    return response.json as Record<string, unknown>;
  };
  const ingest = (proposal: unknown, headers: Record<string, string> = SYNC) =>
    post('/aspects?action=ingestProposal', { proposal }, headers);
  const aspectsOf = async (urn: string) =>
    ((await get(`/entitiesV2/${encoded(urn)}`)) as { aspects: Record<string, { value: unknown }> }).aspects;
  const search = async (input: string, entity = 'dataset') =>
    ((await post('/entities?action=search', { input, entity, start: 0, count: 10 })).value as { entities: string[] })
      .entities;

  beforeAll(async () => {
    deployment = await sharedDeployment(name);
    http = new TestHttpClient(deployment.baseUrl);
    tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
    root = { Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}` };
  }, 120_000);

  it('describes itself to DataHub’s clients, and documents every route', async () => {
    expect(await get('/config')).toMatchObject({ noCode: 'true', patchCapable: true, statefulIngestionCapable: true });
    expect((await http.get('/health')).status).toBe(200);
    expect((await http.get('/restli/docs')).status).toBe(200);
    expect((await get('/openapi/v3/api-docs'))['openapi']).toBe('3.1.0');
  });

  it('ingests single proposals, batches and legacy snapshots, and reads them back in every shape', async () => {
    await ingest(
      proposalOf(orders, 'datasetProperties', { description: 'Orders of the parity run', customProperties: {} }),
    );
    await post(
      '/aspects?action=ingestProposalBatch',
      {
        proposals: [
          proposalOf(orders, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] }),
          proposalOf(customers, 'datasetProperties', {
            description: 'Customers of the parity run',
            customProperties: {},
          }),
        ],
      },
      SYNC,
    );
    const chart = `urn:li:chart:(looker,${run})`;
    const legacy = await http.post(
      '/entities?action=ingest',
      {
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.ChartSnapshot': {
              urn: chart,
              aspects: [
                {
                  'com.linkedin.chart.ChartInfo': {
                    title: `Chart of ${run}`,
                    description: 'parity',
                    lastModified: { created: stamp, lastModified: stamp },
                  },
                },
              ],
            },
          },
        },
      },
      root,
    );
    expect(legacy.status).toBe(200);

    const aspects = await aspectsOf(orders);
    expect(Object.keys(aspects).sort()).toEqual(
      expect.arrayContaining(['datasetKey', 'datasetProperties', 'ownership', 'browsePathsV2', 'dataPlatformInstance']),
    );
    const batch = (await get(`/entitiesV2?ids=List(${encoded(orders)},${encoded(customers)})`)) as {
      results: Record<string, unknown>;
    };
    expect(Object.keys(batch.results).sort()).toEqual([customers, orders].sort());
    const snapshot = (await get(`/entities/${encoded(chart)}`)) as { value: Record<string, { urn: string }> };
    expect(snapshot.value['com.linkedin.metadata.snapshot.ChartSnapshot']?.urn).toBe(chart);

    await ingest(
      proposalOf(orders, 'datasetProperties', { description: 'Orders, second version', customProperties: {} }),
    );
    const latest = await get(`/aspects/${encoded(orders)}?aspect=datasetProperties&version=0`);
    const first = await get(`/aspects/${encoded(orders)}?aspect=datasetProperties&version=1`);
    expect(await get(`/aspects/${encoded(orders)}?aspect=datasetProperties&version=-1`)).toMatchObject({
      aspect: first['aspect'],
    });
    expect(latest).toMatchObject({
      version: 0,
      aspect: { 'com.linkedin.dataset.DatasetProperties': { description: 'Orders, second version' } },
    });
    expect(first).toMatchObject({
      version: 1,
      aspect: { 'com.linkedin.dataset.DatasetProperties': { description: 'Orders of the parity run' } },
    });
  });

  it('searches, browses, autocompletes and follows relationships at once after a write that waited for them', async () => {
    expect(await search(`${run}.orders`)).toEqual([orders]);
    expect((await search(run)).sort()).toEqual([customers, orders].sort());
    const across = await post('/entities?action=searchAcrossEntities', { input: run, start: 0, count: 10 });
    expect((across.value as { numEntities: number }).numEntities).toBeGreaterThanOrEqual(2);
    const suggestions = await post('/entities?action=autocomplete', {
      query: `${run}.ord`,
      entity: 'dataset',
      limit: 5,
    });
    expect(suggestions.value).toMatchObject({ suggestions: [`${run}.orders`] });
    // A dataset's default browse path splits its name at the dots: /prod/hive/<run>/orders.
    const browse = await post('/entities?action=browse', { path: `/prod/hive/${run}`, entity: 'dataset', limit: 10 });
    expect((browse.value as { entities: { urn: string }[] }).entities.map((entity) => entity.urn)).toEqual(
      expect.arrayContaining([orders, customers]),
    );
    const owned = await get(`/relationships?urn=${encoded(owner)}&direction=INCOMING&types=List(OwnedBy)`);
    expect(owned['entities']).toEqual([orders]);
  });

  it('walks lineage over several hops, with every path, at once after the writes that waited for it', async () => {
    const source = datasetUrn(`${run}.lineage_source`, 'hive');
    const middle = datasetUrn(`${run}.lineage_middle`, 'hive');
    const end = datasetUrn(`${run}.lineage_end`, 'hive');
    const upstreams = (...urns: string[]) => ({
      upstreams: urns.map((urn) => ({ auditStamp: stamp, dataset: urn, type: 'TRANSFORMED' })),
    });
    await ingest(proposalOf(middle, 'upstreamLineage', upstreams(source)));
    await ingest(proposalOf(end, 'upstreamLineage', upstreams(middle, source)));
    const found = await post('/entities?action=searchAcrossLineage', {
      urn: source,
      direction: 'DOWNSTREAM',
      input: '*',
      start: 0,
      count: 10,
    });
    expect(found.value).toMatchObject({
      numEntities: 2,
      truncated: false,
      entities: [
        {
          entity: end,
          degree: 1,
          degrees: [1, 2],
          paths: [
            [source, end],
            [source, middle, end],
          ],
        },
        { entity: middle, degree: 1, paths: [[source, middle]] },
      ],
    });
    const lineage = await post('/relationships?action=getLineage', { urn: end, direction: 'UPSTREAM', maxHops: 2 });
    expect(lineage.value).toMatchObject({ total: 2, truncated: false });
  });

  it('serves the rest of DataHub’s toolbox: batch snapshots, versioned reads, column lineage, edge removal, registry deletes', async () => {
    const left = datasetUrn(`${run}.toolbox_left`, 'hive');
    const right = datasetUrn(`${run}.toolbox_right`, 'hive');
    const snapshot = (urn: string, description: string) => ({
      value: {
        'com.linkedin.metadata.snapshot.DatasetSnapshot': {
          urn,
          aspects: [{ 'com.linkedin.dataset.DatasetProperties': { description } }],
        },
      },
    });
    await post('/entities?action=batchIngest', { entities: [snapshot(left, 'first'), snapshot(right, 'only')] }, SYNC);
    await post('/entities?action=batchIngest', { entities: [snapshot(left, 'second')] }, SYNC);

    // Versioned reads: the first version of one, the latest of the other.
    const key = (urn: string, stamp: string) => encoded(`(${urn} , ${stamp})`);
    const versioned = (await get(
      `/entitiesVersionedV2?ids=List(${key(left, 'datasetProperties:1')},${key(right, '')})&entityType=dataset&aspects=List(datasetProperties)`,
    )) as { results: Record<string, { aspects: Record<string, { value: { description: string } }> }> };
    expect(versioned.results[left]?.aspects['datasetProperties']?.value.description).toBe('first');
    expect(versioned.results[right]?.aspects['datasetProperties']?.value.description).toBe('only');

    // Column lineage: right.id is DownstreamOf left.id, by right's fineGrainedLineages.
    const field = (urn: string, path: string) => `urn:li:schemaField:(${urn},${path})`;
    await ingest(
      proposalOf(right, 'upstreamLineage', {
        upstreams: [{ auditStamp: stamp, dataset: left, type: 'TRANSFORMED' }],
        fineGrainedLineages: [
          {
            upstreamType: 'FIELD_SET',
            upstreams: [field(left, 'id')],
            downstreamType: 'FIELD',
            downstreams: [field(right, 'id')],
          },
        ],
      }),
    );
    const relationships = (urn: string, direction: string) =>
      get(`/relationships?urn=${encoded(urn)}&direction=${direction}&types=List(DownstreamOf)`);
    expect(await relationships(field(right, 'id'), 'OUTGOING')).toMatchObject({
      total: 1,
      relationships: [{ type: 'DownstreamOf', entity: field(left, 'id') }],
    });

    // DELETE /relationships removes the node's edges both ways (right's to left; its annotated edge to left's field is
    // another node's); the aspects stay.
    const others = async (urn: string) =>
      ((await relationships(urn, 'OUTGOING')) as { relationships: { entity: string }[] }).relationships.map(
        ({ entity }) => entity,
      );
    expect(await others(right)).toContain(left);
    const removed = await http.send('DELETE', `/relationships?urn=${encoded(left)}`, undefined, root);
    expect(removed.status).toBe(200);
    await eventually(async () => {
      expect(await others(right)).toEqual([field(left, 'id')]);
    });
    expect(Object.keys(await aspectsOf(right))).toEqual(expect.arrayContaining(['upstreamLineage']));

    // deleteAll: what one registry version wrote is reverted, softly: the entity it created is hidden.
    const registered = datasetUrn(`${run}.toolbox_registry`, 'hive');
    await ingest({
      ...proposalOf(registered, 'datasetProperties', { description: 'by a registry', customProperties: {} }),
      systemMetadata: { registryName: `${run}-models`, registryVersion: '1.0.0' },
    });
    const dry = await post('/entities?action=deleteAll', { registryId: `${run}-models:1.0.0`, dryRun: true });
    expect(dry.value).toMatchObject({ entitiesAffected: 1, entitiesDeleted: 1 });
    await post('/entities?action=deleteAll', { registryId: `${run}-models:1.0.0`, dryRun: false });
    expect((await aspectsOf(registered))['status']?.value).toEqual({ removed: true });
  });

  it('patches with DataHub’s templates, refuses a stale conditional write, and hides a soft-deleted entity', async () => {
    await ingest({
      ...proposalOf(customers, 'globalTags', [{ op: 'add', path: `/tags/${tag}`, value: { tag } }], {
        changeType: 'PATCH',
      }),
    });
    expect((await aspectsOf(customers))['globalTags']?.value).toEqual({ tags: [{ tag }] });
    const tagged = await get(`/relationships?urn=${encoded(tag)}&direction=INCOMING&types=List(TaggedWith)`);
    expect(tagged['entities']).toEqual([customers]);
    const stale = await http.post(
      '/aspects?action=ingestProposal',
      {
        proposal: proposalOf(customers, 'globalTags', { tags: [] }, { headers: { 'If-Version-Match': '999' } }),
      },
      root,
    );
    expect(stale.status).toBe(412);

    await ingest(proposalOf(customers, 'status', { removed: true }));
    expect(await search(`${run}.customers`)).toEqual([]);
    await ingest(proposalOf(customers, 'status', { removed: false }));
    expect(await search(`${run}.customers`)).toEqual([customers]);
  });

  it('keeps timeseries values and answers them newest first', async () => {
    for (const timestampMillis of [1_000, 2_000, 3_000]) {
      await ingest(
        proposalOf(orders, 'datasetProfile', {
          timestampMillis,
          rowCount: timestampMillis,
          partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
        }),
      );
    }
    const values = await post('/aspects?action=getTimeseriesAspectValues', {
      urn: orders,
      entity: 'dataset',
      aspect: 'datasetProfile',
      limit: 2,
    });
    const points = (values.value as { values: { aspect: { value: string } }[] }).values.map(
      (value) => (JSON.parse(value.aspect.value) as { timestampMillis: number }).timestampMillis,
    );
    expect(points).toEqual([3_000, 2_000]);
  });

  it('applies an asynchronous batch proposal by proposal, and traces each write (DataHub’s trace API)', async () => {
    const table = datasetUrn(`${run}.async`);
    const written = await http.post(
      '/aspects?action=ingestProposalBatch',
      {
        proposals: [
          proposalOf(table, 'status', { removed: false }),
          proposalOf(table, 'datasetProperties', { description: 7 }),
        ],
        async: 'true',
      },
      root,
    );
    expect(written.status).toBe(200);
    const traceId = written.headers.get('traceparent')?.split('-')[1] ?? '';
    await eventually(
      async () => {
        const traced = await post(`/openapi/v1/trace/write/${traceId}?onlyIncludeErrors=false`, {
          [table]: ['status', 'datasetProperties'],
        });
        expect(traced).toMatchObject({
          [table]: {
            status: { success: true, searchStorage: { writeStatus: 'ACTIVE_STATE' } },
            datasetProperties: { success: false, primaryStorage: { writeStatus: 'ERROR' } },
          },
        });
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  });

  it('rolls back an ingestion run, and deletes references and entities for good', async () => {
    const runId = `${run}-ingestion`;
    const rolled = datasetUrn(`${run}.rolled`, 'postgres');
    await ingest({
      ...proposalOf(rolled, 'datasetProperties', { description: 'written by a run', customProperties: {} }),
      systemMetadata: { runId, lastObserved: Date.now() },
    });
    // A timeseries value of the run, on an entity the run did not create, and another run's beside it.
    const kept = datasetUrn(`${run}.rollback_kept`, 'hive');
    await ingest(proposalOf(kept, 'status', { removed: false }));
    const profile = (timestampMillis: number, ofRun: string) => ({
      ...proposalOf(kept, 'datasetProfile', {
        timestampMillis,
        rowCount: 7,
        partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
      }),
      systemMetadata: { runId: ofRun, lastObserved: Date.now() },
    });
    await ingest(profile(1_000, runId));
    await ingest(profile(2_000, `${runId}-other`));
    // A dry run counts the versioned values only (as DataHub's); the rollback counts the timeseries value too.
    const dry = (await post('/runs?action=rollback', { runId, dryRun: true, safe: false })).value as {
      aspectsReverted: number;
    };
    const rollback = await post('/runs?action=rollback', { runId, dryRun: false, safe: false });
    expect(rollback.value).toMatchObject({ entitiesDeleted: 1, aspectsReverted: dry.aspectsReverted + 1 });
    expect(Object.keys(await aspectsOf(rolled))).toEqual(['datasetKey']);
    await eventually(async () => {
      const values = await post('/aspects?action=getTimeseriesAspectValues', {
        urn: kept,
        entity: 'dataset',
        aspect: 'datasetProfile',
      });
      const points = (values.value as { values: { aspect: { value: string } }[] }).values.map(
        (value) => (JSON.parse(value.aspect.value) as { timestampMillis: number }).timestampMillis,
      );
      expect(points).toEqual([2_000]);
    });

    const references = await post('/entities?action=deleteReferences', { urn: tag, dryRun: true });
    expect(references.value).toMatchObject({ total: 1 });
    const deleted = await post('/entities?action=delete', { urn: customers }, SYNC);
    expect((deleted.value as { rows: number }).rows).toBeGreaterThan(0);
    expect(await search(`${run}.customers`)).toEqual([]);
  });

  it('makes, uses, lists and revokes personal tokens, and logs root in with its password', async () => {
    const made = await post('/openapi/v1/tokens', { name: run, duration: 'ONE_HOUR' });
    const personal = { Authorization: `Bearer ${String(made['accessToken'])}` };
    const id = (made['metadata'] as { id: string }).id;
    expect((await http.get(`/entitiesV2/${encoded(orders)}`, personal)).status).toBe(200);
    const listed = await get('/openapi/v1/tokens');
    expect((listed['tokens'] as { id: string }[]).map((token) => token.id)).toContain(id);
    const revoked = await http.send('DELETE', `/openapi/v1/tokens/${id}`, undefined, root);
    expect(revoked.status).toBe(204);
    expect((await http.get(`/entitiesV2/${encoded(orders)}`, personal)).status).toBe(401);

    const login = await http.post('/logIn', { username: 'datahub', password: deployment.rootPassword });
    expect(login.status).toBe(200);
    const session = { Authorization: `Bearer ${(login.json as { accessToken: string }).accessToken}` };
    expect((await http.get(`/entitiesV2/${encoded(orders)}`, session)).status).toBe(200);
  });

  it('records who changed what in the audit trail', async () => {
    await eventually(
      async () => {
        const answer = await post('/openapi/v1/events/audit/search', {
          entityTypes: ['dataset'],
          aspectTypes: ['ownership'],
        });
        const events = (answer as unknown as { usageEvents: { entityUrn?: string; actorUrn: string }[] }).usageEvents;
        expect(events.filter((event) => event.entityUrn === orders)).toEqual([
          expect.objectContaining({ actorUrn: 'urn:li:corpuser:datahub' }),
        ]);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('runs the index operations and evaluates metadata tests', async () => {
    const sizes = await post('/operations?action=getIndexSizes', {});
    expect(Array.isArray((sizes.value as { indexSizes?: unknown }).indexSizes)).toBe(true);
    const restored = await post('/operations?action=restoreIndices', { urn: orders, batchSize: 100 });
    expect(String(restored.value)).toMatch(/rowsMigrated=[1-9]/);

    const test = `urn:li:test:${run}`;
    await ingest(
      proposalOf(test, 'testInfo', {
        name: `Described (${run})`,
        category: 'Parity',
        definition: {
          type: 'JSON',
          json: JSON.stringify({
            on: { types: ['dataset'] },
            rules: { property: 'datasetProperties.description', operator: 'exists' },
          }),
        },
      }),
    );
    const evaluation = await post('/test?action=evaluate', { urn: orders, testUrns: [test] });
    expect(evaluation.value).toEqual({ passing: [{ test, type: 'SUCCESS' }], failing: [] });
  });

  it('exposes valid Prometheus metrics on every process, request metrics included', async () => {
    for (const [service, process] of Object.entries(deployment.processes)) {
      const metrics = await new TestHttpClient(process.baseUrl).get('/metrics');
      expect({ service, status: metrics.status }).toEqual({ service, status: 200 });
      // What `promtool check metrics` checks: the exposition format, and its lint (names, types, help).
      expect({ service, problems: expositionProblems(metrics.text) }).toEqual({ service, problems: [] });
      expect({ service, lint: expositionLintProblems(metrics.text) }).toEqual({ service, lint: [] });
      expect({ service, requests: metrics.text.includes('strata_http_requests_total{') }).toEqual({
        service,
        requests: true,
      });
      expect(metrics.text).toContain('process_cpu_seconds_total');
    }
  });

  it('refuses bad input alike, in the endpoint family’s error body', async () => {
    const invalid = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: proposalOf(orders, 'datasetProperties', { description: 7 }) },
      root,
    );
    expect(invalid.status).toBe(422);
    expect(invalid.json).toMatchObject({ status: 422, message: expect.stringContaining('datasetProperties') });
    const notJson = await http.post('/aspects?action=ingestProposal', '{"proposal":', root);
    expect(notJson.status).toBe(400);
    const openapi = await http.post('/openapi/v1/events/audit/search?size=0', {}, root);
    expect(openapi.status).toBe(400);
    expect(typeof (openapi.json as { error: unknown }).error).toBe('string');
  });
});
