import { createHash, randomUUID } from 'node:crypto';

import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Client } from '@elastic/elasticsearch';
import { ValidationError } from '@strata/model';

import {
  mockCluster,
  responseError,
  type Body,
  type RecordedRequest,
  type Responder,
} from './elasticsearch-cluster.fake';

import {
  DUPLICATE_PAGE_SIZE,
  EDGE_PAGE_SIZE,
  ElasticsearchGraphIndex,
  SCROLL_PAGE_SIZE,
  SOURCES_PER_SEARCH,
} from './elasticsearch-graph-index';
import { graphIndexName } from './elasticsearch-graph-mappings';
import type { GraphEdge } from './graph-index';
import { describeGraphIndexContract } from './testing';

// Against a real cluster (Elasticsearch 8 or 9), e.g.
//   ELASTICSEARCH_URL=http://127.0.0.1:9200 npx jest libs/indices/src/elasticsearch-graph-index.spec.ts
// Every test gets an index under a name prefix of its own, deleted afterwards. Without ELASTICSEARCH_URL only the
// offline tests below run (exact requests checked against @elastic/elasticsearch-mock, which has no search semantics).
const elasticsearchUrl = process.env['ELASTICSEARCH_URL'];

if (elasticsearchUrl !== undefined && elasticsearchUrl !== '') {
  const node = elasticsearchUrl;

  /** An index of its own for one test, and how to drop it. */
  async function openOwn(): Promise<{
    index: ElasticsearchGraphIndex;
    options: { node: string; indexPrefix: string };
    drop: () => Promise<void>;
  }> {
    const indexPrefix = `strata-test-${randomUUID().slice(0, 8)}`;
    const options = { node, indexPrefix };
    return {
      index: await ElasticsearchGraphIndex.open(options),
      options,
      drop: async () => {
        const client = new Client({ node });
        try {
          // By name: clusters refuse wildcard deletes by default (action.destructive_requires_name).
          await client.indices.delete({ index: graphIndexName(indexPrefix), ignore_unavailable: true });
        } finally {
          await client.close();
        }
      },
    };
  }

  describeGraphIndexContract('ElasticsearchGraphIndex', {
    create: async () => {
      const { index, options, drop } = await openOwn();
      // A client of its own, as another process would have.
      return { index, reopen: () => ElasticsearchGraphIndex.open(options), dispose: drop };
    },
  });

  describe('ElasticsearchGraphIndex at scale (real cluster)', () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function open(): Promise<ElasticsearchGraphIndex> {
      const { index, drop } = await openOwn();
      cleanups.push(drop, () => index.close());
      return index;
    }

    const owners = (count: number, from = 0): GraphEdge[] =>
      Array.from({ length: count }, (_, position) => ({
        type: 'OwnedBy',
        destination: `urn:li:corpuser:user-${String(from + position).padStart(6, '0')}`,
      }));

    it('replaces an aspect of 50,000 edges, reading its current edges page by page', async () => {
      const index = await open();
      const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.wide,PROD)';
      const total = async (urn: string, direction: 'INCOMING' | 'OUTGOING'): Promise<number> =>
        (await index.relationships({ urn, direction, types: [], start: 0, count: 0 })).total;

      await index.replaceEdges(dataset, 'ownership', owners(50_000));
      expect(await total(dataset, 'OUTGOING')).toBe(50_000);

      await index.replaceEdges(dataset, 'ownership', owners(30_000, 20_000));
      expect(await total(dataset, 'OUTGOING')).toBe(30_000);
      expect(await total('urn:li:corpuser:user-000000', 'INCOMING')).toBe(0);
      expect(await total('urn:li:corpuser:user-019999', 'INCOMING')).toBe(0);
      expect(await total('urn:li:corpuser:user-020000', 'INCOMING')).toBe(1);
      const last = await index.relationships({
        urn: dataset,
        direction: 'OUTGOING',
        types: [],
        start: 9_999,
        count: 1,
      });
      expect(last.relationships).toEqual([{ type: 'OwnedBy', entity: 'urn:li:corpuser:user-029999' }]);
    }, 300_000);

    it(`counts distinct pairs exactly when more than ${DUPLICATE_PAGE_SIZE} are implied by two aspects`, async () => {
      const index = await open();
      const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.twice,PROD)';
      const edges = owners(DUPLICATE_PAGE_SIZE + 1);
      await index.apply([
        { kind: 'replaceEdges', source: dataset, aspect: 'ownership', edges },
        { kind: 'replaceEdges', source: dataset, aspect: 'editableOwnership', edges },
        {
          kind: 'replaceEdges',
          source: dataset,
          aspect: 'globalTags',
          edges: [{ type: 'TaggedWith', destination: 'urn:li:tag:t' }],
        },
      ]);
      const page = await index.relationships({ urn: dataset, direction: 'OUTGOING', types: [], start: 0, count: 3 });
      expect(page.total).toBe(DUPLICATE_PAGE_SIZE + 2);
      expect(page.relationships.map((relationship) => relationship.entity)).toEqual(
        edges.slice(0, 3).map((edge) => edge.destination),
      );
    }, 300_000);
  });
}

// --- Offline: the exact requests the adapter sends, and how it reads the answers --------------------------------------

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function indexOn(
  respond: Responder,
  options: { indexPrefix?: string; refresh?: true } = {},
): { index: ElasticsearchGraphIndex; requests: RecordedRequest[] } {
  const { client, requests } = mockCluster(respond);
  const index = new ElasticsearchGraphIndex({ client, ...options });
  // The mock's connections cannot be closed (nor need to be): only the index is.
  cleanups.push(() => index.close());
  return { index, requests };
}

