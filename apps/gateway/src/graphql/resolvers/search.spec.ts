/**
 * The search queries run on the real schema with a fake context: the documents DataHub's clients send (as written and
 * minified), and what each turns into — the indexer action called, its body — and how the answer is mapped back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import DataLoader from 'dataloader';
import { execute, parse, print, type ExecutionResult } from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import type { RequestContext, RouteCall } from '@strata/http';
import { ForbiddenError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import type { GraphqlContext, LoadedEntity } from '../context';
import { adaptingFieldResolver, executableSchema } from '../schema';
import { searchResolvers } from './search';
import { browseGroupsOf, browsePathOf } from './search-browse';

const FIXTURES = join(__dirname, '..', '..', '..', '..', '..', 'e2e', 'fixtures', 'datahub-graphql');
const schema = executableSchema(
  readGraphqlSchema().map((file) => file.text),
  [searchResolvers],
);

const T1 = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,db.sch.t1,PROD)';
const T2 = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,db.sch.t2,PROD)';

type Answer = (call: RouteCall) => unknown;

function fakeContext(answer: Answer, entities: Record<string, LoadedEntity> = {}) {
  const calls: RouteCall[] = [];
  const request = { actor: 'urn:li:corpuser:jdoe', header: () => undefined } as unknown as RequestContext;
  const context = {
    request,
    call: (call: RouteCall) => {
      calls.push(call);
      // An answer that throws is a rejected call, as a refused route call is.
      return Promise.resolve().then(() => answer(call));
    },
    system: () => Promise.reject(new Error('unchecked calls are not expected')),
    entities: new DataLoader<string, LoadedEntity | null>((urns) =>
      Promise.resolve(urns.map((urn) => entities[urn] ?? null)),
    ),
    registry: testEntityRegistry(),
    authorizer: undefined,
    submitter: undefined as never,
    now: () => 1_000,
    deadline: Number.MAX_SAFE_INTEGER,
  } as unknown as GraphqlContext;
  return { context, calls };
}

async function run(source: string, variables: Record<string, unknown>, context: GraphqlContext) {
  return (await execute({
    schema,
    document: parse(source),
    variableValues: variables,
    contextValue: context,
    fieldResolver: adaptingFieldResolver,
  })) as ExecutionResult<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A document as DataHub's client sends it since it always minifies: printed from its AST, whitespace collapsed. */
function minified(source: string): string {
  return print(parse(source)).replace(/\s+/g, ' ').trim();
}

function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

const page = (urns: string[], scrollId?: string) => ({
  value: {
    numEntities: 2,
    pageSize: 1,
    from: 0,
    ...(scrollId === undefined ? {} : { scrollId }),
    entities: urns.map((urn) => ({ entity: urn, matchedFields: [] })),
    metadata: { aggregations: [], suggestions: [] },
  },
});

