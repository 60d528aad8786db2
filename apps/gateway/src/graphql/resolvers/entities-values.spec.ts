/**
 * The mapping facts of aspects to GraphQL values, one function at a time: the schema field data types of DataHub's
 * mapper, the defaults of non-null fields, the URNs DataHub derives, `lastIngested` and existence, and the schemas'
 * defaults filled into stored values.
 */
import { testEntityRegistry } from '@strata/model/testing';
import type { LoadedEntity } from '../context';
import {
  auditStampOf,
  deprecationOf,
  existsIn,
  glossaryTermNameOf,
  institutionalMemoryOf,
  lastIngestedOf,
  ownershipOf,
  SCHEMA_FIELD_DATA_TYPES,
  schemaFieldDataTypeOf,
  schemaFieldOf,
  schemaFieldUrnOf,
} from './entities-values';
import { withDefaults } from './entities-view';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';

describe('schema field data types', () => {
  it.each([
    ['BooleanType', 'BOOLEAN'],
    ['FixedType', 'FIXED'],
    ['StringType', 'STRING'],
    ['BytesType', 'BYTES'],
    ['NumberType', 'NUMBER'],
    ['DateType', 'DATE'],
    ['TimeType', 'TIME'],
    ['EnumType', 'ENUM'],
    ['NullType', 'NULL'],
    ['MapType', 'MAP'],
    ['ArrayType', 'ARRAY'],
    ['UnionType', 'UNION'],
    ['RecordType', 'STRUCT'],
  ])('maps the union member %s to %s', (member, expected) => {
    expect(schemaFieldDataTypeOf({ type: { [`com.linkedin.schema.${member}`]: {} } })).toBe(expected);
  });

  it('covers every member of the SchemaFieldDataType union of the model', () => {
    const spec = testEntityRegistry().entity('dataset')?.aspect('schemaMetadata')?.schema;
    const fields = spec?.field('fields')?.type;
    const field = fields?.type === 'array' && fields.items.type === 'record' ? fields.items : undefined;
    const dataType = field?.field('type')?.type;
    const union = dataType?.type === 'record' ? dataType.field('type')?.type : undefined;
    const members = union?.type === 'union' ? union.members.map((member) => ('name' in member ? member.name : '')) : [];
    expect(members.length).toBe(13);
    expect([...members].sort()).toEqual(Object.keys(SCHEMA_FIELD_DATA_TYPES).sort());
  });

  it('refuses a type that is no member, and one that is missing', () => {
    expect(() => schemaFieldDataTypeOf({ type: { 'com.linkedin.schema.Nope': {} } })).toThrow(
      'Unrecognized schema field data type com.linkedin.schema.Nope',
    );
    expect(() => schemaFieldDataTypeOf(undefined)).toThrow('Unrecognized schema field data type (none)');
  });
});

describe('schema fields', () => {
  it('answers false for absent non-null flags, null for the partitioning key, and its entity with an encoded path', () => {
    const field = schemaFieldOf(
      { fieldPath: 'a.b', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } },
      DATASET,
    );
    expect(field).toMatchObject({
      fieldPath: 'a.b',
      nullable: false,
      recursive: false,
      isPartOfKey: false,
      isPartitioningKey: null,
      globalTags: null,
      glossaryTerms: null,
      schemaFieldEntity: `urn:li:schemaField:(${DATASET},a.b)`,
    });
    expect((field['type'] as () => string)()).toBe('NUMBER');
  });

  it('percent-encodes parentheses and commas of a field path in its schema field URN', () => {
    expect(schemaFieldUrnOf(DATASET, '[version=2.0].[type=struct].f(x,y)')).toBe(
      `urn:li:schemaField:(${DATASET},[version=2.0].[type=struct].f%28x%2Cy%29)`,
    );
  });

  it('associates the field’s tags and terms with the dataset', () => {
    const field = schemaFieldOf(
      {
        fieldPath: 'id',
        nullable: true,
        type: { type: { 'com.linkedin.schema.StringType': {} } },
        globalTags: { tags: [{ tag: 'urn:li:tag:pii', context: 'x' }] },
        glossaryTerms: { terms: [{ urn: 'urn:li:glossaryTerm:A.B' }], auditStamp: { time: 1, actor: 'u' } },
      },
      DATASET,
    );
    expect(field['nullable']).toBe(true);
    expect(field['tags']).toEqual({ tags: [{ tag: 'urn:li:tag:pii', associatedUrn: DATASET, context: 'x' }] });
    expect(field['glossaryTerms']).toEqual({
      terms: [{ term: 'urn:li:glossaryTerm:A.B', associatedUrn: DATASET, actor: null, context: null }],
    });
  });
});