/** Answers by the request's path: searches, bulk writes, removals. */
function byPath(answers: {
  search?: (request: RecordedRequest) => unknown;
  bulk?: (request: RecordedRequest) => unknown;
  deleteByQuery?: (request: RecordedRequest) => unknown;
}): Responder {
  return (request) => {
    if (request.path.endsWith('/_search')) return (answers.search ?? (() => searchResponse([])))(request);
    if (request.path.endsWith('/_bulk')) return (answers.bulk ?? (() => ({ errors: false, items: [] })))(request);
    if (request.path.endsWith('/_delete_by_query')) {
      return (answers.deleteByQuery ?? (() => ({ deleted: 0, failures: [], timed_out: false })))(request);
    }
    throw new Error(`Unexpected request ${request.method} ${request.path}`);
  };
}

function searchResponse(hits: unknown[], total = hits.length, duplicates: unknown[] = []): unknown {
  return {
    hits: { total: { value: total, relation: 'eq' }, hits },
    aggregations: { duplicates: { buckets: duplicates, sum_other_doc_count: 0 } },
  };
}

/** DataHub's doc id scheme, with the aspect appended: Base64(MD5(source--type--destination--aspect)). */
function idOf(source: string, aspect: string, type: string, destination: string): string {
  return createHash('md5').update(`${source}--${type}--${destination}--${aspect}`, 'utf8').digest('base64');
}

/** A hit of the search reading an aspect's current documents: its id and sort values only. */
function storedHit(source: string, aspect: string, type: string, destination: string): unknown {
  return { _id: idOf(source, aspect, type, destination), sort: [source, aspect, `${type}\u0000${destination}`] };
}

const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const jdoe = 'urn:li:corpuser:jdoe';
const other = 'urn:li:corpuser:other';
const group = 'urn:li:corpGroup:eng';
const tag = 'urn:li:tag:Pii';
const writer = 'urn:li:corpuser:writer';

/** The search reading the current documents of some (source, aspects), first page. */
function currentEdgesSearch(keys: [string, string[]][]): Body {
  return {
    query: {
      bool: {
        should: keys.map(([source, aspects]) => ({
          bool: { filter: [{ term: { 'source.urn': source } }, { terms: { 'strata.aspect': aspects } }] },
        })),
        minimum_should_match: 1,
      },
    },
    sort: [
      { 'source.urn': { order: 'asc' } },
      { 'strata.aspect': { order: 'asc' } },
      { 'strata.outgoing': { order: 'asc' } },
    ],
    size: 10_000,
    _source: false,
    track_total_hits: false,
  };
}

/** The removal of some entities' edges: those from them nobody holds, and those they hold. */
function removal(urns: string[]): Body {
  return {
    query: {
      bool: {
        should: [
          {
            bool: { filter: [{ terms: { 'source.urn': urns } }], must_not: [{ exists: { field: 'lifecycleOwner' } }] },
          },
          { terms: { lifecycleOwner: urns } },
        ],
        minimum_should_match: 1,
      },
    },
  };
}