describe('scrollAcrossEntities, as the delete CLI and get_urns_by_filter send it', () => {
  const envFilters = [
    { and: [{ field: 'origin', value: 'PROD', condition: 'EQUAL' }] },
    { and: [{ field: 'customProperties', value: 'env=PROD' }] },
    { and: [{ field: 'customProperties', value: 'instance=PROD' }] },
    { and: [{ field: 'env', value: 'PROD' }] },
  ];

  for (const form of ['as written', 'minified'] as const) {
    it(`pages until nextScrollId is null, with the --env filters read as values/EQUAL (${form})`, async () => {
      const text = fixture('delete-by-filter.graphql');
      const source = form === 'minified' ? minified(text) : text;
      const { context, calls } = fakeContext((call) =>
        (call.body as { scrollId?: string }).scrollId === undefined ? page([T1], 'cursor-1') : page([T2]),
      );
      const variables = {
        types: ['DATASET'],
        query: '*',
        orFilters: envFilters,
        batchSize: 3000,
        scrollId: null,
        skipCache: false,
        sortInput: null,
        includeSoftDeleted: false,
      };
      const first = await run(source, variables, context);
      expect(first.errors).toBeUndefined();
      expect(first.data?.['scrollAcrossEntities']).toEqual({
        nextScrollId: 'cursor-1',
        searchResults: [{ entity: { urn: T1 }, extraProperties: [] }],
      });
      const second = await run(source, { ...variables, scrollId: 'cursor-1' }, context);
      expect(second.data?.['scrollAcrossEntities']).toEqual({
        nextScrollId: null,
        searchResults: [{ entity: { urn: T2 }, extraProperties: [] }],
      });
      expect(calls.map((call) => [call.method, call.resource, call.action])).toEqual([
        ['POST', '/entities', 'scrollAcrossEntities'],
        ['POST', '/entities', 'scrollAcrossEntities'],
      ]);
      expect(calls[0]?.body).toEqual({
        input: '*',
        entities: ['dataset'],
        filter: {
          or: [
            { and: [{ field: 'origin', values: ['PROD'], condition: 'EQUAL', negated: false }] },
            { and: [{ field: 'customProperties', values: ['env=PROD'], condition: 'EQUAL', negated: false }] },
            { and: [{ field: 'customProperties', values: ['instance=PROD'], condition: 'EQUAL', negated: false }] },
            { and: [{ field: 'env', values: ['PROD'], condition: 'EQUAL', negated: false }] },
          ],
        },
        sortCriteria: [],
        scrollId: undefined,
        keepAlive: undefined,
        count: 3000,
        searchFlags: { skipHighlighting: true, skipAggregates: true, skipCache: false, includeSoftDeleted: false },
      });
      expect(calls[1]?.body).toMatchObject({ scrollId: 'cursor-1' });
    });
  }

  it('searches every searchable type for null types, and passes sort and fetchExtraFields on', async () => {
    const { context, calls } = fakeContext(() => ({
      value: {
        numEntities: 1,
        pageSize: 5000,
        entities: [{ entity: T1, matchedFields: [], extraFields: { lastModifiedAt: '1700000000000' } }],
      },
    }));
    const result = await run(
      fixture('get-results-by-filter.graphql'),
      {
        types: null,
        query: 'orders',
        orFilters: [{ and: [{ field: 'removed', condition: 'EQUAL', values: ['true'], negated: true }] }],
        batchSize: 5000,
        scrollId: null,
        skipCache: false,
        fetchExtraFields: ['lastModifiedAt'],
      },
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.['scrollAcrossEntities']).toEqual({
      nextScrollId: null,
      searchResults: [{ entity: { urn: T1 }, extraProperties: [{ name: 'lastModifiedAt', value: '1700000000000' }] }],
    });
    const body = calls[0]?.body as Record<string, unknown>;
    expect(body['entities']).toEqual(
      expect.arrayContaining(['dataset', 'chart', 'dashboard', 'container', 'corpuser']),
    );
    expect(body['searchFlags']).toEqual({
      skipHighlighting: true,
      skipAggregates: true,
      skipCache: false,
      fetchExtraFields: ['lastModifiedAt'],
    });

    await run(
      fixture('get-urns-by-filter.graphql'),
      {
        types: ['DATASET'],
        query: '*',
        orFilters: null,
        batchSize: 5000,
        scrollId: null,
        skipCache: false,
        sortInput: { sortCriteria: [{ field: 'lastModifiedAt', sortOrder: 'ASCENDING' }] },
        includeSoftDeleted: null,
      },
      context,
    );
    expect(calls[1]?.body).toMatchObject({
      filter: undefined,
      sortCriteria: [{ field: 'lastModifiedAt', order: 'ASCENDING' }],
      searchFlags: { skipHighlighting: true, skipAggregates: true, skipCache: false },
    });
    expect((calls[1]?.body as { searchFlags: object }).searchFlags).not.toHaveProperty('includeSoftDeleted');
  });

  it('counts facets only when they are selected, with a search of the same scope', async () => {
    const { context, calls } = fakeContext((call) =>
      call.action === 'scrollAcrossEntities'
        ? page([T1])
        : {
            value: {
              numEntities: 2,
              pageSize: 0,
              from: 0,
              entities: [],
              metadata: { aggregations: [{ name: 'origin', displayName: 'Environment', aggregations: { PROD: 2 } }] },
            },
          },
    );
    const source = `query($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total count facets { field displayName aggregations { value count } } } }`;
    const result = await run(source, { input: { query: 'orders', types: ['DATASET'] } }, context);
    expect(result.data?.['scrollAcrossEntities']).toEqual({
      total: 2,
      count: 1,
      facets: [{ field: 'origin', displayName: 'Environment', aggregations: [{ value: 'PROD', count: 2 }] }],
    });
    expect(calls.map((call) => call.action)).toEqual(['scrollAcrossEntities', 'searchAcrossEntities']);
    expect(calls[1]?.body).toMatchObject({ input: 'orders', entities: ['dataset'], start: 0, count: 0 });

    const skipped = fakeContext(() => page([T1]));
    const none = await run(
      source,
      { input: { query: '*', types: ['DATASET'], searchFlags: { skipAggregates: true } } },
      skipped.context,
    );
    expect(none.data?.['scrollAcrossEntities']).toMatchObject({ facets: [] });
    expect(skipped.calls).toHaveLength(1);
  });
});

