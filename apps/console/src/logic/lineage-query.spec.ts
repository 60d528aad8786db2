import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import { ADJACENCY_COUNT, HOP_PAGE_SIZE, REACH_PAGE_SIZE, type LineageFetch } from './lineage-graph';
import { degreeFilter, entityOf, fineGrainedOf, lineageQueries, lineageQuery } from './lineage-query';

const schema = buildSchema(
  readGraphqlSchema()
    .map((file) => file.text)
    .join('\n'),
);

const CENTER = 'urn:li:dataset:(urn:li:dataPlatform:hive,clean.events,PROD)';
const RAW = 'urn:li:dataset:(urn:li:dataPlatform:kafka,raw.events,PROD)';
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load)';

/** The server's own limits on a document (docs/graphql.md, "Limits"; apps/gateway/src/graphql/limits.ts). */
const limits = [
  maxDepthRule({ n: 20, flattenFragments: true, propagateOnRejection: false, exposeLimits: true }),
  maxAliasesRule({ n: 50, propagateOnRejection: false, exposeLimits: true }),
  costLimitRule({
    maxCost: 50_000,
    objectCost: 2,
    scalarCost: 1,
    depthCostFactor: 1.5,
    flattenFragments: true,
    ignoreIntrospection: true,
    propagateOnRejection: false,
    exposeLimits: true,
  }),
];

function errorsOf(query: string): string[] {
  return validate(schema, parse(query), [...specifiedRules, ...limits]).map((error) => error.message);
}

