import { BadRequestError, validateProposal, type EntitySpec } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';

import {
  asksForIndexing,
  batchGetItems,
  checkScrollSort,
  createChangeType,
  entityOfPath,
  entityPathOf,
  entitySpecsPage,
  fromTypedJson,
  selectAspects,
  storedAspectsOf,
  urnOfKey,
  v1WriteProposals,
  v2Entity,
  v3Entity,
  v3WriteProposals,
  withSoftDeleted,
} from './openapi-entities';

const registry = testEntityRegistry();
const dataset = entityOfPath(registry, 'dataset');
const orders = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const s3 = 'urn:li:dataset:(urn:li:dataPlatform:s3,bucket/raw/orders,PROD)';

/** The message of the BadRequestError `work` throws (fails the test when it throws nothing, or another error). */
function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof BadRequestError) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('paths of the entity endpoints', () => {
  it('reads an entity type, refusing an unknown one in DataHub words', () => {
    expect(dataset.name).toBe('dataset');
    expect(refusal(() => entityOfPath(registry, 'notAnEntity'))).toBe(
      'Failed to find entity with name notAnEntity in EntityRegistry',
    );
  });

  it('tells an entity from one of its aspects, URNs holding slashes included', () => {
    expect(entityPathOf(dataset, orders)).toEqual({ urn: orders });
    expect(entityPathOf(dataset, s3)).toEqual({ urn: s3 });
    const ofAspect = entityPathOf(dataset, `${s3}/datasetProperties`);
    expect(ofAspect.urn).toBe(s3);
    expect(ofAspect.aspect?.name).toBe('datasetProperties');
    // Aspect names are looked up regardless of case, as DataHub does.
    expect(entityPathOf(dataset, `${orders}/DATASETPROPERTIES`).aspect?.name).toBe('datasetProperties');
  });

  it('keeps a last segment naming no aspect in the URN when the whole reads as one, and refuses it otherwise', () => {
    const corpuser = entityOfPath(registry, 'corpuser');
    expect(entityPathOf(corpuser, 'urn:li:corpuser:team/alice')).toEqual({ urn: 'urn:li:corpuser:team/alice' });
    expect(entityPathOf(corpuser, 'urn:li:corpuser:alice/corpUserInfo').aspect?.name).toBe('corpUserInfo');
    expect(refusal(() => entityPathOf(dataset, `${orders}/noSuchAspect`))).toBe(
      'Unknown aspect noSuchAspect for entity dataset',
    );
  });

  it('refuses a URN of another entity type, or one that does not parse', () => {
    expect(refusal(() => entityPathOf(dataset, 'urn:li:corpuser:alice'))).toBe(
      'URN urn:li:corpuser:alice is not a dataset URN (its entity type is corpuser)',
    );
    expect(refusal(() => entityPathOf(dataset, 'walk'))).toMatch(/walk/);
    expect(refusal(() => entityPathOf(dataset, 'urn:li:dataset:(urn:li:dataPlatform:hive,onlyTwo)'))).toMatch(
      /3 parts/,
    );
  });
});

