import { afterEach, describe, expect, it } from '@jest/globals';
import { ValidationError } from '@strata/model';

import { mockCluster, type RecordedRequest, type Responder } from './elasticsearch-cluster.fake';
import { ElasticsearchGraphIndex } from './elasticsearch-graph-index';
import { NEIGHBOUR_PAGE_SIZE, NEIGHBOUR_URNS_PER_SEARCH } from './elasticsearch-graph-neighbours';

// Offline: the exact requests `neighbours` sends and how it reads the answers (the contract suite runs the behaviour
// against a real cluster when ELASTICSEARCH_URL is set, in elasticsearch-graph-index.spec.ts).

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function indexOn(respond: Responder): { index: ElasticsearchGraphIndex; requests: RecordedRequest[] } {
  const { client, requests } = mockCluster(respond);
  const index = new ElasticsearchGraphIndex({ client });
  cleanups.push(() => index.close());
  return { index, requests };
}

const a = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)';
const b = 'urn:li:dataset:(urn:li:dataPlatform:hive,b,PROD)';
const c = 'urn:li:dataset:(urn:li:dataPlatform:hive,c,PROD)';
const job = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load)';

/** A stored edge document's `_source` and its sort values, as the search asks for them. */
function hit(
  source: string,
  type: string,
  destination: string,
  aspect: string,
  direction: 'OUTGOING' | 'INCOMING',
  stamps: Record<string, unknown> = {},
): unknown {
  const [end, other] = direction === 'OUTGOING' ? [source, destination] : [destination, source];
  return {
    _source: { relationshipType: type, source: { urn: source }, destination: { urn: destination }, ...stamps },
    sort: [end, `${type}\u0000${other}`, aspect],
  };
}

const searchAnswer = (hits: unknown[]): unknown => ({ hits: { hits } });

