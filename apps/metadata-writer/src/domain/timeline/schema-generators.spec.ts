import type { JsonObject } from '@strata/model';
import {
  editableSchemaMetadataGenerator,
  fieldPathV1,
  schemaFieldUrn,
  schemaMetadataGenerator,
} from './schema-generators';

const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const context = { entityUrn: dataset, stamp: { time: 1000, actor: 'urn:li:corpuser:writer' } };
const field = (fieldPath: string, nativeDataType: string, extra: JsonObject = {}) => ({
  fieldPath,
  nativeDataType,
  type: { type: { 'com.linkedin.schema.StringType': {} } },
  ...extra,
});
const schema = (...fields: JsonObject[]): JsonObject => ({
  schemaName: 't',
  platform: 'urn:li:dataPlatform:hive',
  version: 0,
  hash: '',
  platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
  fields,
});
const fieldUrn = (path: string) => `urn:li:schemaField:(${dataset},${path})`;

describe('fieldPathV1 and schemaFieldUrn', () => {
  it('given a version-2 path, when simplified, then its annotations go', () => {
    expect(fieldPathV1('[version=2.0].[type=struct].address.[type=string].city')).toBe('address.city');
    expect(fieldPathV1('plain.path')).toBe('plain.path');
    expect(schemaFieldUrn(dataset, 'a')).toBe(fieldUrn('a'));
  });
});

describe('schemaMetadata, TECHNICAL_SCHEMA', () => {
  it('given a first schema, when compared, then each field is a MINOR ADD with its field parameters', () => {
    expect(
      schemaMetadataGenerator(
        ['TECHNICAL_SCHEMA'],
        undefined,
        schema(field('b', 'int'), field('a', 'string')),
        context,
      ),
    ).toEqual([
      {
        entityUrn: dataset,
        category: 'TECHNICAL_SCHEMA',
        operation: 'ADD',
        modifier: fieldUrn('a'),
        parameters: { fieldPath: 'a', fieldUrn: fieldUrn('a'), nullable: false, modificationCategory: 'OTHER' },
        semVerChange: 'MINOR',
        description: "A forwards & backwards compatible change due to the newly added field 'a'.",
      },
      {
        entityUrn: dataset,
        category: 'TECHNICAL_SCHEMA',
        operation: 'ADD',
        modifier: fieldUrn('b'),
        parameters: { fieldPath: 'b', fieldUrn: fieldUrn('b'), nullable: false, modificationCategory: 'OTHER' },
        semVerChange: 'MINOR',
        description: "A forwards & backwards compatible change due to the newly added field 'b'.",
      },
    ]);
  });

  it('given a field retyped, one dropped and one added, when compared, then a MAJOR MODIFY, a MAJOR REMOVE and a MINOR ADD', () => {
    const events = schemaMetadataGenerator(
      ['TECHNICAL_SCHEMA'],
      schema(field('a', 'string'), field('b', 'int', { nullable: true })),
      schema(field('a', 'varchar(20)'), field('c', 'int')),
      context,
    );
    expect(events.map((event) => [event.operation, event.semVerChange, event.modifier, event.description])).toEqual([
      [
        'MODIFY',
        'MAJOR',
        fieldUrn('a'),
        "A backwards incompatible change due to native datatype of the field 'a' changed from 'string' to 'varchar(20)'.",
      ],
      ['REMOVE', 'MAJOR', fieldUrn('b'), "A backwards incompatible change due to removal of field: 'b'."],
      ['ADD', 'MINOR', fieldUrn('c'), "A forwards & backwards compatible change due to the newly added field 'c'."],
    ]);
    expect(events[1]?.parameters).toMatchObject({ fieldPath: 'b', nullable: true });
  });

  it('given a field renamed (same type, parent and description), when compared, then one MINOR MODIFY, no removal', () => {
    const events = schemaMetadataGenerator(
      ['TECHNICAL_SCHEMA'],
      schema(field('s.old_name', 'int', { description: 'The count' })),
      schema(field('s.new_name', 'int', { description: 'The count' })),
      context,
    );
    expect(events).toEqual([
      {
        entityUrn: dataset,
        category: 'TECHNICAL_SCHEMA',
        operation: 'MODIFY',
        modifier: fieldUrn('s.old_name'),
        parameters: {
          fieldPath: 's.old_name',
          fieldUrn: fieldUrn('s.old_name'),
          nullable: false,
          modificationCategory: 'OTHER',
        },
        semVerChange: 'MINOR',
        description:
          "A forwards & backwards compatible change due to renaming of the field 's.old_name to s.new_name'.",
      },
    ]);
  });

  it('given a retyped field followed by more changes, when compared, then the fields after it are still compared', () => {
    const events = schemaMetadataGenerator(
      ['TECHNICAL_SCHEMA'],
      schema(field('a', 'string'), field('b', 'int'), field('d', 'int')),
      schema(field('a', 'text'), field('c', 'int'), field('d', 'bigint')),
      context,
    );
    expect(events.map((event) => [event.operation, event.parameters?.['fieldPath']])).toEqual([
      ['MODIFY', 'a'],
      ['REMOVE', 'b'],
      ['ADD', 'c'],
      ['MODIFY', 'd'],
    ]);
  });

  it('given primary keys changed, when compared, then each key removed or added is a MAJOR MODIFY', () => {
    const events = schemaMetadataGenerator(
      ['TECHNICAL_SCHEMA'],
      { ...schema(field('id', 'int'), field('k', 'int')), primaryKeys: ['id'] },
      { ...schema(field('id', 'int'), field('k', 'int')), primaryKeys: ['k'] },
      context,
    );
    expect(events).toEqual([
      {
        entityUrn: dataset,
        category: 'TECHNICAL_SCHEMA',
        operation: 'MODIFY',
        modifier: fieldUrn('id'),
        semVerChange: 'MAJOR',
        description: "A backwards incompatible change due to removal of the primary key field 'id'",
      },
      {
        entityUrn: dataset,
        category: 'TECHNICAL_SCHEMA',
        operation: 'MODIFY',
        modifier: fieldUrn('k'),
        semVerChange: 'MAJOR',
        description: "A backwards incompatible change due to addition of the primary key field 'k'",
      },
    ]);
  });
});

