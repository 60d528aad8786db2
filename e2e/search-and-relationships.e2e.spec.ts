/**
 * DataHub's documented search, browse, autocomplete and relationships examples, against the standalone process, over
 * HTTP only (they ran on every deployment before; e2e/parity.e2e.spec.ts now shows the other deployments answer the
 * same, search, browse, autocomplete and relationships included). Writes ask for read-your-writes (`X-DataHub-Sync-Index-Update: true` or
 * `?wait=indexed`), so every read right after them must already see them: no polling.
 */
import {
  datasetUrn,
  ingestProposalBatchBody,
  ingestProposalBody,
  proposalOf,
  startDeployment,
  TestHttpClient,
  type RunningDeployment,
} from '@strata/testing';

const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true', 'X-RestLi-Protocol-Version': '2.0.0' };
const hdfsDataset = datasetUrn('SampleHdfsDataset', 'hdfs');
const hiveDataset = datasetUrn('SampleHiveDataset', 'hive');
const kafkaDataset = datasetUrn('SampleKafkaDataset', 'kafka');
const fbar = 'urn:li:corpuser:fbar';
const datahub = 'urn:li:corpuser:datahub';
const stamp = { time: 1581407189000, actor: 'urn:li:corpuser:jdoe' };

let http: TestHttpClient;

/** Ingests and waits for the indices (the header); the answer is DataHub's. */
async function ingest(entityUrn: string, aspectName: string, value: unknown, changeType = 'UPSERT'): Promise<void> {
  const response = await http.post(
    '/aspects?action=ingestProposal',
    ingestProposalBody(proposalOf(entityUrn, aspectName, value, { changeType })),
    syncIndex,
  );
  expect({ status: response.status, body: response.json }).toEqual({ status: 200, body: { value: 'success' } });
}

async function search(body: Record<string, unknown>) {
  const response = await http.post('/entities?action=search', { start: 0, count: 10, ...body });
  expect(response.status).toBe(200);
  return (response.json as { value: SearchValue }).value;
}

interface SearchValue {
  numEntities: number;
  pageSize: number;
  from: number;
  entities: string[];
  metadata: {
    urns: string[];
    matches: { matchedFields: { name: string; value: string }[] }[];
    searchResultMetadatas: { name: string; aggregations: Record<string, number> }[];
  };
}

async function relationships(query: string) {
  const response = await http.get(`/relationships?${query}`);
  expect(response.status).toBe(200);
  return response.json as { entities: string[]; total: number; relationships: { type: string; entity: string }[] };
}