describe('v3 writes', () => {
  it('makes one proposal per aspect of each entity, in the shape ingestProposal validates', () => {
    const located = v3WriteProposals(
      dataset,
      [
        {
          urn: orders,
          datasetProperties: {
            value: { description: 'Orders' },
            systemMetadata: { runId: 'run-1', lastObserved: 5 },
            headers: { 'If-Version-Match': '2' },
          },
          status: { value: { removed: false }, systemMetadata: null, headers: {} },
        },
      ],
      'UPSERT',
    );
    expect(located.map((each) => each.where)).toEqual(['[0].datasetProperties', '[0].status']);
    expect(located[0]?.proposal).toEqual({
      entityType: 'dataset',
      entityUrn: orders,
      changeType: 'UPSERT',
      aspectName: 'datasetProperties',
      aspect: { value: { description: 'Orders' }, contentType: 'application/json' },
      systemMetadata: { runId: 'run-1', lastObserved: 5 },
      headers: { 'If-Version-Match': '2' },
    });
    const validated = located.map((each) => validateProposal(registry, each.proposal));
    expect(validated.map((proposal) => [proposal.aspect.name, proposal.value])).toEqual([
      ['datasetProperties', { description: 'Orders' }],
      ['status', { removed: false }],
    ]);
    expect(validated[0]?.headers).toEqual({ 'If-Version-Match': '2' });
  });

  it('takes a patch as a JSON Patch array or in the generic form, as the Python emitter sends it', () => {
    const operations = [{ op: 'add', path: '/tags/urn:li:tag:Pii', value: { tag: 'urn:li:tag:Pii' } }];
    const located = v3WriteProposals(
      dataset,
      [{ urn: orders, globalTags: { value: { patch: operations } }, editableDatasetProperties: { value: operations } }],
      'PATCH',
    );
    const validated = located.map((each) => validateProposal(registry, each.proposal));
    expect(validated.map((proposal) => [proposal.changeType, proposal.patch?.operations])).toEqual([
      ['PATCH', operations],
      ['PATCH', operations],
    ]);
  });

  it('refuses a body of another shape, naming every place', () => {
    expect(refusal(() => v3WriteProposals(dataset, { urn: orders }, 'UPSERT'))).toMatch(/must be a JSON array/);
    expect(
      refusal(() =>
        v3WriteProposals(
          dataset,
          [{ datasetProperties: { value: {} } }, { urn: orders, status: { removed: true } }, 'text'],
          'UPSERT',
        ),
      ),
    ).toBe(
      [
        '[0]: Missing `urn` field',
        '[1].status: value must be the aspect as a JSON object, got nothing',
        '[2]: must be an object {urn, <aspectName>: {value}}, got "text"',
      ].join('\n'),
    );
  });

  it('creates when asked: createIfEntityNotExists over createIfNotExists over an upsert', () => {
    expect(createChangeType({ createIfEntityNotExists: true, createIfNotExists: true })).toBe('CREATE_ENTITY');
    expect(createChangeType({ createIfEntityNotExists: false, createIfNotExists: true })).toBe('CREATE');
    expect(createChangeType({ createIfEntityNotExists: false, createIfNotExists: false })).toBe('UPSERT');
  });

  it("hears DataHub's sync-index header among an aspect's headers, in any case", () => {
    expect(asksForIndexing([{ headers: { 'x-datahub-sync-index-update': 'TRUE' } }])).toBe(true);
    expect(asksForIndexing([{ headers: { 'X-DataHub-Sync-Index-Update': 'false' } }, {}])).toBe(false);
  });
});

