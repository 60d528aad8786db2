/**
 * The lineage queries run on the real schema with a fake context: the document DataHub's lineage CLI and SDK send
 * (as written and minified), what it asks of the indexer's lineage actions, and how their answer is mapped back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import DataLoader from 'dataloader';
import { execute, parse, print, visit, type DocumentNode, type ExecutionResult } from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import type { RequestContext, RouteCall } from '@strata/http';
import { testEntityRegistry } from '@strata/model/testing';
import type { GraphqlContext, LoadedEntity } from '../context';
import { adaptingFieldResolver, executableSchema } from '../schema';
import { lineageResolvers } from './lineage';

const FIXTURES = join(__dirname, '..', '..', '..', '..', '..', 'e2e', 'fixtures', 'datahub-graphql');
const schema = executableSchema(
  readGraphqlSchema().map((file) => file.text),
  [lineageResolvers],
);

const SOURCE = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,db.sch.t,PROD)';
const UP1 = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,db.sch.up1,PROD)';
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load)';
const UP2 = 'urn:li:dataset:(urn:li:dataPlatform:hive,raw.orders,PROD)';

function fakeContext(answer: (call: RouteCall) => unknown) {
  const calls: RouteCall[] = [];
  const context = {
    request: { actor: 'urn:li:corpuser:jdoe', header: () => undefined } as unknown as RequestContext,
    call: (call: RouteCall) => {
      calls.push(call);
      return Promise.resolve(answer(call));
    },
    system: () => Promise.reject(new Error('unchecked calls are not expected')),
    entities: new DataLoader<string, LoadedEntity | null>((urns) => Promise.resolve(urns.map(() => null))),
    registry: testEntityRegistry(),
    authorizer: undefined,
    submitter: undefined as never,
    now: () => 1_234,
    deadline: Number.MAX_SAFE_INTEGER,
  } as unknown as GraphqlContext;
  return { context, calls };
}

/** The document with its entities selected by reference only: their fields are the entity resolvers' (not run here). */
function byReference(document: DocumentNode): DocumentNode {
  return visit(document, { InlineFragment: () => null });
}

