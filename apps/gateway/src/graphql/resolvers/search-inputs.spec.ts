import { BadRequestError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import {
  BROWSE_ENTITY_TYPES,
  combineFilterGroups,
  entityNamesOf,
  filterGroupsOf,
  longOf,
  pageArgument,
  queryTextOf,
  restFilterOf,
  SEARCHABLE_ENTITY_TYPES,
  searchFlagsOf,
  sortCriteriaOf,
  withCriterion,
} from './search-inputs';

const known = testEntityRegistry()
  .entities()
  .map((entity) => entity.name);

describe('entity types of a search', () => {
  it('maps the EntityType values named to entity names, each once', () => {
    expect(entityNamesOf(['DATASET', 'DATA_JOB', 'CORP_USER', 'DATASET'], known, [])).toEqual([
      'dataset',
      'dataJob',
      'corpuser',
    ]);
  });

  it('searches DataHub’s searchable types when none is named (null or empty), those the deployment serves', () => {
    for (const types of [null, undefined, []]) {
      const names = entityNamesOf(types, known, SEARCHABLE_ENTITY_TYPES);
      expect(names).toEqual(expect.arrayContaining(['dataset', 'chart', 'dashboard', 'dataJob', 'container']));
      expect(names).not.toContain('dataHubExecutionRequest');
      expect(names).not.toContain('dataHubPolicy');
    }
    expect(entityNamesOf(null, known, BROWSE_ENTITY_TYPES)).toHaveLength(BROWSE_ENTITY_TYPES.length);
  });

  it('refuses a type that names no entity, and one the API does not serve, naming it', () => {
    expect(() => entityNamesOf(['OTHER'], known, [])).toThrow(BadRequestError);
    expect(() => entityNamesOf(['OTHER'], known, [])).toThrow('OTHER');
    expect(() => entityNamesOf(['INGESTION_SOURCE'], known, [])).toThrow(
      'Entities of type INGESTION_SOURCE are not served by the GraphQL API',
    );
  });
});

describe('filters of a search', () => {
  it('reads each criterion as DataHub does: values, else the singular value; EQUAL and not negated by default', () => {
    const groups = filterGroupsOf(
      null,
      [
        { and: [{ field: 'origin', value: 'PROD', condition: 'EQUAL' }] },
        { and: [{ field: 'customProperties', value: 'env=PROD' }] },
        { and: [{ field: 'env', value: 'PROD', values: null, condition: null, negated: null }] },
        { and: [{ field: 'removed', values: ['true'], negated: true, value: 'ignored' }] },
        { and: [{ field: 'tags' }] },
      ],
      known,
    );
    expect(groups).toEqual([
      [{ field: 'origin', values: ['PROD'], condition: 'EQUAL', negated: false }],
      [{ field: 'customProperties', values: ['env=PROD'], condition: 'EQUAL', negated: false }],
      [{ field: 'env', values: ['PROD'], condition: 'EQUAL', negated: false }],
      [{ field: 'removed', values: ['true'], condition: 'EQUAL', negated: true }],
      [{ field: 'tags', values: [], condition: 'EQUAL', negated: false }],
    ]);
  });

  it('reads the deprecated `filters` as one AND group, only when `orFilters` is empty', () => {
    const filters = [
      { field: 'platform', values: ['urn:li:dataPlatform:hive'] },
      { field: 'origin', value: 'PROD' },
    ];
    expect(filterGroupsOf(filters, null, known)).toEqual([
      [
        { field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false },
        { field: 'origin', values: ['PROD'], condition: 'EQUAL', negated: false },
      ],
    ]);
    expect(filterGroupsOf(filters, [], known)).toHaveLength(1);
    expect(filterGroupsOf(filters, [{ and: [{ field: 'tags', values: ['urn:li:tag:a'] }] }], known)).toEqual([
      [{ field: 'tags', values: ['urn:li:tag:a'], condition: 'EQUAL', negated: false }],
    ]);
    expect(filterGroupsOf(null, null, known)).toEqual([]);
    expect(restFilterOf([])).toBeUndefined();
  });

  it('keeps an OR group without criteria (it matches everything) and a null `and` as one', () => {
    expect(filterGroupsOf(null, [{ and: null }, { and: [] }], known)).toEqual([[], []]);
  });

  it('selects entity types by `_entityType` (EntityType values or entity names) per group, negation kept', () => {
    expect(
      filterGroupsOf(
        null,
        [
          { and: [{ field: '_entityType', values: ['DATASET', 'DATA_JOB'], condition: 'EQUAL' }] },
          { and: [{ field: 'entity', value: 'chart', negated: true }] },
        ],
        known,
      ),
    ).toEqual([
      [{ field: 'urn', values: ['urn:li:dataset:', 'urn:li:dataJob:'], condition: 'START_WITH', negated: false }],
      [{ field: 'urn', values: ['urn:li:chart:'], condition: 'START_WITH', negated: true }],
    ]);
  });

  it('ANDs two filters as every pair of their groups, either empty leaving the other', () => {
    const a = [[{ field: 'a', values: ['1'], condition: 'EQUAL', negated: false }]];
    const b = [
      [{ field: 'b', values: ['2'], condition: 'EQUAL', negated: false }],
      [{ field: 'c', values: ['3'], condition: 'EQUAL', negated: false }],
    ];
    expect(combineFilterGroups(a, b)).toEqual([
      [a[0]![0], b[0]![0]],
      [a[0]![0], b[1]![0]],
    ]);
    expect(combineFilterGroups([], b)).toEqual(b);
    expect(combineFilterGroups(a, [])).toEqual(a);
    const extra = { field: 'x', values: [], condition: 'EXISTS', negated: false };
    expect(withCriterion([], extra)).toEqual([[extra]]);
    expect(withCriterion(b, extra)).toEqual([
      [b[0]![0], extra],
      [b[1]![0], extra],
    ]);
  });
});

describe('sort, flags, query text, numbers', () => {
  it('sorts by sortCriteria, else the deprecated sortCriterion, else by relevance', () => {
    expect(sortCriteriaOf({ sortCriteria: [{ field: 'lastModifiedAt', sortOrder: 'ASCENDING' }] })).toEqual([
      { field: 'lastModifiedAt', order: 'ASCENDING' },
    ]);
    expect(sortCriteriaOf({ sortCriteria: null, sortCriterion: { field: 'name', sortOrder: 'DESCENDING' } })).toEqual([
      { field: 'name', order: 'DESCENDING' },
    ]);
    expect(sortCriteriaOf(null)).toEqual([]);
    expect(sortCriteriaOf({})).toEqual([]);
  });

  it('passes the flags given and drops null ones (the indexer reads them as absent)', () => {
    expect(
      searchFlagsOf({
        skipHighlighting: true,
        skipAggregates: true,
        skipCache: false,
        includeSoftDeleted: null,
        fetchExtraFields: ['lastModifiedAt'],
      }),
    ).toEqual({ skipHighlighting: true, skipAggregates: true, skipCache: false, fetchExtraFields: ['lastModifiedAt'] });
    expect(searchFlagsOf(null)).toEqual({});
  });

  it('searches everything for a blank query', () => {
    expect(queryTextOf('')).toBe('*');
    expect(queryTextOf('  ')).toBe('*');
    expect(queryTextOf(null)).toBe('*');
    expect(queryTextOf('orders')).toBe('orders');
  });

  it('reads a Long sent as a number or as digits, and refuses anything else', () => {
    expect(longOf(1700000000000, 'startTimeMillis')).toBe(1700000000000);
    expect(longOf('1700000000000', 'startTimeMillis')).toBe(1700000000000);
    expect(longOf(null, 'startTimeMillis')).toBeUndefined();
    expect(() => longOf('yesterday', 'startTimeMillis')).toThrow('startTimeMillis must be an integer');
    expect(() => longOf(1.5, 'endTimeMillis')).toThrow(BadRequestError);
  });

  it('defaults paging arguments and refuses negative ones', () => {
    expect(pageArgument(null, 10, 'count')).toBe(10);
    expect(pageArgument(0, 10, 'count')).toBe(0);
    expect(() => pageArgument(-1, 10, 'count')).toThrow('count must be an integer ≥ 0');
  });
});
