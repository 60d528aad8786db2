import { randomUUID } from 'node:crypto';

import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@elastic/elasticsearch';
import { ValidationError } from '@strata/model';

import {
  mockCluster,
  responseError,
  type Body,
  type RecordedRequest,
  type Responder,
} from './elasticsearch-cluster.fake';
import { testEntityRegistry } from '@strata/model/testing';

import { MAX_INDEX_LIST_LENGTH } from './elasticsearch-connection';
import { searchIndexName } from './elasticsearch-mappings';
import { ElasticsearchSearchIndex } from './elasticsearch-search-index';
import type { Criterion } from './search-index';
import { createSearchSchema } from './search-schema';
import { datasetDocument, describeSearchIndexContract } from './testing';

const schema = createSearchSchema(testEntityRegistry());
const dataset = schema.entity('dataset')!;

// Against a real cluster (Elasticsearch 8 or 9), e.g.
//   ELASTICSEARCH_URL=http://127.0.0.1:9200 npx jest libs/indices/src/elasticsearch-search-index.spec.ts
// Every test gets indices under a name prefix of its own, deleted afterwards. Without ELASTICSEARCH_URL only the
// offline tests below run (requests and responses checked against @elastic/elasticsearch-mock).
const elasticsearchUrl = process.env['ELASTICSEARCH_URL'];

if (elasticsearchUrl !== undefined && elasticsearchUrl !== '') {
  const node = elasticsearchUrl;
  describeSearchIndexContract('ElasticsearchSearchIndex', {
    schema,
    create: async () => {
      const indexPrefix = `strata-test-${randomUUID().slice(0, 8)}`;
      const options = { node, schema, indexPrefix };
      return {
        index: await ElasticsearchSearchIndex.open(options),
        // A client of its own, as another process would have.
        reopen: () => ElasticsearchSearchIndex.open(options),
        dispose: async () => {
          const client = new Client({ node });
          try {
            // By name: clusters refuse wildcard deletes by default (action.destructive_requires_name).
            await client.indices.delete({
              index: schema.entities().map((entity) => searchIndexName(indexPrefix, entity.entityType)),
              ignore_unavailable: true,
            });
          } finally {
            await client.close();
          }
        },
      };
    },
  });
}

// --- Offline: the requests the adapter sends and how it reads the answers ---------------------------------------------

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function indexOn(
  respond: Responder,
  indexPrefix?: string,
): { index: ElasticsearchSearchIndex; requests: RecordedRequest[] } {
  const { client, requests } = mockCluster(respond);
  const index = new ElasticsearchSearchIndex({ client, schema, ...(indexPrefix === undefined ? {} : { indexPrefix }) });
  // The mock's connections cannot be closed (nor need to be): only the index is.
  cleanups.push(() => index.close());
  return { index, requests };
}

const urnOf = (name: string, platform = 'hive', origin = 'PROD'): string =>
  `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${origin})`;

const criterion = (
  field: string,
  values: string[],
  condition: Criterion['condition'] = 'EQUAL',
  negated = false,
): Criterion => ({ field, values, condition, negated });

const phrase = (field: string, text: string, boost: number) => ({
  match_phrase: { [`strata.words.${field}`]: { query: text, boost } },
});

const emptySearchResponse = { hits: { total: { value: 0, relation: 'eq' }, hits: [] }, aggregations: {} };