describe('the Java emitter (UpsertAspectRequest)', () => {
  it('finds the aspect by its record name and turns `__type` unions into Pegasus ones', () => {
    const [located] = v1WriteProposals(registry, [
      {
        entityType: 'dataset',
        entityUrn: orders,
        aspect: {
          __type: 'SchemaMetadata',
          schemaName: 'orders',
          platform: 'urn:li:dataPlatform:hive',
          version: 0,
          hash: '',
          platformSchema: { __type: 'MySqlDDL', tableSchema: 'schema' },
          fields: [{ fieldPath: 'id', nativeDataType: 'int', type: { type: { __type: 'NumberType' } } }],
        },
      },
    ]);
    expect(located?.proposal).toEqual({
      entityType: 'dataset',
      entityUrn: orders,
      changeType: 'UPSERT',
      aspectName: 'schemaMetadata',
      aspect: {
        contentType: 'application/json',
        value: {
          schemaName: 'orders',
          platform: 'urn:li:dataPlatform:hive',
          version: 0,
          hash: '',
          platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: 'schema' } },
          fields: [
            { fieldPath: 'id', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } },
          ],
        },
      },
    });
    expect(validateProposal(registry, located?.proposal).value?.['platformSchema']).toEqual({
      'com.linkedin.schema.MySqlDDL': { tableSchema: 'schema' },
    });
  });

  it('names the entity by its key aspect when the request has no URN', () => {
    const [located] = v1WriteProposals(registry, [
      {
        entityType: 'dataset',
        entityKeyAspect: {
          __type: 'DatasetKey',
          platform: 'urn:li:dataPlatform:hive',
          name: 'db.orders',
          origin: 'PROD',
        },
        aspect: { __type: 'Status', removed: false },
      },
    ]);
    expect(located?.proposal['entityUrn']).toBe(orders);
    expect(urnOfKey(entityOfPath(registry, 'corpuser'), { username: 'alice' })).toBe('urn:li:corpuser:alice');
  });

  it('leaves a union already in Pegasus form as it is', () => {
    const schema = dataset.aspect('schemaMetadata')?.schema;
    if (schema === undefined) throw new Error('no schemaMetadata');
    const pegasus = { platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } } };
    expect(fromTypedJson(schema, pegasus)).toEqual(pegasus);
  });

  it('refuses requests it cannot place, naming each', () => {
    expect(
      refusal(() =>
        v1WriteProposals(registry, [
          { entityType: 'dataset', entityUrn: orders, aspect: { __type: 'NoSuchAspect' } },
          { entityType: 'dataset', aspect: { __type: 'Status', removed: true } },
          { entityType: 'nope', entityUrn: orders, aspect: { __type: 'Status' } },
          { entityType: 'dataset', entityUrn: orders, aspect: { removed: true } },
        ]),
      ),
    ).toBe(
      [
        '[0]: Unknown aspect type NoSuchAspect for entity dataset',
        '[1]: entityUrn or entityKeyAspect is required',
        '[2]: Failed to find entity with name nope in EntityRegistry',
        '[3]: aspect.__type is required: the name of the aspect record (e.g. DatasetProperties)',
      ].join('\n'),
    );
  });
});

