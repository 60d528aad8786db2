import { BadRequestError } from '@strata/model';
import type { RequestContext } from '@strata/http';
import type { EdgeScrollPage, EdgeScrollQuery, GraphIndex } from '@strata/indices';

import { relationshipScrollId, relationshipScrollRoutes } from './relationship-scroll-routes';

const context: RequestContext = {
  requestId: 'request-1',
  traceId: 'trace-1',
  actor: 'urn:li:corpuser:jdoe',
  sourceIp: undefined,
  userAgent: undefined,
  eventSource: 'OPENAPI',
  url: '/openapi/v3/relationship/scroll',
  header: () => undefined,
};

const orders = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const revenue = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.revenue,PROD)';

/** The route over a graph that answers `page` and remembers what it was asked. */
function routeOver(page: EdgeScrollPage) {
  const queries: EdgeScrollQuery[] = [];
  const graph = {
    scrollEdges: (query: EdgeScrollQuery) => {
      queries.push(query);
      return Promise.resolve(page);
    },
  } as unknown as GraphIndex;
  const [route] = relationshipScrollRoutes(graph);
  if (route === undefined) throw new Error('no route');
  const get = (query: Record<string, unknown>) =>
    route.invoke({ query, body: undefined, key: undefined, params: {}, context });
  return { get, queries };
}

describe('GET /openapi/v3/relationship/scroll', () => {
  it("answers DataHub's relationships with both ends' entity types, and a scroll id while more follow", async () => {
    const edge = { source: revenue, type: 'DownstreamOf', destination: orders, createdAt: 5 };
    const { get, queries } = routeOver({ edges: [edge], hasMore: true });
    const response = await get({
      relationshipTypes: 'DownstreamOf',
      sourceTypes: 'dataset,chart',
      sourceUrns: [revenue, orders],
      count: '1',
    });
    expect(response.body).toEqual({
      results: [
        {
          relationshipType: 'DownstreamOf',
          source: { urn: revenue, entityType: 'dataset' },
          destination: { urn: orders, entityType: 'dataset' },
        },
      ],
      scrollId: relationshipScrollId(edge),
    });
    expect(queries).toEqual([
      {
        types: ['DownstreamOf'],
        sourceTypes: ['dataset', 'chart'],
        destinationTypes: [],
        sourceUrns: [revenue, orders],
        destinationUrns: [],
        count: 1,
      },
    ]);
  });

  it('goes on after the edge a scroll id names, and answers a null scroll id on the last page', async () => {
    const after = { source: revenue, type: 'DownstreamOf', destination: orders };
    const { get, queries } = routeOver({ edges: [], hasMore: false });
    const response = await get({ scrollId: relationshipScrollId(after), destinationUrns: orders });
    expect(response.body).toEqual({ results: [], scrollId: null });
    expect(queries[0]).toMatchObject({ after, destinationUrns: [orders], count: 10 });
  });

  it('refuses a scroll id it did not issue, a bad count and sliced scrolling with 400', async () => {
    const { get, queries } = routeOver({ edges: [], hasMore: false });
    await expect(get({ scrollId: 'garbage' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(get({ count: '0' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(get({ count: '10001' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(get({ sliceId: '0', sliceMax: '2' })).rejects.toThrow('Sliced scrolling');
    expect(queries).toEqual([]);
  });
});
