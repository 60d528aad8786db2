import type { SchemaFiles } from '@strata/schemas';
import { createEntityRegistry } from './entity-registry';
import { SchemaError } from './schema-error';
import { sampleAspectValue, sampleUrn, testEntityRegistry, testSchemaFiles } from './testing';
import { InvalidUrnError, parseUrn } from './urn';

const registryFile = testSchemaFiles().entityRegistry as {
  entities: { name: string; keyAspect: string; snapshot?: string; aspects: string[] }[];
};

describe('createEntityRegistry with the real schemas', () => {
  const registry = testEntityRegistry();

  it('given the registry file, when loaded, then every entity is there with its key aspect and every aspect', () => {
    expect(registry.entities().map((entity) => entity.name)).toEqual(
      registryFile.entities.map((entity) => entity.name),
    );
    for (const entry of registryFile.entities) {
      const entity = registry.entity(entry.name)!;
      expect(entity.keyAspect.name).toBe(entry.keyAspect);
      expect(entity.keyAspect.isKey).toBe(true);
      expect(entity.aspects[0]).toBe(entity.keyAspect);
      expect(new Set(entity.aspects.map((aspect) => aspect.name))).toEqual(
        new Set([entry.keyAspect, ...entry.aspects]),
      );
      expect(entity.snapshotRecordName).toBe(entry.snapshot);
      if (entry.snapshot !== undefined) expect(registry.entityBySnapshot(entry.snapshot)).toBe(entity);
      for (const aspect of entity.aspects) {
        expect(entity.aspect(aspect.name)).toBe(aspect);
        expect(entity.aspectByRecordName(aspect.recordName)).toBe(aspect);
        expect(aspect.schema.annotations['Aspect']).toMatchObject({ name: aspect.name });
        expect(aspect.isKey).toBe(aspect.name === entry.keyAspect);
      }
    }
  });

  it('given unknown names, when looked up, then undefined', () => {
    expect(registry.entity('spaceship')).toBeUndefined();
    expect(registry.entityBySnapshot('com.linkedin.metadata.snapshot.SpaceshipSnapshot')).toBeUndefined();
    expect(registry.entity('dataset')!.aspect('chartInfo')).toBeUndefined();
  });

  it('given aspect records, when loaded, then record names, kinds and annotations are DataHub’s', () => {
    const dataset = registry.entity('dataset')!;
    expect(dataset.aspect('ownership')!.recordName).toBe('com.linkedin.common.Ownership');
    expect(dataset.aspect('ownership')!.kind).toBe('versioned');
    expect(dataset.aspect('datasetProfile')!.kind).toBe('timeseries');
    expect(dataset.aspect('datasetUsageStatistics')!.kind).toBe('timeseries');
    const tags = dataset.aspect('globalTags')!.schema.field('tags')!;
    expect(tags.annotations['Relationship']).toEqual({ '/*/tag': { name: 'TaggedWith', entityTypes: ['tag'] } });
    const platform = dataset.keyAspect.schema.field('platform')!;
    expect(platform.type).toMatchObject({
      type: 'string',
      annotations: { java: { class: 'com.linkedin.common.urn.Urn' } },
    });
    const origin = dataset.keyAspect.schema.field('origin')!;
    expect(origin.type).toMatchObject({ type: 'enum', name: 'com.linkedin.common.FabricType' });
  });

  it.each([
    [
      'dataset',
      'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)',
      { platform: 'urn:li:dataPlatform:hive', name: 'db.table', origin: 'PROD' },
    ],
    ['chart', 'urn:li:chart:(looker,baz1)', { dashboardTool: 'looker', chartId: 'baz1' }],
    ['dashboard', 'urn:li:dashboard:(looker,baz)', { dashboardTool: 'looker', dashboardId: 'baz' }],
    ['corpuser', 'urn:li:corpuser:jdoe', { username: 'jdoe' }],
    ['tag', 'urn:li:tag:Legacy', { name: 'Legacy' }],
    ['dataPlatform', 'urn:li:dataPlatform:hive', { platformName: 'hive' }],
  ])('given a %s URN, when its key is derived, then the key fields come in key order', (entityType, text, key) => {
    const derived = registry.entity(entityType)!.keyFromUrn(parseUrn(text));
    expect(derived).toEqual(key);
    expect(Object.keys(derived)).toEqual(Object.keys(key));
  });

  it('given a dataset URN with an unknown fabric, when its key is derived, then the FabricType symbol is checked', () => {
    const text = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PRODUCTION)';
    const derive = () => registry.entity('dataset')!.keyFromUrn(parseUrn(text));
    expect(derive).toThrow(InvalidUrnError);
    expect(derive).toThrow(
      /^Invalid URN "urn:li:dataset:\(urn:li:dataPlatform:hive,db\.table,PRODUCTION\)": origin: "PRODUCTION" is not one of DEV, TEST, QA/,
    );
  });

  it('given URNs that do not fit the key, when derived, then each is an InvalidUrnError with the reason', () => {
    const dataset = registry.entity('dataset')!;
    expect(() => dataset.keyFromUrn(parseUrn('urn:li:dataset:t'))).toThrow(
      'Invalid URN "urn:li:dataset:t": a dataset URN has 3 parts (platform, name, origin), this one has 1 part',
    );
    // DataHub's key declares the platform as any URN, so DataHub accepts this one, and so does Strata.
    expect(dataset.keyFromUrn(parseUrn('urn:li:dataset:(urn:li:tag:hive,t,PROD)'))).toMatchObject({
      platform: 'urn:li:tag:hive',
    });
    expect(() => dataset.keyFromUrn(parseUrn('urn:li:dataset:(hive,t,PROD)'))).toThrow(
      'Invalid URN "urn:li:dataset:(hive,t,PROD)": platform: Invalid URN "hive": must start with "urn:li:"',
    );
    expect(() => dataset.keyFromUrn(parseUrn('urn:li:chart:(looker,a)'))).toThrow(
      'Invalid URN "urn:li:chart:(looker,a)": not a dataset URN',
    );
  });

  it('given a one-field key and an id that looks like a tuple, when derived, then the whole id is the name', () => {
    const term = parseUrn('urn:li:glossaryTerm:(instruments,instruments.FinancialInstrument_v1)');
    expect(registry.entity('glossaryTerm')!.keyFromUrn(term)).toEqual({
      name: '(instruments,instruments.FinancialInstrument_v1)',
    });
    expect(registry.entity('corpuser')!.keyFromUrn(parseUrn('urn:li:corpuser:(a,b)'))).toEqual({ username: '(a,b)' });
  });
});

