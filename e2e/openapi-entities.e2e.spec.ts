/**
 * DataHub's OpenAPI entity endpoints, replayed the way its clients call them, against the shared standalone process:
 * the Python REST emitter in OpenAPI mode (`POST|PATCH /openapi/v3/entity/{type}?async=…`, its `traceparent`, the
 * SYNC_WAIT header among an aspect's headers, `DELETE /openapi/v3/entity/{type}/{urn}`), `DataHubGraph.get_entities`
 * (`batchGet`), `scroll_entities`, `get_entities_v2`, `scroll_relationships`, `get_entity_aspect_specs`, the Java
 * emitter's `POST /openapi/entities/v1/`; then existence, version reads, deletes, bad input and the read privileges
 * (on the shared standalone process with authentication on). Everything written is named after the run.
 */
import { randomUUID } from 'node:crypto';
import { TokenService } from '@strata/auth';
import { eventually, proposalOf, sharedDeployment, TestHttpClient, type TestResponse } from '@strata/testing';

const run = `oe${randomUUID().slice(0, 8)}`;
const PLATFORM = `urn:li:dataPlatform:${run}`;
const datasetOf = (name: string) => `urn:li:dataset:(${PLATFORM},${run}.${name},PROD)`;

/** The headers of the Python SDK's session (`RequestsSessionConfig.build_session`, the emitter's own). */
const SDK = {
  'X-RestLi-Protocol-Version': '2.0.0',
  'Content-Type': 'application/json',
  'User-Agent': 'DataHub-Client/1.0 (sdk; sdk; 1.2.0)',
  'X-DataHub-Client-Mode': 'SDK',
  'X-DataHub-Py-Cli-Version': '1.2.0',
};

/** `ensure_has_system_metadata`'s system metadata, as `SystemMetadataClass.to_obj()` writes it. */
const systemMetadata = {
  lastObserved: 1_760_000_000_000,
  runId: 'no-run-id-provided',
  lastRunId: 'no-run-id-provided',
  pipelineName: null,
  registryName: null,
  registryVersion: null,
  properties: { clientId: 'acryl-datahub', clientVersion: '1.2.0' },
  version: null,
};

/** One item of the emitter's OpenAPI payload (`OpenApiRequest.from_mcp`). */
function emitted(urn: string, aspectName: string, value: unknown, syncWait = false): Record<string, unknown> {
  return {
    urn,
    [aspectName]: {
      value,
      systemMetadata,
      headers: syncWait ? { 'X-DataHub-Sync-Index-Update': 'true' } : {},
    },
  };
}

/** What the emitter's `extract_trace_data` reads: the trace id of `traceparent`, and the aspects of each URN. */
function traceData(response: TestResponse): { traceId: string; data: Record<string, string[]> } {
  const traceparent = response.headers.get('traceparent') ?? '';
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const data: Record<string, string[]> = {};
  for (const item of response.json as Record<string, unknown>[]) {
    data[item['urn'] as string] = Object.keys(item).filter((key) => key !== 'urn' && item[key] !== null);
  }
  return { traceId: traceparent.split('-')[1] ?? '', data };
}