describe('lineageQuery', () => {
  const every: LineageFetch[] = [
    { kind: 'center', urn: CENTER },
    { kind: 'hop', urn: CENTER, direction: 'UPSTREAM', start: 0 },
    { kind: 'hop', urn: RAW, direction: 'DOWNSTREAM', start: 20 },
    { kind: 'reach', direction: 'UPSTREAM', hops: 2, start: 0 },
    { kind: 'reach', direction: 'DOWNSTREAM', hops: 'all', start: 100 },
    { kind: 'fineGrained', urn: RAW },
    { kind: 'fineGrained', urn: JOB },
  ];

  it("asks everything missing in one valid document, within the server's limits", () => {
    const queries = lineageQueries(every, CENTER, true);
    expect(queries).toHaveLength(1);
    const { query, variables } = queries[0]!;
    expect(errorsOf(query)).toEqual([]);
    expect(query.match(/^query /gm)).toHaveLength(1);
    expect(variables).toMatchObject({
      f0: CENTER,
      f1: CENTER,
      f1start: 0,
      f2: RAW,
      f2start: 20,
      f3start: 0,
      f3filters: [{ and: [{ field: 'degree', values: ['1', '2'] }] }],
      f4start: 100,
      fineGrainedUrns: [RAW, JOB],
      center: CENTER,
      columns: true,
      pageSize: HOP_PAGE_SIZE,
      adjacency: ADJACENCY_COUNT,
      reachCount: REACH_PAGE_SIZE,
    });
    expect(variables).not.toHaveProperty('f4filters');
  });

  it.each(every.map((fetch) => [fetch.kind, fetch] as const))(
    'makes a valid document for a %s fetch alone',
    (_kind, fetch) => {
      for (const columns of [false, true]) {
        const { query, variables } = lineageQuery([fetch], CENTER, columns);
        expect(errorsOf(query)).toEqual([]);
        const declared = [...query.matchAll(/\$(\w+): /g)].map((match) => match[1]);
        expect(Object.keys(variables).sort()).toEqual([...new Set(declared)].sort());
      }
    },
  );

  it("splits what exceeds the server's alias limit into several requests, each within the limits", () => {
    const many: LineageFetch[] = [
      { kind: 'center', urn: CENTER },
      ...Array.from({ length: 9 }, (_, index) => ({
        kind: 'hop' as const,
        urn: `urn:li:dataset:(urn:li:dataPlatform:hive,t${index},PROD)`,
        direction: 'UPSTREAM' as const,
        start: 0,
      })),
      { kind: 'fineGrained', urn: RAW },
    ];
    const queries = lineageQueries(many, CENTER, true);
    expect(queries.length).toBeGreaterThan(1);
    expect(queries.flatMap((query) => query.fetches)).toEqual(many);
    for (const query of queries) expect(errorsOf(query.query)).toEqual([]);
  });

  it('asks an entity of a type it cannot tell from the URN through every type with lineage', () => {
    const { query } = lineageQuery(
      [{ kind: 'hop', urn: 'urn:li:unknownThing:x', direction: 'UPSTREAM', start: 0 }],
      CENTER,
      false,
    );
    expect(query).toContain('... on SchemaFieldEntity { lineage(');
    expect(errorsOf(query)).toEqual([]);
  });

  it('asks fine-grained lineage of entities shown before columns were on, with columns included', () => {
    const { variables } = lineageQuery([{ kind: 'fineGrained', urn: RAW }], CENTER, false);
    expect(variables['columns']).toBe(true);
  });

  it('reads a hop page, its entities, their neighbours and their fine-grained lineage', () => {
    const fine = {
      upstreams: [`urn:li:schemaField:(${RAW},event_id)`],
      downstreams: [`urn:li:schemaField:(${CENTER},event_id)`],
      transformOperation: 'IDENTITY',
    };
    const { read } = lineageQuery(
      [
        { kind: 'center', urn: CENTER },
        { kind: 'hop', urn: CENTER, direction: 'UPSTREAM', start: 0 },
      ],
      CENTER,
      true,
    );
    const results = read({
      f0: {
        urn: CENTER,
        type: 'DATASET',
        name: 'clean.events',
        properties: { name: 'events' },
        platform: { urn: 'urn:li:dataPlatform:hive', name: 'hive', properties: { displayName: 'Hive' } },
        aspects: [{ aspectName: 'upstreamLineage', payload: JSON.stringify({ fineGrainedLineages: [fine] }) }],
      },
      f1: {
        urn: CENTER,
        lineage: {
          start: 0,
          count: 20,
          total: 31,
          filtered: 1,
          relationships: [
            {
              type: 'DownstreamOf',
              entity: {
                urn: RAW,
                type: 'DATASET',
                name: 'raw.events',
                properties: null,
                platform: { urn: 'urn:li:dataPlatform:kafka', name: 'kafka', properties: null },
                lineage: { total: 0, filtered: 0, relationships: [] },
                downstreamAdjacency: {
                  total: 2,
                  filtered: 0,
                  relationships: [{ entity: { urn: CENTER } }, { entity: { urn: JOB } }],
                },
              },
            },
            { type: 'DownstreamOf', entity: null },
          ],
        },
      },
    });
    expect(results.center).toEqual({
      urn: CENTER,
      type: 'dataset',
      name: 'events',
      qualifiedName: 'clean.events',
      platform: 'Hive',
      fineGrained: [{ upstreams: fine.upstreams, downstreams: fine.downstreams, transform: 'IDENTITY' }],
    });
    expect(results.hops).toEqual([
      {
        urn: CENTER,
        direction: 'UPSTREAM',
        start: 0,
        count: 20,
        total: 31,
        filtered: 1,
        relationships: [
          {
            type: 'DownstreamOf',
            entity: {
              urn: RAW,
              type: 'dataset',
              name: 'raw.events',
              platform: 'kafka',
              upstream: { total: 0, filtered: 0, urns: [] },
              downstream: { total: 2, filtered: 0, urns: [CENTER, JOB] },
            },
          },
        ],
      },
    ]);
  });

  it('reads a centre that does not exist as null, and an entity gone from a fine-grained read as having none', () => {
    const { read } = lineageQuery(
      [
        { kind: 'center', urn: CENTER },
        { kind: 'fineGrained', urn: RAW },
      ],
      CENTER,
      true,
    );
    expect(read({ f0: null, fineGrained: [null, { urn: RAW }] })).toEqual({
      center: null,
      hops: [],
      reaches: [],
      fineGrained: [[RAW, []]],
    });
  });

  it('reads "expand all" results with every path, an entity the API does not serve breaking a path', () => {
    const { read } = lineageQuery([{ kind: 'reach', direction: 'UPSTREAM', hops: 2, start: 0 }], CENTER, false);
    const results = read({
      f0: {
        start: 0,
        total: 150,
        isPartial: true,
        searchResults: [
          {
            degree: 2,
            truncatedChildren: true,
            entity: { urn: RAW, type: 'DATASET', name: 'raw.events' },
            paths: [
              { path: [{ urn: CENTER }, { urn: JOB }, { urn: RAW }] },
              { path: [{ urn: CENTER }, null, { urn: RAW }] },
            ],
          },
        ],
      },
    });
    expect(results.reaches).toEqual([
      {
        direction: 'UPSTREAM',
        hops: 2,
        start: 0,
        total: 150,
        isPartial: true,
        results: [
          {
            entity: { urn: RAW, type: 'dataset', name: 'raw.events', platform: 'kafka' },
            degree: 2,
            truncatedChildren: true,
            paths: [
              [CENTER, JOB, RAW],
              [CENTER, null, RAW],
            ],
          },
        ],
      },
    ]);
  });
});