describe('searchAcrossEntities', () => {
  const answer = {
    value: {
      numEntities: 7,
      pageSize: 10,
      from: 0,
      entities: [{ entity: T1, matchedFields: [{ name: 'name', value: 'orders' }] }],
      metadata: {
        aggregations: [
          {
            name: 'platform',
            displayName: 'Platform',
            aggregations: { 'urn:li:dataPlatform:snowflake': 7 },
            filterValues: [{ value: 'urn:li:dataPlatform:snowflake', facetCount: 7 }],
          },
          { name: 'entity', displayName: 'Type', aggregations: { dataset: 5, chart: 2 } },
        ],
      },
    },
  };

  it('answers the `datahub search` document (operation `search`): start, count, total, results and facets', async () => {
    const { context, calls } = fakeContext(() => answer);
    // Entity fields are the entity resolvers' (not run here): the entities are selected by reference only.
    const text = fixture('search-cli.graphql')
      .replace('...SearchEntityInfo', 'urn type')
      .replace('...FacetEntityInfo', 'urn type');
    const variables = {
      query: 'orders',
      types: null,
      orFilters: [{ and: [{ field: 'removed', condition: 'EQUAL', values: ['true'], negated: true }] }],
      count: 10,
      start: 0,
      viewUrn: null,
      sortInput: { sortCriteria: [{ field: 'name', sortOrder: 'ASCENDING' }] },
    };
    const result = (await execute({
      schema,
      document: parse(minified(text)),
      variableValues: variables,
      operationName: 'search',
      contextValue: context,
      fieldResolver: adaptingFieldResolver,
    })) as ExecutionResult<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(result.errors).toBeUndefined();
    const search = result.data?.['searchAcrossEntities'] as {
      searchResults: { entity: { urn: string } }[];
      facets: { field: string; aggregations: { value: string }[] }[];
    };
    expect(search).toMatchObject({ start: 0, count: 10, total: 7 });
    expect(search.searchResults[0]?.entity.urn).toBe(T1);
    expect(search.facets.map((facet) => facet.field)).toEqual(['_entityType', 'platform', 'entity']);
    expect(search.facets[0]?.aggregations).toEqual([
      { value: 'DATASET', count: 5, displayName: null, entity: null },
      { value: 'CHART', count: 2, displayName: null, entity: null },
    ]);
    expect(search.facets[1]?.aggregations[0]).toMatchObject({
      value: 'urn:li:dataPlatform:snowflake',
      entity: { urn: 'urn:li:dataPlatform:snowflake', type: 'DATA_PLATFORM' },
    });
    expect(calls[0]?.body).toMatchObject({
      input: 'orders',
      start: 0,
      count: 10,
      sortCriteria: [{ field: 'name', order: 'ASCENDING' }],
      searchFlags: { skipHighlighting: true, maxAggValues: 5 },
      filter: { or: [{ and: [{ field: 'removed', values: ['true'], condition: 'EQUAL', negated: true }] }] },
    });
  });

  it('answers the diagnose document, its defaults: start 0, count as asked', async () => {
    const { context, calls } = fakeContext(() => answer);
    for (const source of [
      fixture('search-diagnose-keyword.graphql'),
      minified(fixture('search-diagnose-keyword.graphql')),
    ]) {
      const result = await run(source, {}, context);
      expect(result.data).toEqual({ searchAcrossEntities: { total: 7 } });
    }
    expect(calls[0]?.body).toMatchObject({ input: '*', start: 0, count: 1, searchFlags: { skipHighlighting: true } });
  });

  it('applies a view: its types intersected with the query’s, its filter ANDed; a missing view is no view', async () => {
    const view: LoadedEntity = {
      urn: 'urn:li:dataHubView:dev',
      entityName: 'dataHubView',
      aspects: {
        dataHubViewInfo: {
          value: {
            name: 'dev',
            definition: {
              entityTypes: ['dataset', 'chart'],
              filter: { or: [{ and: [{ field: 'origin', values: ['DEV'], condition: 'EQUAL' }] }] },
            },
          },
        },
      },
    };
    const { context, calls } = fakeContext(() => answer, { [view.urn]: view });
    const source = `query($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total start count } }`;
    await run(
      source,
      {
        input: {
          query: '*',
          types: ['DATASET', 'DASHBOARD'],
          viewUrn: view.urn,
          orFilters: [{ and: [{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }] }],
        },
      },
      context,
    );
    expect(calls[0]?.body).toMatchObject({
      entities: ['dataset'],
      filter: {
        or: [
          {
            and: [
              { field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false },
              { field: 'origin', values: ['DEV'], condition: 'EQUAL', negated: false },
            ],
          },
        ],
      },
    });
    // No type left: nothing is asked of the indexer.
    const empty = await run(source, { input: { query: '*', types: ['TAG'], viewUrn: view.urn, start: 5 } }, context);
    expect(empty.data).toEqual({ searchAcrossEntities: { total: 0, start: 5, count: 10 } });
    expect(calls).toHaveLength(1);
    await run(source, { input: { query: '*', types: ['TAG'], viewUrn: 'urn:li:dataHubView:missing' } }, context);
    expect(calls[1]?.body).toMatchObject({ entities: ['tag'], filter: undefined });
  });

  it('refuses bad input with a 400 naming it, before asking the indexer', async () => {
    const { context, calls } = fakeContext(() => answer);
    const source = `query($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total } }`;
    for (const input of [
      { query: '*', types: ['INGESTION_SOURCE'] },
      { query: '*', start: -1 },
      { query: '*', count: -5 },
    ]) {
      const result = await run(source, { input }, context);
      expect(result.errors?.[0]?.originalError?.constructor.name).toBe('BadRequestError');
    }
    expect(calls).toHaveLength(0);
  });
});