async function run(document: DocumentNode, variables: Record<string, unknown>, context: GraphqlContext) {
  return (await execute({
    schema,
    document,
    variableValues: variables,
    contextValue: context,
    fieldResolver: adaptingFieldResolver,
  })) as ExecutionResult<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const answer = (scrollId?: string) => ({
  value: {
    numEntities: 3,
    pageSize: 100,
    ...(scrollId === undefined ? {} : { scrollId }),
    entities: [
      { entity: UP1, matchedFields: [], paths: [[SOURCE, UP1]], degree: 1, degrees: [1], explored: true },
      {
        entity: UP2,
        matchedFields: [],
        paths: [
          [SOURCE, UP1, UP2],
          [SOURCE, JOB, UP2],
        ],
        degree: 2,
        degrees: [2],
        explored: false,
        truncatedChildren: true,
      },
    ],
    metadata: { aggregations: [{ name: 'degree', aggregations: { '1': 1, '2': 1, '3+': 0 } }], suggestions: [] },
    truncated: false,
  },
});

describe('scrollAcrossLineage, as `datahub lineage` and the SDK send it', () => {
  const cliInput = {
    urn: SOURCE,
    direction: 'UPSTREAM',
    count: 100,
    types: null,
    orFilters: [
      {
        and: [
          { field: 'degree', condition: 'EQUAL', values: ['1', '2', '3+'] },
          { field: 'removed', condition: 'EQUAL', values: ['true'], negated: true },
        ],
      },
    ],
  };

  for (const form of ['as written', 'minified'] as const) {
    it(`asks the indexer's lineage scroll and answers degrees and every path, source first (${form})`, async () => {
      const text = readFileSync(join(FIXTURES, 'lineage-cli.graphql'), 'utf8');
      const document = byReference(parse(form === 'minified' ? print(parse(text)).replace(/\s+/g, ' ') : text));
      const { context, calls } = fakeContext(() => answer());
      const result = await run(document, { input: cliInput }, context);
      expect(result.errors).toBeUndefined();
      expect(result.data?.['scrollAcrossLineage']).toEqual({
        nextScrollId: null,
        searchResults: [
          {
            degree: 1,
            entity: { urn: UP1, type: 'DATASET' },
            paths: [
              {
                path: [
                  { urn: SOURCE, type: 'DATASET' },
                  { urn: UP1, type: 'DATASET' },
                ],
              },
            ],
          },
          {
            degree: 2,
            entity: { urn: UP2, type: 'DATASET' },
            paths: [
              {
                path: [
                  { urn: SOURCE, type: 'DATASET' },
                  { urn: UP1, type: 'DATASET' },
                  { urn: UP2, type: 'DATASET' },
                ],
              },
              {
                path: [
                  { urn: SOURCE, type: 'DATASET' },
                  { urn: JOB, type: 'DATA_JOB' },
                  { urn: UP2, type: 'DATASET' },
                ],
              },
            ],
          },
        ],
      });
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ method: 'POST', resource: '/entities', action: 'scrollAcrossLineage' });
      const body = calls[0]?.body as Record<string, unknown>;
      expect(body).toMatchObject({
        urn: SOURCE,
        direction: 'UPSTREAM',
        input: '*',
        count: 100,
        sortCriteria: [],
        searchFlags: {},
        filter: {
          or: [
            {
              and: [
                { field: 'degree', values: ['1', '2', '3+'], condition: 'EQUAL', negated: false },
                { field: 'removed', values: ['true'], condition: 'EQUAL', negated: true },
              ],
            },
          ],
        },
      });
      expect(body['entities']).toEqual(expect.arrayContaining(['dataset', 'dataJob', 'chart', 'schemaField']));
      expect(body).not.toHaveProperty('scrollId');
      expect(body).not.toHaveProperty('startTimeMillis');
    });
  }

  it('passes the next page’s scrollId on, and accepts the column form (schema field URN, groupingSpec)', async () => {
    const { context, calls } = fakeContext(() => answer('next'));
    const source = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { nextScrollId count total isPartial facets { field } } }`;
    const column = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:snowflake,db.sch.t,PROD),amount)';
    const result = await run(
      parse(source),
      {
        input: {
          ...cliInput,
          urn: column,
          scrollId: 'page-2',
          searchFlags: {
            groupingSpec: {
              groupingCriteria: [{ baseEntityType: 'SCHEMA_FIELD', groupingEntityType: 'SCHEMA_FIELD' }],
            },
          },
        },
      },
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.['scrollAcrossLineage']).toEqual({
      nextScrollId: 'next',
      count: 100,
      total: 3,
      isPartial: false,
      facets: [{ field: 'degree' }],
    });
    expect(calls[0]?.body).toMatchObject({ urn: column, scrollId: 'page-2' });
  });
});

describe('searchAcrossLineage', () => {
  const source = `query($input: SearchAcrossLineageInput!) { searchAcrossLineage(input: $input) { start count total searchResults { degree degrees explored truncatedChildren ignoredAsHop insights { text } matchedFields { name } entity { urn } } } }`;

  it('pages with start, reads the deprecated filters, highlights nothing unless asked, and types as named', async () => {
    const { context, calls } = fakeContext(() => ({ value: { ...answer().value, from: 2 } }));
    const result = await run(
      parse(source),
      {
        input: {
          urn: SOURCE,
          direction: 'DOWNSTREAM',
          start: 2,
          count: 5,
          query: 'orders',
          types: ['DATASET', 'DATA_JOB'],
          filters: [{ field: 'degree', value: '1' }],
        },
      },
      context,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.['searchAcrossLineage']).toMatchObject({ start: 2, count: 100, total: 3 });
    expect(result.data?.['searchAcrossLineage'].searchResults[1]).toEqual({
      degree: 2,
      degrees: [2],
      explored: false,
      truncatedChildren: true,
      ignoredAsHop: false,
      insights: [],
      matchedFields: [],
      entity: { urn: UP2 },
    });
    expect(calls[0]).toMatchObject({
      action: 'searchAcrossLineage',
      body: {
        direction: 'DOWNSTREAM',
        start: 2,
        count: 5,
        input: 'orders',
        entities: ['dataset', 'dataJob'],
        filter: { or: [{ and: [{ field: 'degree', values: ['1'], condition: 'EQUAL', negated: false }] }] },
        searchFlags: { skipHighlighting: true },
      },
    });
  });

  it('answers every served type but queries when none is named', async () => {
    const { context, calls } = fakeContext(() => answer());
    await run(parse(source), { input: { urn: SOURCE, direction: 'UPSTREAM' } }, context);
    const entities = (calls[0]?.body as { entities: string[] }).entities;
    expect(entities).toEqual(expect.arrayContaining(['dataset', 'dataJob', 'dataProcessInstance', 'mlModel']));
    expect(entities).not.toContain('query');
    expect(entities).not.toContain('dataProcess');
    expect(calls[0]?.body).toMatchObject({ start: 0, count: 10 });
  });

  it('takes the window from lineageFlags first, then the input; a start alone runs to now; Longs as digits', async () => {
    const { context, calls } = fakeContext(() => answer());
    const windows = [
      [
        { startTimeMillis: '100', endTimeMillis: 200 },
        { startTimeMillis: 100, endTimeMillis: 200 },
      ],
      [{ startTimeMillis: 100 }, { startTimeMillis: 100, endTimeMillis: 1_234 }],
      [
        {
          startTimeMillis: 100,
          endTimeMillis: 200,
          lineageFlags: { startTimeMillis: 150, entitiesExploredPerHopLimit: 3 },
        },
        { startTimeMillis: 150, endTimeMillis: 200 },
      ],
    ] as const;
    for (const [given, sent] of windows) {
      await run(parse(source), { input: { urn: SOURCE, direction: 'UPSTREAM', ...given } }, context);
      expect(calls.at(-1)?.body).toMatchObject(sent);
    }
  });

  it('refuses what it cannot do with a 400, before asking the indexer', async () => {
    const { context, calls } = fakeContext(() => answer());
    const refusals: [Record<string, unknown>, string][] = [
      [{ direction: 'UPSTREAM' }, 'urn'],
      [{ urn: '  ', direction: 'UPSTREAM' }, 'urn'],
      [
        { urn: SOURCE, direction: 'UPSTREAM', lineageFlags: { ignoreAsHops: [{ entityType: 'DATA_JOB' }] } },
        'ignoreAsHops',
      ],
      [{ urn: SOURCE, direction: 'UPSTREAM', startTimeMillis: 'yesterday' }, 'startTimeMillis'],
      [{ urn: SOURCE, direction: 'UPSTREAM', count: -1 }, 'count'],
    ];
    for (const [input, named] of refusals) {
      const result = await run(parse(source), { input }, context);
      expect(result.errors?.[0]?.originalError?.constructor.name).toBe('BadRequestError');
      expect(result.errors?.[0]?.message).toContain(named);
    }
    expect(calls).toHaveLength(0);
  });
});