describe('entityOf', () => {
  it("names a job by its properties, else its id, with its flow's platform", () => {
    expect(entityOf({ urn: JOB, type: 'DATA_JOB', jobId: 'load', properties: null })).toEqual({
      urn: JOB,
      type: 'dataJob',
      name: 'load',
      platform: 'airflow',
    });
  });

  it('names a schema field by its readable path, qualified by its dataset', () => {
    const field = `urn:li:schemaField:(${CENTER},[version=2.0].[type=struct].address.[type=string].zip)`;
    expect(
      entityOf({
        urn: field,
        type: 'SCHEMA_FIELD',
        fieldPath: '[version=2.0].[type=struct].address.[type=string].zip',
        parent: { urn: CENTER },
      }),
    ).toMatchObject({ type: 'schemaField', name: 'address.zip', qualifiedName: 'clean.events' });
  });

  it('falls back to the URN for what the answer does not say', () => {
    expect(entityOf({ urn: CENTER })).toEqual({ urn: CENTER, type: 'dataset', name: 'clean.events', platform: 'hive' });
    expect(entityOf({ type: 'DATASET' })).toBeUndefined();
  });
});

describe('fineGrainedOf', () => {
  it('reads every entry of the aspects, keeping entries without upstreams (they end the list when edges are made)', () => {
    expect(
      fineGrainedOf([
        {
          aspectName: 'dataJobInputOutput',
          payload: JSON.stringify({
            inputDatasets: [],
            fineGrainedLineages: [{ upstreams: ['a', 7], downstreams: ['b'] }, { downstreams: ['c'] }],
          }),
        },
        { aspectName: 'upstreamLineage', payload: '{not json' },
      ]),
    ).toEqual([
      { upstreams: ['a'], downstreams: ['b'] },
      { upstreams: [], downstreams: ['c'] },
    ]);
  });

  it('tells "not asked" (undefined) from "has none" (empty)', () => {
    expect(fineGrainedOf(undefined)).toBeUndefined();
    expect(fineGrainedOf([])).toEqual([]);
  });
});

describe('degreeFilter', () => {
  it('asks the degrees up to the hops, and no filter for as far as the server walks', () => {
    expect(degreeFilter(1)).toEqual([{ and: [{ field: 'degree', values: ['1'] }] }]);
    expect(degreeFilter(2)).toEqual([{ and: [{ field: 'degree', values: ['1', '2'] }] }]);
    expect(degreeFilter('all')).toBeUndefined();
  });
});
