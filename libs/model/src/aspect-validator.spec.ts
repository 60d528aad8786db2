import { AspectValidationError, validateAspectValue, type AspectValidationContext } from './aspect-validator';
import { ValidationError } from './errors';
import type { RecordSchema } from './record-schema';
import { loadSchemaTree } from './schema-loader';
import { testEntityRegistry } from './testing';
import type { Urn } from './urn';

const A = { type: 'record', name: 'A', namespace: 'test', fields: [{ name: 'x', type: 'int' }] };
const B = { type: 'record', name: 'B', namespace: 'test', fields: [{ name: 'y', type: 'string' }] };
const OWNER = {
  type: 'record',
  name: 'Owner',
  namespace: 'test',
  fields: [{ name: 'owner', type: { type: 'string', java: { class: 'com.linkedin.common.urn.Urn' } } }],
};
/** One field per Pegasus form of schemas/README.md. */
const FORMS = {
  type: 'record',
  name: 'Forms',
  namespace: 'test',
  Aspect: { name: 'forms' },
  fields: [
    { name: 'required', type: 'string' },
    { name: 'optional', type: ['null', 'string'], default: null },
    { name: 'withDefault', type: 'boolean', default: false },
    { name: 'recordUnion', type: ['test.A', 'test.B'], default: { x: 0 } },
    { name: 'optionalUnion', type: ['null', 'string', 'test.A'], default: null },
    { name: 'color', type: ['null', { type: 'enum', name: 'Color', symbols: ['RED', 'GREEN'] }], default: null },
    { name: 'anInt', type: ['null', 'int'], default: null },
    { name: 'aLong', type: ['null', 'long'], default: null },
    { name: 'aFloat', type: ['null', 'float'], default: null },
    { name: 'aDouble', type: ['null', 'double'], default: null },
    { name: 'aMap', type: ['null', { type: 'map', values: 'test.A' }], default: null },
    { name: 'anArray', type: ['null', { type: 'array', items: 'test.A' }], default: null },
    { name: 'someBytes', type: ['null', 'bytes'], default: null },
    { name: 'four', type: ['null', { type: 'fixed', name: 'Four', size: 4 }], default: null },
    {
      name: 'dataset',
      type: ['null', { type: 'string', java: { class: 'com.linkedin.common.urn.DatasetUrn' } }],
      default: null,
    },
    {
      name: 'anyUrn',
      type: ['null', { type: 'string', java: { class: 'com.linkedin.common.urn.Urn' } }],
      default: null,
    },
    {
      name: 'owners',
      type: ['null', { type: 'array', items: 'test.Owner' }],
      default: null,
      Relationship: { '/*/owner': { name: 'OwnedBy', entityTypes: ['corpuser', 'corpGroup'] } },
      UrnValidation: { '/*/owner': { entityTypes: ['corpuser', 'corpGroup'] } },
    },
    {
      name: 'related',
      type: ['null', { type: 'string', java: { class: 'com.linkedin.common.urn.Urn' } }],
      default: null,
      Relationship: { name: 'RelatedTo', entityTypes: ['dataset'] },
    },
    { name: 'arrayOfUnions', type: ['null', { type: 'array', items: ['string', 'test.B'] }], default: null },
  ],
};

function formsSchema(): RecordSchema {
  const loaded = loadSchemaTree(
    [FORMS, A, B, OWNER].map((schema, index) => ({ file: `aspects/test/${index}.avsc`, schema })),
  );
  return loaded.named.get('test.Forms') as RecordSchema;
}

const schema = formsSchema();

