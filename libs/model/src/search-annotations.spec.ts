import type { EntitySpec } from './entity-registry';
import type { AvroSchema, FieldSchema, RecordSchema } from './record-schema';
import {
  relationshipFields,
  searchableFields,
  valuesAt,
  type RelationshipFieldSpec,
  type SearchableFieldSpec,
} from './search-annotations';
import { testEntityRegistry } from './testing';

const registry = testEntityRegistry();
const entity = (name: string): EntitySpec => registry.entity(name)!;
const searchable = (entityName: string, fieldName: string): SearchableFieldSpec[] =>
  searchableFields(entity(entityName)).filter((spec) => spec.fieldName === fieldName);
const only = (entityName: string, fieldName: string): SearchableFieldSpec => {
  const specs = searchable(entityName, fieldName);
  expect(specs).toHaveLength(1);
  return specs[0]!;
};
const edges = (entityName: string, name: string): RelationshipFieldSpec[] =>
  relationshipFields(entity(entityName)).filter((spec) => spec.name === name);

describe('searchableFields with the real schemas', () => {
  it('given the dataset key, when resolved, then id, platform and origin carry DataHub’s settings', () => {
    expect(only('dataset', 'id')).toEqual({
      fieldName: 'id',
      fieldType: 'WORD_GRAM',
      boostScore: 10,
      addToFilters: false,
      filterName: 'id',
      queryByDefault: true,
      enableAutocomplete: true,
      aspect: 'datasetKey',
      path: ['name'],
    });
    expect(only('dataset', 'origin')).toMatchObject({
      fieldType: 'TEXT_PARTIAL',
      addToFilters: true,
      filterName: 'Environment',
      queryByDefault: false,
      aspect: 'datasetKey',
      path: ['origin'],
    });
    const platforms = searchable('dataset', 'platform');
    expect(platforms.map((spec) => spec.aspect)).toEqual(['datasetKey', 'dataPlatformInstance']);
    expect(platforms[0]).toMatchObject({ fieldType: 'URN', enableAutocomplete: true, queryByDefault: true });
    expect(platforms[1]).toMatchObject({ fieldType: 'URN', addToFilters: true, filterName: 'Platform' });
  });

  it('given globalTags and ownership, when resolved, then tags and owners are filter URNs inside the arrays', () => {
    expect(only('dataset', 'tags')).toEqual({
      fieldName: 'tags',
      fieldType: 'URN',
      boostScore: 0.5,
      addToFilters: true,
      filterName: 'Tagged With',
      queryByDefault: true,
      enableAutocomplete: false,
      hasValuesFieldName: 'hasTags',
      aspect: 'globalTags',
      path: ['tags', '*', 'tag'],
    });
    expect(only('dataset', 'owners')).toMatchObject({
      fieldType: 'URN',
      boostScore: 1,
      addToFilters: true,
      filterName: 'Owned By',
      queryByDefault: false,
      hasValuesFieldName: 'hasOwners',
      aspect: 'ownership',
      path: ['owners', '*', 'owner'],
    });
  });

  it('given an annotation without fieldName, when resolved, then the name is the last record field on the path', () => {
    expect(only('dataset', 'ownerTypes')).toMatchObject({
      fieldType: 'MAP_ARRAY',
      queryByDefault: false,
      path: ['ownerTypes', '$key'],
    });
    expect(only('dataset', 'customProperties')).toMatchObject({ fieldType: 'TEXT', path: ['customProperties', '*'] });
    expect(only('dataset', 'typeNames')).toMatchObject({ fieldType: 'KEYWORD', path: ['typeNames', '*'] });
  });

  it('given schemaMetadata and status and browse paths, when resolved, then nested and typed fields are there', () => {
    expect(only('dataset', 'fieldPaths')).toMatchObject({
      fieldType: 'TEXT',
      boostScore: 1,
      queryByDefault: true,
      aspect: 'schemaMetadata',
      path: ['fields', '*', 'fieldPath'],
    });
    expect(only('dataset', 'fieldTags')).toMatchObject({
      fieldType: 'URN',
      boostScore: 0.5,
      path: ['fields', '*', 'globalTags', 'tags', '*', 'tag'],
    });
    expect(only('dataset', 'removed')).toMatchObject({
      fieldType: 'BOOLEAN',
      queryByDefault: false,
      addToFilters: false,
      aspect: 'status',
      path: ['removed'],
    });
    expect(only('dataset', 'browsePaths')).toMatchObject({
      fieldType: 'BROWSE_PATH',
      queryByDefault: false,
      aspect: 'browsePaths',
      path: ['paths', '*'],
    });
    expect(only('dataset', 'browsePathV2')).toMatchObject({ fieldType: 'BROWSE_PATH_V2', path: ['path', '*', 'id'] });
    expect(only('dataset', 'createdAt')).toMatchObject({ fieldType: 'DATETIME', path: ['created', 'time'] });
  });

  it('given the same field name in several aspects, when resolved, then each aspect keeps its own entry', () => {
    expect(searchable('dataset', 'editedDescription').map((spec) => spec.aspect)).toEqual([
      'editableDatasetProperties',
    ]);
    expect(searchable('dataset', 'description').map((spec) => spec.aspect)).toEqual(['datasetProperties']);
    expect(searchable('dataset', 'lastModifiedAt').map((spec) => spec.path)).toEqual([['lastModified', 'time']]);
  });

  it('given timeseries aspects, when resolved, then their annotations are left out', () => {
    const aspects = new Set(searchableFields(entity('dataset')).map((spec) => spec.aspect));
    expect(aspects.has('datasetProfile')).toBe(false);
    expect(aspects.has('operation')).toBe(false);
    expect(searchable('dataset', 'rowCount')).toEqual([]);
  });

  it('given chart, corpuser and tag, when resolved, then tool, title, ldap, id and name are DataHub’s', () => {
    expect(only('chart', 'tool')).toMatchObject({
      fieldType: 'TEXT_PARTIAL',
      boostScore: 4,
      addToFilters: false,
      queryByDefault: true,
      aspect: 'chartKey',
      path: ['dashboardTool'],
    });
    expect(only('chart', 'title')).toMatchObject({
      fieldType: 'WORD_GRAM',
      boostScore: 10,
      enableAutocomplete: true,
      aspect: 'chartInfo',
    });
    expect(only('chart', 'lastModifiedAt')).toMatchObject({
      fieldType: 'DATETIME',
      path: ['lastModified', 'lastModified', 'time'],
    });
    expect(only('corpuser', 'ldap')).toMatchObject({
      fieldType: 'WORD_GRAM',
      boostScore: 2,
      enableAutocomplete: true,
      aspect: 'corpUserKey',
      path: ['username'],
    });
    expect(only('tag', 'id')).toMatchObject({ fieldType: 'WORD_GRAM', boostScore: 10, aspect: 'tagKey' });
    expect(only('tag', 'name')).toMatchObject({
      fieldType: 'WORD_GRAM',
      boostScore: 10,
      enableAutocomplete: true,
      aspect: 'tagProperties',
    });
  });

  it('given every entity of the registry, when resolved, then nothing throws and every spec is well formed', () => {
    for (const spec of registry.entities()) {
      const fields = searchableFields(spec);
      const relationships = relationshipFields(spec);
      for (const field of fields) {
        expect(field.fieldName).not.toBe('');
        expect(field.path.length).toBeGreaterThan(0);
        expect(spec.aspect(field.aspect)?.kind).toBe('versioned');
      }
      for (const relationship of relationships) expect(relationship.entityTypes.length).toBeGreaterThan(0);
      expect(searchableFields(spec)).toBe(fields);
    }
    expect(searchableFields(entity('dataPlatform')).map((spec) => spec.fieldName)).toEqual([
      'name',
      'displayName',
      'logical',
    ]);
  });
});

