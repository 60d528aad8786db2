import type { CustomModelFiles } from '@strata/schemas';
import { withCustomModels } from './custom-models';
import { createEntityRegistry } from './entity-registry';
import { SchemaError } from './schema-error';
import { relationshipFields, searchableFields } from './search-annotations';
import { testSchemaFiles } from './testing';

const builtIn = testSchemaFiles();

/** A dataset aspect of an operator's own: a searchable cost centre and a relationship to the team that pays. */
const COST_CENTRE = {
  type: 'record',
  name: 'CostCentre',
  namespace: 'com.example.finance',
  Aspect: { name: 'costCentre' },
  fields: [
    {
      name: 'code',
      type: 'string',
      Searchable: { fieldType: 'KEYWORD', addToFilters: true, filterNameOverride: 'Cost centre' },
    },
    {
      name: 'payer',
      type: ['null', { type: 'string', java: { class: 'com.linkedin.common.urn.CorpGroupUrn' } }],
      default: null,
      Relationship: { name: 'PaidBy', entityTypes: ['corpGroup'] },
    },
  ],
};

const REPORT_KEY = {
  type: 'record',
  name: 'ReportKey',
  namespace: 'com.example.report',
  Aspect: { name: 'reportKey' },
  fields: [{ name: 'id', type: 'string', Searchable: { fieldType: 'WORD_GRAM', enableAutocomplete: true } }],
};

function custom(files: Record<string, unknown>, entityRegistry?: unknown): CustomModelFiles {
  return {
    directory: '/etc/strata/models',
    entityRegistry,
    aspects: Object.entries(files).map(([file, schema]) => ({ file, schema })),
  };
}

const registryOf = (files: CustomModelFiles) => createEntityRegistry(withCustomModels(builtIn, files));

describe('withCustomModels', () => {
  it('given a new aspect for datasets, when loaded, then it validates, searches and relates like a built-in one', () => {
    const registry = registryOf(
      custom({ 'CostCentre.avsc': COST_CENTRE }, { entities: [{ name: 'dataset', aspects: ['costCentre'] }] }),
    );
    const dataset = registry.entity('dataset')!;
    expect(dataset.aspect('costCentre')!.validate({ code: 'CC-7', payer: 'urn:li:corpGroup:finance' })).toEqual({
      code: 'CC-7',
      payer: 'urn:li:corpGroup:finance',
    });
    expect(() => dataset.aspect('costCentre')!.validate({ code: 7 })).toThrow(/\/code/);
    expect(searchableFields(dataset).find((field) => field.fieldName === 'code')).toMatchObject({
      aspect: 'costCentre',
      fieldType: 'KEYWORD',
      filterName: 'Cost centre',
    });
    expect(relationshipFields(dataset).find((field) => field.name === 'PaidBy')).toMatchObject({
      aspect: 'costCentre',
      entityTypes: ['corpGroup'],
    });
    expect(dataset.aspect('datasetProperties')).toBeDefined();
  });

  it('given a new entity type, when loaded, then it has its key and the aspects it names, built-in ones included', () => {
    const registry = registryOf(
      custom(
        { 'ReportKey.avsc': REPORT_KEY, 'CostCentre.avsc': COST_CENTRE },
        { entities: [{ name: 'report', keyAspect: 'reportKey', aspects: ['costCentre', 'ownership', 'status'] }] },
      ),
    );
    const report = registry.entity('report')!;
    expect(report.aspects.map((aspect) => aspect.name)).toEqual(['reportKey', 'costCentre', 'ownership', 'status']);
  });

  it('given a compatible evolution of a built-in aspect, when loaded, then it replaces the built-in one', () => {
    const status = {
      type: 'record',
      name: 'Status',
      namespace: 'com.linkedin.common',
      Aspect: { name: 'status' },
      fields: [
        { name: 'removed', type: 'boolean', default: false },
        { name: 'reason', type: ['null', 'string'], default: null },
      ],
    };
    const registry = registryOf(custom({ 'Status.avsc': status }));
    expect(registry.entity('dataset')!.aspect('status')!.validate({ removed: true, reason: 'retired' })).toEqual({
      removed: true,
      reason: 'retired',
    });
  });

  it.each([
    [
      'an incompatible change of a built-in aspect',
      custom({
        'Status.avsc': {
          type: 'record',
          name: 'Status',
          namespace: 'com.linkedin.common',
          Aspect: { name: 'status' },
          fields: [{ name: 'removed', type: 'string' }],
        },
      }),
      /custom\/Status\.avsc changes com\.linkedin\.common\.Status incompatibly/,
    ],
    [
      'a renamed built-in aspect',
      custom({
        'Status.avsc': {
          type: 'record',
          name: 'Status',
          namespace: 'com.linkedin.common',
          Aspect: { name: 'state' },
          fields: [{ name: 'removed', type: 'boolean', default: false }],
        },
      }),
      /changes the aspect name of com\.linkedin\.common\.Status from status to state/,
    ],
    [
      'a schema avsc refuses',
      custom({ 'Broken.avsc': { type: 'record', name: 'Broken', fields: [{ name: 'x', type: 'nope' }] } }),
      /Invalid schema custom\/Broken\.avsc|undefined type name nope/,
    ],
    [
      'an aspect no schema defines',
      custom({}, { entities: [{ name: 'dataset', aspects: ['costCentre'] }] }),
      /entity dataset names aspect costCentre, which no schema under aspects\/ defines/,
    ],
    [
      'a new entity without a key aspect',
      custom({ 'CostCentre.avsc': COST_CENTRE }, { entities: [{ name: 'report', aspects: ['costCentre'] }] }),
      /entity report has no key aspect/,
    ],
    [
      'a Searchable annotation whose path does not resolve',
      custom(
        {
          'CostCentre.avsc': {
            ...COST_CENTRE,
            fields: [{ name: 'codes', type: { type: 'array', items: 'string' }, Searchable: { '/x': {} } }],
          },
        },
        { entities: [{ name: 'dataset', aspects: ['costCentre'] }] },
      ),
      /aspect costCentre at \/codes\/x: the path does not resolve/,
    ],
    ['a registry without entities', custom({}, { aspects: [] }), /entity-registry\.json must be an object/],
  ])('given %s, when loaded, then a SchemaError names the directory and the fault', (_case, files, message) => {
    let thrown: unknown;
    try {
      withCustomModels(builtIn, files);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SchemaError);
    expect((thrown as Error).message).toMatch(/^Custom models in \/etc\/strata\/models: /);
    expect((thrown as Error).message).toMatch(message);
  });
});
