import { ValidationError } from './errors';
import {
  evaluateTest,
  MAX_TEST_NESTING,
  parseTestDefinition,
  valuesReached,
  type TestedEntity,
} from './metadata-tests';
import { testEntityRegistry } from './testing';

const registry = testEntityRegistry();
const parse = (definition: unknown) => parseTestDefinition(definition, registry);

const owned = (...owners: string[]) => ({
  owners: owners.map((owner) => ({ owner, type: 'DATAOWNER' })),
  lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' },
});
const dataset = (aspects: Record<string, unknown>): TestedEntity => ({ entityType: 'dataset', aspects });

const ownershipRequired = {
  on: { types: ['dataset'] },
  rules: { property: 'ownership.owners.owner', operator: 'exists' },
};

describe('evaluateTest', () => {
  it('given an ownership test, then a dataset with an owner passes and one without fails; another type is not selected', () => {
    const test = parse(ownershipRequired);
    expect(evaluateTest(test, dataset({ ownership: owned('urn:li:corpuser:jdoe') }))).toBe('SUCCESS');
    expect(evaluateTest(test, dataset({ ownership: owned() }))).toBe('FAILURE');
    expect(evaluateTest(test, dataset({}))).toBe('FAILURE');
    expect(
      evaluateTest(test, { entityType: 'chart', aspects: { ownership: owned('urn:li:corpuser:x') } }),
    ).toBeUndefined();
  });

  it('given a path through a list, then it holds when any element matches', () => {
    const test = parse({
      on: { types: ['dataset'] },
      rules: { property: 'globalTags.tags.tag', operator: 'regex_match', values: ['^urn:li:tag:pii_[a-z]+$'] },
    });
    const tags = (...names: string[]) => ({ globalTags: { tags: names.map((tag) => ({ tag: `urn:li:tag:${tag}` })) } });
    expect(evaluateTest(test, dataset(tags('public', 'pii_email')))).toBe('SUCCESS');
    expect(evaluateTest(test, dataset(tags('public', 'pii_')))).toBe('FAILURE');
    expect(evaluateTest(test, dataset(tags()))).toBe('FAILURE');
  });

  it('given nested and / or / not, then they combine as written; a bare list is an and', () => {
    const test = parse({
      on: {
        types: ['dataset'],
        conditions: { property: 'datasetProperties.name', operator: 'starts_with', values: ['prod_'] },
      },
      rules: [
        {
          or: [
            { property: 'datasetProperties.description', operator: 'exists' },
            { property: 'editableDatasetProperties.description', operator: 'exists' },
          ],
        },
        { not: { property: 'status.removed', operator: 'is_true' } },
      ],
    });
    const props = (name: string, description?: string) => ({
      datasetProperties: { name, ...(description ? { description } : {}) },
    });
    expect(evaluateTest(test, dataset(props('dev_orders', 'x')))).toBeUndefined();
    expect(evaluateTest(test, dataset(props('prod_orders', 'the orders')))).toBe('SUCCESS');
    expect(
      evaluateTest(test, dataset({ ...props('prod_orders'), editableDatasetProperties: { description: 'by hand' } })),
    ).toBe('SUCCESS');
    expect(evaluateTest(test, dataset(props('prod_orders')))).toBe('FAILURE');
    expect(evaluateTest(test, dataset({ ...props('prod_orders', 'x'), status: { removed: true } }))).toBe('FAILURE');
  });

  it.each([
    [
      'equals',
      ['urn:li:dataPlatform:hive'],
      'dataPlatformInstance.platform',
      { dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' } },
      true,
    ],
    [
      'equals',
      ['urn:li:dataPlatform:kafka'],
      'dataPlatformInstance.platform',
      { dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' } },
      false,
    ],
    ['contains_str', ['rder'], 'datasetProperties.name', { datasetProperties: { name: 'orders' } }, true],
    [
      'contains_any',
      ['urn:li:corpuser:a', 'urn:li:corpuser:b'],
      'ownership.owners.owner',
      { ownership: owned('urn:li:corpuser:b') },
      true,
    ],
    [
      'greater_than',
      ['10'],
      'datasetProperties.customProperties.rows',
      { datasetProperties: { customProperties: { rows: '42' } } },
      true,
    ],
    [
      'less_than',
      ['10'],
      'datasetProperties.customProperties.rows',
      { datasetProperties: { customProperties: { rows: '42' } } },
      false,
    ],
    ['is_false', [], 'status.removed', { status: { removed: false } }, true],
  ])('given %s %j on %s, then it is %s', (operator, values, property, aspects, passes) => {
    const test = parse({ on: { types: ['dataset'] }, rules: { property, operator, values } });
    expect(evaluateTest(test, dataset(aspects))).toBe(passes ? 'SUCCESS' : 'FAILURE');
  });

  it('given an absent value, then every operator is false for it, and only not makes it true', () => {
    for (const operator of ['exists', 'equals', 'contains_str', 'starts_with', 'regex_match', 'is_true', 'is_false']) {
      const rules = { property: 'datasetProperties.description', operator, values: ['x'] };
      expect(evaluateTest(parse({ on: { types: ['dataset'] }, rules }), dataset({}))).toBe('FAILURE');
      expect(evaluateTest(parse({ on: { types: ['dataset'] }, rules: { not: rules } }), dataset({}))).toBe('SUCCESS');
    }
  });

  it('given empty rules, then every selected entity passes', () => {
    for (const rules of [undefined, {}, []]) {
      expect(
        evaluateTest(parse({ on: { types: ['dataset'] }, ...(rules === undefined ? {} : { rules }) }), dataset({})),
      ).toBe('SUCCESS');
    }
  });

  it("given a definition without on — DataHub's sample data holds {} — then it selects no entity", () => {
    const sampleData = parse('{}');
    const rulesOnly = parse({ rules: { property: 'ownership.owners.owner', operator: 'exists' } });
    for (const test of [sampleData, rulesOnly]) {
      expect(test.types).toEqual([]);
      expect(evaluateTest(test, dataset({}))).toBeUndefined();
      expect(evaluateTest(test, dataset({ ownership: owned('urn:li:corpuser:jdoe') }))).toBeUndefined();
    }
  });

  it("given DataHub's older spellings, then match, query, operation and negate work", () => {
    const test = parse({
      match: { types: ['dataset'] },
      rules: [{ query: 'ownership.owners.owner', operation: 'exists', negate: true }],
      actions: { passing: [{ type: 'ADD_TAGS', params: { values: 'urn:li:tag:unowned' } }] },
    });
    expect(test.actions).toEqual({ passing: [{ type: 'ADD_TAGS', params: { values: 'urn:li:tag:unowned' } }] });
    expect(evaluateTest(test, dataset({}))).toBe('SUCCESS');
    expect(evaluateTest(test, dataset({ ownership: owned('urn:li:corpuser:x') }))).toBe('FAILURE');
  });

  it('given schema_fields_have_descriptions, then every field needs its own or an edited description', () => {
    const test = parse({ on: { types: ['dataset'] }, rules: { operator: 'schema_fields_have_descriptions' } });
    const schema = { fields: [{ fieldPath: 'id', description: 'key' }, { fieldPath: 'name' }] };
    expect(evaluateTest(test, dataset({ schemaMetadata: schema }))).toBe('FAILURE');
    const edited = { editableSchemaFieldInfo: [{ fieldPath: 'name', description: 'the name' }] };
    expect(evaluateTest(test, dataset({ schemaMetadata: schema, editableSchemaMetadata: edited }))).toBe('SUCCESS');
  });

  it('given a pattern that backtracks catastrophically elsewhere, then it is matched in linear time', () => {
    const test = parse({
      on: { types: ['dataset'] },
      rules: { property: 'datasetProperties.name', operator: 'regex_match', values: ['^(a+)+$'] },
    });
    // Exponential backtracking would not finish at all: the suite's time limit is the bound.
    expect(evaluateTest(test, dataset({ datasetProperties: { name: `${'a'.repeat(50_000)}!` } }))).toBe('FAILURE');
  });
});

describe('parseTestDefinition', () => {
  it.each([
    ['{not json', /^definition: not JSON/],
    [{ on: {} }, /definition\.on\.types: must be a non-empty list/],
    [{ on: 'dataset' }, /definition\.on: must be an object/],
    ['[]', /^definition: must be an object/],
    [{ on: { types: 'dataset' } }, /definition\.on\.types: must be a non-empty list/],
    [{ on: { types: ['spaceship'] } }, /definition\.on\.types\[0\]: unknown entity type spaceship/],
    [
      { on: { types: ['dataset'] }, rules: { property: 'ownership.owners.owner', operator: 'smells_like' } },
      /definition\.rules\.operator: unknown operator smells_like/,
    ],
    [
      { on: { types: ['dataset'] }, rules: { property: 'chartInfo.title', operator: 'exists' } },
      /definition\.rules\.property: chartInfo is not an aspect of dataset/,
    ],
    [
      { on: { types: ['dataset'] }, rules: [{ property: 'ownership.owners.nobody', operator: 'exists' }] },
      /definition\.rules\[0\]\.property: ownership has no field owners\.nobody/,
    ],
    [
      {
        on: { types: ['dataset'] },
        rules: { property: 'datasetProperties.name', operator: 'regex_match', values: ['(a'] },
      },
      /definition\.rules\.values\[0\]: not a regular expression/,
    ],
    [
      {
        on: { types: ['dataset'] },
        rules: { property: 'datasetProperties.name', operator: 'greater_than', values: ['x'] },
      },
      /needs one number/,
    ],
    [{ on: { types: ['dataset'] }, rules: { or: 'x' } }, /definition\.rules\.or: must be a list/],
    [
      { on: { types: ['dataset'] }, rules: { property: 'testResults.failing.test', operator: 'exists' } },
      /definition\.rules\.property: a test cannot read testResults/,
    ],
  ])('given %j, then it is refused with the path of the fault', (definition, message) => {
    expect(() => parse(definition)).toThrow(ValidationError);
    expect(() => parse(definition)).toThrow(message);
  });

  it('given predicates nested too deeply, then it is refused', () => {
    let rules: unknown = { property: 'status.removed', operator: 'is_true' };
    for (let depth = 0; depth < MAX_TEST_NESTING; depth += 1) rules = { not: rules };
    expect(() => parse({ on: { types: ['dataset'] }, rules })).toThrow(/nests deeper than 32 levels/);
  });

  it('given entity types in another case, then they are the registry’s names', () => {
    expect(parse({ on: { types: ['DATASET', 'dataJob'] } }).types).toEqual(['dataset', 'dataJob']);
  });
});

describe('valuesReached', () => {
  it('walks lists element by element and passes over absent values', () => {
    const value = { owners: [{ owner: 'a' }, { owner: null }, { nothing: 1 }, { owner: 'b' }] };
    expect(valuesReached(value, ['owners', 'owner'])).toEqual(['a', 'b']);
    expect(valuesReached(undefined, ['x'])).toEqual([]);
  });
});