describe('relationshipFields with the real schemas', () => {
  it('given dataset aspects, when resolved, then OwnedBy, DownstreamOf and TaggedWith point to DataHub’s types', () => {
    expect(edges('dataset', 'OwnedBy')).toEqual([
      {
        name: 'OwnedBy',
        entityTypes: ['corpuser', 'corpGroup'],
        isLineage: false,
        isUpstream: true,
        aspect: 'ownership',
        path: ['owners', '*', 'owner'],
      },
    ]);
    expect(edges('dataset', 'DownstreamOf')).toEqual([
      {
        name: 'DownstreamOf',
        entityTypes: ['dataset'],
        isLineage: true,
        isUpstream: true,
        aspect: 'upstreamLineage',
        path: ['upstreams', '*', 'dataset'],
        stamps: {
          createdOn: ['upstreams', '*', 'created', 'time'],
          createdActor: ['upstreams', '*', 'created', 'actor'],
          updatedOn: ['upstreams', '*', 'auditStamp', 'time'],
          updatedActor: ['upstreams', '*', 'auditStamp', 'actor'],
          properties: ['upstreams', '*', 'properties'],
        },
      },
      {
        name: 'DownstreamOf',
        entityTypes: ['dataset', 'schemaField'],
        isLineage: false, // DataHub's annotation on fineGrainedLineages does not say isLineage
        isUpstream: true,
        aspect: 'upstreamLineage',
        path: ['fineGrainedLineages', '*', 'upstreams', '*'],
      },
    ]);
    expect(edges('dataset', 'TaggedWith')).toEqual([
      {
        name: 'TaggedWith',
        entityTypes: ['tag'],
        isLineage: false,
        isUpstream: true,
        aspect: 'globalTags',
        path: ['tags', '*', 'tag'],
      },
    ]);
    expect(edges('dataset', 'SchemaFieldTaggedWith')[0]!.path).toEqual([
      'fields',
      '*',
      'globalTags',
      'tags',
      '*',
      'tag',
    ]);
  });

  it('given dashboard and chart info, when resolved, then Contains and Consumes come from the lists and the edges', () => {
    expect(edges('dashboard', 'Contains').map((spec) => spec.path)).toEqual([
      ['charts', '*'],
      ['chartEdges', '*', 'destinationUrn'],
    ]);
    expect(edges('dashboard', 'Contains')[0]).toMatchObject({ entityTypes: ['chart'], isLineage: true });
    expect(edges('chart', 'Consumes')).toEqual([
      {
        name: 'Consumes',
        entityTypes: ['dataset'],
        isLineage: true,
        isUpstream: true,
        aspect: 'chartInfo',
        path: ['inputs', '*', 'string'],
      },
      {
        name: 'Consumes',
        entityTypes: ['dataset', 'chart'],
        isLineage: true,
        isUpstream: true,
        aspect: 'chartInfo',
        path: ['inputEdges', '*', 'destinationUrn'],
        stamps: {
          createdOn: ['inputEdges', '*', 'created', 'time'],
          createdActor: ['inputEdges', '*', 'created', 'actor'],
          updatedOn: ['inputEdges', '*', 'lastModified', 'time'],
          updatedActor: ['inputEdges', '*', 'lastModified', 'actor'],
          properties: ['inputEdges', '*', 'properties'],
        },
      },
    ]);
  });

  it.each([
    ['container', 'IsPartOf', 'container', ['container']],
    ['dataset', 'IsPartOf', 'container', ['container']],
    ['dataJob', 'Consumes', 'dataJobInputOutput', ['inputDatasets', '*']],
    ['dataJob', 'Produces', 'dataJobInputOutput', ['outputDatasets', '*']],
    ['mlModel', 'TrainedBy', 'mlModelProperties', ['trainingJobs', '*']],
    ['glossaryTerm', 'IsA', 'glossaryRelatedTerms', ['isRelatedTerms', '*']],
    ['glossaryTerm', 'HasA', 'glossaryRelatedTerms', ['hasRelatedTerms', '*']],
  ])('given %s, when resolved, then DataHub’s %s edge comes from %s', (entity, name, aspect, path) => {
    expect(edges(entity, name)).toEqual(expect.arrayContaining([expect.objectContaining({ name, aspect, path })]));
  });

  it('given a dataJob’s outputs and a model’s training jobs, when resolved, then they point downstream', () => {
    expect(edges('dataJob', 'Produces').map((spec) => [spec.path[0], spec.isLineage, spec.isUpstream])).toEqual([
      ['outputDatasets', true, false],
      ['outputDatasetEdges', true, false],
      ['outputDatasetFields', false, true],
    ]);
    expect(edges('dataJob', 'Consumes').every((spec) => spec.isUpstream)).toBe(true);
  });

  it('given group membership, when resolved, then users point to groups and legacy group info points to users', () => {
    expect(edges('corpuser', 'IsMemberOfGroup')).toEqual([
      {
        name: 'IsMemberOfGroup',
        entityTypes: ['corpGroup'],
        isLineage: false,
        isUpstream: true,
        aspect: 'groupMembership',
        path: ['groups', '*'],
      },
    ]);
    expect(edges('corpuser', 'IsMemberOfNativeGroup')[0]).toMatchObject({
      entityTypes: ['corpGroup'],
      aspect: 'nativeGroupMembership',
      path: ['nativeGroups', '*'],
    });
    expect(edges('corpuser', 'ReportsTo')[0]).toMatchObject({ entityTypes: ['corpuser'], path: ['managerUrn'] });
    expect(edges('corpGroup', 'IsPartOf').map((spec) => [spec.path, spec.entityTypes])).toEqual([
      [['members', '*'], ['corpuser']],
      [['groups', '*'], ['corpGroup']],
    ]);
    expect(edges('corpGroup', 'OwnedBy').map((spec) => [spec.aspect, spec.path, spec.entityTypes])).toEqual([
      ['corpGroupInfo', ['admins', '*'], ['corpuser']],
      ['ownership', ['owners', '*', 'owner'], ['corpuser', 'corpGroup']],
    ]);
  });
});