function problemsOf(value: unknown, context?: AspectValidationContext): string[] {
  try {
    validateAspectValue(schema, value, context);
  } catch (error) {
    if (error instanceof AspectValidationError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected the value to be rejected');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('validateAspectValue: Pegasus JSON forms', () => {
  it('given only the required field, when validated, then it is accepted as sent, defaults not filled in', () => {
    expect(validateAspectValue(schema, { required: 'r' })).toEqual({ required: 'r' });
  });

  it('given a required field missing, when validated, then the problem names its path', () => {
    expect(problemsOf({})).toEqual(['/required: required field is missing']);
  });

  it('given null for a required field or a field with a default, when validated, then it is rejected', () => {
    expect(problemsOf({ required: null, withDefault: null })).toEqual([
      '/required: expected a string, got null',
      '/withDefault: expected a boolean, got null',
    ]);
  });

  it('given null optional fields, when validated, then they are normalized to absent', () => {
    const value = validateAspectValue(schema, { required: 'r', optional: null, optionalUnion: null, color: null });
    expect(value).toEqual({ required: 'r' });
    expect('optional' in value).toBe(false);
  });

  it('given every form with a valid value, when validated, then each is kept as sent', () => {
    const value = {
      required: 'r',
      optional: 'o',
      withDefault: true,
      recordUnion: { 'test.B': { y: 'why' } },
      optionalUnion: { string: 'text' },
      color: 'GREEN',
      anInt: -2147483648,
      aLong: Number.MAX_SAFE_INTEGER,
      aFloat: 1.5,
      aDouble: -0.25,
      aMap: { k: { x: 1 } },
      anArray: [{ x: 1 }, { x: 2 }],
      someBytes: '\u0000\u00ff',
      four: 'abcd',
      dataset: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)',
      anyUrn: 'urn:li:anything:x',
      owners: [{ owner: 'urn:li:corpuser:jdoe' }, { owner: 'urn:li:corpGroup:eng' }],
      arrayOfUnions: [{ string: 's' }, { 'test.B': { y: 'b' } }],
    };
    expect(validateAspectValue(schema, value)).toEqual(value);
  });

  it('given a record union member keyed by its full name, when validated, then other keys are rejected', () => {
    expect(validateAspectValue(schema, { required: 'r', recordUnion: { 'test.A': { x: 1 } } })).toEqual({
      required: 'r',
      recordUnion: { 'test.A': { x: 1 } },
    });
    expect(problemsOf({ required: 'r', recordUnion: { A: { x: 1 } } })).toEqual([
      '/recordUnion: union member "A" is not one of test.A, test.B',
    ]);
    expect(problemsOf({ required: 'r', recordUnion: { x: 1 } })).toEqual([
      '/recordUnion: union member "x" is not one of test.A, test.B',
    ]);
    expect(problemsOf({ required: 'r', recordUnion: { 'test.A': { x: 1 }, 'test.B': { y: 'b' } } })).toEqual([
      '/recordUnion: expected an object with one key, one of test.A, test.B, got keys test.A, test.B',
    ]);
    expect(problemsOf({ required: 'r', recordUnion: {} })).toEqual([
      '/recordUnion: expected an object with one key, one of test.A, test.B, got an empty object',
    ]);
  });

  it('given a union with a primitive member, when validated, then the member is keyed by its type name', () => {
    expect(problemsOf({ required: 'r', optionalUnion: 'text' })).toEqual([
      '/optionalUnion: expected an object with one key, one of string, test.A, got the string "text"',
    ]);
    expect(problemsOf({ required: 'r', optionalUnion: { string: 1 } })).toEqual([
      '/optionalUnion/string: expected a string, got 1',
    ]);
  });

  it('given an enum value, when validated, then only a symbol is accepted', () => {
    expect(problemsOf({ required: 'r', color: 'BLUE' })).toEqual(['/color: "BLUE" is not one of RED, GREEN']);
    expect(problemsOf({ required: 'r', color: 0 })).toEqual(['/color: expected a string (test.Color), got 0']);
  });

  it('given numbers out of their type, when validated, then int and long must be integral and in range', () => {
    expect(
      problemsOf({ required: 'r', anInt: 1.5, aLong: 2 ** 53, aFloat: '1', aDouble: Number.POSITIVE_INFINITY }),
    ).toEqual([
      '/anInt: expected an int (an integer from -2147483648 to 2147483647), got 1.5',
      '/aLong: expected a long (an integer within ±9007199254740991), got 9007199254740992',
      '/aFloat: expected a finite number (float), got the string "1"',
      '/aDouble: expected a finite number (double), got Infinity',
    ]);
    expect(problemsOf({ required: 'r', anInt: 2 ** 31 })).toEqual([
      '/anInt: expected an int (an integer from -2147483648 to 2147483647), got 2147483648',
    ]);
  });

  it('given maps, arrays, bytes and fixed of the wrong shape, when validated, then each is rejected at its path', () => {
    expect(problemsOf({ required: 'r', aMap: [], anArray: {}, someBytes: 1, four: 'abc' })).toEqual([
      '/aMap: expected an object (a map), got an array',
      '/anArray: expected an array, got an object',
      '/someBytes: expected a string (bytes), got 1',
      '/four: expected a string of 4 characters (test.Four), got the string "abc"',
    ]);
    expect(problemsOf({ required: 'r', aMap: { 'a/b': { x: 'no' } }, anArray: [{ x: 1 }, { x: 'two' }] })).toEqual([
      '/aMap/a~1b/x: expected an int (an integer from -2147483648 to 2147483647), got the string "no"',
      '/anArray/1/x: expected an int (an integer from -2147483648 to 2147483647), got the string "two"',
    ]);
  });

  it('given a value that is not an object, when validated, then the root path is reported', () => {
    expect(problemsOf([])).toEqual(['/: expected an object (test.Forms), got an array']);
    expect(problemsOf('text')).toEqual(['/: expected an object (test.Forms), got the string "text"']);
  });
});