describe('ElasticsearchGraphIndex.neighbours (offline, against a mocked cluster)', () => {
  it('asks for the chunk’s edges by their end, of the types, in the window, sorted to merge aspects', async () => {
    const { index, requests } = indexOn(() =>
      searchAnswer([
        hit(a, 'DownstreamOf', b, 'editableUpstreamLineage', 'OUTGOING', {
          createdOn: 10,
          createdActor: 'urn:li:corpuser:early',
          properties: { source: 'UI' },
        }),
        hit(a, 'DownstreamOf', b, 'upstreamLineage', 'OUTGOING', {
          createdOn: 20,
          updatedOn: 50,
          updatedActor: 'urn:li:corpuser:editor',
        }),
        hit(a, 'DownstreamOf', c, 'upstreamLineage', 'OUTGOING'),
      ]),
    );
    const page = await index.neighbours({
      urns: [b, a, a],
      direction: 'OUTGOING',
      types: ['DownstreamOf'],
      window: { start: 5, end: 60 },
      limit: 10,
    });

    expect(page).toEqual({
      edges: [
        {
          urn: a,
          type: 'DownstreamOf',
          entity: b,
          createdAt: 10,
          createdBy: 'urn:li:corpuser:early',
          updatedAt: 50,
          updatedBy: 'urn:li:corpuser:editor',
          manual: true,
        },
        { urn: a, type: 'DownstreamOf', entity: c },
      ],
      truncated: false,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/graph_service_v1/_search' });
    const missingOrZero = (field: string) => ({
      bool: {
        should: [{ bool: { must_not: [{ exists: { field } }] } }, { term: { [field]: 0 } }],
        minimum_should_match: 1,
      },
    });
    expect(requests[0]?.body).toEqual({
      query: {
        bool: {
          filter: [
            { terms: { 'source.urn': [a, b] } },
            { terms: { relationshipType: ['DownstreamOf'] } },
            {
              bool: {
                should: [
                  { range: { createdOn: { gte: 5, lte: 60 } } },
                  { range: { updatedOn: { gte: 5, lte: 60 } } },
                  { bool: { filter: [missingOrZero('createdOn'), missingOrZero('updatedOn')] } },
                  { term: { 'properties.source': 'UI' } },
                ],
                minimum_should_match: 1,
              },
            },
          ],
        },
      },
      sort: [
        { 'source.urn': { order: 'asc' } },
        { 'strata.outgoing': { order: 'asc' } },
        { 'strata.aspect': { order: 'asc' } },
      ],
      size: 11,
      _source: [
        'relationshipType',
        'source.urn',
        'destination.urn',
        'createdOn',
        'createdActor',
        'updatedOn',
        'updatedActor',
        'properties.source',
      ],
      track_total_hits: false,
    });
  });

  it('reads INCOMING edges by their destination, every type, an open-ended window', async () => {
    const { index, requests } = indexOn(() =>
      searchAnswer([hit(job, 'Consumes', a, 'dataJobInputOutput', 'INCOMING')]),
    );
    const page = await index.neighbours({
      urns: [a],
      direction: 'INCOMING',
      types: [],
      window: { start: 7 },
      limit: 5,
    });
    expect(page).toEqual({ edges: [{ urn: a, type: 'Consumes', entity: job }], truncated: false });
    expect(requests[0]?.body.query.bool.filter).toEqual([
      { terms: { 'destination.urn': [a] } },
      expect.objectContaining({
        bool: expect.objectContaining({
          should: expect.arrayContaining([{ range: { createdOn: { gte: 7 } } }, { range: { updatedOn: { gte: 7 } } }]),
        }),
      }),
    ]);
    expect(requests[0]?.body.sort[1]).toEqual({ 'strata.incoming': { order: 'asc' } });
  });

  it('stops at the limit, saying more matched, with one hit more than the limit asked for', async () => {
    const { index, requests } = indexOn(() =>
      searchAnswer([
        hit(a, 'DownstreamOf', b, 'upstreamLineage', 'OUTGOING'),
        hit(a, 'DownstreamOf', c, 'upstreamLineage', 'OUTGOING'),
      ]),
    );
    expect(await index.neighbours({ urns: [a], direction: 'OUTGOING', types: [], limit: 1 })).toEqual({
      edges: [{ urn: a, type: 'DownstreamOf', entity: b }],
      truncated: true,
    });
    expect(requests[0]?.body.size).toBe(2);
  });

  it(`pages with search_after when a page is full, and cuts the URNs into chunks of ${NEIGHBOUR_URNS_PER_SEARCH}`, async () => {
    const urns = Array.from(
      { length: NEIGHBOUR_URNS_PER_SEARCH + 1 },
      (_, n) => `urn:li:dataset:u${String(n).padStart(4, '0')}`,
    );
    const full = Array.from({ length: NEIGHBOUR_PAGE_SIZE }, (_, n) =>
      hit(urns[0]!, 'DownstreamOf', `urn:li:dataset:t${String(n).padStart(5, '0')}`, 'upstreamLineage', 'OUTGOING'),
    );
    const { index, requests } = indexOn((request) => {
      if (request.body.query.bool.filter[0].terms['source.urn'].length === 1) {
        return searchAnswer([hit(urns[NEIGHBOUR_URNS_PER_SEARCH]!, 'DownstreamOf', c, 'upstreamLineage', 'OUTGOING')]);
      }
      return searchAnswer(request.body.search_after === undefined ? full : []);
    });
    const page = await index.neighbours({ urns, direction: 'OUTGOING', types: [], limit: 100_000 });

    expect(page.truncated).toBe(false);
    expect(page.edges).toHaveLength(NEIGHBOUR_PAGE_SIZE + 1);
    expect(page.edges[NEIGHBOUR_PAGE_SIZE]).toEqual({
      urn: urns[NEIGHBOUR_URNS_PER_SEARCH],
      type: 'DownstreamOf',
      entity: c,
    });
    expect(requests.map((request): unknown => request.body.query.bool.filter[0].terms['source.urn'].length)).toEqual([
      NEIGHBOUR_URNS_PER_SEARCH,
      NEIGHBOUR_URNS_PER_SEARCH,
      1,
    ]);
    expect(requests[0]?.body.size).toBe(NEIGHBOUR_PAGE_SIZE);
    expect(requests[1]?.body.search_after).toEqual([
      urns[0],
      `DownstreamOf\u0000urn:li:dataset:t${String(NEIGHBOUR_PAGE_SIZE - 1).padStart(5, '0')}`,
      'upstreamLineage',
    ]);
  });

  it('sends nothing for no URNs, and refuses a bad query with ValidationError, sending nothing', async () => {
    const { index, requests } = indexOn(() => searchAnswer([]));
    expect(await index.neighbours({ urns: [], direction: 'OUTGOING', types: [], limit: 3 })).toEqual({
      edges: [],
      truncated: false,
    });
    const base = { urns: [a], direction: 'OUTGOING' as const, types: [], limit: 3 };
    await expect(index.neighbours({ ...base, limit: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(index.neighbours({ ...base, direction: 'UP' as 'OUTGOING' })).rejects.toThrow(
      'Invalid relationship direction UP',
    );
    await expect(index.neighbours({ ...base, window: { start: 3, end: 2 } })).rejects.toThrow(
      'Invalid window: start 3 is after end 2',
    );
    expect(requests).toEqual([]);
  });
});

describe('ElasticsearchGraphIndex writes of edge stamps (offline)', () => {
  it('writes DataHub’s updatedOn, updatedActor and properties.source of a manual edge', async () => {
    const { index, requests } = indexOn((request) =>
      request.path.endsWith('/_bulk') ? { errors: false, items: [] } : searchAnswer([]),
    );
    await index.replaceEdges(a, 'upstreamLineage', [
      {
        type: 'DownstreamOf',
        destination: b,
        createdAt: 1,
        updatedAt: 2,
        updatedBy: 'urn:li:corpuser:u',
        manual: true,
      },
    ]);
    expect(requests[1]?.body[1]).toEqual({
      source: { urn: a, entityType: 'dataset' },
      destination: { urn: b, entityType: 'dataset' },
      relationshipType: 'DownstreamOf',
      createdOn: 1,
      updatedOn: 2,
      updatedActor: 'urn:li:corpuser:u',
      properties: { source: 'UI' },
      strata: { aspect: 'upstreamLineage', outgoing: `DownstreamOf\u0000${b}`, incoming: `DownstreamOf\u0000${a}` },
    });
  });
});
