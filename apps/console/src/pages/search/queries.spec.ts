import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import { entitiesHereFiltersOf, browseFiltersOf } from '../../logic/browse-path';
import { EMPTY_SEARCH, searchInputOf } from '../../logic/search-state';
import { ENTITY_NAME, ENTITY_SUMMARY, extraTimeOf, nameOf, summaryOf } from './entity-summary';
import {
  BROWSE_ENTITIES_QUERY,
  BROWSE_LEVEL_QUERY,
  BROWSE_PLATFORMS_QUERY,
  HOME_COUNTS_QUERY,
  RECENT_QUERY,
  recentTypesOf,
  recentVariablesOf,
  SEARCH_QUERY,
} from './queries';

const sdl = ['operations', 'entities', 'types']
  .map((name) => readFileSync(join(__dirname, '../../../../../schemas/graphql', `${name}.graphql`), 'utf8'))
  .join('\n');
const schema = buildSchema(sdl);

function errorsOf(document: string): string[] {
  return validate(schema, parse(document)).map((error) => error.message);
}

/** The errors coercing `variables` to the operation's variable types gives (what the server would refuse). */
function variableErrorsOf(document: string, variables: Record<string, unknown>): string[] {
  const operation = parse(document).definitions.find(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operation === undefined) throw new Error('no operation');
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  return (coerced.errors ?? []).map((error) => error.message);
}

describe("the pages' queries", () => {
  it('are valid against the served schema', () => {
    for (const document of [
      SEARCH_QUERY,
      HOME_COUNTS_QUERY,
      RECENT_QUERY,
      BROWSE_PLATFORMS_QUERY,
      BROWSE_LEVEL_QUERY,
      BROWSE_ENTITIES_QUERY,
    ]) {
      expect(errorsOf(document)).toEqual([]);
    }
  });

  it('take the variables the pages build', () => {
    expect(
      variableErrorsOf(SEARCH_QUERY, { input: { query: '*', sortInput: { sortCriterion: { field: 'x' } } } }),
    ).not.toEqual([]);
    const recentTypes = recentTypesOf(['DATASET', 'SCHEMA_FIELD', 'TAG', 'CORP_USER']);
    expect(recentTypes).toEqual(['DATASET', 'TAG', 'CORP_USER']);
    expect(recentTypesOf(undefined)).toBeUndefined();
    expect(variableErrorsOf(RECENT_QUERY, recentVariablesOf(recentTypes))).toEqual([]);
    expect(variableErrorsOf(RECENT_QUERY, recentVariablesOf(undefined))).toEqual([]);
    // The home lists the latest changes in Strata, newest first, over the types given (every one when unknown),
    // reading the time back.
    expect(recentVariablesOf(recentTypes).input).toEqual({
      query: '*',
      types: ['DATASET', 'TAG', 'CORP_USER'],
      start: 0,
      count: 10,
      sortInput: { sortCriteria: [{ field: 'lastChangedAt', sortOrder: 'DESCENDING' }] },
      searchFlags: { skipAggregates: true, skipHighlighting: true, fetchExtraFields: ['lastChangedAt'] },
    });
    expect(recentVariablesOf(undefined).input).not.toHaveProperty('types');
    expect(variableErrorsOf(SEARCH_QUERY, { input: searchInputOf(EMPTY_SEARCH) })).toEqual([]);
    expect(
      variableErrorsOf(SEARCH_QUERY, {
        input: searchInputOf({
          query: 'orders',
          filters: { platform: ['urn:li:dataPlatform:hive'], _entityType: ['DATASET'] },
          sort: 'modified',
          page: 2,
          showDeleted: true,
        }),
      }),
    ).toEqual([]);
    const location = { platform: 'hive', path: ['urn:li:container:db'] };
    expect(
      variableErrorsOf(BROWSE_LEVEL_QUERY, {
        input: { path: location.path, orFilters: browseFiltersOf(location), start: 0, count: 1000 },
        pathUrns: location.path,
      }),
    ).toEqual([]);
    expect(
      variableErrorsOf(BROWSE_ENTITIES_QUERY, {
        input: { query: '*', start: 0, count: 20, orFilters: entitiesHereFiltersOf(location, ['urn:li:container:x']) },
      }),
    ).toEqual([]);
  });
});

describe('the entity summary fragment', () => {
  it('is valid against the served schema', () => {
    expect(
      errorsOf(`query q($urns: [String!]!) { entities(urns: $urns) { ...consoleEntitySummary } } ${ENTITY_SUMMARY}`),
    ).toEqual([]);
  });
});