describe('validateAspectValue: normalization', () => {
  it('given unknown fields at every depth, when validated, then they are dropped', () => {
    const value = {
      required: 'r',
      extra: 1,
      recordUnion: { 'test.A': { x: 1, extra: 2 } },
      aMap: { k: { x: 1, extra: 3 } },
      anArray: [{ x: 1, extra: 4 }],
      owners: [{ owner: 'urn:li:corpuser:jdoe', extra: 5 }],
      arrayOfUnions: [{ 'test.B': { y: 'b', extra: 6 } }],
    };
    expect(validateAspectValue(schema, value)).toEqual({
      required: 'r',
      recordUnion: { 'test.A': { x: 1 } },
      aMap: { k: { x: 1 } },
      anArray: [{ x: 1 }],
      owners: [{ owner: 'urn:li:corpuser:jdoe' }],
      arrayOfUnions: [{ 'test.B': { y: 'b' } }],
    });
  });

  it('given map keys named "__proto__" and "constructor", when validated, then both stay own keys of the copy', () => {
    // JSON text: in an object literal, `__proto__` would set the prototype instead of making a key.
    const value = JSON.parse(
      '{"required": "r", "aMap": {"__proto__": {"x": 1}, "constructor": {"x": 2}, "toString": {"x": 3}}}',
    ) as unknown;
    const output = validateAspectValue(schema, value);
    const map = output['aMap'] as Record<string, unknown>;
    expect(Object.keys(map)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect(JSON.stringify(output)).toBe(
      '{"required":"r","aMap":{"__proto__":{"x":1},"constructor":{"x":2},"toString":{"x":3}}}',
    );
  });

  it('given a frozen input, when validated, then the input is untouched and a copy is returned', () => {
    const input = deepFreeze({ required: 'r', optional: null, extra: true, anArray: [{ x: 1, extra: 1 }] });
    const snapshot = JSON.stringify(input);
    const output = validateAspectValue(schema, input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(output).not.toBe(input);
    expect(output['anArray']).not.toBe(input.anArray);
  });
});

describe('validateAspectValue: URNs', () => {
  it('given a typed dataset field holding an mlModel URN, when validated, then it is rejected', () => {
    expect(problemsOf({ required: 'r', dataset: 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)' })).toEqual([
      '/dataset: "urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)" is not a dataset URN',
    ]);
  });

  it('given a URN field holding text that is not a URN, when validated, then the URN error is the reason', () => {
    expect(problemsOf({ required: 'r', anyUrn: 'jdoe', dataset: 'urn:li:dataset:(a,b' })).toEqual([
      '/dataset: Invalid URN "urn:li:dataset:(a,b": unbalanced parentheses: missing ")"',
      '/anyUrn: Invalid URN "jdoe": must start with "urn:li:"',
    ]);
  });

  it('given an UrnValidation restricted to corpuser and corpGroup, when an mlModel owns, then it is rejected', () => {
    expect(
      problemsOf({ required: 'r', owners: [{ owner: 'urn:li:corpuser:a' }, { owner: 'urn:li:mlModel:x' }] }),
    ).toEqual(['/owners/1/owner: "urn:li:mlModel:x" is not a corpuser or corpGroup URN']);
  });

  it('given a Relationship alone, when its URN is of another type, then it is accepted, as in DataHub', () => {
    expect(validateAspectValue(schema, { required: 'r', related: 'urn:li:chart:(looker,a)' })).toEqual({
      required: 'r',
      related: 'urn:li:chart:(looker,a)',
    });
  });

  it('given a typed URN, when validated with a context, then the entity check runs for typed URNs only', () => {
    const checked: string[] = [];
    const context: AspectValidationContext = {
      checkEntityUrn: (urn: Urn) => {
        checked.push(urn.toString());
        if (urn.parts.length !== 3) throw new ValidationError('a dataset URN has 3 parts');
      },
    };
    expect(problemsOf({ required: 'r', dataset: 'urn:li:dataset:x', anyUrn: 'urn:li:dataset:y' }, context)).toEqual([
      '/dataset: a dataset URN has 3 parts',
    ]);
    expect(checked).toEqual(['urn:li:dataset:x']);
  });
});

describe('validateAspectValue: error reporting', () => {
  it('given many problems, when validated, then the first ten are listed and the rest counted', () => {
    const anArray = Array.from({ length: 13 }, () => ({ x: 'no' }));
    const error = (() => {
      try {
        validateAspectValue(schema, { required: 'r', anArray });
      } catch (caught) {
        return caught as AspectValidationError;
      }
      throw new Error('expected a rejection');
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.problems).toHaveLength(13);
    const lines = error.message.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe(
      '/anArray/0/x: expected an int (an integer from -2147483648 to 2147483647), got the string "no"',
    );
    expect(lines[10]).toBe('… and 3 more problems');
  });
});

describe('validateAspectValue: real aspect schemas', () => {
  const registry = testEntityRegistry();
  const dataset = registry.entity('dataset')!;

  it('given a freshness assertion on a chart, when validated, then the UrnValidation entity types are in the message', () => {
    const assertionInfo = registry.entity('assertion')!.aspect('assertionInfo')!;
    const value = {
      type: 'FRESHNESS',
      freshnessAssertion: { type: 'DATASET_CHANGE', entity: 'urn:li:chart:(looker,a)', schedule: { type: 'CRON' } },
    };
    expect(() => assertionInfo.validate(value)).toThrow(
      '/freshnessAssertion/entity: "urn:li:chart:(looker,a)" is not a dataset or dataJob URN',
    );
  });

  it('given a cost, when its aliased union sets one member, then it passes, and none or two are rejected', () => {
    const cost = registry.entity('mlModel')!.aspect('cost')!;
    expect(cost.validate({ costType: 'ORG_COST_TYPE', cost: { costCode: 'c-1' } })).toEqual({
      costType: 'ORG_COST_TYPE',
      cost: { costCode: 'c-1' },
    });
    expect(() => cost.validate({ costType: 'ORG_COST_TYPE', cost: {} })).toThrow(
      '/cost: a union holds exactly one of costId, costCode, got 0',
    );
    expect(() => cost.validate({ costType: 'ORG_COST_TYPE', cost: { costId: 1, costCode: 'c' } })).toThrow(
      '/cost: a union holds exactly one of costId, costCode, got 2',
    );
  });

  it('given upstream lineage to an mlModel, when validated, then the DatasetUrn field rejects it', () => {
    const upstreamLineage = dataset.aspect('upstreamLineage')!;
    expect(() =>
      upstreamLineage.validate({
        upstreams: [{ dataset: 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)', type: 'TRANSFORMED' }],
      }),
    ).toThrow('/upstreams/0/dataset: "urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)" is not a dataset URN');
  });

  it('given upstream lineage to a malformed dataset URN, when validated, then the dataset key check rejects it', () => {
    const upstreamLineage = dataset.aspect('upstreamLineage')!;
    expect(() =>
      upstreamLineage.validate({
        upstreams: [{ dataset: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,NOWHERE)', type: 'TRANSFORMED' }],
      }),
    ).toThrow(
      /^\/upstreams\/0\/dataset: Invalid URN "urn:li:dataset:\(urn:li:dataPlatform:hive,t,NOWHERE\)": origin: "NOWHERE" is not one of DEV, TEST/,
    );
  });

  it('given a schemaMetadata as the Python emitter sends it, when validated, then unions and defaults pass', () => {
    const schemaMetadata = {
      schemaName: 'customer',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      created: { time: 0, actor: 'urn:li:corpuser:unknown' },
      lastModified: { time: 0, actor: 'urn:li:corpuser:unknown' },
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '__insert raw schema here__' } },
      fields: [
        {
          fieldPath: 'address.zipcode',
          nullable: false,
          description: 'zip',
          type: { type: { 'com.linkedin.schema.StringType': {} } },
          nativeDataType: 'VARCHAR(50)',
          recursive: false,
          isPartOfKey: false,
          globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] },
        },
      ],
    };
    expect(dataset.aspect('schemaMetadata')!.validate(schemaMetadata)).toEqual(schemaMetadata);
  });

  it('given a schema field tagged with a glossary term URN, when validated, then the tag relationship rejects it', () => {
    expect(() => dataset.aspect('globalTags')!.validate({ tags: [{ tag: 'urn:li:glossaryTerm:x' }] })).toThrow(
      '/tags/0/tag: "urn:li:glossaryTerm:x" is not a tag URN',
    );
  });

  it('given chart inputs in the legacy union form, when validated, then the string member is checked as a dataset URN', () => {
    const chartInfo = registry.entity('chart')!.aspect('chartInfo')!;
    const value = {
      title: 'Baz',
      description: 'Baz chart',
      lastModified: {
        created: { time: 0, actor: 'urn:li:corpuser:jdoe' },
        lastModified: { time: 0, actor: 'urn:li:corpuser:jdoe' },
      },
      inputs: [{ string: 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)' }],
    };
    expect(chartInfo.validate(value)).toEqual(value);
    expect(() => chartInfo.validate({ ...value, inputs: [{ string: 'urn:li:chart:(looker,a)' }] })).toThrow(
      '/inputs/0/string: "urn:li:chart:(looker,a)" is not a dataset URN',
    );
  });
});

describe('validateAspectValue: DataHub documentation and emitter payloads', () => {
  const registry = testEntityRegistry();
  // Payloads from DataHub's REST documentation (legacy ingest examples) and its Python emitter, which Strata promises to
  // accept unchanged. The group example really does write "urn:li:corpUser:…".
  const examples: [string, string, unknown][] = [
    [
      'corpuser',
      'com.linkedin.identity.CorpUserInfo',
      { active: true, displayName: 'Foo Bar', fullName: 'Foo Bar', email: 'fbar@linkedin.com' },
    ],
    [
      'corpGroup',
      'com.linkedin.identity.CorpGroupInfo',
      {
        email: 'dev@linkedin.com',
        admins: ['urn:li:corpUser:jdoe'],
        members: ['urn:li:corpUser:datahub', 'urn:li:corpUser:jdoe'],
        groups: [],
      },
    ],
    [
      'dataset',
      'com.linkedin.common.Ownership',
      {
        owners: [{ owner: 'urn:li:corpuser:fbar', type: 'DATAOWNER' }],
        lastModified: { time: 0, actor: 'urn:li:corpuser:fbar' },
      },
    ],
    [
      'dataset',
      'com.linkedin.common.InstitutionalMemory',
      {
        elements: [
          {
            url: 'https://www.linkedin.com',
            description: 'Sample doc',
            createStamp: { time: 0, actor: 'urn:li:corpuser:fbar' },
          },
        ],
      },
    ],
    [
      'dataset',
      'com.linkedin.schema.SchemaMetadata',
      {
        schemaName: 'FooEvent',
        platform: 'urn:li:dataPlatform:foo',
        version: 0,
        created: { time: 0, actor: 'urn:li:corpuser:fbar' },
        lastModified: { time: 0, actor: 'urn:li:corpuser:fbar' },
        hash: '',
        platformSchema: { 'com.linkedin.schema.KafkaSchema': { documentSchema: '{}' } },
        fields: [
          {
            fieldPath: 'foo',
            description: 'Bar',
            nativeDataType: 'string',
            type: { type: { 'com.linkedin.schema.StringType': {} } },
          },
        ],
      },
    ],
    [
      'chart',
      'com.linkedin.chart.ChartInfo',
      {
        title: 'Baz Chart 1',
        description: 'Baz Chart 1',
        inputs: [{ string: 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)' }],
        lastModified: {
          created: { time: 0, actor: 'urn:li:corpuser:jdoe' },
          lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' },
        },
      },
    ],
    [
      'dashboard',
      'com.linkedin.dashboard.DashboardInfo',
      {
        title: 'Baz Dashboard',
        description: 'Baz Dashboard',
        charts: ['urn:li:chart:(looker,baz1)', 'urn:li:chart:(looker,baz2)'],
        lastModified: {
          created: { time: 0, actor: 'urn:li:corpuser:jdoe' },
          lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' },
        },
      },
    ],
    [
      'tag',
      'com.linkedin.tag.TagProperties',
      { name: 'Legacy', description: 'Indicates the dataset is no longer supported' },
    ],
    ['dataset', 'com.linkedin.common.GlobalTags', { tags: [{ tag: 'urn:li:tag:Legacy' }] }],
    [
      'dataset',
      'com.linkedin.schema.EditableSchemaMetadata',
      {
        editableSchemaFieldInfo: [
          { fieldPath: 'address.zipcode', globalTags: { tags: [{ tag: 'urn:li:tag:Legacy' }] } },
        ],
      },
    ],
    ['dataset', 'com.linkedin.common.Status', { removed: true }],
    ['glossaryTerm', 'com.linkedin.glossary.GlossaryTermInfo', { definition: 'd', termSource: 'INTERNAL' }],
    [
      'dataPlatform',
      'com.linkedin.dataplatform.DataPlatformInfo',
      { name: 'hive', displayName: 'Hive', type: 'FILE_SYSTEM', datasetNameDelimiter: '.' },
    ],
    [
      'dataset',
      'com.linkedin.dataset.DatasetUsageStatistics',
      { timestampMillis: 1, uniqueUserCount: 1, totalSqlQueries: 2, fieldCounts: [{ fieldPath: 'a', count: 3 }] },
    ],
    [
      'dataset',
      'com.linkedin.dataset.DatasetProfile',
      {
        timestampMillis: 1,
        rowCount: 1,
        columnCount: 2,
        fieldProfiles: [
          {
            fieldPath: 'a',
            uniqueCount: 1,
            uniqueProportion: 0.5,
            nullCount: 0,
            nullProportion: 0,
            min: '1',
            max: '2',
            mean: '1.5',
            median: '1',
            sampleValues: ['1'],
            distinctValueFrequencies: [{ value: '1', frequency: 1 }],
          },
        ],
      },
    ],
    [
      'dataset',
      'com.linkedin.common.Ownership',
      {
        owners: [
          {
            owner: 'urn:li:corpuser:fbar',
            type: 'TECHNICAL_OWNER',
            typeUrn: 'urn:li:ownershipType:__system__technical_owner',
            source: { type: 'MANUAL' },
          },
        ],
        ownerTypes: { 'urn:li:ownershipType:__system__technical_owner': ['urn:li:corpuser:fbar'] },
        lastModified: { time: 0, actor: 'urn:li:corpuser:fbar' },
      },
    ],
    [
      'dataset',
      'com.linkedin.common.BrowsePathsV2',
      { path: [{ id: 'prod' }, { id: 'urn:li:container:x', urn: 'urn:li:container:x' }] },
    ],
    ['dataset', 'com.linkedin.common.DataPlatformInstance', { platform: 'urn:li:dataPlatform:hive' }],
    [
      'dataset',
      'com.linkedin.dataset.UpstreamLineage',
      {
        upstreams: [
          {
            auditStamp: { time: 0, actor: 'urn:li:corpuser:x' },
            dataset: 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)',
            type: 'TRANSFORMED',
          },
        ],
        fineGrainedLineages: [
          {
            upstreamType: 'FIELD_SET',
            upstreams: ['urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD),c)'],
            downstreamType: 'FIELD',
            downstreams: ['urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD),c)'],
            confidenceScore: 1.0,
          },
        ],
      },
    ],
    [
      'dataset',
      'com.linkedin.common.Operation',
      { timestampMillis: 1, operationType: 'INSERT', lastUpdatedTimestamp: 1 },
    ],
    [
      'corpuser',
      'com.linkedin.identity.CorpUserEditableInfo',
      { aboutMe: 'x', teams: [], skills: [], pictureLink: 'https://x' },
    ],
    ['dataset', 'com.linkedin.common.SubTypes', { typeNames: ['table'] }],
    [
      'dataset',
      'com.linkedin.common.Siblings',
      { siblings: ['urn:li:dataset:(urn:li:dataPlatform:dbt,a,PROD)'], primary: true },
    ],
  ];

  it.each(examples.map(([entity, record, value]) => [record, entity, value] as const))(
    'given the %s payload for a %s, when validated, then it is accepted unchanged',
    (record, entity, value) => {
      const aspect = registry.entity(entity)!.aspectByRecordName(record)!;
      expect(aspect.validate(value)).toEqual(value);
    },
  );
});