describe('valuesAt', () => {
  it('given an ownership value, when read at the owners path, then every owner URN in order', () => {
    const ownership = {
      owners: [
        { owner: 'urn:li:corpuser:alice', type: 'DATAOWNER' },
        { owner: 'urn:li:corpGroup:eng', type: 'TECHNICAL_OWNER' },
      ],
    };
    const path = only('dataset', 'owners').path;
    expect(valuesAt(ownership, path)).toEqual(['urn:li:corpuser:alice', 'urn:li:corpGroup:eng']);
  });

  it('given schema fields with nested tags, when read at the fieldTags path, then tags of every field, flattened', () => {
    const schemaMetadata = {
      fields: [
        { fieldPath: 'a', globalTags: { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:gold' }] } },
        { fieldPath: 'b' },
        { fieldPath: 'c', globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] } },
      ],
    };
    expect(valuesAt(schemaMetadata, only('dataset', 'fieldTags').path)).toEqual([
      'urn:li:tag:pii',
      'urn:li:tag:gold',
      'urn:li:tag:pii',
    ]);
    expect(valuesAt(schemaMetadata, only('dataset', 'fieldPaths').path)).toEqual(['a', 'b', 'c']);
  });

  it('given ChartInfo inputs as union wrappers, when read at the Consumes path, then the dataset URNs', () => {
    const chartInfo = {
      title: 't',
      description: 'd',
      inputs: [
        { string: 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)' },
        { string: 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)' },
      ],
    };
    const expected = [
      'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)',
      'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)',
    ];
    expect(valuesAt(chartInfo, edges('chart', 'Consumes')[0]!.path)).toEqual(expected);
    expect(valuesAt(chartInfo, ['inputs', '*'])).toEqual([{ string: expected[0] }, { string: expected[1] }]);
  });

  it('given a union wrapper the path does not name, when the path continues into it, then it is unwrapped', () => {
    const value = { platformSchema: { 'com.linkedin.schema.KafkaSchema': { documentSchema: '{}' } } };
    expect(valuesAt(value, ['platformSchema', 'documentSchema'])).toEqual(['{}']);
    expect(valuesAt(value, ['platformSchema', 'com.linkedin.schema.KafkaSchema', 'documentSchema'])).toEqual(['{}']);
    expect(valuesAt({ a: { x: 1 } }, ['a', 'y'])).toEqual([]);
  });

  it('given missing, null and mistyped parts, when read, then nothing', () => {
    expect(valuesAt({}, ['owners', '*', 'owner'])).toEqual([]);
    expect(valuesAt(undefined, ['owners'])).toEqual([]);
    expect(valuesAt({ owners: null }, ['owners', '*', 'owner'])).toEqual([]);
    expect(valuesAt({ owners: 'x' }, ['owners', '*', 'owner'])).toEqual([]);
    expect(valuesAt({ owners: [{ owner: null }, {}] }, ['owners', '*', 'owner'])).toEqual([]);
    expect(valuesAt({ removed: false }, ['removed'])).toEqual([false]);
  });

  it('given maps, when read with *, then every map value; an array at the end of the path is spread', () => {
    const properties = { customProperties: { 'spark.version': '3.5', owner: 'ops' } };
    expect(valuesAt(properties, only('dataset', 'customProperties').path)).toEqual(['3.5', 'ops']);
    const ownership = {
      ownerTypes: { 'urn:li:ownershipType:a': ['urn:li:corpuser:x', 'urn:li:corpuser:y'], b: ['urn:li:corpuser:z'] },
    };
    expect(valuesAt(ownership, ['ownerTypes', '*'])).toEqual([
      'urn:li:corpuser:x',
      'urn:li:corpuser:y',
      'urn:li:corpuser:z',
    ]);
    expect(valuesAt({ paths: ['/prod/hive', '/prod/hive/db'] }, ['paths'])).toEqual(['/prod/hive', '/prod/hive/db']);
  });
});