describe('aggregateAcrossEntities and autocomplete', () => {
  it('answers the facets of a search of no results, only those named when any are', async () => {
    const { context, calls } = fakeContext(() => ({
      value: {
        numEntities: 3,
        pageSize: 0,
        entities: [],
        metadata: {
          aggregations: [
            { name: 'platform', aggregations: { 'urn:li:dataPlatform:hive': 3 } },
            { name: 'origin', aggregations: { PROD: 3 } },
            { name: 'entity', aggregations: { dataset: 3 } },
          ],
        },
      },
    }));
    const result = await run(
      `{ aggregateAcrossEntities(input: {query: "*", types: [DATASET], facets: ["platform.keyword", "_entityType"]}) { facets { field aggregations { value count } } } }`,
      {},
      context,
    );
    expect(result.data?.['aggregateAcrossEntities']).toEqual({
      facets: [
        { field: '_entityType', aggregations: [{ value: 'DATASET', count: 3 }] },
        { field: 'platform', aggregations: [{ value: 'urn:li:dataPlatform:hive', count: 3 }] },
      ],
    });
    expect(calls[0]).toMatchObject({
      action: 'searchAcrossEntities',
      body: { start: 0, count: 0, entities: ['dataset'] },
    });
  });

  it('autocompletes one type, with DataHub’s default of 5 suggestions', async () => {
    const { context, calls } = fakeContext(() => ({
      value: { query: 'ord', suggestions: ['orders'], entities: [{ urn: T1 }] },
    }));
    const result = await run(
      `{ autoComplete(input: {type: DATASET, query: "ord", field: "name", orFilters: [{and: [{field: "origin", value: "PROD"}]}]}) { query suggestions entities { urn type } } }`,
      {},
      context,
    );
    expect(result.data?.['autoComplete']).toEqual({
      query: 'ord',
      suggestions: ['orders'],
      entities: [{ urn: T1, type: 'DATASET' }],
    });
    expect(calls[0]).toMatchObject({
      action: 'autocomplete',
      body: {
        query: 'ord',
        entity: 'dataset',
        limit: 5,
        field: 'name',
        filter: { or: [{ and: [{ field: 'origin', values: ['PROD'], condition: 'EQUAL', negated: false }] }] },
      },
    });
    const blank = await run(`{ autoComplete(input: {type: DATASET, query: " "}) { query } }`, {}, context);
    expect(blank.errors?.[0]?.message).toBe("'query' parameter can not be null or empty");
    const untyped = await run(`{ autoComplete(input: {query: "ord"}) { query } }`, {}, context);
    expect(untyped.errors?.[0]?.message).toContain('type');
  });

  it('autocompletes several types, leaving out those with no suggestion and those the caller may not search', async () => {
    const { context, calls } = fakeContext((call) => {
      const entity = (call.body as { entity: string }).entity;
      if (entity === 'chart') throw new ForbiddenError('User is unauthorized to search.');
      return {
        value:
          entity === 'dataset'
            ? { query: 'ord', suggestions: ['orders'], entities: [{ urn: T1 }] }
            : { query: 'ord', suggestions: [], entities: [] },
      };
    });
    const result = await run(
      `{ autoCompleteForMultiple(input: {query: "ord", types: [DATASET, CHART, DASHBOARD], limit: 3}) { query suggestions { type suggestions entities { urn } } } }`,
      {},
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.['autoCompleteForMultiple']).toEqual({
      query: 'ord',
      suggestions: [{ type: 'DATASET', suggestions: ['orders'], entities: [{ urn: T1 }] }],
    });
    expect(calls.map((call) => (call.body as { entity: string; limit: number }).entity)).toEqual([
      'dataset',
      'chart',
      'dashboard',
    ]);
  });
});

