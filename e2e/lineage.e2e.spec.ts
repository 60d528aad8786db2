/**
 * Multi-hop lineage over Rest.li, on the shared standalone process, over HTTP only: a small lineage graph written as
 * DataHub's emitters write it (`upstreamLineage` with `fineGrainedLineages` on datasets, a data job's
 * `dataJobInputOutput`) through `POST /aspects?action=ingestProposal` with `X-DataHub-Sync-Index-Update: true`, then
 * DataHub's request shapes for `searchAcrossLineage`, `scrollAcrossLineage` (`RestliEntityClient`) and the
 * `/relationships` `getLineage` action, and bad input answered with Rest.li's error body. Names are the run's own.
 *
 * The graph (an arrow points downstream):
 *
 *     ghost ─► raw ─► clean ─► features ─► raw (a cycle back to raw)
 *                       │          ▲
 *                       └► load ─► report
 *                        (job)
 *
 * `ghost` is named by raw's lineage but never written (the graph has it, the search index does not). Column-level
 * lineage (schema field to schema field, from `fineGrainedLineages`) has datasets of its own.
 */
import { randomUUID } from 'node:crypto';
import { sharedDeployment, TestHttpClient } from '@strata/testing';

const run = `lin${randomUUID().slice(0, 8)}`;
const restli = { 'X-RestLi-Protocol-Version': '2.0.0' };
const syncIndex = { ...restli, 'X-DataHub-Sync-Index-Update': 'true' };

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${run}.${name},PROD)`;
const field = (parent: string, path: string) => `urn:li:schemaField:(${parent},${path})`;
const [ghost, raw, clean, features, report, late] = ['ghost', 'raw', 'clean', 'features', 'report', 'late'].map(
  dataset,
) as [string, string, string, string, string, string];
const load = `urn:li:dataJob:(urn:li:dataFlow:(airflow,${run},PROD),load)`;
const actor = 'urn:li:corpuser:datahub';

let http: TestHttpClient;

/** What the Python emitter sends for one aspect (`emit_mcp`), read-your-writes. */
async function emit(entityUrn: string, aspectName: string, value: unknown): Promise<void> {
  const response = await http.post(
    '/aspects?action=ingestProposal',
    {
      proposal: {
        entityType: /^urn:li:([^:]+):/.exec(entityUrn)?.[1],
        entityUrn,
        changeType: 'UPSERT',
        aspectName,
        aspect: { value: JSON.stringify(value), contentType: 'application/json' },
      },
      async: 'false',
    },
    syncIndex,
  );
  expect({ status: response.status, body: response.json }).toEqual({ status: 200, body: { value: 'success' } });
}

const upstream = (urn: string, stamps: { created?: number; updated?: number } = {}) => ({
  auditStamp: { time: stamps.updated ?? 0, actor },
  ...(stamps.created === undefined ? {} : { created: { time: stamps.created, actor } }),
  dataset: urn,
  type: 'TRANSFORMED',
});

interface LineageSearchEntity {
  entity: string;
  degree: number;
  degrees: number[];
  paths: string[][];
  explored: boolean;
  truncatedChildren: boolean;
  ignoredAsHop: boolean;
  pathsTruncated: boolean;
}

interface LineageSearchValue {
  entities: LineageSearchEntity[];
  metadata: {
    aggregations: { name: string; aggregations: Record<string, number>; filterValues: unknown[] }[];
    suggestions: unknown[];
  };
  from: number;
  pageSize: number;
  numEntities: number;
  scrollId?: string;
  truncated: boolean;
  truncation: string[];
}

async function action<T>(path: string, body: Record<string, unknown>): Promise<T> {
  const response = await http.post(path, body, restli);
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return (response.json as { value: T }).value;
}

/** `RestliEntityClient.searchAcrossLineage`'s request. */
const searchAcrossLineage = (body: Record<string, unknown>) =>
  action<LineageSearchValue>('/entities?action=searchAcrossLineage', {
    entities: [],
    input: '*',
    start: 0,
    count: 10,
    ...body,
  });

const entitiesOf = (value: { entities: LineageSearchEntity[] }) =>
  value.entities.map((entity) => [entity.entity, entity.degree]);

beforeAll(async () => {
  http = new TestHttpClient((await sharedDeployment('standalone')).baseUrl);
  await emit(raw, 'upstreamLineage', { upstreams: [upstream(ghost), upstream(features)] });
  await emit(clean, 'upstreamLineage', {
    upstreams: [upstream(raw, { created: 1_000, updated: 2_000 })],
    fineGrainedLineages: [
      {
        upstreamType: 'FIELD_SET',
        upstreams: [field(raw, 'id')],
        downstreamType: 'FIELD',
        downstreams: [field(clean, 'id')],
      },
    ],
  });
  await emit(load, 'dataJobInputOutput', { inputDatasets: [clean], outputDatasets: [report] });
  await emit(features, 'upstreamLineage', {
    upstreams: [upstream(clean, { updated: 1_500 }), upstream(report, { updated: 9_000 })],
  });
  await emit(report, 'datasetProperties', { description: 'daily report', customProperties: {} });
});

describe('searchAcrossLineage (POST /entities?action=searchAcrossLineage)', () => {
  it('answers every entity downstream, with its degrees and every path, through the job and around the cycle', async () => {
    const value = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM' });
    expect(entitiesOf(value)).toEqual([
      [clean, 1],
      [load, 2],
      [features, 2],
      [report, 3],
    ]);
    const byUrn = Object.fromEntries(value.entities.map((entity) => [entity.entity, entity]));
    expect(byUrn[features]).toEqual({
      entity: features,
      matchedFields: [],
      degree: 2,
      degrees: [2, 4],
      paths: [
        [raw, clean, features],
        [raw, clean, load, report, features],
      ],
      explored: true,
      truncatedChildren: false,
      ignoredAsHop: false,
      pathsTruncated: false,
    });
    expect(byUrn[report]?.paths).toEqual([[raw, clean, load, report]]);
    expect(value).toMatchObject({ from: 0, pageSize: 10, numEntities: 4, truncated: false, truncation: [] });
    expect(value.metadata.aggregations[0]).toEqual({
      name: 'degree',
      displayName: 'Degree of Dependencies',
      aggregations: { '1': 1, '2': 2, '3+': 1 },
      filterValues: [
        { value: '1', facetCount: 1 },
        { value: '2', facetCount: 2 },
        { value: '3+', facetCount: 1 },
      ],
    });
  });

  it('leaves out what the catalog does not hold, and follows no schema-field edge as a hop', async () => {
    const value = await searchAcrossLineage({ urn: clean, direction: 'UPSTREAM', maxHops: 3 });
    // ghost is only named by raw's lineage; clean's fine-grained edge to raw's column is no hop.
    expect(entitiesOf(value)).toEqual([
      [raw, 1],
      [features, 2],
      [report, 3],
    ]);
  });

  it('narrows by degree filter, entity types, query text and maxHops, and pages', async () => {
    const degreeFilter = (values: string[]) => ({
      or: [{ and: [{ field: 'degree', values, condition: 'EQUAL' }] }],
    });
    const second = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM', filter: degreeFilter(['2']) });
    expect(entitiesOf(second)).toEqual([
      [load, 2],
      [features, 2],
    ]);
    const far = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM', filter: degreeFilter(['3+']) });
    expect(entitiesOf(far)).toEqual([[report, 3]]);
    const jobs = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM', entities: ['dataJob'] });
    expect(entitiesOf(jobs)).toEqual([[load, 2]]);
    const texted = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM', input: 'daily' });
    expect(entitiesOf(texted)).toEqual([[report, 3]]);
    const near = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM', maxHops: 1 });
    expect(entitiesOf(near)).toEqual([[clean, 1]]);
    expect(near.entities[0]).toMatchObject({ explored: false, truncatedChildren: false });
    const page = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM', start: 1, count: 2 });
    expect([entitiesOf(page), page.numEntities, page.from, page.pageSize]).toEqual([
      [
        [load, 2],
        [features, 2],
      ],
      4,
      1,
      2,
    ]);
  });

  it('follows only the edges alive between startTimeMillis and endTimeMillis', async () => {
    const value = await searchAcrossLineage({
      urn: raw,
      direction: 'DOWNSTREAM',
      startTimeMillis: 1_000,
      endTimeMillis: 3_000,
    });
    // raw→clean was updated at 2000 and clean→features at 1500; the job's edges are stamped when written (now).
    expect(entitiesOf(value)).toEqual([
      [clean, 1],
      [features, 2],
    ]);
  });

  it('sees an edge written with X-DataHub-Sync-Index-Update by the very next query', async () => {
    await emit(late, 'upstreamLineage', { upstreams: [upstream(report)] });
    const value = await searchAcrossLineage({ urn: raw, direction: 'DOWNSTREAM' });
    expect(entitiesOf(value)).toContainEqual([late, 4]);
    expect(value.entities.find((entity) => entity.entity === late)?.paths).toEqual([[raw, clean, load, report, late]]);
  });
});

describe('scrollAcrossLineage (POST /entities?action=scrollAcrossLineage)', () => {
  it('pages through the same answer with scrollId, which is absent on the last page', async () => {
    const request = { urn: features, direction: 'UPSTREAM', entities: [], input: '*', keepAlive: '5m', count: 2 };
    const first = await action<LineageSearchValue>('/entities?action=scrollAcrossLineage', request);
    expect(first).toMatchObject({ pageSize: 2, numEntities: 4, truncated: false });
    expect(first.scrollId).toEqual(expect.any(String));
    const second = await action<LineageSearchValue>('/entities?action=scrollAcrossLineage', {
      ...request,
      scrollId: first.scrollId,
    });
    expect(second.scrollId).toBeUndefined();
    expect([...entitiesOf(first), ...entitiesOf(second)]).toEqual([
      [clean, 1],
      [report, 1],
      [load, 2],
      [raw, 2],
    ]);
  });
});

describe('getLineage (POST /relationships?action=getLineage)', () => {
  it('answers the graph’s lineage, one hop by default, with the edges’ types and stamps', async () => {
    const value = await action<{
      start: number;
      count: number;
      total: number;
      filtered: number;
      relationships: Record<string, unknown>[];
      truncated: boolean;
    }>('/relationships?action=getLineage', { urn: clean, direction: 'UPSTREAM' });
    expect(value).toMatchObject({ start: 0, count: 1, total: 1, filtered: 0, truncated: false });
    expect(value.relationships[0]).toMatchObject({
      type: 'DownstreamOf',
      entity: raw,
      paths: [[clean, raw]],
      degree: 1,
      degrees: [1],
      createdOn: 1_000,
      createdActor: actor,
      updatedOn: 2_000,
      updatedActor: actor,
      isManual: false,
    });
  });

  it('includes what only the graph knows, over maxHops', async () => {
    const value = await action<{ relationships: { entity: string; degree: number; type: string }[] }>(
      '/relationships?action=getLineage',
      { urn: clean, direction: 'UPSTREAM', maxHops: 2, start: 0, count: 100 },
    );
    expect(value.relationships.map((relationship) => [relationship.entity, relationship.degree])).toEqual([
      [raw, 1],
      [features, 2],
      [ghost, 2],
    ]);
  });
});

describe('column-level lineage between schema fields (fineGrainedLineages)', () => {
  // a.id ─► b.id ─► c.key, each arrow a fine-grained entry of the downstream dataset's upstreamLineage.
  const [colA, colB, colC] = ['col_a', 'col_b', 'col_c'].map(dataset) as [string, string, string];
  const schemaOf = (...paths: string[]) => ({
    schemaName: 'columns',
    platform: 'urn:li:dataPlatform:hive',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: paths.map((fieldPath) => ({
      fieldPath,
      nullable: true,
      type: { type: { 'com.linkedin.schema.StringType': {} } },
      nativeDataType: 'string',
      recursive: false,
      isPartOfKey: false,
    })),
  });
  const columnLineage = (upstreamDataset: string, pairs: [string, string][]) => ({
    upstreams: [upstream(upstreamDataset)],
    fineGrainedLineages: pairs.map(([from, to]) => ({
      upstreamType: 'FIELD_SET',
      upstreams: [from],
      downstreamType: 'FIELD',
      downstreams: [to],
    })),
  });
  const relationshipsOf = async (urn: string, direction: string) => {
    const response = await http.get(
      `/relationships?urn=${encodeURIComponent(urn)}&direction=${direction}&types=List(DownstreamOf)`,
      restli,
    );
    expect(response.status).toBe(200);
    return (response.json as { relationships: { type: string; entity: string }[] }).relationships.map(
      (relationship) => [relationship.type, relationship.entity],
    );
  };

  beforeAll(async () => {
    await emit(colA, 'schemaMetadata', schemaOf('id', 'name'));
    await emit(colB, 'schemaMetadata', schemaOf('id', 'name'));
    await emit(colC, 'schemaMetadata', schemaOf('key'));
    await emit(colB, 'upstreamLineage', columnLineage(colA, [[field(colA, 'id'), field(colB, 'id')]]));
    await emit(colC, 'upstreamLineage', columnLineage(colB, [[field(colB, 'id'), field(colC, 'key')]]));
  });

  it('answers GET /relationships of a schema field: DownstreamOf from each downstream field to each upstream one', async () => {
    expect(await relationshipsOf(field(colB, 'id'), 'OUTGOING')).toEqual([['DownstreamOf', field(colA, 'id')]]);
    // Into b.id: c.key's column edge, and the edge c's lineage itself implies towards the fields it names upstream.
    expect(await relationshipsOf(field(colB, 'id'), 'INCOMING')).toEqual([
      ['DownstreamOf', colC],
      ['DownstreamOf', field(colC, 'key')],
    ]);
  });

  it('walks column lineage across hops: getLineage and searchAcrossLineage from a field', async () => {
    const upstreamOfKey = await action<{ relationships: { entity: string; degree: number; type: string }[] }>(
      '/relationships?action=getLineage',
      { urn: field(colC, 'key'), direction: 'UPSTREAM', maxHops: 2 },
    );
    expect(upstreamOfKey.relationships.map((relationship) => [relationship.entity, relationship.degree])).toEqual([
      [field(colB, 'id'), 1],
      [field(colA, 'id'), 2],
    ]);
    const downstreamOfId = await searchAcrossLineage({ urn: field(colA, 'id'), direction: 'DOWNSTREAM' });
    expect(entitiesOf(downstreamOfId)).toEqual([
      [field(colB, 'id'), 1],
      [field(colC, 'key'), 2],
    ]);
    expect(downstreamOfId.entities[1]?.paths).toEqual([[field(colA, 'id'), field(colB, 'id'), field(colC, 'key')]]);
  });

  it('replaces a dataset’s column edges when its lineage is rewritten: a field no longer named loses them', async () => {
    const [colD, colE] = [dataset('col_d'), dataset('col_e')];
    await emit(colE, 'upstreamLineage', columnLineage(colD, [[field(colD, 'id'), field(colE, 'id')]]));
    expect(await relationshipsOf(field(colE, 'id'), 'OUTGOING')).toEqual([['DownstreamOf', field(colD, 'id')]]);
    await emit(colE, 'upstreamLineage', columnLineage(colD, [[field(colD, 'name'), field(colE, 'name')]]));
    expect(await relationshipsOf(field(colE, 'id'), 'OUTGOING')).toEqual([]);
    expect(await relationshipsOf(field(colD, 'id'), 'INCOMING')).toEqual([]);
    expect(await relationshipsOf(field(colE, 'name'), 'OUTGOING')).toEqual([['DownstreamOf', field(colD, 'name')]]);
  });
});

describe('bad input, answered with a Rest.li 400', () => {
  it.each([
    ['an unknown direction', '/entities?action=searchAcrossLineage', { urn: raw, direction: 'SIDEWAYS' }, /direction/],
    ['a URN that does not parse', '/relationships?action=getLineage', { urn: 'raw', direction: 'UPSTREAM' }, /URN/],
    ['maxHops below 1', '/relationships?action=getLineage', { urn: raw, direction: 'UPSTREAM', maxHops: 0 }, /maxHops/],
    [
      'a degree the facet does not have',
      '/entities?action=searchAcrossLineage',
      { urn: raw, direction: 'UPSTREAM', filter: { or: [{ and: [{ field: 'degree', values: ['4'] }] }] } },
      /4 is not a valid filter value for degree filters/,
    ],
    [
      'a window that ends before it starts',
      '/entities?action=searchAcrossLineage',
      { urn: raw, direction: 'UPSTREAM', startTimeMillis: 5, endTimeMillis: 1 },
      /after endTimeMillis/,
    ],
    [
      'a scrollId of nothing Strata issued',
      '/entities?action=scrollAcrossLineage',
      { urn: raw, direction: 'UPSTREAM', keepAlive: '5m', count: 1, scrollId: 'garbage' },
      /scrollId/,
    ],
    ['a missing urn', '/relationships?action=getLineage', { direction: 'UPSTREAM' }, /urn/],
  ])('%s', async (_name, path, body, message) => {
    const response = await http.post(path, body, restli);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      exceptionClass: 'com.linkedin.restli.server.RestLiServiceException',
      status: 400,
      message: expect.stringMatching(message),
    });
  });
});