describe('schemaMetadata, DOCUMENTATION and TAG', () => {
  it("given a field's description added then changed, when compared for DOCUMENTATION, then a MINOR ADD then a PATCH MODIFY on the field", () => {
    const v1 = schema(field('a', 'string'));
    const v2 = schema(field('a', 'string', { description: 'Key' }));
    const v3 = schema(field('a', 'string', { description: 'The key' }));
    expect(schemaMetadataGenerator(['DOCUMENTATION'], v1, v2, context)).toEqual([
      {
        entityUrn: fieldUrn('a'),
        category: 'DOCUMENTATION',
        operation: 'ADD',
        semVerChange: 'MINOR',
        description: "The description 'Key' for the field 'a' has been added.",
      },
    ]);
    expect(schemaMetadataGenerator(['DOCUMENTATION'], v2, v3, context)).toMatchObject([
      {
        operation: 'MODIFY',
        semVerChange: 'PATCH',
        description: "The description for the field 'a' has been changed from 'Key' to 'The key'.",
      },
    ]);
  });

  it("given a field's tag added, when compared for TAG, then a MINOR ADD bound to the field", () => {
    const events = schemaMetadataGenerator(
      ['TAG'],
      schema(field('a', 'string')),
      schema(field('a', 'string', { globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] } })),
      context,
    );
    expect(events).toEqual([
      {
        entityUrn: fieldUrn('a'),
        category: 'TAG',
        operation: 'ADD',
        modifier: 'urn:li:tag:pii',
        parameters: { fieldPath: 'a', parentUrn: dataset, tagUrn: 'urn:li:tag:pii' },
        semVerChange: 'MINOR',
        description: `Tag 'pii' added to entity '${fieldUrn('a')}'.`,
      },
    ]);
  });

  it('given only technical changes, when compared for TAG, then nothing: each category sees its own changes', () => {
    expect(schemaMetadataGenerator(['TAG'], schema(field('a', 'string')), schema(field('b', 'int')), context)).toEqual(
      [],
    );
  });
});

describe('editableSchemaMetadata', () => {
  const info = (fieldPath: string, extra: JsonObject) => ({ editableSchemaFieldInfo: [{ fieldPath, ...extra }] });

  it("given a field's documentation written, then updated, then removed, when compared for DOCUMENTATION, then ADD, MODIFY (PATCH), REMOVE", () => {
    expect(
      editableSchemaMetadataGenerator(['DOCUMENTATION'], undefined, info('a', { description: 'x' }), context),
    ).toEqual([
      {
        entityUrn: fieldUrn('a'),
        category: 'DOCUMENTATION',
        operation: 'ADD',
        modifier: 'a',
        semVerChange: 'MINOR',
        description: `Documentation for the field 'a' of '${fieldUrn('a')}' has been added: 'x'`,
      },
    ]);
    expect(
      editableSchemaMetadataGenerator(
        ['DOCUMENTATION'],
        info('a', { description: 'x' }),
        info('a', { description: 'y' }),
        context,
      ),
    ).toMatchObject([
      {
        operation: 'MODIFY',
        semVerChange: 'PATCH',
        description: `Documentation for the field 'a' of '${fieldUrn('a')}' has been updated from 'x' to 'y'.`,
      },
    ]);
    expect(
      editableSchemaMetadataGenerator(
        ['DOCUMENTATION'],
        info('a', { description: 'y' }),
        { editableSchemaFieldInfo: [] },
        context,
      ),
    ).toMatchObject([
      {
        operation: 'REMOVE',
        description: `Documentation for the field 'a' of '${fieldUrn('a')}' has been removed: 'y'`,
      },
    ]);
  });

  it("given a field's tag and term added, when compared for TAG and GLOSSARY_TERM, then one event each, in the order asked", () => {
    const events = editableSchemaMetadataGenerator(
      ['GLOSSARY_TERM', 'TAG'],
      undefined,
      info('a', {
        globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] },
        glossaryTerms: { terms: [{ urn: 'urn:li:glossaryTerm:Key' }], auditStamp: { time: 0, actor: 'x' } },
      }),
      context,
    );
    expect(events).toEqual([
      {
        entityUrn: fieldUrn('a'),
        category: 'GLOSSARY_TERM',
        operation: 'ADD',
        modifier: 'urn:li:glossaryTerm:Key',
        parameters: { fieldPath: 'a', parentUrn: fieldUrn('a'), termUrn: 'urn:li:glossaryTerm:Key' },
        semVerChange: 'MINOR',
        description: `Term 'Key' added to entity '${fieldUrn('a')}'.`,
      },
      {
        entityUrn: fieldUrn('a'),
        category: 'TAG',
        operation: 'ADD',
        modifier: 'urn:li:tag:pii',
        parameters: { fieldPath: 'a', parentUrn: fieldUrn('a'), tagUrn: 'urn:li:tag:pii' },
        semVerChange: 'MINOR',
        description: `Tag 'pii' added to entity '${fieldUrn('a')}'.`,
      },
    ]);
  });
});