describe('browseV2', () => {
  const C1 = 'urn:li:container:db';
  const C2 = 'urn:li:container:sch';
  const withPath = (urn: string, ids: string[]): LoadedEntity => ({
    urn,
    entityName: 'dataset',
    aspects: { browsePathsV2: { value: { path: ids.map((id) => ({ id })) } } },
  });

  it('groups entities by the segment after the path: counts, deeper entities, URN segments as entities', () => {
    const paths = [[C1, C2], [C1, C2], [C1], ['prod', 'hive'], [C1, 'other', 'deep']];
    expect(browseGroupsOf(paths, [])).toEqual({
      totalNumEntities: 5,
      groups: [
        {
          name: C1,
          count: 4,
          hasSubGroups: true,
          entity: { urn: C1, entityName: 'container', type: 'CONTAINER' },
        },
        { name: 'prod', count: 1, hasSubGroups: true, entity: null },
      ],
    });
    expect(browseGroupsOf(paths, [C1])).toEqual({
      totalNumEntities: 3,
      groups: [
        { name: C2, count: 2, hasSubGroups: false, entity: { urn: C2, entityName: 'container', type: 'CONTAINER' } },
        { name: 'other', count: 1, hasSubGroups: true, entity: null },
      ],
    });
    // The path must be the prefix, in order: a segment elsewhere in a path does not place the entity.
    expect(browseGroupsOf([[C2, C1, 'x']], [C1]).groups).toEqual([]);
    expect(browsePathOf({ path: [{ id: 'a', urn: 'urn:li:container:a' }, { id: 'b' }] })).toEqual(['a', 'b']);
    expect(browsePathOf(undefined)).toBeUndefined();
  });

  it('narrows by the index, places by the browsePathsV2 aspects, and pages the groups', async () => {
    const entities = {
      [T1]: withPath(T1, [C1, C2]),
      [T2]: withPath(T2, [C1, 'other']),
    };
    const { context, calls } = fakeContext(
      () => ({ value: { numEntities: 2, pageSize: 5000, entities: [{ entity: T1 }, { entity: T2 }] } }),
      entities,
    );
    const result = await run(
      `{ browseV2(input: {type: DATASET, path: ["${C1}"], query: "orders", start: 1, count: 1, orFilters: [{and: [{field: "origin", value: "PROD"}]}]}) { start count total metadata { path totalNumEntities } groups { name count hasSubGroups entity { urn } } } }`,
      {},
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.['browseV2']).toEqual({
      start: 1,
      count: 1,
      total: 2,
      metadata: { path: [C1], totalNumEntities: 2 },
      // Equal counts order by name: `other` first, so the second page holds the container.
      groups: [{ name: C2, count: 1, hasSubGroups: false, entity: { urn: C2 } }],
    });
    expect(calls[0]).toMatchObject({
      action: 'scrollAcrossEntities',
      body: {
        input: 'orders',
        entities: ['dataset'],
        filter: {
          or: [
            {
              and: [
                { field: 'origin', values: ['PROD'], condition: 'EQUAL', negated: false },
                { field: 'browsePathV2', values: [C1], condition: 'EQUAL', negated: false },
              ],
            },
          ],
        },
        searchFlags: { skipAggregates: true, skipHighlighting: true },
      },
    });
  });

  it('refuses to place more entities than it may read, with a hint', async () => {
    const { context } = fakeContext(() => ({
      value: { numEntities: 20_000, pageSize: 5000, entities: [], scrollId: 'x' },
    }));
    const result = await run(`{ browseV2(input: {path: []}) { total } }`, {}, context);
    expect(result.errors?.[0]?.message).toContain('narrow the browse');
  });
});