describe('reads', () => {
  const answer = {
    results: {
      [orders]: {
        urn: orders,
        aspects: {
          datasetKey: {
            name: 'datasetKey',
            value: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' },
            systemMetadata: { runId: 'r' },
            created: { time: 1, actor: 'urn:li:corpuser:a' },
          },
          status: { name: 'status', value: { removed: false }, systemMetadata: { runId: 'r' } },
        },
      },
      // Nothing stored: the writer answers the key derived from the URN, without system metadata.
      [s3]: {
        urn: s3,
        aspects: { datasetKey: { value: { platform: 'urn:li:dataPlatform:s3', name: 'x', origin: 'PROD' } } },
      },
    },
    errors: {},
  };

  it('keeps the stored aspects of a batch read and leaves out a key nothing was stored for', () => {
    const stored = storedAspectsOf(answer);
    expect([...(stored.get(orders)?.keys() ?? [])]).toEqual(['datasetKey', 'status']);
    expect(stored.get(s3)?.size).toBe(0);
    expect(() => storedAspectsOf({ nope: true })).toThrow();
  });

  it('answers v3 and v2 entities, with system metadata and audit stamps only when asked', () => {
    const aspects = selectAspects(dataset, storedAspectsOf(answer).get(orders) ?? new Map(), undefined);
    expect(v3Entity(orders, aspects, false)).toEqual({
      urn: orders,
      datasetKey: { value: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' } },
      status: { value: { removed: false } },
    });
    expect(v3Entity(orders, aspects.slice(1), true)).toEqual({
      urn: orders,
      status: { value: { removed: false }, systemMetadata: { runId: 'r' } },
    });
    expect((v3Entity(orders, aspects, true)['datasetKey'] as Record<string, unknown>)['auditStamp']).toEqual({
      time: 1,
      actor: 'urn:li:corpuser:a',
    });
    expect(v2Entity(orders, aspects.slice(1), true)).toEqual({
      urn: orders,
      aspects: { status: { value: { removed: false }, systemMetadata: { runId: 'r' } } },
    });
    const status = dataset.aspect('status');
    expect(selectAspects(dataset, storedAspectsOf(answer).get(orders) ?? new Map(), status ? [status] : [])).toEqual([
      ['status', { value: { removed: false }, systemMetadata: { runId: 'r' } }],
    ]);
  });

  it('reads a batchGet body: aspects named, versions from If-Version-Match, an entity named twice once', () => {
    const items = batchGetItems(dataset, [
      { urn: orders, datasetProperties: { headers: { 'If-Version-Match': '3' } } },
      { urn: orders, status: {} },
      { urn: s3 },
    ]);
    expect(items.map((item) => [item.urn, item.aspects.map((each) => [each.spec.name, each.version])])).toEqual([
      [
        orders,
        [
          ['datasetProperties', 3],
          ['status', 0],
        ],
      ],
      [s3, []],
    ]);
    expect(
      refusal(() =>
        batchGetItems(dataset, [{ urn: orders, status: { headers: { 'If-Version-Match': 'latest' } } }, { urn: 1 }]),
      ),
    ).toBe(
      ['[0]: status.headers.If-Version-Match must be a version number, got "latest"', '[1]: Missing `urn` field'].join(
        '\n',
      ),
    );
  });
});

describe('scrolling', () => {
  it('keeps soft-deleted entities by naming `removed` in every group of the filter', () => {
    const removed = { field: 'removed', condition: 'EXISTS', values: [] };
    const platform = { field: 'platform', values: ['urn:li:dataPlatform:hive'] };
    expect(withSoftDeleted(undefined)).toEqual({ or: [{ and: [removed] }] });
    expect(withSoftDeleted({ or: [{ and: [platform] }, { and: [] }] })).toEqual({
      or: [{ and: [platform, removed] }, { and: [removed] }],
    });
    expect(withSoftDeleted({ criteria: [platform] })).toEqual({ criteria: [platform, removed] });
    expect(withSoftDeleted('not a filter')).toBe('not a filter');
  });

  it('sorts by urn ascending only', () => {
    expect(() => {
      checkScrollSort(['urn'], 'ASCENDING');
    }).not.toThrow();
    expect(() => {
      checkScrollSort([], 'ASCENDING');
    }).not.toThrow();
    expect(
      refusal(() => {
        checkScrollSort(['name'], 'ASCENDING');
      }),
    ).toBe('Sorting by name is not supported: a scroll is sorted by urn');
    expect(
      refusal(() => {
        checkScrollSort(['urn'], 'DESCENDING');
      }),
    ).toMatch(/DESCENDING is not supported/);
  });
});

describe('the entity registry, as DataHub lists it', () => {
  it('pages the entity specs by name, with what get_entity_aspect_specs reads', () => {
    const all = entitySpecsPage(registry, 0, 10_000);
    const elements = all['elements'] as Record<string, unknown>[];
    expect(all['total']).toBe(registry.entities().length);
    expect(all['count']).toBe(elements.length);
    const names = elements.map((element) => element['name'] as string);
    expect(names).toEqual([...names].sort());
    const datasetSpec = elements.find((element) => element['name'] === 'dataset');
    expect(datasetSpec).toMatchObject({
      keyAspectName: 'datasetKey',
      keyAspectSpec: { aspectAnnotation: { name: 'datasetKey', timeseries: false } },
    });
    const aspectSpecs = datasetSpec?.['aspectSpecs'] as { aspectAnnotation: Record<string, unknown> }[];
    expect(aspectSpecs.map((spec) => spec.aspectAnnotation['name'])).toEqual(
      (registry.entity('dataset') as EntitySpec).aspects.map((aspect) => aspect.name),
    );
    expect(aspectSpecs.find((spec) => spec.aspectAnnotation['name'] === 'upstreamLineage')?.aspectAnnotation).toEqual({
      name: 'upstreamLineage',
      timeseries: false,
      autoRender: false,
      schemaVersion: 2,
    });
    expect(
      aspectSpecs.find((spec) => spec.aspectAnnotation['name'] === 'datasetProfile')?.aspectAnnotation,
    ).toMatchObject({ timeseries: true });
  });

  it('cuts pages from start, and answers no elements past the end', () => {
    const page = entitySpecsPage(registry, 2, 3);
    expect(page).toMatchObject({ start: 2, count: 3, total: registry.entities().length });
    expect(entitySpecsPage(registry, 100_000, 5)).toMatchObject({ elements: [], count: 0 });
  });
});