describe('OpenAPI entity endpoints, as DataHub clients call them', () => {
  let http: TestHttpClient;
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    http.send(method, path, body === undefined ? undefined : JSON.stringify(body), { ...SDK, ...headers });
  /** `DataHubGraph.get_entities`. */
  const getEntities = async (entity: string, urns: string[], aspects: string[] = [], withSystemMetadata = false) => {
    const response = await send(
      'POST',
      `/openapi/v3/entity/${entity}/batchGet${withSystemMetadata ? '?systemMetadata=true' : ''}`,
      urns.map((urn) => ({ urn, ...Object.fromEntries(aspects.map((aspect) => [aspect, {}])) })),
    );
    expect(response.status).toBe(200);
    return response.json as Record<string, unknown>[];
  };

  beforeAll(async () => {
    http = new TestHttpClient((await sharedDeployment('standalone')).baseUrl);
  }, 120_000);

  it('emits a batch synchronously (SYNC_PRIMARY) and reads it back as get_entities does', async () => {
    const orders = datasetOf('orders');
    const revenue = datasetOf('revenue');
    const response = await send('POST', '/openapi/v3/entity/dataset?async=false', [
      emitted(orders, 'datasetProperties', { name: 'orders', description: 'Every order', customProperties: {} }),
      emitted(orders, 'status', { removed: false }),
      emitted(revenue, 'datasetProperties', { name: 'revenue', customProperties: { team: 'finance' } }),
    ]);
    expect(response.status).toBe(200);
    expect(response.json).toEqual([
      {
        urn: orders,
        datasetProperties: { value: { name: 'orders', description: 'Every order', customProperties: {} } },
        status: { value: { removed: false } },
      },
      { urn: revenue, datasetProperties: { value: { name: 'revenue', customProperties: { team: 'finance' } } } },
    ]);
    expect(traceData(response).data).toEqual({
      [orders]: ['datasetProperties', 'status'],
      [revenue]: ['datasetProperties'],
    });

    const read = await getEntities('dataset', [orders, revenue], ['datasetProperties'], true);
    expect(read.map((entity) => entity['urn'])).toEqual([orders, revenue]);
    const properties = read[0]?.['datasetProperties'] as Record<string, Record<string, unknown>>;
    expect(properties['value']).toEqual({ name: 'orders', description: 'Every order', customProperties: {} });
    expect(properties['systemMetadata']).toMatchObject({
      runId: 'no-run-id-provided',
      lastObserved: 1_760_000_000_000,
    });
    expect(properties['auditStamp']).toMatchObject({ actor: expect.stringMatching(/^urn:li:corpuser:/) });

    // No aspects named: every stored aspect, the key included; an entity nothing was stored for is not answered.
    const whole = await getEntities('dataset', [orders, datasetOf('never-written')]);
    expect(whole).toHaveLength(1);
    expect(Object.keys(whole[0] ?? {})).toEqual(
      expect.arrayContaining(['urn', 'datasetKey', 'datasetProperties', 'status']),
    );
  });

  it('answers an asynchronous write (ASYNC, ASYNC_WAIT) 202 with the trace the proposals carry, and applies it', async () => {
    const urn = datasetOf('async');
    const response = await send('POST', '/openapi/v3/entity/dataset?async=true', [
      emitted(urn, 'datasetProperties', { name: 'async', customProperties: {} }),
    ]);
    expect(response.status).toBe(202);
    const trace = traceData(response);
    expect(trace.data).toEqual({ [urn]: ['datasetProperties'] });
    // A client's own traceparent names the trace.
    const given = 'aa'.repeat(16);
    const traced = await send('POST', '/openapi/v3/entity/dataset', [emitted(urn, 'status', { removed: false })], {
      traceparent: `00-${given}-${'bb'.repeat(8)}-01`,
    });
    expect(traced.status).toBe(202);
    expect(traceData(traced).traceId).toBe(given);
    // ASYNC_WAIT: the emitter asks the trace API about each traced write until none is pending (`_await_status`).
    for (const { traceId, data } of [trace, traceData(traced)]) {
      await eventually(async () => {
        const status = await send(
          'POST',
          `/openapi/v1/trace/write/${traceId}?onlyIncludeErrors=false&detailed=true`,
          data,
        );
        expect(status.status).toBe(200);
        const aspects =
          (
            status.json as Record<
              string,
              Record<string, Record<string, { writeStatus: string }> & { success: boolean }>
            >
          )[urn] ?? {};
        expect(Object.keys(aspects)).toEqual(data[urn]);
        for (const aspect of Object.values(aspects)) {
          expect(aspect).toMatchObject({ success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' } });
          expect(aspect['searchStorage']?.writeStatus).not.toBe('PENDING');
        }
      });
    }
    await eventually(async () => {
      expect(await getEntities('dataset', [urn], ['datasetProperties', 'status'])).toEqual([
        {
          urn,
          datasetProperties: { value: { name: 'async', customProperties: {} } },
          status: { value: { removed: false } },
        },
      ]);
    });
  });

  it('makes a SYNC_WAIT write searchable before answering, from the header among its aspect headers', async () => {
    const urn = datasetOf('searchable');
    const response = await send('POST', '/openapi/v3/entity/dataset?async=false', [
      emitted(urn, 'datasetProperties', { name: 'searchable', customProperties: {} }, true),
    ]);
    expect(response.status).toBe(200);
    const page = await send('POST', '/openapi/v3/entity/dataset/scroll?count=100', {
      aspects: ['datasetProperties'],
      filter: { or: [{ and: [{ field: 'platform', values: [PLATFORM], condition: 'EQUAL' }] }] },
    });
    expect(page.status).toBe(200);
    expect((page.json as { entities: { urn: string }[] }).entities.map((entity) => entity.urn)).toContain(urn);
  });

  it('patches like the emitter sends patch proposals, answering the value produced', async () => {
    const urn = datasetOf('patched');
    const tag = (name: string) => ({ tag: `urn:li:tag:${run}_${name}` });
    const patch = (name: string) => [{ op: 'add', path: `/tags/urn:li:tag:${run}_${name}`, value: tag(name) }];
    const first = await send('PATCH', '/openapi/v3/entity/dataset?async=false', [
      { urn, globalTags: { value: { patch: patch('pii') }, systemMetadata, headers: {} } },
    ]);
    expect(first.status).toBe(200);
    expect(first.json).toEqual([{ urn, globalTags: { value: { tags: [tag('pii')] } } }]);
    const second = await send('PATCH', '/openapi/v3/entity/dataset?async=false', [
      { urn, globalTags: { value: { patch: patch('gold') }, systemMetadata: null, headers: {} } },
    ]);
    expect(second.json).toEqual([{ urn, globalTags: { value: { tags: [tag('pii'), tag('gold')] } } }]);
    // One aspect by its own path, the generic form.
    const single = await send('PATCH', `/openapi/v3/entity/dataset/${urn}/globalTags`, {
      patch: [{ op: 'remove', path: `/tags/urn:li:tag:${run}_pii` }],
    });
    expect(single.status).toBe(200);
    expect(single.json).toEqual({ urn, globalTags: { value: { tags: [tag('gold')] } } });
  });

  it('scrolls entities as scroll_entities does: page after page until the scroll id is null', async () => {
    // A platform of their own: the scroll's filter keeps these five only.
    const platform = `urn:li:dataPlatform:${run}scroll`;
    const urns = ['s1', 's2', 's3', 's4', 's5'].map((name) => `urn:li:dataset:(${platform},${run}.${name},PROD)`);
    const written = await send(
      'POST',
      '/openapi/v3/entity/dataset?async=false',
      urns.map((urn, index) => emitted(urn, 'datasetProperties', { name: `s${index}`, customProperties: {} }, true)),
    );
    expect(written.status).toBe(200);
    const filter = { or: [{ and: [{ field: 'platform', values: [platform], condition: 'EQUAL' }] }] };
    const walk = async (path: string, body: Record<string, unknown>) => {
      const seen: string[] = [];
      const pages: number[] = [];
      let scrollId: string | null | undefined;
      let total = 0;
      do {
        const response = await send('POST', `${path}?count=2${scrollId ? `&scrollId=${scrollId}` : ''}`, body);
        expect(response.status).toBe(200);
        const page = response.json as { entities: { urn: string }[]; scrollId: string | null; totalCount: number };
        seen.push(...page.entities.map((entity) => entity.urn));
        pages.push(page.entities.length);
        scrollId = page.scrollId;
        total = page.totalCount;
      } while (scrollId !== null);
      return { seen, pages, total };
    };
    const ofType = await walk('/openapi/v3/entity/dataset/scroll', { aspects: ['datasetProperties'], filter });
    expect(ofType).toEqual({ seen: urns, pages: [2, 2, 1], total: 5 });

    const across = await walk('/openapi/v3/entity/scroll', {
      entities: ['dataset', 'chart'],
      aspects: ['datasetProperties'],
      filter,
    });
    expect(across.seen).toEqual(ofType.seen);

    const withAspects = await send('POST', '/openapi/v3/entity/dataset/scroll?count=100&systemMetadata=true', {
      aspects: ['datasetProperties'],
      filter,
    });
    const first = (withAspects.json as { entities: Record<string, Record<string, unknown>>[] }).entities.find(
      (entity) => entity['urn'] === (urns[0] as unknown),
    );
    expect(first?.['datasetProperties']).toMatchObject({
      value: { name: 's0' },
      systemMetadata: { runId: 'no-run-id-provided' },
    });
    expect(Object.keys(first ?? {})).toEqual(['urn', 'datasetProperties']);

    const get = await send(
      'GET',
      '/openapi/v3/entity/dataset?count=1&aspects=datasetProperties&sort=urn&sortOrder=ASCENDING',
    );
    expect(get.status).toBe(200);
    expect(get.json).toMatchObject({
      entities: expect.any(Array),
      scrollId: expect.any(String),
      totalCount: expect.any(Number),
    });
  });

  it('reads a batch in the version 2 shape, as get_entities_v2 does', async () => {
    const urn = datasetOf('orders');
    const response = await send('POST', '/openapi/v2/entity/batch/dataset', {
      urns: [urn, datasetOf('never-written')],
      aspectNames: ['datasetProperties'],
      withSystemMetadata: true,
    });
    expect(response.status).toBe(200);
    const entities = (
      response.json as { entities: { urn: string; aspects: Record<string, Record<string, unknown>> }[] }
    ).entities;
    expect(entities.map((entity) => entity.urn)).toEqual([urn, datasetOf('never-written')]);
    expect(entities[0]?.aspects['datasetProperties']).toMatchObject({
      value: { name: 'orders' },
      systemMetadata: { runId: 'no-run-id-provided' },
    });
    expect(entities[1]?.aspects).toEqual({});
  });

  it("upserts what the Java emitter sends, unions written the generated models' way", async () => {
    const urn = datasetOf('java');
    const request = [
      {
        entityType: 'dataset',
        entityUrn: urn,
        aspect: {
          __type: 'SchemaMetadata',
          schemaName: 'java',
          platform: PLATFORM,
          version: 0,
          hash: '',
          platformSchema: { __type: 'MySqlDDL', tableSchema: 'schema' },
          fields: [
            {
              fieldPath: 'id',
              nativeDataType: 'int',
              recursive: false,
              nullable: false,
              type: { type: { __type: 'NumberType' } },
            },
          ],
        },
      },
      { entityType: 'dataset', entityUrn: urn, aspect: { __type: 'DatasetProperties', description: 'From Java' } },
    ];
    const first = await send('POST', '/openapi/entities/v1/', request, { Accept: 'application/json' });
    expect(first.status).toBe(201);
    expect(first.json).toEqual([urn, urn]);
    const again = await send('POST', '/openapi/entities/v1/', request);
    expect([again.status, again.json]).toEqual([200, []]);
    const read = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=schemaMetadata&version=0`);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      aspect: {
        'com.linkedin.schema.SchemaMetadata': {
          platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: 'schema' } },
          fields: [{ fieldPath: 'id', type: { type: { 'com.linkedin.schema.NumberType': {} } } }],
        },
      },
    });
  });

  it('answers whether an entity or an aspect exists (HEAD), soft-deleted ones only when asked', async () => {
    const urn = datasetOf('exists');
    await send('POST', '/openapi/v3/entity/dataset?async=false', [
      emitted(urn, 'datasetProperties', { customProperties: {} }),
    ]);
    const head = async (path: string) => (await http.send('HEAD', path, undefined, SDK)).status;
    expect(await head(`/openapi/v3/entity/dataset/${urn}`)).toBe(204);
    expect(await head(`/openapi/v3/entity/dataset/${encodeURIComponent(urn)}`)).toBe(204);
    expect(await head(`/openapi/v3/entity/dataset/${urn}/datasetProperties`)).toBe(204);
    expect(await head(`/openapi/v3/entity/dataset/${urn}/globalTags`)).toBe(404);
    expect(await head(`/openapi/v3/entity/dataset/${datasetOf('never-written')}`)).toBe(404);

    await send('POST', '/openapi/v3/entity/dataset?async=false', [emitted(urn, 'status', { removed: true })]);
    expect(await head(`/openapi/v3/entity/dataset/${urn}`)).toBe(404);
    expect(await head(`/openapi/v3/entity/dataset/${urn}?includeSoftDelete=true`)).toBe(204);
  });

  it('reads versions through If-Version-Match, and writes conditionally on it', async () => {
    const urn = datasetOf('versions');
    for (const description of ['first', 'second', 'third']) {
      const written = await send('POST', '/openapi/v3/entity/dataset?async=false', [
        emitted(urn, 'datasetProperties', { description, customProperties: {} }),
      ]);
      expect(written.status).toBe(200);
    }
    const versioned = await send('POST', '/openapi/v3/entity/dataset/batchGet', [
      { urn, datasetProperties: { headers: { 'If-Version-Match': '1' } } },
    ]);
    expect(versioned.json).toEqual([
      { urn, datasetProperties: { value: { description: 'first', customProperties: {} } } },
    ]);
    const byHeader = await send('GET', `/openapi/v3/entity/dataset/${urn}/datasetProperties`, undefined, {
      'If-Version-Match': '2',
    });
    expect(byHeader.json).toEqual({ value: { description: 'second', customProperties: {} } });
    const byParam = await send(
      'GET',
      `/openapi/v3/entity/dataset/${urn}/datasetProperties?version=0&systemMetadata=true`,
    );
    const latest = byParam.json as { value: unknown; systemMetadata: { version?: string } };
    expect(latest.value).toEqual({ description: 'third', customProperties: {} });
    const missing = await send('GET', `/openapi/v3/entity/dataset/${urn}/datasetProperties?version=9`);
    expect([missing.status, missing.headers.get('not-found-reason')]).toEqual([404, 'ENTITY']);

    const current = latest.systemMetadata.version ?? '';
    const conditional = (version: string, description: string) =>
      send('POST', '/openapi/v3/entity/dataset?async=false', [
        {
          urn,
          datasetProperties: { value: { description, customProperties: {} }, headers: { 'If-Version-Match': version } },
        },
      ]);
    const refused = await conditional('1', 'stale');
    expect(refused.status).toBe(412);
    expect(refused.json).toEqual({ error: expect.stringContaining('Expected version 1') });
    expect((await conditional(current, 'fourth')).status).toBe(200);
    const now = await send('GET', `/openapi/v3/entity/dataset/${urn}/datasetProperties`);
    expect(now.json).toEqual({ value: { description: 'fourth', customProperties: {} } });
  });

  it('reads one entity, and answers 404 with Not-Found-Reason when there is nothing', async () => {
    const urn = datasetOf('orders');
    const entity = await send('GET', `/openapi/v3/entity/dataset/${urn}?aspects=status,datasetProperties`);
    expect(entity.status).toBe(200);
    expect(Object.keys(entity.json as object).sort()).toEqual(['datasetProperties', 'status', 'urn']);
    const absent = await send('GET', `/openapi/v3/entity/dataset/${datasetOf('never-written')}`);
    expect(absent.status).toBe(404);
    expect(absent.headers.get('not-found-reason')).toBe('ENTITY');
    expect(absent.json).toEqual({ error: expect.stringContaining('never-written') });
  });

  it('deletes an aspect, clears an entity, and deletes one for good, as the emitter sends DELETE', async () => {
    const urn = datasetOf('deleted');
    await send('POST', '/openapi/v3/entity/dataset?async=false', [
      emitted(urn, 'datasetProperties', { customProperties: {} }),
      emitted(urn, 'status', { removed: false }),
      emitted(urn, 'globalTags', { tags: [] }),
    ]);
    const head = async (path: string) => (await http.send('HEAD', path, undefined, SDK)).status;

    const aspect = await send('DELETE', `/openapi/v3/entity/dataset/${urn}/globalTags`);
    expect(aspect.status).toBe(200);
    expect(aspect.headers.get('traceparent')).toMatch(/^00-/);
    expect(await head(`/openapi/v3/entity/dataset/${urn}/globalTags`)).toBe(404);
    expect(await head(`/openapi/v3/entity/dataset/${urn}/status`)).toBe(204);

    expect((await send('DELETE', `/openapi/v3/entity/dataset/${urn}?clear=true`)).status).toBe(200);
    expect(await head(`/openapi/v3/entity/dataset/${urn}`)).toBe(204);
    expect(Object.keys((await getEntities('dataset', [urn]))[0] ?? {})).toEqual(['urn', 'datasetKey']);

    expect((await send('DELETE', `/openapi/v3/entity/dataset/${urn}`)).status).toBe(200);
    expect(await head(`/openapi/v3/entity/dataset/${urn}`)).toBe(404);
    expect(await getEntities('dataset', [urn])).toEqual([]);
  });

  it('lists the entity registry as get_entity_aspect_specs reads it', async () => {
    const all = await send('GET', '/openapi/v1/registry/models/entity/specifications?start=0&count=1000');
    expect(all.status).toBe(200);
    const page = all.json as { elements: Record<string, unknown>[]; start: number; count: number; total: number };
    expect(page.count).toBe(page.total);
    const dataset = page.elements.find((element) => element['name'] === 'dataset');
    expect(dataset).toMatchObject({
      keyAspectName: 'datasetKey',
      keyAspectSpec: { aspectAnnotation: { name: 'datasetKey' } },
    });
    const names = (dataset?.['aspectSpecs'] as { aspectAnnotation: { name: string } }[]).map(
      (spec) => spec.aspectAnnotation.name,
    );
    expect(names).toEqual(expect.arrayContaining(['datasetProperties', 'schemaMetadata', 'datasetProfile']));

    const second = await send('GET', '/openapi/v1/registry/models/entity/specifications?start=5&count=5');
    expect(second.json).toMatchObject({ start: 5, count: 5, total: page.total });
    expect((second.json as { elements: unknown[] }).elements).toEqual(page.elements.slice(5, 10));
    const one = await send('GET', '/openapi/v1/registry/models/entity/specifications/dataset');
    expect(one.json).toMatchObject({ name: 'dataset', aspectSpecs: dataset?.['aspectSpecs'] });
    expect((await send('GET', '/openapi/v1/registry/models/entity/specifications/nope')).status).toBe(404);
  });

  it('scrolls relationships as scroll_relationships does', async () => {
    const upstream = datasetOf('lineage-up');
    const downstreams = ['lineage-a', 'lineage-b', 'lineage-c'].map(datasetOf);
    const lineage = {
      upstreams: [{ auditStamp: { time: 1, actor: 'urn:li:corpuser:etl' }, dataset: upstream, type: 'TRANSFORMED' }],
    };
    const written = await send(
      'POST',
      '/openapi/v3/entity/dataset?async=false',
      downstreams.map((urn) => emitted(urn, 'upstreamLineage', lineage, true)),
    );
    expect(written.status).toBe(200);
    const results: unknown[] = [];
    let scrollId: string | null = null;
    let pages = 0;
    do {
      const query = new URLSearchParams([
        ['relationshipTypes', 'DownstreamOf'] as [string, string],
        ['sourceTypes', 'dataset'],
        ['destinationUrns', upstream],
        ['count', '2'],
        ...(scrollId === null ? [] : [['scrollId', scrollId] as [string, string]]),
      ]);
      const response = await send('GET', `/openapi/v3/relationship/scroll?${query.toString()}`);
      expect(response.status).toBe(200);
      const page = response.json as { results: unknown[]; scrollId: string | null };
      results.push(...page.results);
      scrollId = page.scrollId;
      pages += 1;
    } while (scrollId !== null);
    expect(pages).toBe(2);
    expect(results).toEqual(
      downstreams.map((urn) => ({
        relationshipType: 'DownstreamOf',
        source: { urn, entityType: 'dataset' },
        destination: { urn: upstream, entityType: 'dataset' },
      })),
    );
    const bySource = await send(
      'GET',
      `/openapi/v3/relationship/scroll?sourceUrns=${encodeURIComponent(downstreams[1] ?? '')}`,
    );
    expect((bySource.json as { results: unknown[]; scrollId: unknown }).results).toHaveLength(1);
  });

  it('refuses bad input with a 4xx in the OpenAPI error body, and writes nothing of a refused batch', async () => {
    const kept = datasetOf('half');
    const refused = await send('POST', '/openapi/v3/entity/dataset?async=false', [
      emitted(kept, 'datasetProperties', { description: 'would be written' }),
      emitted(datasetOf('half-bad'), 'datasetProperties', { description: 5 }),
    ]);
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ error: expect.stringContaining('[1].datasetProperties') });
    expect(await getEntities('dataset', [kept])).toEqual([]);

    const java = await send('POST', '/openapi/entities/v1/', [
      { entityType: 'dataset', entityUrn: kept, aspect: { __type: 'DatasetProperties', description: 'x' } },
      { entityType: 'dataset', entityUrn: kept, aspect: { __type: 'NoSuchAspect' } },
    ]);
    expect([java.status, java.json]).toEqual([
      400,
      { error: '[1]: Unknown aspect type NoSuchAspect for entity dataset' },
    ]);
    expect(await getEntities('dataset', [kept])).toEqual([]);

    const cases: [string, string, unknown, number, RegExp][] = [
      [
        'POST',
        '/openapi/v3/entity/nope?async=false',
        [emitted(kept, 'status', {})],
        400,
        /Failed to find entity with name nope/,
      ],
      ['POST', '/openapi/v3/entity/dataset', { urn: kept }, 400, /JSON array/],
      ['POST', '/openapi/v3/entity/dataset', [{ status: { value: {} } }], 400, /Missing `urn` field/],
      ['POST', '/openapi/v3/entity/dataset/batchGet', [{ urn: 'not-a-urn' }], 400, /\[0\]/],
      [
        'POST',
        '/openapi/v3/entity/dataset/batchGet',
        [{ urn: kept, noSuchAspect: {} }],
        400,
        /Unknown aspect noSuchAspect/,
      ],
      ['POST', '/openapi/v3/entity/dataset/scroll?scrollId=garbage', {}, 400, /Invalid scrollId/],
      ['POST', '/openapi/v3/entity/dataset/scroll?sort=name', {}, 400, /Sorting by name/],
      ['GET', '/openapi/v3/entity/dataset?sliceId=0&sliceMax=2', undefined, 400, /Sliced scrolling/],
      ['GET', `/openapi/v3/entity/dataset/urn:li:corpuser:${run}`, undefined, 400, /not a dataset URN/],
      ['GET', `/openapi/v3/entity/dataset/${kept}/noSuchAspect`, undefined, 400, /Unknown aspect noSuchAspect/],
      ['POST', `/openapi/v3/entity/dataset/${kept}`, { value: {} }, 400, /names the aspect to write/],
      ['POST', '/openapi/v2/entity/batch/dataset', { urns: 'x' }, 400, /urns/],
      ['GET', '/openapi/v3/relationship/scroll?scrollId=garbage', undefined, 400, /Invalid scrollId/],
      ['GET', '/openapi/v1/registry/models/entity/specifications?start=-1', undefined, 400, /start/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const response = await send(method, path, body);
      expect([method, path, response.status]).toEqual([method, path, status]);
      expect((response.json as { error: string }).error).toMatch(message);
    }
    const malformed = await http.send('POST', '/openapi/v3/entity/dataset', '[{"urn": ', SDK);
    expect([malformed.status, typeof (malformed.json as { error?: unknown }).error]).toEqual([400, 'string']);
    expect(await getEntities('dataset', [kept])).toEqual([]);
  });

  it('lists every endpoint in the OpenAPI document', async () => {
    const document = (await http.get('/openapi/v3/api-docs')).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = (path: string) => Object.keys(document.paths[path] ?? {}).sort();
    expect(methods('/openapi/v3/entity/{entityName}')).toEqual(['get', 'patch', 'post']);
    expect(methods('/openapi/v3/entity/{entityName}/{entityUrn}')).toEqual(['delete', 'get', 'head', 'patch', 'post']);
    expect(methods('/openapi/v3/entity/{entityName}/batchGet')).toEqual(['post']);
    expect(methods('/openapi/v3/entity/{entityName}/scroll')).toEqual(['post']);
    expect(methods('/openapi/v3/entity/scroll')).toEqual(['post']);
    expect(methods('/openapi/v2/entity/batch/{entityName}')).toEqual(['post']);
    expect(methods('/openapi/entities/v1')).toEqual(['post']);
    expect(methods('/openapi/v1/registry/models/entity/specifications')).toEqual(['get']);
    expect(methods('/openapi/v3/relationship/scroll')).toEqual(['get']);
  });
});

describe('OpenAPI entity endpoints with authentication on', () => {
  let http: TestHttpClient;
  let root: Record<string, string>;
  let plain: Record<string, string>;
  const urn = datasetOf('guarded');

  beforeAll(async () => {
    const deployment = await sharedDeployment('standalone-auth');
    http = new TestHttpClient(deployment.baseUrl);
    const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
    const bearer = async (actor: string) => ({
      Authorization: `Bearer ${(await tokens.mint(actor, 'SESSION', 3_600_000)).token}`,
    });
    root = await bearer('datahub');
    const user = `${run}_plain`;
    const created = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: proposalOf(`urn:li:corpuser:${user}`, 'corpUserInfo', { active: true }) },
      root,
    );
    expect(created.status).toBe(200);
    plain = await bearer(user);
  }, 120_000);

  it('reads for anyone with the privilege, refuses anyone else: 401 without credentials, 403 without it', async () => {
    const write = await http.post(
      '/openapi/v3/entity/dataset?async=false',
      [{ urn, status: { value: { removed: false } } }],
      root,
    );
    expect(write.status).toBe(200);
    const batchGet = (entity: string, target: string, headers: Record<string, string>) =>
      http.post(`/openapi/v3/entity/${entity}/batchGet`, [{ urn: target }], headers);
    // Every user may view entities (DataHub's default policies): the plain user reads the dataset.
    expect((await batchGet('dataset', urn, plain)).status).toBe(200);
    expect((await batchGet('dataset', urn, {})).status).toBe(401);
    // Reading secrets needs MANAGE_SECRETS, which the plain user does not hold.
    const secret = `urn:li:dataHubSecret:${run}`;
    expect((await batchGet('dataHubSecret', secret, root)).status).toBe(200);
    const refused = await batchGet('dataHubSecret', secret, plain);
    expect([refused.status, refused.json]).toEqual([
      403,
      { error: `urn:li:corpuser:${run}_plain is unauthorized to READ entities.` },
    ]);
    expect((await http.send('GET', `/openapi/v3/entity/dataHubSecret/${secret}`, undefined, plain)).status).toBe(403);
    const scroll = await http.post('/openapi/v3/entity/scroll', { entities: ['dataHubSecret'] }, plain);
    expect(scroll.status).toBe(403);
    expect((await http.get('/openapi/v1/registry/models/entity/specifications', plain)).status).toBe(403);
    expect((await http.get('/openapi/v1/registry/models/entity/specifications', root)).status).toBe(200);
  });

  it('checks writes as ingestProposal does: nothing a caller may not write is published', async () => {
    const refused = await http.post(
      '/openapi/v3/entity/dataset?async=false',
      [{ urn, status: { value: { removed: true } } }],
      plain,
    );
    expect(refused.status).toBe(403);
    const java = await http.post(
      '/openapi/entities/v1/',
      [{ entityType: 'dataset', entityUrn: urn, aspect: { __type: 'Status', removed: true } }],
      plain,
    );
    expect(java.status).toBe(403);
    expect((await http.send('DELETE', `/openapi/v3/entity/dataset/${urn}`, undefined, plain)).status).toBe(403);
    const read = await http.post('/openapi/v3/entity/dataset/batchGet', [{ urn, status: {} }], root);
    expect(read.json).toEqual([{ urn, status: { value: { removed: false } } }]);
  });
});

describe('OpenAPI entity endpoints across the services of the distributed deployment', () => {
  it('writes, reads, scrolls, follows relationships and deletes through the gateway', async () => {
    const deployment = await sharedDeployment('distributed');
    const http = new TestHttpClient(deployment.baseUrl);
    const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
    const root = {
      ...SDK,
      Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}`,
    };
    const send = (method: string, path: string, body?: unknown) =>
      http.send(method, path, body === undefined ? undefined : JSON.stringify(body), root);
    const platform = `urn:li:dataPlatform:${run}dist`;
    const upstream = `urn:li:dataset:(${platform},${run}.up,PROD)`;
    const downstream = `urn:li:dataset:(${platform},${run}.down,PROD)`;
    const lineage = {
      upstreams: [{ auditStamp: { time: 1, actor: 'urn:li:corpuser:etl' }, dataset: upstream, type: 'COPY' }],
    };

    const written = await send('POST', '/openapi/v3/entity/dataset?async=false', [
      emitted(upstream, 'datasetProperties', { name: 'up', customProperties: {} }, true),
      emitted(downstream, 'upstreamLineage', lineage, true),
    ]);
    expect(written.status).toBe(200);
    expect(written.headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-/);

    const read = await send('POST', '/openapi/v3/entity/dataset/batchGet', [{ urn: upstream, datasetProperties: {} }]);
    expect(read.json).toEqual([{ urn: upstream, datasetProperties: { value: { name: 'up', customProperties: {} } } }]);

    const scroll = await send('POST', '/openapi/v3/entity/dataset/scroll?count=10', {
      filter: { or: [{ and: [{ field: 'platform', values: [platform] }] }] },
    });
    expect((scroll.json as { entities: { urn: string }[] }).entities.map((entity) => entity.urn)).toEqual(
      [downstream, upstream].sort(),
    );

    const edges = await send('GET', `/openapi/v3/relationship/scroll?destinationUrns=${encodeURIComponent(upstream)}`);
    expect(edges.json).toEqual({
      results: [
        {
          relationshipType: 'DownstreamOf',
          source: { urn: downstream, entityType: 'dataset' },
          destination: { urn: upstream, entityType: 'dataset' },
        },
      ],
      scrollId: null,
    });

    expect((await send('DELETE', `/openapi/v3/entity/dataset/${upstream}`)).status).toBe(200);
    expect((await send('HEAD', `/openapi/v3/entity/dataset/${upstream}`)).status).toBe(404);
    expect((await send('HEAD', `/openapi/v3/entity/dataset/${downstream}`)).status).toBe(204);
  }, 120_000);
});