describe('annotation validation', () => {
  const primitive = (type: 'string' | 'long' | 'boolean' | 'double'): AvroSchema => ({ type, annotations: {} });
  const field = (name: string, type: AvroSchema, annotations: Record<string, unknown>): FieldSchema => ({
    name,
    type,
    doc: undefined,
    optional: false,
    hasDefault: false,
    defaultValue: undefined,
    annotations,
  });
  const record = (name: string, fields: FieldSchema[]): RecordSchema => ({
    type: 'record',
    name,
    doc: undefined,
    fields,
    annotations: {},
    field: (fieldName: string) => fields.find((candidate) => candidate.name === fieldName),
  });
  const entityWith = (...fields: FieldSchema[]): EntitySpec =>
    ({
      name: 'thing',
      aspects: [{ name: 'thingInfo', kind: 'versioned', schema: record('io.strata.ThingInfo', fields) }],
    }) as unknown as EntitySpec;
  const item = record('io.strata.Item', [field('urn', primitive('string'), {})]);

  it('given annotations without fieldType, when resolved, then the default follows the value type', () => {
    const specs = searchableFields(
      entityWith(
        field('title', primitive('string'), { Searchable: {} }),
        field('count', primitive('long'), { Searchable: {} }),
        field('score', primitive('double'), { Searchable: {} }),
        field('flag', primitive('boolean'), { Searchable: {} }),
        field('props', { type: 'map', values: primitive('string'), annotations: {} }, { Searchable: {} }),
        field('items', { type: 'array', items: item, annotations: {} }, { Searchable: { '/*/urn': {} } }),
      ),
    );
    expect(specs.map((spec) => [spec.fieldName, spec.fieldType, spec.queryByDefault])).toEqual([
      ['title', 'TEXT', true],
      ['count', 'COUNT', false],
      ['score', 'DOUBLE', false],
      ['flag', 'BOOLEAN', false],
      ['props', 'KEYWORD', false],
      ['urn', 'TEXT', true],
    ]);
  });

  it('given a path that does not resolve, when resolved, then an Error names the aspect and the path', () => {
    const broken = entityWith(
      field(
        'items',
        { type: 'array', items: item, annotations: {} },
        { Searchable: { '/*/owner': { fieldType: 'URN' } } },
      ),
    );
    expect(() => searchableFields(broken)).toThrow(
      'Searchable annotation of aspect thingInfo at /items/*/owner: the path does not resolve in the schema: at "owner", record io.strata.Item has no such field',
    );
    const notEntered = entityWith(
      field(
        'items',
        { type: 'array', items: item, annotations: {} },
        { Relationship: { '/urn': { name: 'X', entityTypes: ['y'] } } },
      ),
    );
    expect(() => relationshipFields(notEntered)).toThrow(
      /aspect thingInfo at \/items\/urn: .*an array is entered with "\*"/,
    );
  });

  it('given a path-keyed annotation on a single value, when resolved, then it applies to the value, as in DataHub', () => {
    const onValue = entityWith(
      field('parent', primitive('string'), { Searchable: { '/*': { fieldName: 'parentTemplate', fieldType: 'URN' } } }),
    );
    expect(searchableFields(onValue)).toMatchObject([
      { fieldName: 'parentTemplate', fieldType: 'URN', path: ['parent'] },
    ]);
  });

  it('given malformed annotations, when resolved, then an Error says what is wrong', () => {
    expect(() =>
      searchableFields(entityWith(field('title', primitive('string'), { Searchable: { fieldType: 'FANCY' } }))),
    ).toThrow(/aspect thingInfo at \/title: unknown fieldType FANCY/);
    // An attribute of another type counts as absent, as in DataHub (whose models write "queryByDefault": "true").
    expect(
      searchableFields(entityWith(field('title', primitive('string'), { Searchable: { boostScore: '10' } })))[0],
    ).toMatchObject({ boostScore: 1 });
    expect(() =>
      relationshipFields(entityWith(field('owner', primitive('string'), { Relationship: { name: 'OwnedBy' } }))),
    ).toThrow(/aspect thingInfo at \/owner: "entityTypes" must be a non-empty array/);
    expect(() =>
      searchableFields(
        entityWith(field('title', primitive('string'), { Searchable: { '/*': {}, fieldType: 'TEXT' } })),
      ),
    ).toThrow(/mixes path keys/);
  });
});
