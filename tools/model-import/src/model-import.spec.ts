import { importModel, ModelImportError } from './model-import';
import { parsePdl } from './pdl-parser';

const pdl = (files: Record<string, string>) => Object.entries(files).map(([path, text]) => parsePdl(text, path));

const MODEL = {
  'Urn.pdl':
    'namespace com.linkedin.common\n@java.class = "com.linkedin.common.urn.Urn"\n@validate.x = {}\ntyperef Urn = string',
  'Base.pdl': 'namespace com.linkedin.common\nrecord Base { timestampMillis: long }',
  'Cost.pdl': 'namespace com.linkedin.common\ntyperef CostValue = union[costId: double, costCode: string]',
  'ThingKey.pdl':
    'namespace com.linkedin.metadata.key\n@Aspect = { "name": "thingKey" }\nrecord ThingKey { id: string }',
  'ThingInfo.pdl': `namespace com.linkedin.thing
import com.linkedin.common.Urn
import com.linkedin.common.CostValue
@Aspect = { "name": "thingInfo" }
record ThingInfo {
  @Relationship = { "name": "OwnedBy", "entityTypes": ["corpuser"] }
  owner: optional Urn
  cost: optional CostValue
  kind: union[string, Detail] = { "string": "plain" }
  details: array[record Detail { @Searchable = {} note: string }] = []
}`,
  'ThingStats.pdl': `namespace com.linkedin.thing
@Aspect = { "name": "thingStats", "type": "timeseries" }
record ThingStats includes com.linkedin.common.Base { rows: optional long }`,
  'Unused.pdl': 'namespace com.linkedin.thing\n@Aspect = { "name": "unused" }\nrecord Unused {}',
  'ThingSnapshot.pdl': `namespace com.linkedin.metadata.snapshot
@Entity = { "name": "thing", "keyAspect": "thingKey" }
record ThingSnapshot { urn: string, aspects: array[string] }`,
};

const REGISTRY = `entities:
  - name: thing
    category: core
    keyAspect: thingKey
    aspects:
      - thingInfo
      - thingStats
      - thingInfo
`;

describe('importModel', () => {
  const model = importModel(pdl(MODEL), REGISTRY);

  it('given a registry, when imported, then entities keep their aspects once, their category and their snapshot', () => {
    expect(model.entityRegistry).toEqual({
      entities: [
        {
          name: 'thing',
          category: 'core',
          keyAspect: 'thingKey',
          snapshot: 'com.linkedin.metadata.snapshot.ThingSnapshot',
          aspects: ['thingInfo', 'thingStats'],
        },
      ],
    });
  });

  it('given the aspects, when imported, then only named types they reach get files, one each, under their namespace', () => {
    expect([...model.aspectFiles.keys()]).toEqual([
      'common/CostValue.avsc',
      'metadata/key/ThingKey.avsc',
      'thing/Detail.avsc',
      'thing/ThingInfo.avsc',
      'thing/ThingStats.avsc',
    ]);
  });

  it('given typerefs, optional fields, union defaults and inline records, when imported, then Avro says the same', () => {
    expect(model.aspectFiles.get('thing/ThingInfo.avsc')).toEqual({
      type: 'record',
      name: 'ThingInfo',
      namespace: 'com.linkedin.thing',
      Aspect: { name: 'thingInfo' },
      fields: [
        {
          name: 'owner',
          type: ['null', { type: 'string', java: { class: 'com.linkedin.common.urn.Urn' } }],
          default: null,
          Relationship: { name: 'OwnedBy', entityTypes: ['corpuser'] },
        },
        { name: 'cost', type: ['null', 'com.linkedin.common.CostValue'], default: null },
        { name: 'kind', type: ['string', 'com.linkedin.thing.Detail'], default: 'plain' },
        { name: 'details', type: { type: 'array', items: 'com.linkedin.thing.Detail' }, default: [] },
      ],
    });
    expect(model.aspectFiles.get('thing/Detail.avsc')).toEqual({
      type: 'record',
      name: 'Detail',
      namespace: 'com.linkedin.thing',
      fields: [{ name: 'note', type: 'string', Searchable: {} }],
    });
  });

  it('given a union with member aliases, when imported, then it is a record of optional members marked as such', () => {
    expect(model.aspectFiles.get('common/CostValue.avsc')).toEqual({
      type: 'record',
      name: 'CostValue',
      namespace: 'com.linkedin.common',
      unionWithAliases: true,
      fields: [
        { name: 'costId', type: ['null', 'double'], default: null },
        { name: 'costCode', type: ['null', 'string'], default: null },
      ],
    });
  });

  it('given an included record, when imported, then its fields come first', () => {
    expect(model.aspectFiles.get('thing/ThingStats.avsc')).toMatchObject({
      Aspect: { name: 'thingStats', type: 'timeseries' },
      fields: [
        { name: 'timestampMillis', type: 'long' },
        { name: 'rows', type: ['null', 'long'], default: null },
      ],
    });
  });

  it.each([
    [
      REGISTRY.replace('      - thingStats', '      - missing'),
      'Entity thing lists aspect missing, which no record declares',
    ],
    ['entities: 3', 'The entity registry has no "entities" list'],
  ])('given a bad registry, when imported, then a ModelImportError says why', (registry, message) => {
    expect(() => importModel(pdl(MODEL), registry)).toThrow(new ModelImportError(message));
  });

  it('given a reference no file declares, when imported, then a ModelImportError names it', () => {
    const broken = { ...MODEL, 'ThingKey.pdl': MODEL['ThingKey.pdl'].replace('id: string', 'id: Nowhere') };
    expect(() => importModel(pdl(broken), REGISTRY)).toThrow('No file declares com.linkedin.metadata.key.Nowhere');
  });
});
