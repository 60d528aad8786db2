/**
 * What DataHub's CLI and Python SDK call after ingestion, outside GraphQL, replayed as they send it (request shapes
 * read from DataHub's client code) against the standalone process: search in the shapes they parse, listing,
 * counting and scrolling, runs, relationships through the OpenAPI v1 path. Writes wait for the indices
 * (`X-DataHub-Sync-Index-Update`), so reads right after them see them. The suite starts a standalone process of its
 * own and stops it at the end; names still carry a per-run tag.
 */
import { randomUUID } from 'node:crypto';
import { TokenService } from '@strata/auth';
import {
  datasetUrn,
  eventually,
  ingestProposalBatchBody,
  proposalOf,
  startDeployment,
  TestHttpClient,
  type RunningDeployment,
} from '@strata/testing';

const tag = randomUUID().slice(0, 8);
const platform = `toolbox${tag}`;
const platformUrn = `urn:li:dataPlatform:${platform}`;
const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true' };
/** What DataHub's Python client sends with every request. */
const pythonClient = { 'X-RestLi-Protocol-Version': '2.0.0', 'X-DataHub-Py-Cli-Version': '1.2.0.1' };
const run = `toolbox-run-${tag}`;
const datasets = ['alpha', 'beta', 'gamma', 'delta'].map((name) => datasetUrn(`${name}_${tag}`, platform));
const domain = `urn:li:domain:toolbox-${tag}`;

let deployment: RunningDeployment;
let http: TestHttpClient;
/** The root user's credentials: the index operations need their privilege, authentication on or off. */
let root: Record<string, string>;

