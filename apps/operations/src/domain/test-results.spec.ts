import { testEntityRegistry } from '@strata/model/testing';
import {
  entityTypeOf,
  mergeOutcomes,
  outcomesOf,
  reconcile,
  sameOutcomes,
  storedOutcomes,
  testsInForce,
  typesSelected,
  type StoredTest,
} from './test-results';

const registry = testEntityRegistry();
const info = (definition: unknown) => ({
  name: 'a test',
  category: 'c',
  definition: { type: 'JSON', json: JSON.stringify(definition) },
});
const owned: StoredTest = {
  urn: 'urn:li:test:owned',
  info: info({ on: { types: ['dataset'] }, rules: { property: 'ownership.owners.owner', operator: 'exists' } }),
};
const described: StoredTest = {
  urn: 'urn:li:test:described',
  info: info({ on: { types: ['dataset'] }, rules: { property: 'datasetProperties.description', operator: 'exists' } }),
};
const charts: StoredTest = {
  urn: 'urn:li:test:charts',
  info: info({ on: { types: ['chart'] }, rules: [] }),
};
const stamp = { time: 5, actor: 'urn:li:corpuser:__datahub_system' };
const dataset = (aspects: Record<string, unknown>) => ({
  urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)',
  aspects,
});

describe('metadata test outcomes', () => {
  it('given stored tests, then those in force are the ones not removed whose definition parses, by URN', () => {
    const invalid: string[] = [];
    const tests = testsInForce(
      registry,
      [
        owned,
        described,
        { ...charts, removed: true },
        { urn: 'urn:li:test:broken', info: info({ on: { types: ['spaceship'] } }) },
      ],
      (urn) => invalid.push(urn),
    );
    expect(tests.map((test) => test.urn)).toEqual(['urn:li:test:described', 'urn:li:test:owned']);
    expect(tests[0]?.definitionMd5).toMatch(/^[0-9a-f]{32}$/);
    expect(invalid).toEqual(['urn:li:test:broken']);
    expect(typesSelected(registry, charts.info)).toEqual(['chart']);
    expect(typesSelected(registry, undefined)).toBeUndefined();
    expect(entityTypeOf(registry, 'urn:li:corpUser:jdoe')).toBe('corpuser');
  });

  it("given a test without on — DataHub's sample data holds {} — then it is in force, selects no type, and is in neither list", () => {
    const empty: StoredTest = { urn: 'urn:li:test:empty', info: info({}) };
    const tests = testsInForce(registry, [owned, empty], () => undefined);
    expect(tests.map((test) => test.urn)).toEqual(['urn:li:test:empty', 'urn:li:test:owned']);
    expect(typesSelected(registry, empty.info)).toEqual([]);
    const outcomes = outcomesOf('dataset', dataset({}), tests);
    expect(outcomes).toEqual({ passing: [], failing: [expect.objectContaining({ test: 'urn:li:test:owned' })] });
  });

  it('given an entity, then selected tests pass or fail and the others are in neither list', () => {
    const tests = testsInForce(registry, [owned, described, charts], () => undefined);
    const outcomes = outcomesOf('dataset', dataset({ datasetProperties: { description: 'd' } }), tests);
    expect(outcomes.passing.map((result) => result.test)).toEqual(['urn:li:test:described']);
    expect(outcomes.failing.map((result) => result.test)).toEqual(['urn:li:test:owned']);
    expect(outcomes.failing[0]).toMatchObject({ type: 'FAILURE', testDefinitionMd5: expect.any(String) });
  });

  it('given stored results, then an outcome that says the same is no change, stamps and digests aside', () => {
    const tests = testsInForce(registry, [owned, described], () => undefined);
    const entity = dataset({ datasetProperties: { description: 'd' } });
    const value = reconcile('dataset', entity, tests, stamp);
    expect(value?.passing).toEqual([
      expect.objectContaining({ test: 'urn:li:test:described', lastComputed: stamp, type: 'SUCCESS' }),
    ]);
    // Stored, it is what the entity's next evaluation agrees with: nothing more to push.
    expect(reconcile('dataset', { ...entity, aspects: { ...entity.aspects, testResults: value } }, tests, stamp)).toBe(
      undefined,
    );
    const older = {
      passing: [{ test: 'urn:li:test:described', type: 'SUCCESS' }],
      failing: [{ test: 'urn:li:test:owned' }],
    };
    expect(sameOutcomes(storedOutcomes(older), storedOutcomes(value))).toBe(true);
    // A test removed since drops out of the results.
    const withGone = {
      passing: [...(value?.passing ?? []), { test: 'urn:li:test:gone', type: 'SUCCESS' }],
      failing: value?.failing,
    };
    expect(
      reconcile('dataset', { ...entity, aspects: { ...entity.aspects, testResults: withGone } }, tests, stamp),
    ).toEqual(value);
    // An entity no test selects, with nothing stored, gets nothing.
    expect(reconcile('chart', { urn: 'urn:li:chart:(looker,c)', aspects: {} }, tests, stamp)).toBeUndefined();
  });

  it('given some tests evaluated, then their outcomes replace their own and the others stored stay', () => {
    const stored = storedOutcomes({
      passing: [{ test: 'urn:li:test:a' }, { test: 'urn:li:test:b' }],
      failing: [{ test: 'urn:li:test:c' }],
    });
    const merged = mergeOutcomes(
      stored,
      { passing: [], failing: [{ test: 'urn:li:test:b', type: 'FAILURE' }] },
      new Set(['urn:li:test:b']),
    );
    expect(merged.passing.map((result) => result.test)).toEqual(['urn:li:test:a']);
    expect(merged.failing.map((result) => result.test)).toEqual(['urn:li:test:b', 'urn:li:test:c']);
    expect(storedOutcomes('junk')).toEqual({ passing: [], failing: [] });
  });
});