describe('createEntityRegistry fails fast on inconsistent schemas', () => {
  const key = (name: string, aspect: string) => ({
    type: 'record',
    name,
    namespace: 'test.key',
    Aspect: { name: aspect },
    fields: [{ name: 'id', type: 'string' }],
  });
  const info = {
    type: 'record',
    name: 'ThingInfo',
    namespace: 'test',
    Aspect: { name: 'thingInfo' },
    fields: [{ name: 'stamp', type: 'test.common.Stamp' }],
  };
  const stamp = { type: 'record', name: 'Stamp', namespace: 'test.common', fields: [{ name: 'time', type: 'long' }] };
  const files = (aspects: unknown[], entities: unknown[]): SchemaFiles => ({
    entityRegistry: { entities },
    aspects: aspects.map((schema, index) => ({ file: `aspects/${index}.avsc`, schema })),
    events: [],
  });
  const thing = { name: 'thing', keyAspect: 'thingKey', aspects: ['thingKey', 'thingInfo'] };

  it('given a file that refers to a type defined in a later file, when loaded, then the order is resolved', () => {
    const registry = createEntityRegistry(files([info, key('ThingKey', 'thingKey'), stamp], [thing]));
    expect(
      registry
        .entity('thing')!
        .aspect('thingInfo')!
        .validate({ stamp: { time: 1 } }),
    ).toEqual({ stamp: { time: 1 } });
    expect(registry.entity('thing')!.snapshotRecordName).toBeUndefined();
  });

  it('given a reference no file defines, when loaded, then SchemaError names the file and the type', () => {
    expect(() => createEntityRegistry(files([info, key('ThingKey', 'thingKey')], [thing]))).toThrow(
      new SchemaError('Cannot resolve schema references:\naspects/0.avsc: undefined type name test.common.Stamp'),
    );
  });

  it('given an aspect the registry names but no schema defines, when loaded, then SchemaError', () => {
    expect(() => createEntityRegistry(files([key('ThingKey', 'thingKey'), stamp], [thing]))).toThrow(
      'Entity registry: entity thing names aspect thingInfo, which no schema under aspects/ defines',
    );
  });

  it('given a key aspect with no schema, when loaded, then SchemaError', () => {
    expect(() => createEntityRegistry(files([info, stamp], [thing]))).toThrow(
      'Entity registry: entity thing names key aspect thingKey, which no schema under aspects/ defines',
    );
  });

  it('given an entity without a key aspect, when loaded, then SchemaError', () => {
    expect(() => createEntityRegistry(files([info, stamp], [{ name: 'thing', aspects: ['thingInfo'] }]))).toThrow(
      'Entity registry (entity-registry.json): entity thing has no key aspect ("keyAspect")',
    );
  });

  it('given two records declaring the same aspect, when loaded, then SchemaError names both', () => {
    expect(() =>
      createEntityRegistry(files([key('ThingKey', 'thingKey'), key('OtherKey', 'thingKey')], [thing])),
    ).toThrow(
      'Aspect thingKey is defined twice: by test.key.ThingKey (aspects/0.avsc) and by test.key.OtherKey (aspects/1.avsc)',
    );
  });

  it('given a type defined in two files, when loaded, then SchemaError', () => {
    expect(() =>
      createEntityRegistry(files([key('ThingKey', 'thingKey'), key('ThingKey', 'otherKey')], [thing])),
    ).toThrow('Invalid schema aspects/1.avsc: duplicate type name: test.key.ThingKey');
  });

  it('given an aspect listed twice for one entity, when loaded, then SchemaError', () => {
    const twice = { ...thing, aspects: ['thingKey', 'thingInfo', 'thingInfo'] };
    expect(() => createEntityRegistry(files([info, key('ThingKey', 'thingKey'), stamp], [twice]))).toThrow(
      'Entity registry: entity thing lists aspect thingInfo twice',
    );
  });

  it('given an invalid Avro schema, when loaded, then SchemaError names the file', () => {
    const bad = { type: 'record', name: 'Bad', namespace: 'test', fields: [{ name: 'x', type: 'int', default: 'no' }] };
    expect(() => createEntityRegistry(files([bad], []))).toThrow(/^Invalid schema aspects\/0\.avsc: /);
  });
});