describe('ElasticsearchSearchIndex (offline, against a mocked cluster)', () => {
  describe('indices', () => {
    it('names one index per entity type as DataHub does, with or without a prefix', () => {
      expect(searchIndexName('', 'dataset')).toBe('datasetindex_v2');
      expect(searchIndexName('', 'corpGroup')).toBe('corpgroupindex_v2');
      expect(searchIndexName('p', 'dataset')).toBe('p_datasetindex_v2');
      expect(() => new ElasticsearchSearchIndex({ node: 'http://localhost:9200', schema, indexPrefix: 'a b' })).toThrow(
        'Invalid Elasticsearch index prefix',
      );
    });

    it('creates the missing indices with mappings generated from the schema', async () => {
      const { client, requests } = mockCluster((request) =>
        request.method === 'HEAD' ? responseError(404, '') : { acknowledged: true },
      );
      const index = await ElasticsearchSearchIndex.open({ client, schema, indexPrefix: 'P' });
      cleanups.push(() => index.close());

      const created = requests.filter((request) => request.method === 'PUT').map((request) => request.path);
      expect(created.sort()).toEqual(
        schema
          .entities()
          .map((entity) => `/p_${entity.entityType.toLowerCase()}index_v2`)
          .sort(),
      );
      expect(created).toContain('/p_corpgroupindex_v2');

      const { settings, mappings } = requests.find(
        (request) => request.path === '/p_datasetindex_v2' && request.method === 'PUT',
      )!.body;
      expect(settings).toEqual({
        number_of_shards: 1,
        analysis: {
          tokenizer: { strata_words: { type: 'whitespace', max_token_length: 4096 } },
          analyzer: { strata_words: { type: 'custom', tokenizer: 'strata_words' } },
        },
      });
      expect(mappings.dynamic).toBe('strict');
      const properties = mappings.properties;
      // Top level: DataHub's field names, typed as DataHub types them.
      expect(properties.urn).toEqual({ type: 'keyword', ignore_above: 8191 });
      expect(properties.tags).toEqual({ type: 'keyword', ignore_above: 8191 });
      expect(properties.origin).toEqual({ type: 'keyword', ignore_above: 8191 });
      expect(properties.createdAt).toEqual({ type: 'long', ignore_malformed: true });
      expect(properties.removed).toEqual({ type: 'boolean' });
      expect(properties.lastChangedAt).toEqual({ type: 'long', ignore_malformed: true });
      for (const entity of schema.entities()) {
        const own = requests.find(
          (request) => request.path === `/p_${entity.entityType.toLowerCase()}index_v2` && request.method === 'PUT',
        )!.body.mappings.properties;
        expect(own.lastChangedAt).toEqual({ type: 'long', ignore_malformed: true });
      }
      expect(properties.hasTags).toEqual({ type: 'boolean' });
      expect(properties.browsePaths).toEqual({ type: 'keyword', ignore_above: 8191 });
      expect(Object.keys(properties).sort()).toEqual([...dataset.fields.map((field) => field.name), 'strata'].sort());
      // Strata's forms: the analyzed words of text fields, folded values, numbers, contributions kept unindexed.
      const strata = properties.strata.properties;
      expect(strata.words.properties.description).toEqual({ type: 'text', analyzer: 'strata_words' });
      expect(strata.words.properties.urn).toEqual({ type: 'text', analyzer: 'strata_words' });
      expect(strata.words.properties.browsePaths).toBeUndefined();
      expect(strata.folded.properties.id).toEqual({ type: 'keyword', ignore_above: 8191 });
      expect(strata.numbers.properties.createdAt).toEqual({ type: 'double' });
      expect(strata.aspects).toEqual({ type: 'object', enabled: false });
      expect(strata.fields).toEqual({ type: 'keyword' });
      expect(strata.browse.properties).toEqual({
        paths: { type: 'keyword', ignore_above: 8191 },
        prefixes: { type: 'keyword', ignore_above: 8191 },
      });
      expect(strata.suggestions).toEqual({
        type: 'nested',
        properties: {
          rankedKey: { type: 'keyword', ignore_above: 8191 },
          field: { type: 'keyword' },
          value: { type: 'keyword', index: false, doc_values: false },
        },
      });
    });

    it('adds the mappings to indices that exist, and tolerates one created meanwhile', async () => {
      const { client, requests } = mockCluster((request) => {
        if (request.method === 'HEAD') return request.path === '/datasetindex_v2' ? '' : responseError(404, '');
        if (request.method === 'PUT' && request.path === '/tagindex_v2') {
          return responseError(400, {
            error: { type: 'resource_already_exists_exception', reason: 'exists' },
            status: 400,
          });
        }
        return { acknowledged: true };
      });
      const index = await ElasticsearchSearchIndex.open({ client, schema });
      cleanups.push(() => index.close());
      const mappingUpdates = requests.filter((request) => request.path.endsWith('/_mapping'));
      expect(mappingUpdates.map((request) => request.path).sort()).toEqual([
        '/datasetindex_v2/_mapping',
        '/tagindex_v2/_mapping',
      ]);
      expect(mappingUpdates[0]?.body).toMatchObject({ dynamic: 'strict', properties: { urn: { type: 'keyword' } } });
    });

    it('fails to open when the cluster refuses an index', async () => {
      const { client } = mockCluster((request) =>
        request.method === 'HEAD'
          ? responseError(404, '')
          : responseError(403, { error: { type: 'security_exception', reason: 'no' }, status: 403 }),
      );
      await expect(ElasticsearchSearchIndex.open({ client, schema })).rejects.toThrow('security_exception');
    });
  });

  describe('write', () => {
    const orders = datasetDocument({
      name: 'sales.orders',
      description: 'Every order placed',
      tags: ['Engineering'],
      createdAt: 100,
      removed: false,
      browsePaths: ['/prod/hive/sales/'],
    });

    it('sends puts and removes as one bulk request, refreshed before it resolves', async () => {
      const { index, requests } = indexOn(() => ({ errors: false, items: [] }));
      await index.write([{ put: orders }, { remove: urnOf('db.gone') }]);

      expect(requests).toHaveLength(1);
      const [bulk] = requests;
      expect(bulk).toMatchObject({ method: 'POST', path: '/_bulk', querystring: { refresh: 'wait_for' } });
      expect(bulk?.body).toHaveLength(3);
      expect(bulk?.body[0]).toEqual({ index: { _index: 'datasetindex_v2', _id: orders.urn } });
      expect(bulk?.body[2]).toEqual({ delete: { _index: 'datasetindex_v2', _id: urnOf('db.gone') } });
      expect(bulk?.body[1]).toEqual({
        urn: orders.urn,
        platform: 'urn:li:dataPlatform:hive',
        id: 'sales.orders',
        origin: 'PROD',
        description: 'Every order placed',
        hasDescription: true,
        createdAt: 100,
        tags: 'urn:li:tag:Engineering',
        hasTags: true,
        removed: false,
        browsePaths: '/prod/hive/sales/',
        strata: {
          aspects: orders.aspects,
          fields: [
            'urn',
            'platform',
            'id',
            'origin',
            'removed',
            'description',
            'hasDescription',
            'createdAt',
            'tags',
            'hasTags',
            'browsePaths',
          ],
          words: {
            urn: ['urn li dataset urn li dataplatform hive sales orders prod data platform'],
            platform: ['urn li dataplatform hive data platform'],
            id: ['sales orders'],
            origin: ['prod'],
            description: ['every order placed'],
            hasDescription: ['true'],
            createdAt: ['100'],
            tags: ['urn li tag engineering'],
            hasTags: ['true'],
            removed: ['false'],
          },
          folded: {
            urn: [orders.urn.toLowerCase()],
            platform: ['urn:li:dataplatform:hive'],
            id: ['sales.orders'],
            origin: ['prod'],
            description: ['every order placed'],
            hasDescription: ['true'],
            createdAt: ['100'],
            tags: ['urn:li:tag:engineering'],
            hasTags: ['true'],
            removed: ['false'],
            browsePaths: ['/prod/hive/sales/'],
          },
          numbers: { createdAt: [100] },
          browse: { paths: ['/prod/hive/sales'], prefixes: ['/prod', '/prod/hive', '/prod/hive/sales'] },
          suggestions: [
            { rankedKey: '0urnlidataplatformhive', field: 'platform', value: 'urn:li:dataPlatform:hive' },
            { rankedKey: '1lidataplatformhive', field: 'platform', value: 'urn:li:dataPlatform:hive' },
            { rankedKey: '1dataplatformhive', field: 'platform', value: 'urn:li:dataPlatform:hive' },
            { rankedKey: '1platformhive', field: 'platform', value: 'urn:li:dataPlatform:hive' },
            { rankedKey: '1hive', field: 'platform', value: 'urn:li:dataPlatform:hive' },
            { rankedKey: '0salesorders', field: 'id', value: 'sales.orders' },
            { rankedKey: '1orders', field: 'id', value: 'sales.orders' },
          ],
        },
      });
    });

    it('uses the configured refresh, and sends nothing for nothing to do', async () => {
      const { client, requests } = mockCluster(() => ({ errors: false, items: [] }));
      const index = new ElasticsearchSearchIndex({ client, schema, refresh: false });
      cleanups.push(() => index.close());
      await index.write([]);
      await index.write([{ remove: 'urn:li:nonsense:x' }]);
      expect(requests).toEqual([]);
      await index.write([{ remove: orders.urn }]);
      expect(requests[0]?.querystring).toEqual({ refresh: 'false' });
    });

    it('rejects when Elasticsearch rejects an item, naming its URN', async () => {
      const other = datasetDocument({ name: 'sales.other' });
      const { index } = indexOn(() => ({
        errors: true,
        items: [
          { index: { _index: 'datasetindex_v2', _id: orders.urn, status: 201, result: 'created' } },
          {
            index: {
              _index: 'datasetindex_v2',
              _id: other.urn,
              status: 400,
              error: { type: 'document_parsing_exception', reason: 'failed to parse field [createdAt]' },
            },
          },
          { delete: { _index: 'datasetindex_v2', _id: urnOf('db.gone'), status: 404, result: 'not_found' } },
        ],
      }));
      const write = index.write([{ put: orders }, { put: other }, { remove: urnOf('db.gone') }]);
      await expect(write).rejects.toThrow(
        `Elasticsearch rejected 1 of 3 search document writes: ${other.urn} (document_parsing_exception: failed to parse field [createdAt])`,
      );
    });

    it('refuses an unknown entity type, or a URN of another type, before sending anything', async () => {
      const { index, requests } = indexOn(() => ({ errors: false, items: [] }));
      await expect(
        index.write([{ put: orders }, { put: { urn: 'urn:li:nonsense:x', entityType: 'nonsense', aspects: {} } }]),
      ).rejects.toThrow(new ValidationError('Unknown entity: nonsense'));
      await expect(index.write([{ put: { ...orders, entityType: 'chart' } }])).rejects.toThrow(ValidationError);
      expect(requests).toEqual([]);
    });

    it('writes lastChangedAt as a top-level date (epoch milliseconds) of the document, with its range forms', async () => {
      const changed = { ...datasetDocument({ name: 'db.changed' }), lastChangedAt: 1_700_000_000_000 };
      const { index, requests } = indexOn(() => ({ errors: false, items: [] }));
      await index.write([{ put: changed }, { put: datasetDocument({ name: 'db.unchanged' }) }]);
      const [, source, , unchanged] = requests[0]?.body ?? [];
      expect(source.lastChangedAt).toBe(1_700_000_000_000);
      expect(source.strata.numbers.lastChangedAt).toEqual([1_700_000_000_000]);
      expect(source.strata.fields).toContain('lastChangedAt');
      expect(source.strata.aspects).toEqual(changed.aspects);
      expect(unchanged).not.toHaveProperty('lastChangedAt');
      expect(unchanged.strata.fields).not.toContain('lastChangedAt');
    });

    it('hashes a URN too long for an _id', async () => {
      const long = datasetDocument({ name: 'x'.repeat(600) });
      const { index, requests } = indexOn(() => ({ errors: false, items: [] }));
      await index.write([{ put: long }]);
      expect(requests[0]?.body[0].index._id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(requests[0]?.body[1].urn).toBe(long.urn);
    });
  });

  describe('documents', () => {
    it('reads the stored contributions with one mget, asking only for URNs of known entity types', async () => {
      const stored = datasetDocument({ name: 'db.kept', tags: ['A'] });
      const { index, requests } = indexOn(() => ({
        docs: [
          { _index: 'datasetindex_v2', _id: stored.urn, found: true, _source: { strata: { aspects: stored.aspects } } },
          { _index: 'datasetindex_v2', _id: urnOf('db.absent'), found: false },
        ],
      }));
      const found = await index.documents([stored.urn, urnOf('db.absent'), 'urn:li:nonsense:x', 'not a urn']);
      expect(found).toEqual(new Map([[stored.urn, stored]]));
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        method: 'POST',
        path: '/_mget',
        querystring: { _source_includes: 'strata.aspects,lastChangedAt' },
        body: {
          docs: [
            { _index: 'datasetindex_v2', _id: stored.urn },
            { _index: 'datasetindex_v2', _id: urnOf('db.absent') },
          ],
        },
      });
      expect(await index.documents(['urn:li:nonsense:x'])).toEqual(new Map());
      expect(requests).toHaveLength(1);
    });

    it("reads a document's lastChangedAt back from its top-level field", async () => {
      const stored = { ...datasetDocument({ name: 'db.changed' }), lastChangedAt: 1_700_000_000_000 };
      const { index } = indexOn(() => ({
        docs: [
          {
            _index: 'datasetindex_v2',
            _id: stored.urn,
            found: true,
            _source: { lastChangedAt: stored.lastChangedAt, strata: { aspects: stored.aspects } },
          },
        ],
      }));
      expect(await index.documents([stored.urn])).toEqual(new Map([[stored.urn, stored]]));
    });
  });

  describe('search', () => {
    it('translates text, filter, soft-delete hiding, order, paging and facets into one request', async () => {
      const { index, requests } = indexOn(() => emptySearchResponse);
      await index.search({
        entityType: 'dataset',
        input: 'tags:Engineering orders -merit',
        filter: [
          [criterion('platform', ['urn:li:dataPlatform:kafka']), criterion('origin.keyword', ['PROD'], 'EQUAL', true)],
          [criterion('createdAt', ['100'], 'GREATER_THAN')],
        ],
        start: 20,
        count: 10,
      });

      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request).toMatchObject({ method: 'POST', path: '/datasetindex_v2/_search' });
      const body = request?.body;
      expect(body).toMatchObject({
        from: 20,
        size: 10,
        track_total_hits: true,
        sort: [{ _score: { order: 'desc' } }, { urn: { order: 'asc' } }],
        _source: ['urn', 'strata.aspects'],
      });

      const { must, filter, must_not: hidden } = body.query.bool;
      const text = must[0].bool;
      // Terms ANDed: a named field with its boost, a plain word over every default field, a negated word.
      expect(text.must[0]).toEqual(phrase('tags', 'engineering', 0.5));
      expect(text.must[1].bool.minimum_should_match).toBe(1);
      expect(text.must[1].bool.should).toHaveLength(dataset.defaultFields.length);
      expect(text.must[1].bool.should).toEqual(
        expect.arrayContaining([
          phrase('urn', 'orders', 1),
          phrase('id', 'orders', 10),
          phrase('description', 'orders', 1),
          phrase('fieldDescriptions', 'orders', 0.1),
          phrase('tags', 'orders', 0.5),
        ]),
      );
      // owners is not queried by default.
      expect(text.must[1].bool.should).not.toContainEqual(phrase('owners', 'orders', 1));
      expect(text.must_not).toHaveLength(1);
      expect(text.must_not[0].bool.should).toContainEqual(phrase('description', 'merit', 1));

      // OR of AND groups; a negated criterion in must_not; `.keyword` dropped; a numeric range on the numbers.
      expect(filter).toEqual([
        {
          bool: {
            should: [
              {
                bool: {
                  filter: [{ terms: { platform: ['urn:li:dataPlatform:kafka'] } }],
                  must_not: [{ terms: { origin: ['PROD'] } }],
                },
              },
              { bool: { filter: [{ range: { 'strata.numbers.createdAt': { gt: 100 } } }] } },
            ],
            minimum_should_match: 1,
          },
        },
      ]);
      expect(hidden).toEqual([{ term: { removed: true } }]);

      // One terms aggregation per facet field, 60 values, most frequent first, ties by value.
      expect(Object.keys(body.aggs)).toEqual(dataset.facets.map((facet) => facet.name));
      expect(body.aggs.tags).toEqual({
        terms: { field: 'tags', size: 60, order: [{ _count: 'desc' }, { _key: 'asc' }] },
      });
    });

    it('translates prefixes, wildcards, OR, every condition, and shows removed documents when a criterion names removed', async () => {
      const { index, requests } = indexOn(() => emptySearchResponse);
      const query = async (input: string, filter: Criterion[][] = []): Promise<Body> => {
        await index.search({ entityType: 'dataset', input, filter, start: 0, count: 10 });
        return requests[requests.length - 1]?.body.query.bool;
      };

      expect((await query('*')).must).toEqual([{ match_all: {} }]);
      expect((await query('id:custom*')).must).toEqual([
        { prefix: { 'strata.words.id': { value: 'custom', boost: 10 } } },
      ]);
      expect((await query('id:sales.ord*')).must).toEqual([
        { match_phrase_prefix: { 'strata.words.id': { query: 'sales ord', boost: 10, max_expansions: 1000 } } },
      ]);
      expect((await query('id:sales.c?stomers')).must).toEqual([
        { wildcard: { 'strata.folded.id': { value: 'sales.c?stomers', boost: 10 } } },
      ]);
      expect((await query('id:a OR id:b')).must).toEqual([
        { bool: { should: [phrase('id', 'a', 10), phrase('id', 'b', 10)], minimum_should_match: 1 } },
      ]);
      expect((await query('id:(a b*)')).must).toEqual([
        {
          bool: {
            must: [phrase('id', 'a', 10), { prefix: { 'strata.words.id': { value: 'b', boost: 10 } } }],
          },
        },
      ]);
      expect((await query('browsePaths:hive')).must).toEqual([
        { wildcard: { 'strata.folded.browsePaths': { value: '*hive*', boost: 1 } } },
      ]);

      const conditions = (await query('*', [
        [
          criterion('id', ['T*'], 'CONTAIN'),
          criterion('id', ['Ä', 'b'], 'START_WITH'),
          criterion('id', ['x'], 'END_WITH'),
          criterion('createdAt', ['abc'], 'LESS_THAN_OR_EQUAL_TO'),
          criterion('id', ['m'], 'GREATER_THAN_OR_EQUAL_TO'),
          criterion('createdAt', ['100', '1e2'], 'IN'),
          criterion('removed', ['true', 'yes']),
          criterion('tags', [], 'EXISTS'),
          criterion('owners', [], 'IS_NULL'),
          criterion('tags', [], 'IS_NULL', true),
        ],
      ])) as { filter: unknown[]; must_not: unknown[] };
      expect(conditions.must_not).toEqual([]);
      expect(conditions.filter).toEqual([
        {
          bool: {
            filter: [
              { wildcard: { 'strata.folded.id': { value: '*t\\**' } } },
              {
                bool: {
                  should: [
                    { wildcard: { 'strata.folded.id': { value: 'a*' } } },
                    { wildcard: { 'strata.folded.id': { value: 'b*' } } },
                  ],
                  minimum_should_match: 1,
                },
              },
              { wildcard: { 'strata.folded.id': { value: '*x' } } },
              { range: { 'strata.folded.createdAt': { lte: 'abc' } } },
              { range: { id: { gte: 'm' } } },
              { terms: { createdAt: [100] } },
              { terms: { removed: [true] } },
              { term: { 'strata.fields': 'tags' } },
              { term: { 'strata.fields': 'tags' } },
            ],
            must_not: [{ term: { 'strata.fields': 'owners' } }],
          },
        },
      ]);
    });

    it('maps the response to a page: total, hits with matched fields, facets', async () => {
      const orders = datasetDocument({ name: 'm.orders', description: 'all orders', tags: ['Engineering'] });
      const { index } = indexOn(() => ({
        hits: {
          total: { value: 42, relation: 'eq' },
          hits: [
            {
              _index: 'datasetindex_v2',
              _id: orders.urn,
              _source: { urn: orders.urn, strata: { aspects: orders.aspects } },
            },
          ],
        },
        aggregations: {
          tags: {
            buckets: [
              { key: 'urn:li:tag:Engineering', doc_count: 3 },
              { key: 'urn:li:tag:A', doc_count: 1 },
            ],
          },
          deprecated: { buckets: [{ key: 0, key_as_string: 'false', doc_count: 40 }] },
        },
      }));
      const page = await index.search({ entityType: 'dataset', input: 'orders', filter: [], start: 0, count: 1 });
      expect(page.total).toBe(42);
      expect(page.hits).toEqual([
        {
          urn: orders.urn,
          matchedFields: [
            { name: 'urn', value: orders.urn },
            { name: 'id', value: 'm.orders' },
            { name: 'description', value: 'all orders' },
          ],
        },
      ]);
      expect(page.facets.map((facet) => facet.field)).toEqual(dataset.facets.map((facet) => facet.name));
      expect(page.facets.find((facet) => facet.field === 'tags')).toEqual({
        field: 'tags',
        displayName: 'Tagged With',
        counts: { 'urn:li:tag:Engineering': 3, 'urn:li:tag:A': 1 },
      });
      expect(page.facets.find((facet) => facet.field === 'deprecated')?.counts).toEqual({ false: 40 });
      expect(page.facets.find((facet) => facet.field === 'owners')?.counts).toEqual({});
    });

    it('asks only for the count and facets when count is 0', async () => {
      const { index, requests } = indexOn(() => emptySearchResponse);
      await index.search({ entityType: 'dataset', input: '*', filter: [], start: 50_000, count: 0 });
      expect(requests[0]?.body).toMatchObject({ from: 0, size: 0 });
    });

    it('refuses bad paging, an unknown entity, condition or text, and a page past 10000, sending nothing', async () => {
      const { index, requests } = indexOn(() => emptySearchResponse);
      const base = { entityType: 'dataset', input: '*', filter: [], start: 0, count: 10 };
      await expect(index.search({ ...base, start: -1 })).rejects.toThrow(ValidationError);
      await expect(index.search({ ...base, count: 1.5 })).rejects.toThrow(ValidationError);
      await expect(index.search({ ...base, count: 10_001 })).rejects.toThrow('Result count exceeds limit of 10000');
      await expect(index.search({ ...base, entityType: 'nonsense' })).rejects.toThrow('Unknown entity: nonsense');
      await expect(
        index.search({ ...base, filter: [[criterion('origin', ['x'], 'LIKE' as Criterion['condition'])]] }),
      ).rejects.toThrow(ValidationError);
      await expect(index.search({ ...base, input: '"unclosed' })).rejects.toThrow(ValidationError);
      await expect(index.search({ ...base, start: 9_995 })).rejects.toThrow(ValidationError);
      expect(requests).toEqual([]);
    });
  });

  describe('browse', () => {
    it('asks for the next level and the counts, then for the page of entities at the path', async () => {
      const { index, requests } = indexOn(() =>
        requests.length === 1
          ? {
              hits: { total: { value: 7, relation: 'eq' }, hits: [] },
              aggregations: {
                groups: {
                  buckets: [
                    { key: '/prod/hive/sales', doc_count: 2 },
                    { key: '/prod/hive/hr', doc_count: 1 },
                  ],
                },
                at: { doc_count: 4 },
              },
            }
          : {
              hits: {
                total: { value: 4, relation: 'eq' },
                hits: [{ _id: urnOf('b.four'), _source: { urn: urnOf('b.four') } }],
              },
            },
      );
      const page = await index.browse({
        entityType: 'dataset',
        path: 'prod/hive/',
        filter: [[criterion('platform', ['urn:li:dataPlatform:hive'])]],
        start: 1,
        limit: 2,
      });
      expect(page).toEqual({
        path: '/prod/hive',
        totalNumEntities: 7,
        numEntities: 4,
        groups: [
          { name: 'sales', count: 2 },
          { name: 'hr', count: 1 },
        ],
        entities: [{ urn: urnOf('b.four'), name: 'hive' }],
      });

      expect(requests).toHaveLength(2);
      const platform = { bool: { filter: [{ terms: { platform: ['urn:li:dataPlatform:hive'] } }] } };
      expect(requests[0]?.body).toEqual({
        size: 0,
        track_total_hits: true,
        query: {
          bool: {
            filter: [{ term: { 'strata.browse.prefixes': '/prod/hive' } }, platform],
            must_not: [{ term: { removed: true } }],
          },
        },
        aggs: {
          groups: {
            terms: {
              field: 'strata.browse.prefixes',
              include: '\\/prod\\/hive/[^/]+',
              size: 10_000,
              order: [{ _count: 'desc' }, { _key: 'asc' }],
            },
          },
          at: { filter: { term: { 'strata.browse.paths': '/prod/hive' } } },
        },
      });
      // Groups first: the page [1, 3) holds one group and the first entity.
      expect(requests[1]?.body).toEqual({
        query: {
          bool: {
            filter: [{ term: { 'strata.browse.paths': '/prod/hive' } }, platform],
            must_not: [{ term: { removed: true } }],
          },
        },
        sort: [{ urn: { order: 'asc' } }],
        from: 0,
        size: 1,
        track_total_hits: false,
        _source: ['urn'],
      });
    });

    it('browses the root over every document with a path, and skips the entity request when the page has none', async () => {
      const { index, requests } = indexOn(() => ({
        hits: { total: { value: 5, relation: 'eq' }, hits: [] },
        aggregations: { groups: { buckets: [{ key: '/prod', doc_count: 5 }] }, at: { doc_count: 0 } },
      }));
      const page = await index.browse({ entityType: 'dataset', path: '/', filter: [], start: 0, limit: 10 });
      expect(page).toEqual({
        path: '',
        totalNumEntities: 5,
        numEntities: 0,
        groups: [{ name: 'prod', count: 5 }],
        entities: [],
      });
      expect(requests).toHaveLength(1);
      expect(requests[0]?.body.query.bool.filter).toEqual([{ exists: { field: 'strata.browse.paths' } }]);
      expect(requests[0]?.body.aggs.groups.terms.include).toBe('/[^/]+');
      expect(requests[0]?.body.aggs.at).toEqual({ filter: { match_none: {} } });
    });

    it('escapes the path in the group pattern', async () => {
      const { index, requests } = indexOn(() => ({
        hits: { total: { value: 0, relation: 'eq' }, hits: [] },
        aggregations: { groups: { buckets: [] }, at: { doc_count: 0 } },
      }));
      await index.browse({ entityType: 'dataset', path: '/a.b (c)*', filter: [], start: 0, limit: 10 });
      expect(requests[0]?.body.aggs.groups.terms.include).toBe('\\/a\\.b\\ \\(c\\)\\*/[^/]+');
    });
  });

  describe('autocomplete', () => {
    it('asks for documents by their smallest matching ranked key, then URN, with the matching row', async () => {
      const { index, requests } = indexOn(() => ({
        hits: {
          hits: [
            {
              _id: urnOf('test_dataset_1'),
              _source: { urn: urnOf('test_dataset_1') },
              inner_hits: {
                suggestion: {
                  hits: { hits: [{ _source: { rankedKey: '0testdataset1', field: 'id', value: 'test_dataset_1' } }] },
                },
              },
            },
            {
              _id: urnOf('other.test_table'),
              _source: { urn: urnOf('other.test_table') },
              inner_hits: {
                suggestion: {
                  hits: { hits: [{ _source: { rankedKey: '1testtable', field: 'id', value: 'other.test_table' } }] },
                },
              },
            },
          ],
        },
      }));
      const page = await index.autocomplete({
        entityType: 'dataset',
        query: 'Test_',
        field: 'id',
        filter: [[criterion('removed', ['false'])]],
        limit: 5,
      });
      expect(page).toEqual({
        suggestions: ['test_dataset_1', 'other.test_table'],
        urns: [urnOf('test_dataset_1'), urnOf('other.test_table')],
      });

      const matching = {
        bool: {
          filter: [
            {
              bool: {
                should: [
                  { prefix: { 'strata.suggestions.rankedKey': '0test' } },
                  { prefix: { 'strata.suggestions.rankedKey': '1test' } },
                ],
                minimum_should_match: 1,
              },
            },
            { term: { 'strata.suggestions.field': 'id' } },
          ],
        },
      };
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ method: 'POST', path: '/datasetindex_v2/_search' });
      expect(requests[0]?.body).toEqual({
        size: 5,
        track_total_hits: false,
        _source: ['urn'],
        query: {
          bool: {
            filter: [
              {
                nested: {
                  path: 'strata.suggestions',
                  query: matching,
                  inner_hits: {
                    name: 'suggestion',
                    size: 1,
                    sort: [{ 'strata.suggestions.rankedKey': { order: 'asc' } }],
                  },
                },
              },
              { bool: { filter: [{ terms: { removed: [false] } }] } },
            ],
            // The filter names removed: removed documents are not hidden.
            must_not: [],
          },
        },
        sort: [
          {
            'strata.suggestions.rankedKey': {
              order: 'asc',
              mode: 'min',
              nested: { path: 'strata.suggestions', filter: matching },
            },
          },
          { urn: { order: 'asc' } },
        ],
      });
    });

    it('refuses an unknown field, and sends nothing for limit 0', async () => {
      const { index, requests } = indexOn(() => ({ hits: { hits: [] } }));
      await expect(
        index.autocomplete({ entityType: 'dataset', query: 'u', field: 'nonsense', filter: [], limit: 10 }),
      ).rejects.toThrow(ValidationError);
      await expect(index.autocomplete({ entityType: 'nonsense', query: 'u', filter: [], limit: 10 })).rejects.toThrow(
        'Unknown entity: nonsense',
      );
      expect(await index.autocomplete({ entityType: 'dataset', query: 'u', filter: [], limit: 0 })).toEqual({
        suggestions: [],
        urns: [],
      });
      expect(requests).toEqual([]);
    });
  });

  describe('clear', () => {
    /** Answers a refresh, and a delete-by-query with `deletion`. */
    const clearing =
      (deletion: unknown = { deleted: 3, failures: [], timed_out: false }): Responder =>
      (request) =>
        request.path.endsWith('/_refresh') ? { _shards: { total: 1, successful: 1, failed: 0 } } : deletion;
    const indexNames = (prefix = '') => schema.entities().map((entity) => searchIndexName(prefix, entity.entityType));

    it('refreshes every entity type’s index, then deletes every document of them, waiting and refreshed', async () => {
      const { index, requests } = indexOn(clearing());
      await index.clear();

      const indices = indexNames().join(',');
      expect(indices).toContain('datasetindex_v2');
      expect(indices).toContain('corpuserindex_v2');
      expect(requests.map((request) => [request.method, request.path, request.querystring])).toEqual([
        ['GET', `/${indices}/_refresh`, {}],
        [
          'POST',
          `/${indices}/_delete_by_query`,
          { conflicts: 'proceed', refresh: 'true', wait_for_completion: 'true' },
        ],
      ]);
      expect(requests[1]?.body).toEqual({ query: { match_all: {} } });
    });

    it(`cuts the indices into lists of at most ${MAX_INDEX_LIST_LENGTH} characters, each refreshed then cleared`, async () => {
      const prefix = 'p'.repeat(150);
      const { index, requests } = indexOn(clearing(), prefix);
      await index.clear();

      const lists = requests.map((request) => request.path.split('/')[1] ?? '');
      expect(requests.length).toBeGreaterThan(2);
      requests.forEach((request, position) => {
        expect(request.path.endsWith(position % 2 === 0 ? '/_refresh' : '/_delete_by_query')).toBe(true);
        expect(lists[position]?.length).toBeLessThanOrEqual(MAX_INDEX_LIST_LENGTH);
        if (position % 2 === 1) expect(lists[position]).toBe(lists[position - 1]);
      });
      expect(lists.filter((_list, position) => position % 2 === 1).flatMap((list) => list.split(','))).toEqual(
        indexNames(prefix),
      );
    });

    it('rejects when the deletion reports failures or times out, naming the indices', async () => {
      const { index } = indexOn(
        clearing({
          deleted: 1,
          timed_out: false,
          failures: [{ cause: { type: 'es_rejected_execution_exception', reason: 'queue full' } }],
        }),
      );
      await expect(index.clear()).rejects.toThrow(
        `Clearing ${indexNames().slice(0, 3).join(', ')} and ${indexNames().length - 3} more failed: 1 failures` +
          ' (es_rejected_execution_exception: queue full)',
      );
      const { index: slow } = indexOn(clearing({ deleted: 0, timed_out: true, failures: [] }));
      await expect(slow.clear()).rejects.toThrow(/failed: timed out$/);
    });

    it('rejects when the cluster refuses the refresh, deleting nothing', async () => {
      const { index, requests } = indexOn(() =>
        responseError(403, { error: { type: 'security_exception', reason: 'no' }, status: 403 }),
      );
      await expect(index.clear()).rejects.toThrow('security_exception');
      expect(requests.map((request) => request.path.split('/')[2])).toEqual(['_refresh']);
    });
  });

  describe('close', () => {
    it('leaves a shared client open, and refuses work once closed', async () => {
      const { client, requests } = mockCluster(() => ({ errors: false, items: [] }));
      const index = new ElasticsearchSearchIndex({ client, schema });
      await index.close();
      await index.close();
      await expect(index.write([{ remove: urnOf('x') }])).rejects.toThrow('closed');
      await expect(index.clear()).rejects.toThrow('closed');
      await client.bulk({ operations: [{ delete: { _index: 'datasetindex_v2', _id: 'x' } }] });
      expect(requests).toHaveLength(1);
    });

    it('closes a client it built, once', async () => {
      const index = new ElasticsearchSearchIndex({ node: 'http://127.0.0.1:9', schema });
      await index.close();
      await index.close();
      await expect(index.search({ entityType: 'dataset', input: '*', filter: [], start: 0, count: 1 })).rejects.toThrow(
        'closed',
      );
    });
  });
});