describe('the entity name fragment', () => {
  it('is valid against the served schema', () => {
    expect(
      errorsOf(`query q($urns: [String!]!) { entities(urns: $urns) { ...consoleEntityName } } ${ENTITY_NAME}`),
    ).toEqual([]);
  });

  it('names platforms, users, groups, tags and instances by their display names', () => {
    expect(
      nameOf({ urn: 'urn:li:dataPlatform:bigquery', name: 'bigquery', properties: { displayName: 'BigQuery' } }),
    ).toBe('BigQuery');
    expect(
      nameOf({
        urn: 'urn:li:corpuser:jdoe',
        username: 'jdoe',
        properties: { displayName: 'J. Doe', fullName: 'Jane Doe' },
        editableProperties: { displayName: 'Jane' },
      }),
    ).toBe('Jane');
    expect(nameOf({ urn: 'urn:li:corpuser:jdoe', username: 'jdoe', properties: null })).toBe('jdoe');
    expect(nameOf({ urn: 'urn:li:tag:pii', name: 'pii', properties: { name: 'PII' } })).toBe('PII');
    expect(nameOf({ urn: 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:hive,eu)', instanceId: 'eu' })).toBe('eu');
    expect(nameOf({ urn: 'urn:li:container:abc' })).toBe('abc');
    expect(nameOf(null)).toBe('');
  });
});

describe('summaries', () => {
  it('names a dataset by its edited name, else its properties, else its URN', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
    expect(summaryOf({ urn, type: 'DATASET' }).name).toBe('db.orders');
    expect(summaryOf({ urn, type: 'DATASET', name: 'db.orders', properties: { name: 'orders' } }).name).toBe('orders');
    expect(
      summaryOf({ urn, type: 'DATASET', properties: { name: 'orders' }, editableProperties: { name: 'Orders!' } }).name,
    ).toBe('Orders!');
  });

  it('reads the platform, labels, description and soft-delete flag', () => {
    const summary = summaryOf({
      urn: 'urn:li:chart:(looker,1)',
      type: 'CHART',
      properties: { name: 'Revenue', description: 'from source' },
      editableProperties: { description: 'edited' },
      platform: { urn: 'urn:li:dataPlatform:looker', name: 'looker', properties: { displayName: 'Looker' } },
      status: { removed: true },
      subTypes: { typeNames: ['Look'] },
      ownership: {
        owners: [
          { owner: { urn: 'urn:li:corpuser:jdoe', username: 'jdoe', properties: { displayName: 'Jane Doe' } } },
          { owner: { urn: 'urn:li:corpGroup:bi', name: 'bi' } },
          { owner: { urn: 'urn:li:corpuser:jdoe', username: 'jdoe' } },
        ],
      },
      tags: { tags: [{ tag: { urn: 'urn:li:tag:pii', name: 'pii', properties: { name: 'PII' } } }] },
      glossaryTerms: { terms: [{ term: { urn: 'urn:li:glossaryTerm:a.b', name: 'b' } }] },
      domain: { domain: { urn: 'urn:li:domain:sales', properties: { name: 'Sales' } } },
    });
    expect(summary).toEqual({
      urn: 'urn:li:chart:(looker,1)',
      type: 'chart',
      name: 'Revenue',
      platform: { urn: 'urn:li:dataPlatform:looker', name: 'Looker' },
      subType: 'Look',
      description: 'edited',
      owners: [
        { urn: 'urn:li:corpuser:jdoe', name: 'Jane Doe' },
        { urn: 'urn:li:corpGroup:bi', name: 'bi' },
      ],
      tags: [{ urn: 'urn:li:tag:pii', name: 'PII' }],
      terms: [{ urn: 'urn:li:glossaryTerm:a.b', name: 'b' }],
      domain: { urn: 'urn:li:domain:sales', name: 'Sales' },
      removed: true,
    });
  });

  it('names a column by its readable path, in its dataset', () => {
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
    expect(
      summaryOf({
        urn: `urn:li:schemaField:(${dataset},[version=2.0].[type=struct].address.[type=string].city)`,
        type: 'SCHEMA_FIELD',
        fieldPath: '[version=2.0].[type=struct].address.[type=string].city',
        parent: { urn: dataset },
      }),
    ).toMatchObject({ type: 'schemaField', name: 'address.city', parent: { urn: dataset, name: 'db.orders' } });
  });

  it('falls back to the URN for the platform and type, and to nothing for the rest', () => {
    expect(summaryOf({ urn: 'urn:li:dataset:(urn:li:dataPlatform:kafka,t,PROD)' })).toMatchObject({
      type: 'dataset',
      platform: { urn: 'urn:li:dataPlatform:kafka', name: 'kafka' },
      description: '',
      owners: [],
      removed: false,
    });
    expect(
      summaryOf({ urn: 'urn:li:glossaryTerm:x', type: 'GLOSSARY_TERM', properties: { definition: 'Def' } }),
    ).toMatchObject({ description: 'Def', platform: undefined });
  });
});

describe('times carried as extra fields', () => {
  it('reads one value or the latest of a list, and nothing from junk', () => {
    expect(extraTimeOf([{ name: 'lastModifiedAt', value: '1700000000000' }], 'lastModifiedAt')).toBe(1700000000000);
    expect(extraTimeOf([{ name: 'lastModifiedAt', value: '[5, 9, "7"]' }], 'lastModifiedAt')).toBe(9);
    expect(extraTimeOf([{ name: 'lastModifiedAt', value: '0' }], 'lastModifiedAt')).toBeUndefined();
    expect(extraTimeOf([{ name: 'lastModifiedAt', value: 'not json' }], 'lastModifiedAt')).toBeUndefined();
    expect(extraTimeOf([{ name: 'other', value: '5' }], 'lastModifiedAt')).toBeUndefined();
    expect(extraTimeOf(null, 'lastModifiedAt')).toBeUndefined();
  });
});
