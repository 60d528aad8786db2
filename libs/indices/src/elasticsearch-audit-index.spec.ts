import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';
import { Client } from '@elastic/elasticsearch';

import { describeAuditIndexContract } from './audit-index-contract';
import { auditIndexName, ElasticsearchAuditIndex } from './elasticsearch-audit-index';
import { mockCluster, responseError, type RecordedRequest } from './elasticsearch-cluster.fake';

// Against a real cluster (Elasticsearch 8 or 9), e.g.
//   ELASTICSEARCH_URL=http://127.0.0.1:9200 npx jest libs/indices/src/elasticsearch-audit-index.spec.ts
// Every test gets an index of its own, deleted afterwards. Without ELASTICSEARCH_URL only the offline tests below run
// (exact requests checked against @elastic/elasticsearch-mock, which has no search semantics).
const elasticsearchUrl = process.env['ELASTICSEARCH_URL'];

if (elasticsearchUrl !== undefined && elasticsearchUrl !== '') {
  const node = elasticsearchUrl;
  describeAuditIndexContract('ElasticsearchAuditIndex', {
    create: async () => {
      const indexPrefix = `strata-test-${randomUUID().slice(0, 8)}`;
      const options = { node, indexPrefix };
      return {
        index: await ElasticsearchAuditIndex.open(options),
        reopen: () => ElasticsearchAuditIndex.open(options),
        dispose: async () => {
          const client = new Client({ node });
          try {
            await client.indices.delete({ index: auditIndexName(indexPrefix), ignore_unavailable: true });
          } finally {
            await client.close();
          }
        },
      };
    },
  });
}

describe('ElasticsearchAuditIndex requests (offline)', () => {
  const EVENT = {
    id: 'p-1/0',
    type: 'UpdateAspectEvent',
    timestamp: 1_700_000_000_000,
    actorUrn: 'urn:li:corpuser:jdoe',
    entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)',
    entityType: 'dataset',
    aspectName: 'status',
    changeType: 'UPSERT',
  };

  function cluster(answers: Record<string, unknown> = {}) {
    return mockCluster((request: RecordedRequest) => {
      if (request.method === 'HEAD') return '';
      const key = Object.keys(answers).find((path) => request.path.endsWith(path));
      return key === undefined ? { acknowledged: true } : answers[key];
    });
  }

  it('creates the index under its prefix with strict keyword mappings and one shard', async () => {
    const { client, requests } = mockCluster((request) =>
      request.method === 'HEAD' ? responseError(404, '') : { acknowledged: true },
    );
    const index = await ElasticsearchAuditIndex.open({ client, indexPrefix: 'Prod' });
    expect(index.indexName).toBe('prod_datahub_usage_event');
    const create = requests.find((request) => request.method === 'PUT');
    expect(create?.path).toBe('/prod_datahub_usage_event');
    expect(create?.body.settings).toEqual({ number_of_shards: 1 });
    expect(create?.body.mappings.dynamic).toBe('strict');
    expect(create?.body.mappings.properties.timestamp).toEqual({ type: 'date', format: 'epoch_millis' });
    expect(create?.body.mappings.properties.actorUrn.type).toBe('keyword');
    await index.close();
  });

  it("writes DataHub's document under the event's id, waiting for the refresh", async () => {
    const { client, requests } = cluster({ '/_bulk': { errors: false, items: [] } });
    const index = new ElasticsearchAuditIndex({ client });
    await index.record([EVENT]);
    const bulk = requests.find((request) => request.path === '/_bulk');
    expect(bulk?.querystring).toEqual({ refresh: 'wait_for' });
    expect(bulk?.body).toEqual([
      { index: { _index: 'datahub_usage_event', _id: 'p-1/0' } },
      {
        type: 'UpdateAspectEvent',
        timestamp: EVENT.timestamp,
        actorUrn: EVENT.actorUrn,
        entityUrn: EVENT.entityUrn,
        entityType: 'dataset',
        aspectName: 'status',
        changeType: 'UPSERT',
        eventId: 'p-1/0',
        usageSource: 'backend',
      },
    ]);
  });

  it('rejects a write the cluster refuses in part, naming the events', async () => {
    const { client } = cluster({
      '/_bulk': { errors: true, items: [{ index: { error: { type: 'mapper_parsing_exception', reason: 'bad' } } }] },
    });
    const index = new ElasticsearchAuditIndex({ client });
    await expect(index.record([EVENT])).rejects.toThrow(
      'Elasticsearch rejected 1 of 1 audit events: p-1/0 (mapper_parsing_exception: bad)',
    );
  });

  it('searches the window and filters, sorted with a tiebreaker, after the cursor, counting up to 10,000', async () => {
    const { client, requests } = cluster({
      '/_search': {
        hits: {
          total: { value: 10_000, relation: 'gte' },
          hits: [{ _source: { ...EVENT, id: undefined, eventId: 'p-1/0', usageSource: 'backend' } }],
        },
      },
    });
    const index = new ElasticsearchAuditIndex({ client, indexPrefix: 'x' });
    const page = await index.search({
      startTime: 10,
      endTime: 20,
      eventTypes: ['UpdateAspectEvent'],
      entityTypes: [],
      aspectTypes: ['status', 'ownership'],
      actorUrns: ['urn:li:corpuser:jdoe'],
      size: 50,
      after: [15, 'CreateUserEvent', 'urn:li:corpuser:a', 'p-0/0'],
    });
    expect(page).toEqual({ total: 10_000, events: [EVENT] });
    const search = requests.find((request) => request.path === '/x_datahub_usage_event/_search');
    expect(search?.body).toEqual({
      query: {
        bool: {
          filter: [
            { range: { timestamp: { gte: 10, lt: 20 } } },
            { term: { usageSource: 'backend' } },
            { terms: { type: ['UpdateAspectEvent'] } },
            { terms: { aspectName: ['status', 'ownership'] } },
            { terms: { actorUrn: ['urn:li:corpuser:jdoe'] } },
          ],
        },
      },
      sort: [
        { timestamp: { order: 'desc' } },
        { type: { order: 'asc' } },
        { actorUrn: { order: 'asc' } },
        { eventId: { order: 'asc' } },
      ],
      size: 50,
      track_total_hits: 10_000,
      search_after: [15, 'CreateUserEvent', 'urn:li:corpuser:a', 'p-0/0'],
    });
  });

  it('expires by time with a refreshed delete-by-query', async () => {
    const { client, requests } = cluster({ '/_delete_by_query': { deleted: 7 } });
    const index = new ElasticsearchAuditIndex({ client });
    expect(await index.expire(1234)).toBe(7);
    const request = requests.find((recorded) => recorded.path.endsWith('/_delete_by_query'));
    expect(request?.querystring).toEqual({ conflicts: 'proceed', refresh: 'true' });
    expect(request?.body).toEqual({ query: { range: { timestamp: { lt: 1234 } } } });
  });
});