describe('standalone', () => {
  let strata: RunningDeployment;

  beforeAll(async () => {
    strata = await startDeployment('standalone');
    http = new TestHttpClient(strata.baseUrl);

    await ingest(hdfsDataset, 'globalTags', { tags: [{ tag: 'urn:li:tag:Engineering' }] });
    await ingest(hdfsDataset, 'ownership', {
      owners: [
        { owner: fbar, type: 'DATAOWNER' },
        { owner: datahub, type: 'DATAOWNER' },
      ],
      lastModified: stamp,
    });
    await ingest(hiveDataset, 'datasetProperties', { description: 'Hive dataset of orders', customProperties: {} });
    await ingest(hiveDataset, 'ownership', { owners: [{ owner: fbar, type: 'DATAOWNER' }], lastModified: stamp });
    await ingest(kafkaDataset, 'upstreamLineage', {
      upstreams: [{ auditStamp: stamp, type: 'TRANSFORMED', dataset: hiveDataset }],
    });
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  describe('search (POST /entities?action=search)', () => {
    it('answers the exact-match example: tags:Engineering, with the matched field', async () => {
      const value = await search({ input: 'tags:Engineering', entity: 'dataset' });
      expect(value).toMatchObject({ numEntities: 1, pageSize: 10, from: 0, entities: [hdfsDataset] });
      expect(value.metadata.urns).toEqual([hdfsDataset]);
      expect(value.metadata.matches).toEqual([{ matchedFields: [{ name: 'tags', value: 'urn:li:tag:Engineering' }] }]);
    });

    it('searches the default fields, ANDs the terms, and reports facets', async () => {
      expect((await search({ input: 'sample', entity: 'dataset' })).entities).toHaveLength(3);
      expect((await search({ input: 'sample hive', entity: 'dataset' })).entities).toEqual([hiveDataset]);
      expect((await search({ input: 'orders', entity: 'dataset' })).entities).toEqual([hiveDataset]);
      expect((await search({ input: `owners:${fbar}`, entity: 'dataset' })).entities.sort()).toEqual(
        [hdfsDataset, hiveDataset].sort(),
      );
      const all = await search({ input: '*', entity: 'dataset' });
      expect(all.numEntities).toBe(3);
      const facets = Object.fromEntries(all.metadata.searchResultMetadatas.map((m) => [m.name, m.aggregations]));
      expect(facets['platform']).toEqual({
        'urn:li:dataPlatform:hdfs': 1,
        'urn:li:dataPlatform:hive': 1,
        'urn:li:dataPlatform:kafka': 1,
      });
      expect(facets['owners']).toEqual({ [fbar]: 2, [datahub]: 1 });
      expect(facets['origin']).toEqual({ PROD: 3 });
    });

    it('filters with OR-of-AND criteria given as value or values', async () => {
      const byValue = await search({
        input: '*',
        entity: 'dataset',
        filter: { or: [{ and: [{ field: 'platform', value: 'urn:li:dataPlatform:hive', condition: 'EQUAL' }] }] },
      });
      expect(byValue.entities).toEqual([hiveDataset]);
      const byValues = await search({
        input: '*',
        entity: 'dataset',
        filter: {
          or: [
            { and: [{ field: 'platform', values: ['urn:li:dataPlatform:kafka'] }] },
            {
              and: [
                { field: 'owners', values: [datahub] },
                { field: 'origin', value: 'PROD' },
              ],
            },
          ],
        },
      });
      expect(byValues.entities.sort()).toEqual([hdfsDataset, kafkaDataset].sort());
      const contains = await search({
        input: '*',
        entity: 'dataset',
        filter: { or: [{ and: [{ field: 'id', value: 'hdfs', condition: 'CONTAIN' }] }] },
      });
      expect(contains.entities).toEqual([hdfsDataset]);
    });

    it('pages with start and count and counts every match', async () => {
      const first = await search({ input: 'sample', entity: 'dataset', start: 0, count: 2 });
      const second = await search({ input: 'sample', entity: 'dataset', start: 2, count: 2 });
      expect(first).toMatchObject({ numEntities: 3, pageSize: 2, from: 0 });
      expect(second).toMatchObject({ numEntities: 3, pageSize: 2, from: 2 });
      expect([...first.entities, ...second.entities].sort()).toEqual([hdfsDataset, hiveDataset, kafkaDataset].sort());
    });
  });

  describe('browse (POST /entities?action=browse)', () => {
    it('lists the groups below a default browse path with counts, and the entities at it', async () => {
      const root = await http.post('/entities?action=browse', {
        path: '/prod',
        entity: 'dataset',
        start: 0,
        limit: 10,
      });
      expect(root.status).toBe(200);
      expect(root.json).toEqual({
        value: {
          numEntities: 0,
          pageSize: 10,
          from: 0,
          entities: [],
          metadata: {
            totalNumEntities: 3,
            path: '/prod',
            groups: [
              { name: 'hdfs', count: 1 },
              { name: 'hive', count: 1 },
              { name: 'kafka', count: 1 },
            ],
          },
        },
      });
      const leaf = await http.post('/entities?action=browse', {
        path: '/prod/hdfs',
        entity: 'dataset',
        start: 0,
        limit: 10,
      });
      expect(leaf.json).toMatchObject({
        value: {
          numEntities: 1,
          entities: [{ urn: hdfsDataset, name: 'hdfs' }],
          metadata: { totalNumEntities: 1, groups: [] },
        },
      });
    });
  });

  describe('autocomplete (POST /entities?action=autocomplete)', () => {
    it('suggests names that start with the query, up to the limit', async () => {
      const response = await http.post('/entities?action=autocomplete', {
        query: 'SampleH',
        entity: 'dataset',
        start: 0,
        limit: 10,
      });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({
        value: {
          query: 'SampleH',
          suggestions: ['SampleHdfsDataset', 'SampleHiveDataset'],
          entities: [{ urn: hdfsDataset }, { urn: hiveDataset }],
        },
      });
      const limited = await http.post('/entities?action=autocomplete', {
        query: 'sample',
        entity: 'dataset',
        limit: 1,
      });
      expect((limited.json as { value: { suggestions: string[] } }).value.suggestions).toHaveLength(1);
    });
  });

  describe('relationships (GET /relationships)', () => {
    it("answers the owner example: what fbar owns, INCOMING OwnedBy, in both of DataHub's shapes (documented and current)", async () => {
      const owned = await relationships(`direction=INCOMING&urn=${encodeURIComponent(fbar)}&types=OwnedBy`);
      expect(owned.entities).toEqual([hdfsDataset, hiveDataset]);
      expect(owned).toMatchObject({
        start: 0,
        count: 2,
        total: 2,
        relationships: [
          { type: 'OwnedBy', entity: hdfsDataset },
          { type: 'OwnedBy', entity: hiveDataset },
        ],
      });
    });

    it('follows lineage and several types in both list syntaxes, with paging', async () => {
      const upstreams = await relationships(
        `direction=OUTGOING&urn=${encodeURIComponent(kafkaDataset)}&types=DownstreamOf`,
      );
      expect(upstreams.entities).toEqual([hiveDataset]);
      const hdfs = encodeURIComponent(hdfsDataset);
      const both = await relationships(`direction=OUTGOING&urn=${hdfs}&types=List(OwnedBy,TaggedWith)`);
      expect(both.relationships).toEqual([
        { type: 'OwnedBy', entity: datahub, created: expect.any(Object) as unknown },
        { type: 'OwnedBy', entity: fbar, created: expect.any(Object) as unknown },
        { type: 'TaggedWith', entity: 'urn:li:tag:Engineering', created: expect.any(Object) as unknown },
      ]);
      const repeated = await relationships(
        `direction=OUTGOING&urn=${hdfs}&types=OwnedBy&types=TaggedWith&start=1&count=1`,
      );
      expect(repeated).toMatchObject({ entities: [fbar], start: 1, count: 1, total: 3 });
    });
  });

  describe('read-your-writes', () => {
    it('answers a write that changes nothing at once: there is no change log for the indexer to acknowledge', async () => {
      // The same tags again: UNCHANGED. Waiting for an acknowledgement here would end in a 504 after the timeout.
      await ingest(hdfsDataset, 'globalTags', { tags: [{ tag: 'urn:li:tag:Engineering' }] });
    });

    it('waits for every proposal of a batch', async () => {
      const urns = ['BatchOne', 'BatchTwo'].map((name) => datasetUrn(name, 'postgres'));
      const response = await http.post(
        '/aspects?action=ingestProposalBatch&wait=indexed',
        ingestProposalBatchBody(urns.map((urn) => proposalOf(urn, 'status', { removed: false }))),
      );
      expect(response.status).toBe(200);
      expect((await search({ input: 'Batch*', entity: 'dataset' })).entities.sort()).toEqual(urns.sort());
    });
  });

  describe('soft delete, restore and hard delete', () => {
    it('hides a soft-deleted entity from search, browse and autocomplete, and shows it again when restored', async () => {
      const urn = datasetUrn('ToBeRemoved', 'mysql');
      await ingest(urn, 'datasetProperties', { description: 'soon removed', customProperties: {} });
      expect((await search({ input: 'ToBeRemoved', entity: 'dataset' })).entities).toEqual([urn]);

      // The documented transition: a legacy ingest of Status with removed true.
      const removed = await http.post('/entities?action=ingest&wait=indexed', {
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {
              urn,
              aspects: [{ 'com.linkedin.common.Status': { removed: true } }],
            },
          },
        },
      });
      expect(removed.status).toBe(200);
      expect((await search({ input: 'ToBeRemoved', entity: 'dataset' })).entities).toEqual([]);
      const browse = await http.post('/entities?action=browse', { path: '/prod/mysql', entity: 'dataset', limit: 10 });
      expect(browse.json).toMatchObject({ value: { numEntities: 0, metadata: { totalNumEntities: 0 } } });
      const suggestions = await http.post('/entities?action=autocomplete', {
        query: 'ToBeRem',
        entity: 'dataset',
        limit: 5,
      });
      expect(suggestions.json).toMatchObject({ value: { suggestions: [] } });
      const named = await search({
        input: 'ToBeRemoved',
        entity: 'dataset',
        filter: { or: [{ and: [{ field: 'removed', value: 'true' }] }] },
      });
      expect(named.entities).toEqual([urn]);
      // The entity page is still there.
      expect((await http.get(`/entitiesV2/${encodeURIComponent(urn)}`)).status).toBe(200);

      await ingest(urn, 'status', { removed: false });
      expect((await search({ input: 'ToBeRemoved', entity: 'dataset' })).entities).toEqual([urn]);
    });

    it('leaves no document and no edge behind once the entity is deleted', async () => {
      const urn = datasetUrn('ToBeDeleted', 'mysql');
      const owner = 'urn:li:corpuser:deleter';
      await ingest(urn, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }], lastModified: stamp });
      expect((await relationships(`direction=INCOMING&urn=${owner}&types=OwnedBy`)).entities).toEqual([urn]);

      await ingest(urn, 'datasetKey', undefined, 'DELETE');

      expect((await search({ input: 'ToBeDeleted', entity: 'dataset' })).entities).toEqual([]);
      expect(
        (
          await search({
            input: 'ToBeDeleted',
            entity: 'dataset',
            filter: { or: [{ and: [{ field: 'removed', value: 'true' }] }] },
          })
        ).numEntities,
      ).toBe(0);
      expect(await relationships(`direction=INCOMING&urn=${owner}&types=OwnedBy`)).toMatchObject({
        entities: [],
        total: 0,
      });
      expect(await relationships(`direction=OUTGOING&urn=${encodeURIComponent(urn)}`)).toMatchObject({ total: 0 });
    });

    it('removes an aspect’s fields and edges when the aspect is deleted', async () => {
      await ingest(hdfsDataset, 'globalTags', undefined, 'DELETE');
      expect((await search({ input: 'tags:Engineering', entity: 'dataset' })).entities).toEqual([]);
      expect(
        await relationships(`direction=OUTGOING&urn=${encodeURIComponent(hdfsDataset)}&types=TaggedWith`),
      ).toMatchObject({ total: 0 });
      await ingest(hdfsDataset, 'globalTags', { tags: [{ tag: 'urn:li:tag:Engineering' }] });
    });
  });

  describe('bad input', () => {
    const restliError = (status: number, message: string | RegExp) => ({
      status,
      body: expect.objectContaining({
        exceptionClass: 'com.linkedin.restli.server.RestLiServiceException',
        status,
        message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
      }) as unknown,
    });

    it.each([
      ['an unknown entity', { input: '*', entity: 'nonsense' }, 'Unknown entity: nonsense'],
      ['a negative start', { input: '*', entity: 'dataset', start: -1 }, 'start must be ≥ 0'],
      ['a negative count', { input: '*', entity: 'dataset', count: -5 }, 'count must be ≥ 0'],
      [
        'a count over the limit',
        { input: '*', entity: 'dataset', count: 10_001 },
        'Result count exceeds limit of 10000',
      ],
      [
        'an unknown condition',
        {
          input: '*',
          entity: 'dataset',
          filter: { or: [{ and: [{ field: 'origin', value: 'PROD', condition: 'LIKE' }] }] },
        },
        'Unsupported condition: LIKE',
      ],
      [
        'a malformed filter',
        { input: '*', entity: 'dataset', filter: { or: [{ and: [{ value: 'PROD' }] }] } },
        "Missing required body field 'filter.or.0.and.0.field'",
      ],
      ['a filter that is not an object', { input: '*', entity: 'dataset', filter: 'platform=hive' }, 'filter'],
      ['unbalanced quotes', { input: '"orders', entity: 'dataset' }, 'a quote is not closed'],
      ['a missing input', { entity: 'dataset' }, "Missing required body field 'input'"],
    ])('answers 400 for %s in a search', async (_case, body, message) => {
      const response = await http.post('/entities?action=search', body);
      expect({ status: response.status, body: response.json }).toEqual(restliError(400, message));
    });

    it('answers 400 for bad browse, autocomplete and relationships requests', async () => {
      const browse = await http.post('/entities?action=browse', { path: '/', entity: 'dataset', limit: -1 });
      expect({ status: browse.status, body: browse.json }).toEqual(restliError(400, 'limit must be ≥ 0'));
      const autocomplete = await http.post('/entities?action=autocomplete', { query: 'x', entity: 'nope', limit: 5 });
      expect({ status: autocomplete.status, body: autocomplete.json }).toEqual(
        restliError(400, 'Unknown entity: nope'),
      );
      const direction = await http.get(`/relationships?direction=SIDEWAYS&urn=${encodeURIComponent(fbar)}`);
      expect({ status: direction.status, body: direction.json }).toEqual(
        restliError(400, 'direction must be INCOMING or OUTGOING'),
      );
      const missing = await http.get('/relationships?direction=INCOMING');
      expect({ status: missing.status, body: missing.json }).toEqual(restliError(400, "'urn'"));
      const count = await http.get(`/relationships?direction=INCOMING&urn=${encodeURIComponent(fbar)}&count=-1`);
      expect(count.status).toBe(400);
      const wait = await http.post(
        '/aspects?action=ingestProposal&wait=forever',
        ingestProposalBody(proposalOf(fbar, 'status', { removed: false })),
      );
      expect({ status: wait.status, body: wait.json }).toEqual(restliError(400, "wait must be 'indexed'"));
    });
  });

  describe('observability', () => {
    it('reports the indexer’s progress and lag, as a whole and per hook, and its metrics', async () => {
      const progress = await http.get('/openapi/operations/indices/progress');
      expect(progress.status).toBe(200);
      const report = progress.json as {
        indexer: string;
        recordsApplied: number;
        recordsSkipped: number;
        partitions: { lagMs: number }[];
        hooks: { hook: string; recordsApplied: number; partitions: { offset: string; lagMs: number }[] }[];
      };
      expect(report.indexer).toBe('search-indexer');
      expect(report.recordsApplied).toBeGreaterThan(0);
      expect(report.recordsSkipped).toBe(0);
      expect(report.partitions.length).toBeGreaterThan(0);
      expect(report.hooks.map((hook) => hook.hook)).toEqual(['search', 'graph']);
      for (const hook of report.hooks) {
        expect(hook.recordsApplied).toBeGreaterThan(0);
        expect(hook.partitions.length).toBeGreaterThan(0);
      }
      const metricsOwner = strata.processes['search-indexer'] ?? strata.processes['strata'];
      const metrics = await new TestHttpClient(metricsOwner?.baseUrl ?? '').get('/metrics');
      expect(metrics.status).toBe(200);
      for (const hook of ['search', 'graph']) {
        expect(metrics.text).toMatch(
          new RegExp(`strata_change_log_records_applied_total\\{consumer="search-indexer",hook="${hook}"\\} [1-9]`),
        );
      }
    });
  });
});