describe('every aspect of every entity type of the real registry', () => {
  const registry = testEntityRegistry();
  const aspects = registry
    .entities()
    .flatMap((entity) => entity.aspects.map((aspect) => [`${entity.name}.${aspect.name}`, entity, aspect] as const));

  it('covers DataHub’s registry: dozens of entity types and hundreds of aspects', () => {
    expect(registry.entities().length).toBeGreaterThanOrEqual(70);
    expect(aspects.length).toBeGreaterThanOrEqual(500);
  });

  it.each(registry.entities().map((entity) => [entity.name, entity] as const))(
    'given a %s URN built from its key, when its key is derived, then it round-trips',
    (_name, entity) => {
      const urn = parseUrn(sampleUrn(registry, entity.name));
      const key = entity.keyFromUrn(urn);
      expect(entity.keyAspect.schema.fields.map((field) => String(key[field.name]))).toEqual(urn.parts);
    },
  );

  it.each(aspects)(
    'given %s, when a sample passes, then a wrong value in a field is refused naming it',
    (_n, _e, aspect) => {
      const sample = sampleAspectValue(registry, aspect.schema);
      expect(aspect.validate(sample)).toEqual(sample);
      const field = aspect.schema.fields.find((candidate) => !candidate.optional) ?? aspect.schema.fields[0];
      if (field === undefined) return; // a record without fields (DataHub has a few markers) holds nothing to get wrong
      const present = field.type.type === 'union' && field.optional ? field.type.members[1]! : field.type;
      const wrong = ['string', 'enum', 'bytes', 'fixed'].includes(present.type) ? 42 : 'not a value of this field';
      expect(() => aspect.validate({ ...sample, [field.name]: wrong })).toThrow(new RegExp(`/${field.name}\\b`));
    },
  );
});