async function ingestAll(
  proposals: readonly ReturnType<typeof proposalOf>[],
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await http.post('/aspects?action=ingestProposalBatch', ingestProposalBatchBody(proposals), {
    ...syncIndex,
    ...headers,
  });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  deployment = await startDeployment('standalone');
  http = new TestHttpClient(deployment.baseUrl);
  const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
  root = { Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}` };
  const systemMetadata = { runId: run, lastObserved: 1_700_000_000_000 };
  await ingestAll([
    ...datasets.map((urn, index) =>
      proposalOf(
        urn,
        'datasetProperties',
        { name: urn.split(',')[1], description: `toolbox table ${index}`, customProperties: { rank: String(index) } },
        { systemMetadata },
      ),
    ),
    ...datasets.map((urn) =>
      proposalOf(urn, 'browsePaths', { paths: [`/prod/${platform}/warehouse`] }, { systemMetadata }),
    ),
    proposalOf(domain, 'domainProperties', { name: `Finance ${tag}` }, { systemMetadata }),
    proposalOf(datasets[0]!, 'domains', { domains: [domain] }, { systemMetadata }),
    proposalOf(datasets[1]!, 'upstreamLineage', {
      upstreams: [
        { auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' }, type: 'TRANSFORMED', dataset: datasets[0] },
      ],
    }),
  ]);
  // The last dataset is soft-deleted.
  await ingestAll([proposalOf(datasets[3]!, 'status', { removed: true }, { systemMetadata })]);
});

afterAll(async () => {
  await deployment.stop();
  deployment.cleanUp();
});

describe('search answers in the shape each caller parses', () => {
  const byPlatform = { or: [{ and: [{ field: 'platform', values: [platformUrn], condition: 'EQUAL' }] }] };

  it("answers DataHub's clients in the current shape: get_domain_urn_by_name's request and read", async () => {
    // DataHubGraph.get_domain_urn_by_name: a search of domains by name, reading value.entities[0]["entity"].
    const response = await http.post(
      '/entities?action=search',
      {
        input: '*',
        entity: 'domain',
        start: 0,
        count: 10,
        filter: { or: [{ and: [{ field: 'name', values: [`Finance ${tag}`], condition: 'EQUAL' }] }] },
      },
      pythonClient,
    );
    expect(response.status).toBe(200);
    const value = (response.json as { value: { entities: { entity: string }[]; metadata: unknown } }).value;
    expect(value.entities.map((entity) => entity.entity)).toEqual([domain]);
    expect(value.metadata).toEqual(expect.objectContaining({ aggregations: expect.any(Array), suggestions: [] }));
  });

  it('keeps the interface document’s shape for everyone else, and lets a caller or the server choose', async () => {
    const body = { input: '*', entity: 'dataset', start: 0, count: 10, filter: byPlatform };
    const plain = (await http.post('/entities?action=search', body)).json as {
      value: { entities: string[]; metadata: { urns: string[] } };
    };
    expect(plain.value.entities).toEqual(datasets.slice(0, 3).sort());
    expect(plain.value.metadata.urns).toEqual(plain.value.entities);
    const chosen = await http.post('/entities?action=search', body, { 'X-Strata-Response-Shape': 'current' });
    const current = (chosen.json as { value: { entities: { entity: string; matchedFields: unknown[] }[] } }).value;
    expect(current.entities.map((entity) => entity.entity)).toEqual(plain.value.entities);
    const facets = (
      chosen.json as { value: { metadata: { aggregations: { name: string; filterValues: unknown[] }[] } } }
    ).value.metadata.aggregations;
    expect(facets.find((facet) => facet.name === 'platform')?.filterValues).toEqual([
      { value: platformUrn, facetCount: 3 },
    ]);
    const wrong = await http.post('/entities?action=search', body, { 'X-Strata-Response-Shape': 'newest' });
    expect(wrong.status).toBe(400);
    expect((wrong.json as { message: string }).message).toContain('X-Strata-Response-Shape must be one of');
  });

  it("matches nothing of a type that lacks a filter's field: the CLI's --env expansion across every type", async () => {
    // `datahub delete --env PROD`'s filter groups (graph/filters.py), over every entity type.
    const response = await http.post(
      '/entities?action=searchAcrossEntities',
      {
        input: '*',
        start: 0,
        count: 100,
        filter: {
          or: [
            {
              and: [
                { field: 'origin', value: 'PROD', condition: 'EQUAL' },
                { field: 'platform.keyword', values: [platformUrn], condition: 'EQUAL' },
              ],
            },
            {
              and: [
                { field: 'customProperties', value: 'env=PROD' },
                { field: 'platform.keyword', values: [platformUrn] },
              ],
            },
            {
              and: [
                { field: 'env', value: 'PROD' },
                { field: 'platform.keyword', values: [platformUrn] },
              ],
            },
          ],
        },
      },
      pythonClient,
    );
    expect(response.status).toBe(200);
    const value = (response.json as { value: { numEntities: number; entities: { entity: string }[] } }).value;
    expect(value.entities.map((entity) => entity.entity).sort()).toEqual(datasets.slice(0, 3).sort());
  });

  it('honours searchFlags and sort', async () => {
    const base = { input: '*', entity: 'dataset', start: 0, count: 10, filter: byPlatform };
    const withDeleted = await http.post('/entities?action=search', {
      ...base,
      searchFlags: { includeSoftDeleted: true, skipAggregates: true, skipHighlighting: true, skipCache: true },
    });
    const value = (
      withDeleted.json as { value: { entities: string[]; metadata: { searchResultMetadatas: unknown[] } } }
    ).value;
    expect(value.entities).toEqual([...datasets].sort());
    expect(value.metadata.searchResultMetadatas).toEqual([]);
    const sorted = await http.post('/entities?action=search', {
      ...base,
      sortCriteria: [{ field: 'customProperties', order: 'DESCENDING' }],
    });
    expect((sorted.json as { value: { entities: string[] } }).value.entities).toEqual([
      datasets[2],
      datasets[1],
      datasets[0],
    ]);
  });

  it('answers browse and relationships in the current shape to DataHub’s clients', async () => {
    const browse = await http.post(
      '/entities?action=browse',
      { path: `/prod/${platform}/warehouse`, entity: 'dataset', start: 0, limit: 10 },
      pythonClient,
    );
    expect(browse.json).toEqual({
      value: expect.objectContaining({
        groups: [],
        numGroups: 0,
        numElements: 3,
        numEntities: 3,
        metadata: { path: `/prod/${platform}/warehouse`, totalNumEntities: 3 },
        entities: datasets
          .slice(0, 3)
          .sort()
          .map((urn) => ({ name: urn, urn })),
      }),
    });
    const relationships = await http.get(
      `/relationships?urn=${encodeURIComponent(datasets[1]!)}&direction=OUTGOING&types=List(DownstreamOf)`,
      pythonClient,
    );
    expect(relationships.json).toEqual({
      start: 0,
      count: 1,
      total: 1,
      relationships: [expect.objectContaining({ type: 'DownstreamOf', entity: datasets[0] })],
    });
  });
});

describe('listing, counting and scrolling', () => {
  it('lists URNs from the store, soft-deleted ones included (list_all_entity_urns)', async () => {
    const urns: string[] = [];
    let total = 0;
    // The SDK pages with start/count until a page comes back empty.
    for (let start = 0; ; start += 1000) {
      const response = await http.post(
        '/entities?action=listUrns',
        { entity: 'dataset', start, count: 1000 },
        pythonClient,
      );
      const value = (response.json as { value: { entities: string[]; total: number } }).value;
      total = value.total;
      if (value.entities.length === 0) break;
      urns.push(...value.entities);
    }
    expect(urns.length).toBe(total);
    for (const urn of datasets) expect(urns).toContain(urn);
    const unknown = await http.post('/entities?action=listUrns', { entity: 'nonsense', start: 0, count: 10 });
    expect(unknown.status).toBe(400);
  });

  it('counts aspects by URN pattern (get_aspect_counts) and entities by type', async () => {
    const count = await http.post(
      '/aspects?action=getCount',
      { aspect: 'datasetProperties', urnLike: `urn:li:dataset:(urn:li:dataPlatform:${platform},%` },
      pythonClient,
    );
    expect(count.json).toEqual({ value: 4 });
    const one = await http.post('/entities?action=getTotalEntityCount', { entity: 'domain' });
    expect((one.json as { value: number }).value).toBeGreaterThanOrEqual(1);
    const many = await http.post('/entities?action=batchGetTotalEntityCount', { entities: ['domain', 'dataset'] });
    expect(Object.keys((many.json as { value: Record<string, number> }).value).sort()).toEqual(['dataset', 'domain']);
  });

  it('filters, lists, answers existence, browse paths and the legacy batch get', async () => {
    const filter = { or: [{ and: [{ field: 'platform', values: [platformUrn] }] }] };
    const listed = await http.post('/entities?action=list', { entity: 'dataset', filter, start: 0, count: 2 });
    expect(listed.json).toEqual({
      value: { entities: datasets.slice(0, 3).sort().slice(0, 2), start: 0, count: 2, total: 3 },
    });
    const filtered = await http.post(
      '/entities?action=filter',
      { entity: 'dataset', filter, start: 0, count: 10 },
      pythonClient,
    );
    expect((filtered.json as { value: { numEntities: number } }).value.numEntities).toBe(3);

    const exists = (urn: string, includeSoftDelete?: boolean) =>
      http.post('/entities?action=exists', { urn, ...(includeSoftDelete === undefined ? {} : { includeSoftDelete }) });
    expect((await exists(datasets[3]!)).json).toEqual({ value: true });
    expect((await exists(datasets[3]!, false)).json).toEqual({ value: false });
    expect((await exists(datasetUrn(`never_${tag}`, platform))).json).toEqual({ value: false });
    expect((await exists('not a urn')).status).toBe(400);

    const paths = await http.post('/entities?action=getBrowsePaths', { urn: datasets[0] });
    expect(paths.json).toEqual({ value: [`/prod/${platform}/warehouse`] });

    const batch = await http.get(
      `/entities?ids=List(${encodeURIComponent(datasets[0]!)},nonsense)&aspects=List(datasetProperties)`,
    );
    const body = batch.json as {
      results: Record<string, { value: Record<string, { urn: string }> }>;
      errors: Record<string, unknown>;
    };
    expect(Object.values(body.results[datasets[0]!]!.value)[0]!.urn).toBe(datasets[0]);
    expect(Object.keys(body.errors)).toEqual(['nonsense']);
  });

  it('scrolls across entities page by page with a cursor, to the end', async () => {
    const seen: string[] = [];
    let scrollId: string | undefined;
    for (let page = 0; page < 10; page++) {
      const response = await http.post(
        '/entities?action=scrollAcrossEntities',
        {
          entities: ['dataset', 'domain'],
          input: '*',
          count: 2,
          filter: { or: [{ and: [{ field: 'platform', values: [platformUrn] }] }] },
          ...(scrollId === undefined ? {} : { scrollId }),
        },
        pythonClient,
      );
      expect(response.status).toBe(200);
      const value = (response.json as { value: { entities: { entity: string }[]; scrollId?: string } }).value;
      seen.push(...value.entities.map((entity) => entity.entity));
      scrollId = value.scrollId;
      if (scrollId === undefined) break;
    }
    expect(seen).toEqual(datasets.slice(0, 3).sort());
    // `datahub delete --batch-size 10000`: the largest page DataHub's CLI allows is one page here.
    const whole = await http.post(
      '/entities?action=scrollAcrossEntities',
      {
        entities: ['dataset'],
        input: '*',
        count: 10_000,
        filter: { or: [{ and: [{ field: 'platform', values: [platformUrn] }] }] },
      },
      pythonClient,
    );
    expect(whole.status).toBe(200);
    const wholeValue = (whole.json as { value: { entities: { entity: string }[]; scrollId?: string } }).value;
    expect(wholeValue.entities.map((entity) => entity.entity).sort()).toEqual(datasets.slice(0, 3).sort());
    expect(wholeValue.scrollId).toBeUndefined();
    const bad = await http.post('/entities?action=scrollAcrossEntities', { input: '*', count: 2, scrollId: 'garbage' });
    expect(bad.status).toBe(400);
  });
});

describe('maintenance actions answered truthfully', () => {
  it('accepts setWritable true, and refuses retention it does not have with a clear 400', async () => {
    // Switching writes off is e2e/write-switch.e2e.spec.ts's.
    const writable = await http.post('/entities?action=setWritable', { value: true });
    expect(writable.status).toBe(200);
    const retention = await http.post('/entities?action=applyRetention', { aspectName: 'datasetProperties' });
    expect(retention.status).toBe(400);
    expect((retention.json as { message: string }).message).toContain('Version retention is not supported');
  });
});

describe('ingestion runs (datahub ingest list-runs / show)', () => {
  it('lists the run and describes what it wrote', async () => {
    // `datahub ingest show --run-id X -a`: POST /runs?action=describe.
    const describe = await http.post(
      '/runs?action=describe',
      { runId: run, start: 0, count: 100, includeSoft: true, includeAspect: true },
      pythonClient,
    );
    const rows = (
      describe.json as { value: { urn: string; aspectName: string; aspect?: unknown; keyAspect: boolean }[] }
    ).value;
    // What the run wrote, and the key and default aspects its writes created with its run id.
    expect(new Set(rows.map((row) => row.urn))).toEqual(new Set([...datasets, domain]));
    expect(rows.filter((row) => row.aspectName === 'datasetProperties')).toHaveLength(4);
    expect(rows.filter((row) => row.keyAspect).map((row) => row.aspectName)).toContain('datasetKey');
    expect(rows.find((row) => row.urn === domain && row.aspectName === 'domainProperties')).toEqual(
      expect.objectContaining({ aspect: { name: `Finance ${tag}` }, keyAspect: false }),
    );
    const visible = (
      (await http.post('/runs?action=describe', { runId: run, start: 0, count: 100 })).json as {
        value: { urn: string }[];
      }
    ).value;
    expect(visible).toHaveLength(rows.filter((row) => row.urn !== datasets[3]).length);

    // `datahub ingest list-runs`: POST /runs?action=list {pageOffset, pageSize, includeSoft}.
    const list = await http.post(
      '/runs?action=list',
      { pageOffset: 0, pageSize: 1000, includeSoft: true },
      pythonClient,
    );
    expect(list.status).toBe(200);
    const runs = (list.json as { value: { runId: string; rows: number; timestamp: number }[] }).value;
    expect(runs.find((entry) => entry.runId === run)).toEqual({
      runId: run,
      rows: rows.length,
      timestamp: 1_700_000_000_000,
    });
    const withoutSoft = (
      (await http.post('/runs?action=list', { pageOffset: 0, pageSize: 1000, includeSoft: false })).json as {
        value: { runId: string; rows: number }[];
      }
    ).value;
    expect(withoutSoft.find((entry) => entry.runId === run)?.rows).toBe(visible.length);
    const missing = await http.post('/runs?action=describe', { start: 0, count: 10 });
    expect(missing.status).toBe(400);
  });
});

describe('relationships over the OpenAPI v1 path (datahub relationships query, migrate, get_related_entities)', () => {
  it('pages the related entities as the SDK reads them', async () => {
    const query = (direction: string, start = 0) =>
      http.get(
        `/openapi/relationships/v1/?urn=${encodeURIComponent(datasets[0]!)}&direction=${direction}&relationshipTypes=DownstreamOf&relationshipTypes=Consumes&start=${start}`,
        pythonClient,
      );
    const incoming = await query('INCOMING');
    expect(incoming.json).toEqual({
      start: 0,
      count: 1,
      total: 1,
      entities: [{ urn: datasets[1], relationshipType: 'DownstreamOf' }],
    });
    expect((await query('INCOMING', 1)).json).toEqual({ start: 1, count: 0, total: 1, entities: [] });
    const bad = await http.get(
      `/openapi/relationships/v1/?urn=${encodeURIComponent(datasets[0]!)}&direction=SIDEWAYS&relationshipTypes=X`,
    );
    expect(bad.status).toBe(400);
  });
});

describe('DELETE /relationships (Rest.li Relationships.delete)', () => {
  const relationships = async (urn: string, direction: string) => {
    const response = await http.get(
      `/relationships?urn=${encodeURIComponent(urn)}&direction=${direction}`,
      pythonClient,
    );
    expect(response.status).toBe(200);
    return (response.json as { total: number; relationships: { type: string; entity: string }[] }).relationships.map(
      (relationship) => [relationship.type, relationship.entity],
    );
  };

  it('removes every edge from and to the entity, answering 200 with an empty body; a new write brings them back', async () => {
    const [upstream, middle, downstream] = ['up', 'middle', 'down'].map((name) =>
      datasetUrn(`rel_${name}_${tag}`, platform),
    ) as [string, string, string];
    const owner = `urn:li:corpuser:toolbox-owner-${tag}`;
    const lineage = (of: string, time = 0) => ({
      upstreams: [{ auditStamp: { time, actor: 'urn:li:corpuser:datahub' }, type: 'TRANSFORMED', dataset: of }],
    });
    const ownership = {
      owners: [{ owner, type: 'DATAOWNER' }],
      lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' },
    };
    await ingestAll([
      proposalOf(middle, 'upstreamLineage', lineage(upstream)),
      proposalOf(downstream, 'upstreamLineage', lineage(middle)),
      proposalOf(middle, 'ownership', ownership),
      proposalOf(downstream, 'ownership', ownership),
    ]);
    expect(await relationships(middle, 'OUTGOING')).toEqual([
      ['DownstreamOf', upstream],
      ['OwnedBy', owner],
    ]);
    expect(await relationships(middle, 'INCOMING')).toEqual([['DownstreamOf', downstream]]);

    const removed = await http.send(
      'DELETE',
      `/relationships?urn=${encodeURIComponent(middle)}`,
      undefined,
      pythonClient,
    );
    expect({ status: removed.status, body: removed.text }).toEqual({ status: 200, body: '' });
    expect(await relationships(middle, 'OUTGOING')).toEqual([]);
    expect(await relationships(middle, 'INCOMING')).toEqual([]);
    // Other entities' edges stay; the aspects themselves are untouched.
    expect(await relationships(owner, 'INCOMING')).toEqual([['OwnedBy', downstream]]);
    expect(await relationships(downstream, 'OUTGOING')).toEqual([['OwnedBy', owner]]);
    const aspect = await http.get(
      `/aspects/${encodeURIComponent(middle)}?aspect=upstreamLineage&version=0`,
      pythonClient,
    );
    expect(aspect.status).toBe(200);

    // The graph is derived from the aspects: a write of one (a change: an unchanged value writes nothing) implies its
    // edges again.
    await ingestAll([proposalOf(downstream, 'upstreamLineage', lineage(middle, 1))]);
    expect(await relationships(middle, 'INCOMING')).toEqual([['DownstreamOf', downstream]]);
  });

  it('answers 400 for a urn that does not parse or is missing, removing nothing', async () => {
    for (const query of ['urn=not-a-urn', 'urn=', '']) {
      const response = await http.send('DELETE', `/relationships?${query}`, undefined, pythonClient);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.json).toMatchObject({
        exceptionClass: 'com.linkedin.restli.server.RestLiServiceException',
        status: 400,
      });
    }
  });
});

/** A Rest.li 2.0 list item as DataHub's Java client writes it in a URL: reserved characters percent-encoded. */
function restliItem(text: string): string {
  return encodeURIComponent(text).replace(/[()'!*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A Rest.li error body: its status and message. */
function restliError(response: { status: number; json: unknown }): { status: number; message: string } {
  const body = response.json as { status: number; message: string; exceptionClass: string };
  expect(body.exceptionClass).toBe('com.linkedin.restli.server.RestLiServiceException');
  return { status: response.status, message: body.message };
}

describe('versioned batch get (GET /entitiesVersionedV2, what DataHub’s services call in remote mode)', () => {
  const versioned = datasetUrn(`versioned_${tag}`, platform);
  const other = datasetUrn(`versioned_other_${tag}`, platform);
  const get = (ids: readonly string[], query = '') =>
    http.get(`/entitiesVersionedV2?ids=List(${ids.map(restliItem).join(',')})&entityType=dataset${query}`);
  type Answer = {
    results: Record<string, { urn: string; aspects: Record<string, { version: number; value: unknown }> }>;
    errors: Record<string, { status: number; message: string }>;
  };

  beforeAll(async () => {
    // datasetProperties three times: version 1 and 2 archived, the third the latest (version 0).
    for (const description of ['first', 'second', 'third']) {
      await ingestAll([proposalOf(versioned, 'datasetProperties', { description })]);
    }
    await ingestAll([
      proposalOf(versioned, 'status', { removed: false }),
      proposalOf(other, 'datasetProperties', { description: 'other' }),
    ]);
  });

  it('answers each URN at the versions its stamp names, keyed by the plain URN, as the Java client encodes them', async () => {
    const response = await get([`(${versioned} , datasetProperties:1;status:0)`, `(${other} , )`]);
    expect(response.status).toBe(200);
    const body = response.json as Answer;
    expect(Object.keys(body.results).sort()).toEqual([versioned, other].sort());
    const aspects = body.results[versioned]!.aspects;
    expect(Object.keys(aspects).sort()).toEqual(['datasetKey', 'datasetProperties', 'status']);
    expect(aspects['datasetProperties']).toMatchObject({ version: 1, value: { description: 'first' } });
    expect(aspects['status']).toMatchObject({ version: 0, value: { removed: false } });
    // An empty stamp: every aspect of the type at its latest.
    expect(body.results[other]!.aspects['datasetProperties']).toMatchObject({
      version: 0,
      value: { description: 'other' },
    });
    const second = (await get([`(${versioned} , datasetProperties:2)`], '&aspects=List(datasetProperties)'))
      .json as Answer;
    expect(second.results[versioned]!.aspects['datasetProperties']).toMatchObject({ value: { description: 'second' } });
    // The latest's own ordinal names no row: DataHub keeps the latest under version 0 only.
    const third = (await get([`(${versioned} , datasetProperties:3)`])).json as Answer;
    expect(Object.keys(third.results[versioned]!.aspects)).toEqual(['datasetKey']);
  });

  it('refuses what it cannot read with a 400 in Rest.li’s error body, and answers an unreadable URN under its key', async () => {
    expect(restliError(await get([`(${versioned} , datasetProperties)`]))).toEqual({
      status: 400,
      message: 'Invalid version stamp cannot be parsed: datasetProperties',
    });
    expect(restliError(await get([`(${versioned} , datasetProperties:latest)`]))).toEqual({
      status: 400,
      message: 'Invalid value for aspect version: latest',
    });
    expect(restliError(await get([versioned])).status).toBe(400);
    expect(restliError(await get([`(${versioned} , )`], '&aspects=List(nonsense)')).status).toBe(400);
    const untyped = await http.get(`/entitiesVersionedV2?ids=List(${restliItem(`(${versioned} , )`)})`);
    expect(restliError(untyped).status).toBe(400);
    const unreadable = (await get(['(not-a-urn , status:0)'])).json as Answer;
    expect(unreadable.errors['(not-a-urn , status:0)']).toMatchObject({ status: 400 });
  });
});

describe('deleting what a registry wrote (datahub delete by-registry: POST /entities?action=deleteAll)', () => {
  const registryName = `dq-model-${tag}`;
  const registryId = `${registryName}:0.0.1`;
  const under = (registryVersion: string) => ({
    runId: `registry-run-${tag}`,
    lastObserved: 1_700_000_000_000,
    registryName,
    registryVersion,
  });
  const created = datasetUrn(`registry_created_${tag}`, platform);
  const existing = datasetUrn(`registry_existing_${tag}`, platform);
  const latest = async (urn: string) =>
    (
      (await http.get(`/entitiesV2/${encodeURIComponent(urn)}`)).json as {
        aspects: Record<string, { value: Record<string, unknown> }>;
      }
    ).aspects;

  beforeAll(async () => {
    await ingestAll([proposalOf(existing, 'datasetProperties', { description: 'before the model' })]);
    await ingestAll([
      proposalOf(
        created,
        'datasetProperties',
        { description: 'made by the model' },
        { systemMetadata: under('0.0.1') },
      ),
      proposalOf(existing, 'datasetProperties', { description: 'the model’s' }, { systemMetadata: under('0.0.1') }),
      proposalOf(existing, 'globalTags', { tags: [] }, { systemMetadata: under('0.0.2') }),
    ]);
  });

  it('says what it would revert on a dry run, reverts it otherwise, and then finds nothing left', async () => {
    // What the CLI sends: `--dry-run` (soft by default), then `--hard`.
    const dry = await http.post('/entities?action=deleteAll', { registryId, dryRun: true, soft: true }, pythonClient);
    expect(dry.status).toBe(200);
    const value = (
      dry.json as {
        value: {
          entitiesAffected: number;
          aspectsAffected: number;
          entitiesDeleted: number;
          aspectRowSummaries: { urn: string; aspectName: string; keyAspect: boolean; runId: string }[];
        };
      }
    ).value;
    expect(value.entitiesAffected).toBe(2);
    expect(value.entitiesDeleted).toBe(1);
    expect(value.aspectsAffected).toBe(value.aspectRowSummaries.length);
    expect(value.aspectRowSummaries).toContainEqual(
      expect.objectContaining({
        urn: created,
        aspectName: 'datasetKey',
        keyAspect: true,
        runId: `registry-run-${tag}`,
      }),
    );
    expect(value.aspectRowSummaries).toContainEqual(
      expect.objectContaining({ urn: existing, aspectName: 'datasetProperties', keyAspect: false }),
    );
    expect(value.aspectRowSummaries.some((row) => row.aspectName === 'globalTags')).toBe(false);
    expect((await latest(existing))['datasetProperties']?.value).toEqual({ description: 'the model’s' });

    const done = await http.post(
      '/entities?action=deleteAll',
      { registryId, dryRun: false, soft: false },
      pythonClient,
    );
    expect(done.status).toBe(200);
    expect((done.json as { value: unknown }).value).toEqual(value);
    // The earlier value is back, what the model created is hidden, another version's values stay.
    expect((await latest(existing))['datasetProperties']?.value).toEqual({ description: 'before the model' });
    expect((await latest(existing))['globalTags']?.value).toEqual({ tags: [] });
    expect((await latest(created))['status']?.value).toEqual({ removed: true });
    const again = await http.post('/entities?action=deleteAll', { registryId, dryRun: true });
    expect((again.json as { value: unknown }).value).toEqual({
      entitiesAffected: 0,
      aspectsAffected: 0,
      entitiesDeleted: 0,
      aspectRowSummaries: [],
    });
  });

  it('refuses a registry id it cannot read, or none, with a 400 in Rest.li’s error body', async () => {
    expect(restliError(await http.post('/entities?action=deleteAll', { registryId: registryName }))).toEqual({
      status: 400,
      message: `Failed to parse registry id: ${registryName}`,
    });
    expect(restliError(await http.post('/entities?action=deleteAll', { dryRun: true })).status).toBe(400);
    expect(restliError(await http.post('/entities?action=deleteAll', { registryId, dryRun: 'yes' })).status).toBe(400);
  });
});

describe('restoring the indices of rows written in a window (restoreIndices with gePitEpochMs, lePitEpochMs)', () => {
  const first = datasetUrn(`pit_first_${tag}`, platform);
  const second = datasetUrn(`pit_second_${tag}`, platform);
  const urnLike = `urn:li:dataset:(urn:li:dataPlatform:${platform},pit_%`;
  /** When each entity's rows were written: the times of their `created` stamps. */
  const written = async (urn: string) =>
    Object.values(
      (
        (await http.get(`/entitiesV2/${encodeURIComponent(urn)}`)).json as {
          aspects: Record<string, { created?: { time: number } }>;
        }
      ).aspects,
    ).flatMap((aspect) => (aspect.created === undefined ? [] : [aspect.created.time]));
  const restore = async (window: Record<string, unknown>) => {
    const response = await http.post('/operations?action=restoreIndices', { urnLike, batchSize: 100, ...window }, root);
    expect(response.status).toBe(200);
    const value = String((response.json as { value: unknown }).value);
    return {
      rows: Number(/rowsMigrated=([0-9]+)/.exec(value)?.[1]),
      lastUrn: /lastUrn=(.*?), lastAspect=/.exec(value)?.[1],
    };
  };

  it('replays only the rows written in the window, bounds included', async () => {
    await ingestAll([proposalOf(first, 'datasetProperties', { description: 'first' })]);
    const firstTimes = await written(first);
    // The second entity is written once the clock has moved past every row of the first.
    await eventually(() => {
      expect(Date.now()).toBeGreaterThan(Math.max(...firstTimes));
    });
    await ingestAll([proposalOf(second, 'datasetProperties', { description: 'second' })]);
    const secondTimes = await written(second);

    const all = await restore({});
    const early = await restore({ gePitEpochMs: Math.min(...firstTimes), lePitEpochMs: Math.max(...firstTimes) });
    const late = await restore({ gePitEpochMs: Math.min(...secondTimes) });
    expect(early).toEqual({ rows: firstTimes.length, lastUrn: first });
    expect(late).toEqual({ rows: secondTimes.length, lastUrn: second });
    expect(all.rows).toBe(early.rows + late.rows);
    // A bound of 0 is unset, as in DataHub.
    expect(await restore({ gePitEpochMs: 0, lePitEpochMs: 0 })).toEqual(all);
  });

  it('refuses a bound that is no time, or a window ending before it starts, with a 400', async () => {
    const refused = async (window: Record<string, unknown>) =>
      restliError(await http.post('/operations?action=restoreIndices', { urnLike, ...window }, root)).status;
    expect(await refused({ gePitEpochMs: 'yesterday' })).toBe(400);
    expect(await refused({ gePitEpochMs: 2_000, lePitEpochMs: 1_000 })).toBe(400);
  });
});
