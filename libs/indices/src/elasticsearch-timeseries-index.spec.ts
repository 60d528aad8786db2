import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';
import { Client } from '@elastic/elasticsearch';
import { ValidationError } from '@strata/model';

import { mockCluster, responseError, type RecordedRequest } from './elasticsearch-cluster.fake';
import {
  ElasticsearchTimeseriesIndex,
  type ElasticsearchTimeseriesIndexOptions,
} from './elasticsearch-timeseries-index';
import { describeTimeseriesIndexContract } from './testing';
import { timeseriesIndexName, type TimeseriesAspectRef, type TimeseriesPoint } from './timeseries-index';

// Against a real cluster (Elasticsearch 8 or 9), e.g.
//   ELASTICSEARCH_URL=http://127.0.0.1:9200 npx jest libs/indices/src/elasticsearch-timeseries-index.spec.ts
// Every test gets indices of its own (a prefix of its own), deleted afterwards. Without ELASTICSEARCH_URL only the
// offline tests below run (exact requests checked against @elastic/elasticsearch-mock, which has no search semantics).
const elasticsearchUrl = process.env['ELASTICSEARCH_URL'];

if (elasticsearchUrl !== undefined && elasticsearchUrl !== '') {
  const node = elasticsearchUrl;
  describeTimeseriesIndexContract('ElasticsearchTimeseriesIndex', {
    create: async (aspects) => {
      const indexPrefix = `strata-test-${randomUUID().slice(0, 8)}`;
      const options: ElasticsearchTimeseriesIndexOptions = { node, indexPrefix, aspects };
      return {
        index: await ElasticsearchTimeseriesIndex.open(options),
        reopen: () => ElasticsearchTimeseriesIndex.open(options),
        dispose: async () => {
          const client = new Client({ node });
          try {
            await client.indices.delete({
              index: aspects.map((ref) => timeseriesIndexName(ref.entity, ref.aspect, indexPrefix)),
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

describe('ElasticsearchTimeseriesIndex requests (offline)', () => {
  const PROFILE: TimeseriesAspectRef = { entity: 'dataset', aspect: 'datasetProfile' };
  const USAGE: TimeseriesAspectRef = { entity: 'dataset', aspect: 'datasetUsageStatistics' };
  const ASPECTS = [PROFILE, USAGE];
  const URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';
  const T0 = 1_700_000_000_000;
  const POINT: TimeseriesPoint = {
    ...PROFILE,
    id: 'b5e3a1c0d1f2',
    urn: URN,
    timestampMillis: T0,
    value: '{"timestampMillis":1700000000000,"rowCount":12}',
    systemMetadata: '{"runId":"ingest-1","lastObserved":1700000000000}',
    fields: { rowCount: 12, runId: 'ingest-1', 'partitionSpec.partition': 'FULL_TABLE_SNAPSHOT' },
  };
  const DOCUMENT = {
    rowCount: 12,
    runId: 'ingest-1',
    'partitionSpec.partition': 'FULL_TABLE_SNAPSHOT',
    urn: URN,
    timestampMillis: T0,
    '@timestamp': T0,
    event: { timestampMillis: T0, rowCount: 12 },
    systemMetadata: { runId: 'ingest-1', lastObserved: T0 },
    isExploded: false,
    pointId: 'b5e3a1c0d1f2',
  };

  function cluster(answers: Record<string, unknown> = {}) {
    return mockCluster((request: RecordedRequest) => {
      if (request.method === 'HEAD') return '';
      const key = Object.keys(answers).find((path) => request.path.endsWith(path));
      return key === undefined ? { acknowledged: true } : answers[key];
    });
  }

  function index(client: Client, options: { refresh?: boolean | 'wait_for' } = {}) {
    return new ElasticsearchTimeseriesIndex({ client, indexPrefix: 'a', aspects: ASPECTS, ...options });
  }

  it('creates an index per aspect under its prefix, with DataHub’s mappings', async () => {
    const { client, requests } = mockCluster((request) =>
      request.method === 'HEAD' ? responseError(404, '') : { acknowledged: true },
    );
    const opened = await ElasticsearchTimeseriesIndex.open({ client, indexPrefix: 'Prod', aspects: ASPECTS });
    expect(opened.indexName('dataset', 'datasetProfile')).toBe('prod_dataset_datasetprofileaspect_v1');
    const creates = requests.filter((request) => request.method === 'PUT');
    expect(creates.map((request) => request.path).sort()).toEqual([
      '/prod_dataset_datasetprofileaspect_v1',
      '/prod_dataset_datasetusagestatisticsaspect_v1',
    ]);
    const mappings = creates[0]?.body.mappings;
    expect(mappings.date_detection).toBe(false);
    expect(mappings.dynamic_templates).toEqual([
      { strings: { match_mapping_type: 'string', mapping: { type: 'keyword', ignore_above: 8191 } } },
      { doubles: { match_mapping_type: 'double', mapping: { type: 'double' } } },
    ]);
    expect(mappings.properties).toMatchObject({
      urn: { type: 'keyword' },
      pointId: { type: 'keyword' },
      runId: { type: 'keyword' },
      messageId: { type: 'keyword' },
      eventGranularity: { type: 'keyword' },
      partitionSpec: { properties: { partition: { type: 'keyword' } } },
      '@timestamp': { type: 'date' },
      timestampMillis: { type: 'date' },
      event: { type: 'object', enabled: false },
      systemMetadata: { type: 'object', enabled: false },
      isExploded: { type: 'boolean' },
    });
    await opened.close();
  });

  it('adds the mappings to an index another process created meanwhile', async () => {
    const { client, requests } = mockCluster((request) => {
      if (request.method === 'HEAD') return responseError(404, '');
      if (request.method === 'PUT' && !request.path.endsWith('/_mapping')) {
        return responseError(400, { error: { type: 'resource_already_exists_exception', reason: 'exists' } });
      }
      return { acknowledged: true };
    });
    await ElasticsearchTimeseriesIndex.open({ client, aspects: [PROFILE] });
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'HEAD /dataset_datasetprofileaspect_v1',
      'PUT /dataset_datasetprofileaspect_v1',
      'PUT /dataset_datasetprofileaspect_v1/_mapping',
    ]);
  });

  it('writes DataHub’s document under the point’s id, waiting for the refresh', async () => {
    const { client, requests } = cluster({ '/_bulk': { errors: false, items: [] } });
    await index(client).apply([{ kind: 'put', point: POINT }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.querystring).toEqual({ refresh: 'wait_for' });
    expect(requests[0]?.body).toEqual([
      { index: { _index: 'a_dataset_datasetprofileaspect_v1', _id: 'b5e3a1c0d1f2' } },
      DOCUMENT,
    ]);
  });

  it('deletes by query in the order of the list, refreshing the puts a delete follows', async () => {
    const { client, requests } = cluster({
      '/_bulk': { errors: false, items: [] },
      '/_delete_by_query': { deleted: 1 },
    });
    await index(client, { refresh: false }).apply([
      { kind: 'put', point: POINT },
      { kind: 'deleteRange', ...PROFILE, urn: URN, startTimeMillis: T0, endTimeMillis: T0 + 10 },
      { kind: 'deleteRange', ...PROFILE, urn: URN },
      { kind: 'deleteEntity', entity: 'dataset', urn: URN },
      { kind: 'put', point: POINT },
    ]);
    expect(requests.map((request) => [request.path, request.querystring])).toEqual([
      ['/_bulk', { refresh: 'true' }],
      ['/a_dataset_datasetprofileaspect_v1/_delete_by_query', { conflicts: 'proceed', refresh: 'true' }],
      ['/a_dataset_datasetprofileaspect_v1/_delete_by_query', { conflicts: 'proceed', refresh: 'true' }],
      [
        '/a_dataset_datasetprofileaspect_v1,a_dataset_datasetusagestatisticsaspect_v1/_delete_by_query',
        { conflicts: 'proceed', refresh: 'true' },
      ],
      ['/_bulk', { refresh: 'false' }],
    ]);
    expect(requests.slice(1, 4).map((request): unknown => request.body)).toEqual([
      {
        query: {
          bool: { filter: [{ term: { urn: URN } }, { range: { timestampMillis: { gte: T0, lte: T0 + 10 } } }] },
        },
      },
      { query: { term: { urn: URN } } },
      { query: { term: { urn: URN } } },
    ]);
  });

  it('deletes one run’s points (and their exploded items) by a term on runId, beside the URN and the range', async () => {
    const { client, requests } = cluster({ '/_delete_by_query': { deleted: 1 } });
    await index(client).apply([
      { kind: 'deleteRange', ...USAGE, urn: URN, endTimeMillis: T0, runId: 'ingest-1' },
      { kind: 'deleteRange', ...USAGE, urn: URN, runId: 'ingest-1' },
    ]);
    expect(requests.map((request): unknown[] => [request.path, request.querystring, request.body])).toEqual([
      [
        '/a_dataset_datasetusagestatisticsaspect_v1/_delete_by_query',
        { conflicts: 'proceed', refresh: 'true' },
        {
          query: {
            bool: {
              filter: [
                { term: { urn: URN } },
                { range: { timestampMillis: { lte: T0 } } },
                { term: { runId: 'ingest-1' } },
              ],
            },
          },
        },
      ],
      [
        '/a_dataset_datasetusagestatisticsaspect_v1/_delete_by_query',
        { conflicts: 'proceed', refresh: 'true' },
        { query: { bool: { filter: [{ term: { urn: URN } }, { term: { runId: 'ingest-1' } }] } } },
      ],
    ]);
  });

  it('rejects a write the cluster refuses in part, naming the points', async () => {
    const { client } = cluster({
      '/_bulk': { errors: true, items: [{ index: { error: { type: 'mapper_parsing_exception', reason: 'bad' } } }] },
    });
    await expect(index(client).apply([{ kind: 'put', point: POINT }])).rejects.toThrow(
      'Elasticsearch rejected 1 of 1 timeseries points: b5e3a1c0d1f2 (mapper_parsing_exception: bad)',
    );
  });

  it('sends nothing for a list with a change it refuses', async () => {
    const { client, requests } = cluster();
    await expect(
      index(client).apply([
        { kind: 'put', point: POINT },
        { kind: 'deleteEntity', entity: 'dataset', urn: URN },
        { kind: 'put', point: { ...POINT, aspect: 'noSuchAspect' } },
      ]),
    ).rejects.toThrow('No timeseries index for aspect noSuchAspect of entity dataset');
    expect(requests).toEqual([]);
  });

  it('queries one entity’s points in the range and the filter, newest first, the point id breaking ties', async () => {
    const { client, requests } = cluster({ '/_search': { hits: { hits: [{ _id: POINT.id, _source: DOCUMENT }] } } });
    const points = await index(client).query({
      ...PROFILE,
      urn: URN,
      startTimeMillis: T0,
      endTimeMillis: T0 + 10,
      filter: [
        [
          { field: 'pipelineName.keyword', condition: 'EQUAL', values: ['ingest', 'backfill'], negated: false },
          { field: 'rowCount', condition: 'GREATER_THAN', values: ['10'], negated: false },
          { field: 'runId', condition: 'START_WITH', values: ['In*'], negated: true },
          { field: 'messageId', condition: 'IS_NULL', values: [], negated: false },
          { field: 'ignored', condition: 'CONTAIN', values: [], negated: false },
        ],
        [{ field: 'timestampMillis', condition: 'LESS_THAN_OR_EQUAL_TO', values: [String(T0)], negated: false }],
      ],
      limit: 20,
    });
    expect(points).toEqual([POINT]);
    const search = requests.find((request) => request.path === '/a_dataset_datasetprofileaspect_v1/_search');
    expect(search?.body).toEqual({
      query: {
        bool: {
          filter: [
            { term: { urn: URN } },
            { range: { timestampMillis: { gte: T0, lte: T0 + 10 } } },
            {
              bool: {
                should: [
                  {
                    bool: {
                      filter: [
                        { terms: { pipelineName: ['ingest', 'backfill'] } },
                        { range: { rowCount: { gt: '10' } } },
                      ],
                      must_not: [
                        { wildcard: { runId: { value: 'In\\**', case_insensitive: true } } },
                        { exists: { field: 'messageId' } },
                      ],
                    },
                  },
                  { bool: { filter: [{ range: { timestampMillis: { lte: T0 } } }] } },
                ],
                minimum_should_match: 1,
              },
            },
          ],
          must_not: [{ term: { isExploded: true } }],
        },
      },
      sort: [{ timestampMillis: { order: 'desc' } }, { pointId: { order: 'asc' } }],
      size: 20,
      track_total_hits: false,
    });
  });

  it('sorts by a field first, a field no document has included', async () => {
    const { client, requests } = cluster({ '/_search': { hits: { hits: [] } } });
    await index(client).query({ ...PROFILE, urn: URN, sort: { field: 'rowCount', order: 'ASCENDING' }, limit: 0 });
    expect(requests[0]?.body).toMatchObject({
      query: { bool: { filter: [{ term: { urn: URN } }] } },
      sort: [
        { rowCount: { order: 'asc', unmapped_type: 'keyword' } },
        { timestampMillis: { order: 'desc' } },
        { pointId: { order: 'asc' } },
      ],
      size: 0,
    });
  });

  it('counts an index’s points, all or up to a time, leaving the items of collections out', async () => {
    const { client, requests } = cluster({ '/_count': { count: 4 } });
    expect(await index(client).count('dataset', 'datasetProfile', T0)).toBe(4);
    expect(await index(client).count('dataset', 'datasetProfile')).toBe(4);
    const notItems = [{ term: { isExploded: true } }];
    expect(requests.map((request): unknown[] => [request.path, request.body])).toEqual([
      [
        '/a_dataset_datasetprofileaspect_v1/_count',
        { query: { bool: { filter: [{ range: { timestampMillis: { lte: T0 } } }], must_not: notItems } } },
      ],
      ['/a_dataset_datasetprofileaspect_v1/_count', { query: { bool: { must_not: notItems } } }],
    ]);
  });

  it('writes the items of a point’s collections as exploded documents, after deleting those it had', async () => {
    const { client, requests } = cluster({
      '/_bulk': { errors: false, items: [] },
      '/_delete_by_query': { deleted: 0 },
    });
    const usage: TimeseriesPoint = {
      ...POINT,
      ...USAGE,
      fields: { uniqueUserCount: 2, runId: 'ingest-1', eventGranularity: '{"multiple":1,"unit":"DAY"}' },
      collections: {
        userCounts: [
          { key: 'urn:li:corpuser:a', fields: { 'userCounts.user': 'urn:li:corpuser:a', 'userCounts.count': 3 } },
        ],
      },
    };
    await index(client, { refresh: false }).apply([
      { kind: 'put', point: usage },
      { kind: 'put', point: POINT },
      { kind: 'put', point: { ...usage, collections: {} } },
    ]);
    expect(requests.map((request) => [request.path, request.querystring])).toEqual([
      ['/a_dataset_datasetusagestatisticsaspect_v1/_delete_by_query', { conflicts: 'proceed', refresh: 'true' }],
      ['/_bulk', { refresh: 'true' }],
      ['/a_dataset_datasetusagestatisticsaspect_v1/_delete_by_query', { conflicts: 'proceed', refresh: 'true' }],
      ['/_bulk', { refresh: 'false' }],
    ]);
    expect(requests[0]?.body).toEqual({
      query: { bool: { filter: [{ term: { isExploded: true } }, { terms: { pointId: [POINT.id] } }] } },
    });
    const [pointAction, pointDocument, itemAction, itemDocument, ...rest] = requests[1]?.body as unknown[];
    expect(pointAction).toEqual({ index: { _index: 'a_dataset_datasetusagestatisticsaspect_v1', _id: POINT.id } });
    expect(pointDocument).toMatchObject({ uniqueUserCount: 2, isExploded: false, pointId: POINT.id });
    expect(itemAction).toEqual({
      index: { _index: 'a_dataset_datasetusagestatisticsaspect_v1', _id: expect.stringMatching(/^[0-9a-f]{32}$/) },
    });
    expect(itemDocument).toEqual({
      runId: 'ingest-1',
      eventGranularity: '{"multiple":1,"unit":"DAY"}',
      'userCounts.user': 'urn:li:corpuser:a',
      'userCounts.count': 3,
      urn: URN,
      timestampMillis: T0,
      '@timestamp': T0,
      isExploded: true,
      pointId: POINT.id,
    });
    expect(rest).toHaveLength(2);
    expect(requests[3]?.body).toHaveLength(2);
  });

  it('aggregates with nested date histograms and terms, and reads the rows in the cluster’s order', async () => {
    const latest = (key: string | number, keyAsString?: string) => ({
      buckets: [{ key, ...(keyAsString === undefined ? {} : { key_as_string: keyAsString }), doc_count: 1 }],
    });
    const { client, requests } = cluster({
      '/_search': {
        hits: { hits: [] },
        aggregations: {
          g0: {
            buckets: [
              {
                key: 'urn:li:corpuser:b',
                doc_count: 3,
                g1: {
                  buckets: [
                    {
                      key: T0,
                      key_as_string: '2023-11-14',
                      doc_count: 2,
                      m0: { value: 5 },
                      m1: latest(1, 'true'),
                      m2: { value: 2 },
                    },
                    { key: T0 + 86_400_000, doc_count: 0, m0: { value: 0 }, m1: { buckets: [] }, m2: { value: 0 } },
                  ],
                },
              },
            ],
          },
        },
      },
    });
    const rows = await index(client).aggregate({
      ...USAGE,
      filter: [[{ field: 'urn', condition: 'EQUAL', values: [URN], negated: false }]],
      buckets: [
        { kind: 'string', field: 'userCounts.user.keyword', ascending: false, size: 5 },
        { kind: 'date', field: 'timestampMillis', unit: 'WEEK', timeZone: 'Europe/Paris' },
      ],
      metrics: [
        { kind: 'SUM', field: 'userCounts.count' },
        { kind: 'LATEST', field: 'complete' },
        { kind: 'CARDINALITY', field: 'runId' },
      ],
    });
    expect(rows).toEqual([
      { keys: ['urn:li:corpuser:b', T0], values: [5, true, 2] },
      { keys: ['urn:li:corpuser:b', T0 + 86_400_000], values: [0, null, 0] },
    ]);
    expect(requests[0]?.path).toBe('/a_dataset_datasetusagestatisticsaspect_v1/_search');
    expect(requests[0]?.body).toEqual({
      size: 0,
      track_total_hits: false,
      query: { bool: { filter: [{ bool: { filter: [{ terms: { urn: [URN] } }] } }] } },
      aggs: {
        g0: {
          terms: { field: 'userCounts.user', size: 5, order: { _key: 'desc' } },
          aggs: {
            g1: {
              date_histogram: {
                field: 'timestampMillis',
                calendar_interval: '1w',
                time_zone: 'Europe/Paris',
                min_doc_count: 0,
              },
              aggs: {
                m0: { sum: { field: 'userCounts.count' } },
                m1: {
                  terms: {
                    field: 'complete',
                    size: 1,
                    order: [{ newest: 'desc' }, { _count: 'desc' }, { _key: 'asc' }],
                  },
                  aggs: { newest: { max: { field: 'timestampMillis' } } },
                },
                m2: { cardinality: { field: 'runId', precision_threshold: 40_000 } },
              },
            },
          },
        },
      },
    });
  });

  it('aggregates every document without buckets, and refuses an answer of too many buckets as the client’s', async () => {
    const { client, requests } = cluster({
      '/_search': { hits: { hits: [] }, aggregations: { m0: { buckets: [{ key: 'a', doc_count: 1 }] } } },
    });
    expect(
      await index(client).aggregate({ ...PROFILE, buckets: [], metrics: [{ kind: 'LATEST', field: 'pipelineName' }] }),
    ).toEqual([{ keys: [], values: ['a'] }]);
    expect(requests[0]?.body).toMatchObject({ query: { match_all: {} } });

    const refusing = mockCluster(() =>
      responseError(400, {
        error: { type: 'search_phase_execution_exception', caused_by: { type: 'too_many_buckets_exception' } },
      }),
    );
    await expect(
      index(refusing.client).aggregate({ ...PROFILE, buckets: [], metrics: [{ kind: 'SUM', field: 'rowCount' }] }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('reads the primary store size of each index it was opened for', async () => {
    const { client, requests } = cluster({
      '/_stats/store': {
        indices: {
          a_dataset_datasetprofileaspect_v1: { primaries: { store: { size_in_bytes: 2048 } } },
          a_dataset_otheraspect_v1: { primaries: { store: { size_in_bytes: 1 } } },
        },
      },
    });
    expect(await index(client).sizes()).toEqual([
      { indexName: 'a_dataset_datasetprofileaspect_v1', ...PROFILE, bytes: 2048 },
      { indexName: 'a_dataset_datasetusagestatisticsaspect_v1', ...USAGE, bytes: 0 },
    ]);
    expect(requests[0]?.path).toBe('/a_*aspect_v1/_stats/store');
  });

  it('clears by refreshing every index it was opened for, then deleting every document of them, waiting', async () => {
    const { client, requests } = cluster({
      '/_refresh': { _shards: { total: 2, successful: 2, failed: 0 } },
      '/_delete_by_query': { deleted: 7, failures: [], timed_out: false },
    });
    await index(client).clear();
    const indices = 'a_dataset_datasetprofileaspect_v1,a_dataset_datasetusagestatisticsaspect_v1';
    expect(requests.map((request) => [request.method, request.path, request.querystring])).toEqual([
      ['GET', `/${indices}/_refresh`, {}],
      ['POST', `/${indices}/_delete_by_query`, { conflicts: 'proceed', refresh: 'true', wait_for_completion: 'true' }],
    ]);
    expect(requests[1]?.body).toEqual({ query: { match_all: {} } });
  });

  it('rejects a clear whose deletion reports failures or times out, naming the indices', async () => {
    const failing = cluster({
      '/_delete_by_query': {
        deleted: 1,
        timed_out: false,
        failures: [{ cause: { type: 'es_rejected_execution_exception', reason: 'queue full' } }],
      },
    });
    await expect(index(failing.client).clear()).rejects.toThrow(
      'Clearing a_dataset_datasetprofileaspect_v1, a_dataset_datasetusagestatisticsaspect_v1 failed: 1 failures' +
        ' (es_rejected_execution_exception: queue full)',
    );
    const slow = cluster({ '/_delete_by_query': { deleted: 0, timed_out: true, failures: [] } });
    await expect(index(slow.client).clear()).rejects.toThrow('failed: timed out');
  });

  it('refuses a clear once closed, sending nothing', async () => {
    const { client, requests } = cluster();
    const closed = index(client);
    await closed.close();
    await expect(closed.clear()).rejects.toThrow('ElasticsearchTimeseriesIndex is closed');
    expect(requests).toEqual([]);
  });

  it('starts a truncation as a delete-by-query task of the cluster', async () => {
    const { client, requests } = cluster({ '/_delete_by_query': { task: 'oTUltX4IQMOUUVeiohTt8A:12345' } });
    const task = await index(client).startTruncation({
      ...PROFILE,
      endTimeMillis: T0,
      batchSize: 500,
      timeoutSeconds: 30,
    });
    expect(task).toEqual({ nodeId: 'oTUltX4IQMOUUVeiohTt8A', number: 12345 });
    expect(requests[0]?.path).toBe('/a_dataset_datasetprofileaspect_v1/_delete_by_query');
    expect(requests[0]?.querystring).toEqual({
      wait_for_completion: 'false',
      conflicts: 'proceed',
      scroll_size: '500',
      timeout: '30s',
      refresh: 'true',
    });
    expect(requests[0]?.body).toEqual({ query: { range: { timestampMillis: { lte: T0 } } } });
  });

  it('reads a task’s status from the tasks API, and undefined for a task it does not hold', async () => {
    const status = {
      total: 9,
      updated: 0,
      created: 0,
      deleted: 6,
      batches: 2,
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
    };
    const { client, requests } = mockCluster((request) => {
      if (request.path.includes('missing')) {
        return responseError(404, { error: { type: 'resource_not_found_exception', reason: 'no task' } });
      }
      if (request.path.includes('failed')) {
        return {
          completed: true,
          task: { node: 'failed', id: 2, running_time_in_nanos: 5, status: { deleted: 1 } },
          error: { type: 'search_phase_execution_exception', reason: 'all shards failed' },
        };
      }
      return { completed: false, task: { node: 'n1', id: 7, running_time_in_nanos: 123_456, status } };
    });
    const opened = index(client);
    expect(await opened.taskStatus({ nodeId: 'n1', number: 7 })).toEqual({
      task: { nodeId: 'n1', number: 7 },
      completed: false,
      runTimeNanos: 123_456,
      status,
    });
    expect(decodeURIComponent(requests[0]?.path ?? '')).toBe('/_tasks/n1:7');
    expect(await opened.taskStatus({ nodeId: 'missing', number: 1 })).toBeUndefined();
    expect(await opened.taskStatus({ nodeId: 'failed', number: 2 })).toEqual({
      task: { nodeId: 'failed', number: 2 },
      completed: true,
      runTimeNanos: 5,
      status: { ...status, total: 0, deleted: 1, batches: 0 },
      error: { type: 'search_phase_execution_exception', reason: 'all shards failed' },
    });
  });
});