describe('ElasticsearchGraphIndex (offline, against a mocked cluster)', () => {
  describe('index', () => {
    it('is named as DataHub names it, with or without a prefix, and refuses a bad prefix', () => {
      expect(graphIndexName('')).toBe('graph_service_v1');
      expect(graphIndexName('Strata')).toBe('strata_graph_service_v1');
      expect(new ElasticsearchGraphIndex({ node: 'http://127.0.0.1:9', indexPrefix: 'P' }).indexName).toBe(
        'p_graph_service_v1',
      );
      expect(() => new ElasticsearchGraphIndex({ node: 'http://127.0.0.1:9', indexPrefix: 'a b' })).toThrow(
        'Invalid Elasticsearch index prefix',
      );
    });

    it('creates the missing index with one shard and the edge mappings', async () => {
      const { client, requests } = mockCluster((request) =>
        request.method === 'HEAD' ? responseError(404, '') : { acknowledged: true },
      );
      const index = await ElasticsearchGraphIndex.open({ client, indexPrefix: 'P' });
      cleanups.push(() => index.close());

      expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'HEAD /p_graph_service_v1',
        'PUT /p_graph_service_v1',
      ]);
      const keyword = { type: 'keyword', ignore_above: 8191 };
      const entity = { properties: { urn: keyword, entityType: { type: 'keyword' } } };
      expect(requests[1]?.body).toEqual({
        settings: { number_of_shards: 1 },
        mappings: {
          dynamic: 'strict',
          properties: {
            source: entity,
            destination: entity,
            relationshipType: keyword,
            createdOn: { type: 'long' },
            createdActor: keyword,
            updatedOn: { type: 'long' },
            updatedActor: keyword,
            properties: { type: 'object', dynamic: true, properties: { source: { type: 'keyword' } } },
            lifecycleOwner: keyword,
            strata: { properties: { aspect: keyword, outgoing: keyword, incoming: keyword } },
          },
        },
      });
    });

    it('adds the mappings to an existing index, and tolerates one created meanwhile', async () => {
      for (const exists of [true, false]) {
        const { client, requests } = mockCluster((request) => {
          if (request.method === 'HEAD') return exists ? '' : responseError(404, '');
          if (request.method === 'PUT' && request.path === '/graph_service_v1') {
            return responseError(400, {
              error: { type: 'resource_already_exists_exception', reason: 'exists' },
              status: 400,
            });
          }
          return { acknowledged: true };
        });
        const index = await ElasticsearchGraphIndex.open({ client });
        cleanups.push(() => index.close());
        const mapping = requests.filter((request) => request.path === '/graph_service_v1/_mapping');
        expect(mapping).toHaveLength(1);
        expect(mapping[0]?.method).toBe('PUT');
        expect(mapping[0]?.body).toMatchObject({
          dynamic: 'strict',
          properties: { strata: { properties: { aspect: { type: 'keyword' } } } },
        });
        expect(Object.keys(mapping[0]?.body ?? {})).toEqual(['dynamic', 'properties']);
      }
    });

    it('fails to open when the cluster refuses the index', async () => {
      const { client } = mockCluster((request) =>
        request.method === 'HEAD'
          ? responseError(404, '')
          : responseError(403, { error: { type: 'security_exception', reason: 'no' }, status: 403 }),
      );
      await expect(ElasticsearchGraphIndex.open({ client })).rejects.toThrow('security_exception');
    });
  });

  describe('replaceEdges', () => {
    it('reads the aspect’s documents, then indexes what it implies and deletes what it no longer does, in one bulk', async () => {
      const { index, requests } = indexOn(
        byPath({
          search: () =>
            searchResponse([
              storedHit(dataset, 'ownership', 'OwnedBy', jdoe),
              storedHit(dataset, 'ownership', 'OwnedBy', other),
            ]),
        }),
      );
      await index.replaceEdges(dataset, 'ownership', [
        { type: 'OwnedBy', destination: jdoe, createdAt: 10, createdBy: writer },
        { type: 'OwnedBy', destination: group },
      ]);

      expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'POST /graph_service_v1/_search',
        'POST /_bulk',
      ]);
      expect(requests[0]?.body).toEqual(currentEdgesSearch([[dataset, ['ownership']]]));
      expect(requests[1]?.querystring).toEqual({ refresh: 'wait_for' });
      // DataHub's id scheme with the aspect appended, checked against a literal too.
      expect(idOf(dataset, 'ownership', 'OwnedBy', jdoe)).toBe('wWG0u9FA/YSXrz94E2v4IA==');
      expect(requests[1]?.body).toEqual([
        { index: { _index: 'graph_service_v1', _id: 'wWG0u9FA/YSXrz94E2v4IA==' } },
        {
          source: { urn: dataset, entityType: 'dataset' },
          destination: { urn: jdoe, entityType: 'corpuser' },
          relationshipType: 'OwnedBy',
          createdOn: 10,
          createdActor: writer,
          strata: { aspect: 'ownership', outgoing: `OwnedBy\u0000${jdoe}`, incoming: `OwnedBy\u0000${dataset}` },
        },
        { index: { _index: 'graph_service_v1', _id: idOf(dataset, 'ownership', 'OwnedBy', group) } },
        {
          source: { urn: dataset, entityType: 'dataset' },
          destination: { urn: group, entityType: 'corpGroup' },
          relationshipType: 'OwnedBy',
          strata: { aspect: 'ownership', outgoing: `OwnedBy\u0000${group}`, incoming: `OwnedBy\u0000${dataset}` },
        },
        { delete: { _index: 'graph_service_v1', _id: idOf(dataset, 'ownership', 'OwnedBy', other) } },
      ]);
    });

    it('stores a (type, destination) given twice once, with the first stamp; a URN without entity type has none', async () => {
      const { index, requests } = indexOn(byPath({}));
      await index.replaceEdges(dataset, 'ownership', [
        { type: 'OwnedBy', destination: 'not-a-urn', createdAt: 7 },
        { type: 'OwnedBy', destination: 'not-a-urn', createdAt: 8 },
      ]);
      expect(requests[1]?.body).toEqual([
        { index: { _index: 'graph_service_v1', _id: idOf(dataset, 'ownership', 'OwnedBy', 'not-a-urn') } },
        {
          source: { urn: dataset, entityType: 'dataset' },
          destination: { urn: 'not-a-urn' },
          relationshipType: 'OwnedBy',
          createdOn: 7,
          strata: { aspect: 'ownership', outgoing: 'OwnedBy\u0000not-a-urn', incoming: `OwnedBy\u0000${dataset}` },
        },
      ]);
    });

    it('deletes every document of an aspect given no edges, and sends no bulk when there is nothing to change', async () => {
      const { index, requests } = indexOn(
        byPath({ search: () => searchResponse([storedHit(dataset, 'globalTags', 'TaggedWith', tag)]) }),
      );
      await index.replaceEdges(dataset, 'globalTags', []);
      expect(requests[1]?.body).toEqual([
        { delete: { _index: 'graph_service_v1', _id: idOf(dataset, 'globalTags', 'TaggedWith', tag) } },
      ]);

      const { index: empty, requests: emptyRequests } = indexOn(byPath({}));
      await empty.replaceEdges(dataset, 'globalTags', []);
      expect(emptyRequests.map((request) => request.path)).toEqual(['/graph_service_v1/_search']);
    });

    it(`pages through an aspect of more than ${EDGE_PAGE_SIZE} documents with search_after`, async () => {
      const destinations = Array.from({ length: EDGE_PAGE_SIZE + 1 }, (_, n) => `urn:li:corpuser:u${n}`);
      const { index, requests } = indexOn(
        byPath({
          search: (request) => {
            const page = request.body.search_after === undefined ? destinations.slice(0, EDGE_PAGE_SIZE) : [];
            const rest = request.body.search_after === undefined ? [] : destinations.slice(EDGE_PAGE_SIZE);
            return searchResponse([...page, ...rest].map((urn) => storedHit(dataset, 'ownership', 'OwnedBy', urn)));
          },
        }),
      );
      await index.replaceEdges(dataset, 'ownership', [{ type: 'OwnedBy', destination: destinations[0]! }]);

      expect(requests.map((request) => request.path)).toEqual([
        '/graph_service_v1/_search',
        '/graph_service_v1/_search',
        '/_bulk',
      ]);
      expect(requests[1]?.body).toEqual({
        ...currentEdgesSearch([[dataset, ['ownership']]]),
        search_after: [dataset, 'ownership', `OwnedBy\u0000urn:li:corpuser:u${EDGE_PAGE_SIZE - 1}`],
      });
      const bulk = requests[2]?.body as Body[];
      expect(bulk).toHaveLength(2 + EDGE_PAGE_SIZE);
      expect(bulk[0]).toEqual({
        index: { _index: 'graph_service_v1', _id: idOf(dataset, 'ownership', 'OwnedBy', destinations[0]!) },
      });
      expect(bulk[bulk.length - 1]).toEqual({
        delete: {
          _index: 'graph_service_v1',
          _id: idOf(dataset, 'ownership', 'OwnedBy', destinations[EDGE_PAGE_SIZE]!),
        },
      });
      expect(bulk.filter((operation) => 'delete' in operation)).toHaveLength(EDGE_PAGE_SIZE);
    });

    it('uses the configured refresh', async () => {
      const { index, requests } = indexOn(byPath({}), { refresh: true });
      await index.replaceEdges(dataset, 'ownership', [{ type: 'OwnedBy', destination: jdoe }]);
      expect(requests[1]?.querystring).toEqual({ refresh: 'true' });
    });

    it('rejects when Elasticsearch rejects an item, naming the edge', async () => {
      const { index } = indexOn(
        byPath({
          search: () => searchResponse([storedHit(dataset, 'ownership', 'OwnedBy', other)]),
          bulk: () => ({
            errors: true,
            items: [
              { index: { _index: 'graph_service_v1', _id: 'a', status: 201, result: 'created' } },
              {
                delete: {
                  _index: 'graph_service_v1',
                  _id: 'b',
                  status: 429,
                  error: { type: 'es_rejected_execution_exception', reason: 'queue full' },
                },
              },
            ],
          }),
        }),
      );
      await expect(index.replaceEdges(dataset, 'ownership', [{ type: 'OwnedBy', destination: jdoe }])).rejects.toThrow(
        `Elasticsearch rejected 1 of 2 graph edge writes: ${dataset} -OwnedBy-> ${other} (ownership) (es_rejected_execution_exception: queue full)`,
      );
    });

    it('refuses a type containing U+0000 or an edge too long to index, sending nothing', async () => {
      const { index, requests } = indexOn(byPath({}));
      await expect(
        index.replaceEdges(dataset, 'ownership', [{ type: 'Owned\u0000By', destination: jdoe }]),
      ).rejects.toThrow(ValidationError);
      await expect(
        index.replaceEdges(dataset, 'ownership', [
          { type: 'OwnedBy', destination: `urn:li:corpuser:${'x'.repeat(8200)}` },
        ]),
      ).rejects.toThrow(ValidationError);
      await expect(
        index.apply([
          { kind: 'removeEntity', urn: jdoe },
          {
            kind: 'replaceEdges',
            source: 'x'.repeat(8200),
            aspect: 'ownership',
            edges: [{ type: 'OwnedBy', destination: jdoe }],
          },
        ]),
      ).rejects.toThrow(ValidationError);
      expect(requests).toEqual([]);
    });
  });

  describe('replaceHeldEdges', () => {
    const holder = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,PROD),load)';
    const field = (path: string) => `urn:li:schemaField:(${dataset},${path})`;
    const upstreamField = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.raw,PROD),id)';
    const key = `dataJobInputOutput@${holder}`;

    it('reads the holder’s documents by lifecycleOwner, then writes each edge from its own source in one bulk', async () => {
      const { index, requests } = indexOn(
        byPath({ search: () => searchResponse([storedHit(field('old'), key, 'DownstreamOf', upstreamField)]) }),
      );
      await index.replaceHeldEdges(holder, 'dataJobInputOutput', [
        { source: field('id'), type: 'DownstreamOf', destination: upstreamField },
        { source: field('id'), type: 'DownstreamOf', destination: upstreamField, createdAt: 5 },
      ]);

      expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'POST /graph_service_v1/_search',
        'POST /_bulk',
      ]);
      expect(requests[0]?.body).toEqual({
        ...currentEdgesSearch([]),
        query: {
          bool: {
            should: [
              { bool: { filter: [{ term: { lifecycleOwner: holder } }, { terms: { 'strata.aspect': [key] } }] } },
            ],
            minimum_should_match: 1,
          },
        },
      });
      expect(requests[1]?.body).toEqual([
        { index: { _index: 'graph_service_v1', _id: idOf(field('id'), key, 'DownstreamOf', upstreamField) } },
        {
          source: { urn: field('id'), entityType: 'schemaField' },
          destination: { urn: upstreamField, entityType: 'schemaField' },
          relationshipType: 'DownstreamOf',
          lifecycleOwner: holder,
          strata: {
            aspect: key,
            outgoing: `DownstreamOf\u0000${upstreamField}`,
            incoming: `DownstreamOf\u0000${field('id')}`,
          },
        },
        { delete: { _index: 'graph_service_v1', _id: idOf(field('old'), key, 'DownstreamOf', upstreamField) } },
      ]);
    });

    it('reads sources’ and holders’ documents in one search when a list holds both', async () => {
      const { index, requests } = indexOn(byPath({}));
      await index.apply([
        { kind: 'replaceEdges', source: holder, aspect: 'dataJobInputOutput', edges: [] },
        { kind: 'replaceHeldEdges', holder, aspect: 'dataJobInputOutput', edges: [] },
      ]);
      expect(requests).toHaveLength(1);
      expect(requests[0]?.body.query).toEqual({
        bool: {
          should: [
            {
              bool: {
                filter: [{ term: { 'source.urn': holder } }, { terms: { 'strata.aspect': ['dataJobInputOutput'] } }],
              },
            },
            { bool: { filter: [{ term: { lifecycleOwner: holder } }, { terms: { 'strata.aspect': [key] } }] } },
          ],
          minimum_should_match: 1,
        },
      });
    });

    it('refuses a held edge too long to index, sending nothing', async () => {
      const { index, requests } = indexOn(byPath({}));
      const long = `urn:li:schemaField:(${dataset},${'x'.repeat(9000)})`;
      await expect(
        index.replaceHeldEdges(holder, 'upstreamLineage', [{ source: long, type: 'DownstreamOf', destination: jdoe }]),
      ).rejects.toBeInstanceOf(ValidationError);
      expect(requests).toEqual([]);
    });
  });

  describe('removeNode', () => {
    it('deletes every edge from, to or held by the URN with one delete_by_query, refreshed', async () => {
      const { index, requests } = indexOn(byPath({}));
      await index.removeNode(dataset);
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        method: 'POST',
        path: '/graph_service_v1/_delete_by_query',
        querystring: { refresh: 'true', conflicts: 'proceed' },
      });
      expect(requests[0]?.body).toEqual({
        query: {
          bool: {
            should: [
              { term: { 'source.urn': dataset } },
              { term: { 'destination.urn': dataset } },
              { term: { lifecycleOwner: dataset } },
            ],
            minimum_should_match: 1,
          },
        },
      });
    });

    it('rejects when the removal reports failures, naming the URN, and refuses work once closed', async () => {
      const { index } = indexOn(
        byPath({
          deleteByQuery: () => ({
            deleted: 0,
            timed_out: false,
            failures: [{ cause: { type: 'version_conflict_engine_exception', reason: 'conflict' } }],
          }),
        }),
      );
      await expect(index.removeNode(dataset)).rejects.toThrow(
        `Removing the edges of ${dataset} failed: 1 failures (version_conflict_engine_exception: conflict)`,
      );
      await index.close();
      await expect(index.removeNode(dataset)).rejects.toThrow('closed');
    });
  });

  describe('removeEntity', () => {
    it('deletes the edges from the URN nobody holds and those it holds with one delete_by_query, refreshed', async () => {
      const { index, requests } = indexOn(byPath({}));
      await index.removeEntity(jdoe);
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        method: 'POST',
        path: '/graph_service_v1/_delete_by_query',
        querystring: { refresh: 'true', conflicts: 'proceed' },
      });
      expect(requests[0]?.body).toEqual(removal([jdoe]));
    });

    it('rejects when the removal reports failures or times out, naming the URN', async () => {
      const { index } = indexOn(
        byPath({
          deleteByQuery: () => ({
            deleted: 1,
            timed_out: false,
            failures: [{ cause: { type: 'es_rejected_execution_exception', reason: 'queue full' } }],
          }),
        }),
      );
      await expect(index.removeEntity(jdoe)).rejects.toThrow(
        `Removing the edges of ${jdoe} failed: 1 failures (es_rejected_execution_exception: queue full)`,
      );
      const { index: slow } = indexOn(byPath({ deleteByQuery: () => ({ deleted: 0, timed_out: true, failures: [] }) }));
      await expect(slow.removeEntity(jdoe)).rejects.toThrow(`Removing the edges of ${jdoe} failed: timed out`);
    });
  });

  describe('apply', () => {
    it('sends nothing for an empty list', async () => {
      const { index, requests } = indexOn(byPath({}));
      await index.apply([]);
      expect(requests).toEqual([]);
    });

    it('cuts the list at removals: one read and one bulk per run of replacements, one delete_by_query per run of removals', async () => {
      const { index, requests } = indexOn(
        byPath({
          search: (request) =>
            searchResponse(
              request.body.query.bool.should.length === 2 ? [storedHit(group, 'ownership', 'OwnedBy', jdoe)] : [],
            ),
        }),
      );
      await index.apply([
        {
          kind: 'replaceEdges',
          source: dataset,
          aspect: 'globalTags',
          edges: [{ type: 'TaggedWith', destination: tag }],
        },
        { kind: 'replaceEdges', source: group, aspect: 'ownership', edges: [{ type: 'OwnedBy', destination: other }] },
        // Replaced twice: only the last list is written.
        { kind: 'replaceEdges', source: dataset, aspect: 'globalTags', edges: [] },
        { kind: 'replaceEdges', source: dataset, aspect: 'ownership', edges: [{ type: 'OwnedBy', destination: jdoe }] },
        { kind: 'removeEntity', urn: jdoe },
        { kind: 'removeEntity', urn: tag },
        // After the removal: new edges to the removed URN.
        { kind: 'replaceEdges', source: group, aspect: 'ownership', edges: [{ type: 'OwnedBy', destination: jdoe }] },
        { kind: 'removeEntity', urn: other },
      ]);

      expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'POST /graph_service_v1/_search',
        'POST /_bulk',
        'POST /graph_service_v1/_delete_by_query',
        'POST /graph_service_v1/_search',
        'POST /_bulk',
        'POST /graph_service_v1/_delete_by_query',
      ]);
      expect(requests[0]?.body).toEqual(
        currentEdgesSearch([
          [dataset, ['globalTags', 'ownership']],
          [group, ['ownership']],
        ]),
      );
      const documentOf = (source: string, aspect: string, type: string, destination: string): Body[] => [
        { index: { _index: 'graph_service_v1', _id: idOf(source, aspect, type, destination) } },
        expect.objectContaining({
          source: expect.objectContaining({ urn: source }),
          strata: expect.objectContaining({ aspect }),
        }),
      ];
      expect(requests[1]?.body).toEqual([
        ...documentOf(group, 'ownership', 'OwnedBy', other),
        ...documentOf(dataset, 'ownership', 'OwnedBy', jdoe),
        { delete: { _index: 'graph_service_v1', _id: idOf(group, 'ownership', 'OwnedBy', jdoe) } },
      ]);
      expect(requests[2]?.body).toEqual(removal([jdoe, tag]));
      expect(requests[2]?.querystring).toEqual({ refresh: 'true', conflicts: 'proceed' });
      expect(requests[3]?.body).toEqual(currentEdgesSearch([[group, ['ownership']]]));
      expect(requests[4]?.body).toEqual(documentOf(group, 'ownership', 'OwnedBy', jdoe));
      expect(requests[5]?.body).toEqual(removal([other]));
    });

    it(`reads the current documents of at most ${SOURCES_PER_SEARCH} sources per search`, async () => {
      const { index, requests } = indexOn(byPath({}));
      const sources = Array.from({ length: SOURCES_PER_SEARCH + 1 }, (_, n) => `urn:li:dataset:d${n}`);
      await index.apply(sources.map((source) => ({ kind: 'replaceEdges', source, aspect: 'globalTags', edges: [] })));
      expect(requests.map((request): unknown => request.body.query.bool.should.length)).toEqual([
        SOURCES_PER_SEARCH,
        1,
      ]);
      expect(requests[1]?.body).toEqual(currentEdgesSearch([[sources[SOURCES_PER_SEARCH]!, ['globalTags']]]));
    });
  });

  describe('relationships', () => {
    const duplicatesAggregation = (field: string): Body => ({
      duplicates: {
        terms: { field, min_doc_count: 2, shard_min_doc_count: 2, size: DUPLICATE_PAGE_SIZE, order: { _key: 'asc' } },
      },
    });

    it('asks for OUTGOING pairs of some types, collapsed, earliest stamp first, with the duplicated pairs counted', async () => {
      const { index, requests } = indexOn(
        byPath({
          search: () =>
            searchResponse(
              [
                {
                  _source: {
                    relationshipType: 'OwnedBy',
                    destination: { urn: jdoe },
                    createdOn: 5,
                    createdActor: writer,
                  },
                },
                { _source: { relationshipType: 'TaggedWith', destination: { urn: tag } } },
              ],
              7,
              [
                { key: `OwnedBy\u0000${jdoe}`, doc_count: 3 },
                { key: `TaggedWith\u0000${tag}`, doc_count: 2 },
              ],
            ),
        }),
      );
      const page = await index.relationships({
        urn: dataset,
        direction: 'OUTGOING',
        types: ['OwnedBy', 'TaggedWith'],
        start: 4,
        count: 2,
      });

      // 7 documents, 3 of them surplus copies of a pair already counted.
      expect(page).toEqual({
        total: 4,
        relationships: [
          { type: 'OwnedBy', entity: jdoe, createdAt: 5, createdBy: writer },
          { type: 'TaggedWith', entity: tag },
        ],
      });
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ method: 'POST', path: '/graph_service_v1/_search' });
      expect(requests[0]?.body).toEqual({
        query: {
          bool: {
            filter: [{ term: { 'source.urn': dataset } }, { terms: { relationshipType: ['OwnedBy', 'TaggedWith'] } }],
          },
        },
        collapse: { field: 'strata.outgoing' },
        sort: [
          { 'strata.outgoing': { order: 'asc' } },
          { createdOn: { order: 'asc', missing: '_last' } },
          { 'strata.aspect': { order: 'asc' } },
        ],
        from: 4,
        size: 2,
        _source: ['relationshipType', 'destination.urn', 'createdOn', 'createdActor'],
        track_total_hits: true,
        aggs: duplicatesAggregation('strata.outgoing'),
      });
    });

    it('asks for INCOMING pairs of every type by the destination, reporting the sources', async () => {
      const { index, requests } = indexOn(
        byPath({
          search: () => searchResponse([{ _source: { relationshipType: 'OwnedBy', source: { urn: dataset } } }]),
        }),
      );
      const page = await index.relationships({ urn: jdoe, direction: 'INCOMING', types: [], start: 0, count: 100 });
      expect(page).toEqual({ total: 1, relationships: [{ type: 'OwnedBy', entity: dataset }] });
      expect(requests[0]?.body).toEqual({
        query: { bool: { filter: [{ term: { 'destination.urn': jdoe } }] } },
        collapse: { field: 'strata.incoming' },
        sort: [
          { 'strata.incoming': { order: 'asc' } },
          { createdOn: { order: 'asc', missing: '_last' } },
          { 'strata.aspect': { order: 'asc' } },
        ],
        from: 0,
        size: 100,
        _source: ['relationshipType', 'source.urn', 'createdOn', 'createdActor'],
        track_total_hits: true,
        aggs: duplicatesAggregation('strata.incoming'),
      });
    });

    it('asks only for the total when count is 0, whatever the start', async () => {
      const { index, requests } = indexOn(byPath({ search: () => searchResponse([], 9) }));
      const page = await index.relationships({
        urn: jdoe,
        direction: 'INCOMING',
        types: ['IsPartOf'],
        start: 50_000,
        count: 0,
      });
      expect(page).toEqual({ total: 9, relationships: [] });
      expect(requests[0]?.body).toEqual({
        query: {
          bool: { filter: [{ term: { 'destination.urn': jdoe } }, { terms: { relationshipType: ['IsPartOf'] } }] },
        },
        size: 0,
        track_total_hits: true,
        aggs: duplicatesAggregation('strata.incoming'),
      });
    });

    it(`pages on through the duplicated pairs by key when a page holds ${DUPLICATE_PAGE_SIZE}`, async () => {
      const key = (n: number): string => `OwnedBy\u0000urn:li:corpuser:u${String(n).padStart(5, '0')}`;
      const full = Array.from({ length: DUPLICATE_PAGE_SIZE }, (_, n) => ({ key: key(n), doc_count: 2 }));
      const { index, requests } = indexOn(
        byPath({
          search: () =>
            requests.length === 1
              ? searchResponse([], 2 * DUPLICATE_PAGE_SIZE + 5, full)
              : searchResponse([], 0, [{ key: key(DUPLICATE_PAGE_SIZE), doc_count: 3 }]),
        }),
      );
      const page = await index.relationships({ urn: dataset, direction: 'OUTGOING', types: [], start: 0, count: 0 });

      // 2 × 10000 + 5 documents: 10000 pairs twice, one pair three times, two single pairs.
      expect(page.total).toBe(DUPLICATE_PAGE_SIZE + 3);
      expect(requests).toHaveLength(2);
      expect(requests[1]?.body).toEqual({
        query: {
          bool: {
            filter: [
              { term: { 'source.urn': dataset } },
              { range: { 'strata.outgoing': { gt: key(DUPLICATE_PAGE_SIZE - 1) } } },
            ],
          },
        },
        size: 0,
        track_total_hits: false,
        aggs: duplicatesAggregation('strata.outgoing'),
      });
    });

    it('refuses a bad direction, start or count, and a page past 10000, sending nothing', async () => {
      const { index, requests } = indexOn(byPath({}));
      const base = { urn: jdoe, direction: 'INCOMING' as const, types: [], start: 0, count: 10 };
      await expect(index.relationships({ ...base, direction: 'SIDEWAYS' as 'INCOMING' })).rejects.toThrow(
        new ValidationError('Invalid relationship direction SIDEWAYS'),
      );
      await expect(index.relationships({ ...base, start: -1 })).rejects.toThrow(ValidationError);
      await expect(index.relationships({ ...base, start: 0.5 })).rejects.toThrow(ValidationError);
      await expect(index.relationships({ ...base, count: -1 })).rejects.toThrow(ValidationError);
      await expect(index.relationships({ ...base, count: 1.5 })).rejects.toThrow(ValidationError);
      await expect(index.relationships({ ...base, start: 9_995, count: 10 })).rejects.toThrow(
        new ValidationError('Relationships beyond the first 10000 cannot be paged to (start 9995 + count 10)'),
      );
      await expect(index.relationships({ ...base, count: 10_001 })).rejects.toThrow(ValidationError);
      expect(requests).toEqual([]);
      await index.relationships({ ...base, start: 9_990, count: 10 });
      expect(requests[0]?.body).toMatchObject({ from: 9_990, size: 10 });
    });
  });

  describe('scrollEdges', () => {
    const everything = { types: [], sourceTypes: [], destinationTypes: [], sourceUrns: [], destinationUrns: [] };
    const sort = [
      { 'source.urn': { order: 'asc' } },
      { 'strata.outgoing': { order: 'asc' } },
      { createdOn: { order: 'asc', missing: '_last' } },
      { 'strata.aspect': { order: 'asc' } },
    ];
    const fields = ['source.urn', 'destination.urn', 'relationshipType', 'createdOn', 'createdActor'];
    const hit = (source: string, type: string, destination: string, createdOn?: number): unknown => ({
      _source: {
        source: { urn: source },
        destination: { urn: destination },
        relationshipType: type,
        ...(createdOn === undefined ? {} : { createdOn, createdActor: writer }),
      },
    });

    it('filters on every list given, after the key, and keeps the first document of each edge', async () => {
      const { index, requests } = indexOn(
        byPath({
          search: () =>
            searchResponse([
              hit(dataset, 'OwnedBy', jdoe, 3),
              hit(dataset, 'OwnedBy', jdoe, 9),
              hit(dataset, 'OwnedBy', other),
              hit(dataset, 'TaggedWith', tag),
            ]),
        }),
      );
      const page = await index.scrollEdges({
        types: ['OwnedBy', 'TaggedWith'],
        sourceTypes: ['dataset'],
        destinationTypes: ['corpuser', 'tag'],
        sourceUrns: [dataset],
        destinationUrns: [jdoe, other, tag],
        after: { source: dataset, type: 'AssociatedWith', destination: 'urn:li:domain:d' },
        count: 2,
      });
      expect(page).toEqual({
        edges: [
          { source: dataset, type: 'OwnedBy', destination: jdoe, createdAt: 3, createdBy: writer },
          { source: dataset, type: 'OwnedBy', destination: other },
        ],
        hasMore: true,
      });
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ method: 'POST', path: '/graph_service_v1/_search' });
      expect(requests[0]?.body).toEqual({
        query: {
          bool: {
            filter: [
              { terms: { relationshipType: ['OwnedBy', 'TaggedWith'] } },
              { terms: { 'source.urn': [dataset] } },
              { terms: { 'destination.urn': [jdoe, other, tag] } },
              { terms: { 'source.entityType': ['dataset'] } },
              { terms: { 'destination.entityType': ['corpuser', 'tag'] } },
              {
                bool: {
                  should: [
                    { range: { 'source.urn': { gt: dataset } } },
                    {
                      bool: {
                        filter: [
                          { term: { 'source.urn': dataset } },
                          { range: { 'strata.outgoing': { gt: 'AssociatedWith\u0000urn:li:domain:d' } } },
                        ],
                      },
                    },
                  ],
                  minimum_should_match: 1,
                },
              },
            ],
          },
        },
        sort,
        size: SCROLL_PAGE_SIZE,
        track_total_hits: false,
        _source: fields,
      });
    });

    it('reads on after a full request until the page is full, and says when nothing follows', async () => {
      const sources = Array.from(
        { length: SCROLL_PAGE_SIZE + 1 },
        (_, n) => `urn:li:dataset:d${String(n).padStart(5, '0')}`,
      );
      const { index, requests } = indexOn(
        byPath({
          search: (request) =>
            searchResponse(
              (request.body.query.bool.filter.length === 0
                ? sources.slice(0, SCROLL_PAGE_SIZE)
                : sources.slice(-1)
              ).map((source) => hit(source, 'TaggedWith', tag)),
            ),
        }),
      );
      const page = await index.scrollEdges({ ...everything, count: SCROLL_PAGE_SIZE + 5 });
      expect(page.hasMore).toBe(false);
      expect(page.edges.map((edge) => edge.source)).toEqual(sources);
      expect(requests).toHaveLength(2);
      expect(requests[0]?.body.query).toEqual({ bool: { filter: [] } });
      expect(requests[1]?.body.query.bool.filter[0].bool.should[0]).toEqual({
        range: { 'source.urn': { gt: sources[SCROLL_PAGE_SIZE - 1] } },
      });
    });

    it('refuses a count out of range without asking the cluster', async () => {
      const { index, requests } = indexOn(byPath({}));
      await expect(index.scrollEdges({ ...everything, count: 0 })).rejects.toThrow(ValidationError);
      await expect(index.scrollEdges({ ...everything, count: 10_001 })).rejects.toThrow(ValidationError);
      expect(requests).toEqual([]);
    });
  });

  describe('clear', () => {
    /** Answers a refresh, and a delete-by-query with `deletion`. */
    const clearing =
      (deletion?: (request: RecordedRequest) => unknown): Responder =>
      (request) =>
        request.path.endsWith('/_refresh')
          ? { _shards: { total: 1, successful: 1, failed: 0 } }
          : byPath(deletion === undefined ? {} : { deleteByQuery: deletion })(request);

    it('refreshes the index, then deletes every document of it, waiting and refreshed', async () => {
      const { index, requests } = indexOn(clearing(), { indexPrefix: 'P' });
      await index.clear();
      expect(requests.map((request) => [request.method, request.path, request.querystring])).toEqual([
        ['GET', '/p_graph_service_v1/_refresh', {}],
        [
          'POST',
          '/p_graph_service_v1/_delete_by_query',
          { conflicts: 'proceed', refresh: 'true', wait_for_completion: 'true' },
        ],
      ]);
      expect(requests[1]?.body).toEqual({ query: { match_all: {} } });
    });

    it('rejects when the deletion reports failures or times out, naming the index', async () => {
      const { index } = indexOn(
        clearing(() => ({
          deleted: 1,
          timed_out: false,
          failures: [{ cause: { type: 'es_rejected_execution_exception', reason: 'queue full' } }],
        })),
      );
      await expect(index.clear()).rejects.toThrow(
        'Clearing graph_service_v1 failed: 1 failures (es_rejected_execution_exception: queue full)',
      );
      const { index: slow } = indexOn(clearing(() => ({ deleted: 0, timed_out: true, failures: [] })));
      await expect(slow.clear()).rejects.toThrow('Clearing graph_service_v1 failed: timed out');
    });
  });

  describe('close', () => {
    it('leaves a shared client open, and refuses work once closed', async () => {
      const { client, requests } = mockCluster(byPath({}));
      const index = new ElasticsearchGraphIndex({ client });
      await index.close();
      await index.close();
      await expect(index.clear()).rejects.toThrow('closed');
      await expect(index.replaceEdges(dataset, 'ownership', [])).rejects.toThrow('ElasticsearchGraphIndex is closed');
      await expect(index.apply([])).rejects.toThrow('closed');
      await expect(index.removeEntity(jdoe)).rejects.toThrow('closed');
      await expect(
        index.relationships({ urn: jdoe, direction: 'INCOMING', types: [], start: 0, count: 1 }),
      ).rejects.toThrow('closed');
      expect(requests).toEqual([]);
      await client.search({ index: 'graph_service_v1' });
      expect(requests).toHaveLength(1);
    });

    it('closes a client it built, once', async () => {
      const index = new ElasticsearchGraphIndex({ node: 'http://127.0.0.1:9' });
      const closing = jest.spyOn(Client.prototype, 'close');
      try {
        await index.close();
        await index.close();
        expect(closing).toHaveBeenCalledTimes(1);
      } finally {
        closing.mockRestore();
      }
      await expect(index.removeEntity(jdoe)).rejects.toThrow('closed');
    });
  });
});