describe('value defaults', () => {
  it('answers an audit stamp of time 0 when there is none', () => {
    expect(auditStampOf(undefined)).toEqual({ time: 0, actor: null });
  });

  it('gives each owner the ownership type entity of its legacy type, and the ownership a lastModified', () => {
    expect(ownershipOf({ owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER' }] }, DATASET)).toEqual({
      lastModified: { time: 0, actor: null },
      owners: [
        {
          owner: 'urn:li:corpuser:jdoe',
          type: 'TECHNICAL_OWNER',
          ownershipType: 'urn:li:ownershipType:__system__technical_owner',
          associatedUrn: DATASET,
        },
      ],
    });
  });

  it('keeps an owner’s own ownership type', () => {
    const owners = ownershipOf(
      { owners: [{ owner: 'urn:li:corpGroup:a', type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:steward' }] },
      DATASET,
    )['owners'] as { ownershipType: string }[];
    expect(owners[0]?.ownershipType).toBe('urn:li:ownershipType:steward');
  });

  it('labels a link with its description and makes its creator the author', () => {
    expect(
      institutionalMemoryOf(
        {
          elements: [
            { url: 'https://x', description: 'Runbook', createStamp: { time: 5, actor: 'urn:li:corpuser:a' } },
          ],
        },
        DATASET,
      ),
    ).toEqual({
      elements: [
        {
          url: 'https://x',
          label: 'Runbook',
          description: 'Runbook',
          author: 'urn:li:corpuser:a',
          created: { time: 5, actor: 'urn:li:corpuser:a' },
          updated: null,
          associatedUrn: DATASET,
        },
      ],
    });
  });

  it('answers the actor of a deprecation as an entity as well', () => {
    expect(deprecationOf({ deprecated: true, note: 'gone', actor: 'urn:li:corpuser:a' })).toEqual({
      deprecated: true,
      decommissionTime: null,
      note: 'gone',
      actor: 'urn:li:corpuser:a',
      actorEntity: 'urn:li:corpuser:a',
      replacement: null,
    });
  });

  it('names a glossary term by the last part of its hierarchical name', () => {
    expect(glossaryTermNameOf('Classification.Sensitive.PII')).toBe('PII');
    expect(glossaryTermNameOf('Revenue')).toBe('Revenue');
  });

  it('fills a schema’s defaults into a stored value, nested ones too, leaving what is there', () => {
    const registry = testEntityRegistry();
    const status = registry.entity('dataset')?.aspect('status')?.schema;
    const schema = registry.entity('dataset')?.aspect('schemaMetadata')?.schema;
    if (status === undefined || schema === undefined) throw new Error('the model lacks status or schemaMetadata');
    expect(withDefaults(status, {})).toEqual({ removed: false });
    expect(withDefaults(status, { removed: true })).toEqual({ removed: true });
    const filled = withDefaults(schema, {
      schemaName: 's',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: [{ fieldPath: 'a', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } }],
    }) as { created: unknown; fields: Record<string, unknown>[] };
    expect(filled.created).toEqual({ time: 0, actor: 'urn:li:corpuser:unknown' });
    expect(filled.fields[0]).toMatchObject({ nullable: false, recursive: false, isPartOfKey: false });
    expect(filled.fields[0]?.['isPartitioningKey']).toBeUndefined();
  });
});

describe('lastIngested and existence', () => {
  const entity = (aspects: LoadedEntity['aspects']): LoadedEntity => ({ urn: DATASET, entityName: 'dataset', aspects });

  it('answers the latest lastObserved of the aspects an ingestion run wrote', () => {
    const loaded = entity({
      datasetKey: { value: {}, systemMetadata: { runId: 'run-1', lastObserved: 1_000 } },
      status: { value: {}, systemMetadata: { runId: 'no-run-id-provided', lastObserved: 9_000 } },
      ownership: {
        value: {},
        systemMetadata: { runId: 'no-run-id-provided', lastRunId: 'run-2', lastObserved: 2_000 },
      },
      globalTags: { value: {}, systemMetadata: { lastObserved: 8_000 } },
    });
    expect(lastIngestedOf(loaded)).toBe(2_000);
  });

  it('answers null when no run wrote the entity', () => {
    expect(lastIngestedOf(entity({ datasetKey: { value: {} } }))).toBeNull();
  });

  it('tells a stored entity from one whose key a read derived', () => {
    expect(existsIn(entity({ datasetKey: { value: {} } }), 'datasetKey')).toBe(false);
    expect(existsIn(entity({ datasetKey: { value: {}, systemMetadata: {} } }), 'datasetKey')).toBe(true);
    expect(existsIn(entity({ datasetKey: { value: {} }, status: { value: {} } }), 'datasetKey')).toBe(true);
  });
});
