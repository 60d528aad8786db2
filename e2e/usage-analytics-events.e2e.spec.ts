/**
 * DataHub's usage, analytics and events endpoints as their clients drive them, over HTTP only, on the shared standalone
 * process: legacy usage buckets as `emit_usage` sends them, read back by `query` and `queryRange`; aggregated
 * statistics of profiles written with `ingestProposal`; a platform event produced, then polled from the events API, as
 * a change log is after a write; and bad input refused in the endpoint family's error body.
 */
import { randomUUID } from 'node:crypto';
import { datasetUrn, proposalOf, sharedDeployment, TestHttpClient, type TestResponse } from '@strata/testing';

const SYNC = { 'X-DataHub-Sync-Index-Update': 'true' };
const DAY = 86_400_000;
/** Midnight UTC, 2023-11-15. */
const D0 = 1_700_006_400_000;

interface PollAnswer {
  readonly offsetId: string;
  readonly count: number;
  readonly events: { readonly value: string; readonly contentType: string }[];
}

let http: TestHttpClient;
const run = randomUUID().slice(0, 8);

beforeAll(async () => {
  http = new TestHttpClient((await sharedDeployment('standalone')).baseUrl);
}, 120_000);

/** Asserts DataHub's Rest.li error body and returns its message. */
function restliError(response: TestResponse, status: number): string {
  expect({ status: response.status, header: response.headers.get('x-restli-error-response') }).toEqual({
    status,
    header: 'true',
  });
  const body = response.json as { exceptionClass: string; status: number; message: string };
  expect(body).toMatchObject({ exceptionClass: 'com.linkedin.restli.server.RestLiServiceException', status });
  return body.message;
}

/** Asserts the OpenAPI family's error body and returns its message. */
function openapiError(response: TestResponse, status: number): string {
  expect(response.status).toBe(status);
  const body = response.json as { error: string };
  expect(typeof body.error).toBe('string');
  return body.error;
}

async function poll(query: Record<string, string>): Promise<PollAnswer> {
  const response = await http.get(`/openapi/v1/events/poll?${new URLSearchParams(query).toString()}`);
  expect(response.status).toBe(200);
  return response.json as PollAnswer;
}

/** Polls on from `offsetId` until an event `found` accepts arrives (the shared deployment's other writes pass by). */
async function pollUntil(
  topic: string,
  offsetId: string,
  found: (value: Record<string, unknown>) => boolean,
): Promise<{ event: Record<string, unknown>; offsetId: string }> {
  let position = offsetId;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const answer = await poll({ topic, offsetId: position, pollTimeoutSeconds: '5', limit: '1000' });
    expect(answer.count).toBe(answer.events.length);
    position = answer.offsetId;
    for (const event of answer.events) {
      expect(event.contentType).toBe('application/json');
      const value = JSON.parse(event.value) as Record<string, unknown>;
      if (found(value)) return { event: value, offsetId: position };
    }
  }
  throw new Error(`No such event on ${topic}`);
}

describe('standalone: legacy usage (/usageStats)', () => {
  const resource = datasetUrn(`usage_${run}`);
  const bucket = (start: number, metrics: Record<string, unknown>) => ({
    bucket: start,
    duration: 'DAY',
    resource,
    metrics,
  });

  beforeAll(async () => {
    // What the Python SDK's emit_usage sends for legacy UsageAggregation work units.
    const response = await http.post(
      '/usageStats?action=batchIngest',
      {
        buckets: [
          bucket(D0, {
            uniqueUserCount: 2,
            users: [
              { user: 'urn:li:corpuser:alice', count: 3, userEmail: 'alice@example.com' },
              { user: 'urn:li:corpuser:bob', count: 1 },
            ],
            totalSqlQueries: 4,
            topSqlQueries: ['SELECT * FROM orders', 'SELECT id FROM orders'],
            fields: [
              { fieldName: 'id', count: 3 },
              { fieldName: 'amount', count: 1 },
            ],
          }),
          bucket(D0 + 2 * DAY, {
            uniqueUserCount: 1,
            users: [{ user: 'urn:li:corpuser:alice', count: 2 }],
            totalSqlQueries: 2,
            fields: [{ fieldName: 'id', count: 2 }],
          }),
        ],
      },
      SYNC,
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });

  const expected = {
    buckets: [
      {
        bucket: D0,
        duration: 'DAY',
        resource,
        metrics: {
          uniqueUserCount: 2,
          totalSqlQueries: 4,
          topSqlQueries: ['SELECT * FROM orders', 'SELECT id FROM orders'],
        },
      },
      // The empty day between two others is a bucket without metrics, as DataHub answers it.
      { bucket: D0 + DAY, duration: 'DAY', resource, metrics: {} },
      { bucket: D0 + 2 * DAY, duration: 'DAY', resource, metrics: { uniqueUserCount: 1, totalSqlQueries: 2 } },
    ],
    aggregations: {
      uniqueUserCount: 2,
      totalSqlQueries: 6,
      users: [
        { user: 'urn:li:corpuser:alice', count: 5 },
        { user: 'urn:li:corpuser:bob', count: 1 },
      ],
      fields: [
        { fieldName: 'amount', count: 1 },
        { fieldName: 'id', count: 5 },
      ],
    },
  };

  it('stores the buckets as datasetUsageStatistics values, read back as any timeseries value', async () => {
    const response = await http.post('/aspects?action=getTimeseriesAspectValues', {
      urn: resource,
      entity: 'dataset',
      aspect: 'datasetUsageStatistics',
    });
    expect(response.status).toBe(200);
    const values = (response.json as { value: { values: { aspect: { value: string } }[] } }).value.values.map(
      (value) => JSON.parse(value.aspect.value) as Record<string, unknown>,
    );
    expect(values).toEqual([
      {
        timestampMillis: D0 + 2 * DAY,
        eventGranularity: { unit: 'DAY', multiple: 1 },
        uniqueUserCount: 1,
        totalSqlQueries: 2,
        userCounts: [{ user: 'urn:li:corpuser:alice', count: 2 }],
        fieldCounts: [{ fieldPath: 'id', count: 2 }],
      },
      expect.objectContaining({ timestampMillis: D0, userCounts: expect.any(Array) }),
    ]);
  });

  it('answers query with DataHub’s buckets and aggregations, within inclusive times', async () => {
    const response = await http.post('/usageStats?action=query', {
      resource,
      duration: 'DAY',
      startTime: D0,
      endTime: D0 + 2 * DAY,
      maxBuckets: 10,
    });
    expect(response.status).toBe(200);
    expect((response.json as { value: unknown }).value).toEqual(expected);

    const firstDay = await http.post('/usageStats?action=query', { resource, duration: 'DAY', endTime: D0 + DAY - 1 });
    expect((firstDay.json as { value: { buckets: unknown[]; aggregations: unknown } }).value).toEqual({
      buckets: [expected.buckets[0]],
      aggregations: {
        uniqueUserCount: 2,
        totalSqlQueries: 4,
        users: [
          { user: 'urn:li:corpuser:alice', count: 3 },
          { user: 'urn:li:corpuser:bob', count: 1 },
        ],
        fields: [
          { fieldName: 'amount', count: 1 },
          { fieldName: 'id', count: 3 },
        ],
      },
    });
  });

  it('answers queryRange back from now, and an unknown resource with nothing', async () => {
    const all = await http.post('/usageStats?action=queryRange', { resource, duration: 'DAY', rangeFromEnd: 'ALL' });
    expect(all.status).toBe(200);
    expect((all.json as { value: unknown }).value).toEqual(expected);
    const week = await http.post('/usageStats?action=queryRange', { resource, duration: 'WEEK', rangeFromEnd: 'WEEK' });
    expect((week.json as { value: unknown }).value).toEqual({
      buckets: [],
      aggregations: { uniqueUserCount: 0, users: [], fields: [] },
    });
    const nobody = await http.post('/usageStats?action=query', {
      resource: datasetUrn(`nobody_${run}`),
      duration: 'DAY',
    });
    expect((nobody.json as { value: unknown }).value).toEqual({
      buckets: [],
      aggregations: { uniqueUserCount: 0, users: [], fields: [] },
    });
  });

  it('refuses bad input in the Rest.li error body, writing nothing', async () => {
    const other = datasetUrn(`usage_refused_${run}`);
    expect(
      restliError(
        await http.post('/usageStats?action=batchIngest', {
          buckets: [{ bucket: D0, duration: 'DAY', resource: other, metrics: { users: [{ count: 1 }] } }],
        }),
        400,
      ),
    ).toBe('buckets[0].metrics.users[0]: user is required to record usage');
    expect(
      restliError(
        await http.post('/usageStats?action=batchIngest', {
          buckets: [{ bucket: D0, duration: 'FORTNIGHT', resource: other, metrics: {} }],
        }),
        400,
      ),
    ).toMatch(/duration/);
    expect(
      restliError(
        await http.post('/usageStats?action=batchIngest', {
          buckets: [{ bucket: D0, duration: 'DAY', resource: 'urn:li:chart:(looker,c)', metrics: {} }],
        }),
        422,
      ),
    ).toMatch(/^buckets\[0\]: /);
    expect(restliError(await http.post('/usageStats?action=query', { resource, duration: 'DECADE' }), 400)).toMatch(
      /duration/,
    );
    expect(
      restliError(await http.post('/usageStats?action=query', { resource: 'not a urn', duration: 'DAY' }), 400),
    ).toMatch(/^Invalid resource/);
    expect(
      restliError(
        await http.post('/usageStats?action=queryRange', { resource, duration: 'DAY', rangeFromEnd: 'CENTURY' }),
        400,
      ),
    ).toMatch(/rangeFromEnd/);
    const nothing = await http.post('/usageStats?action=query', { resource: other, duration: 'DAY' });
    expect((nothing.json as { value: { buckets: unknown[] } }).value.buckets).toEqual([]);
  });
});

describe('standalone: aggregated timeseries statistics (/analytics)', () => {
  const first = datasetUrn(`profiled_${run}_a`);
  const second = datasetUrn(`profiled_${run}_b`);
  const profile = (urn: string, timestampMillis: number, partition: string) =>
    http.post(
      '/aspects?action=ingestProposal',
      {
        proposal: proposalOf(urn, 'datasetProfile', {
          timestampMillis,
          rowCount: 10,
          columnCount: 2,
          partitionSpec: { partition, type: 'PARTITION' },
        }),
      },
      SYNC,
    );

  beforeAll(async () => {
    for (const [urn, time, partition] of [
      [first, D0 + 1000, 'p1'],
      [first, D0 + 5000, 'p2'],
      [second, D0 + 3000, 'p1'],
      [second, D0 + 2 * DAY, 'p3'],
    ] as const) {
      expect((await profile(urn, time, partition)).status).toBe(200);
    }
  });

  const ofBoth = { or: [{ and: [{ field: 'urn', condition: 'IN', values: [first, second] }] }] };

  it('aggregates profiles by day: DataHub’s table, every cell a string, the empty day included', async () => {
    const response = await http.post('/analytics?action=getTimeseriesStats', {
      entityName: 'dataset',
      aspectName: 'datasetProfile',
      metrics: [
        { fieldPath: 'urn', aggregationType: 'CARDINALITY' },
        { fieldPath: 'partitionSpec.partition', aggregationType: 'LATEST' },
        { fieldPath: 'timestampMillis', aggregationType: 'LATEST' },
      ],
      filter: ofBoth,
      buckets: [{ type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'DAY', multiple: 1 } }],
    });
    expect(response.status).toBe(200);
    expect((response.json as { value: unknown }).value).toEqual({
      entityName: 'dataset',
      aspectName: 'datasetProfile',
      filter: { or: [{ and: [{ field: 'urn', condition: 'IN', values: [first, second] }] }] },
      aggregationSpecs: [
        { fieldPath: 'urn', aggregationType: 'CARDINALITY' },
        { fieldPath: 'partitionSpec.partition', aggregationType: 'LATEST' },
        { fieldPath: 'timestampMillis', aggregationType: 'LATEST' },
      ],
      groupingBuckets: [
        { type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis', timeWindowSize: { unit: 'DAY', multiple: 1 } },
      ],
      table: {
        columnNames: ['timestampMillis', 'cardinality_urn', 'latest_partitionSpec.partition', 'latest_timestampMillis'],
        columnTypes: ['long', 'long', 'string', 'long'],
        rows: [
          [String(D0), '2', 'p2', new Date(D0 + 5000).toISOString()],
          [String(D0 + DAY), '0', 'NULL', 'NULL'],
          [String(D0 + 2 * DAY), '1', 'p3', new Date(D0 + 2 * DAY).toISOString()],
        ],
      },
    });
  });

  it('groups by a string field, descending and cut to size, and without buckets answers one row', async () => {
    const grouped = await http.post('/analytics?action=getTimeseriesStats', {
      entityName: 'dataset',
      aspectName: 'datasetProfile',
      metrics: [{ fieldPath: 'timestampMillis', aggregationType: 'CARDINALITY' }],
      filter: ofBoth,
      buckets: [{ type: 'STRING_GROUPING_BUCKET', key: 'partitionSpec.partition', ascending: false, size: 2 }],
    });
    expect((grouped.json as { value: { table: unknown } }).value.table).toEqual({
      columnNames: ['partitionSpec.partition', 'cardinality_timestampMillis'],
      columnTypes: ['string', 'long'],
      rows: [
        ['p3', '1'],
        ['p2', '1'],
      ],
    });
    const overall = await http.post('/analytics?action=getTimeseriesStats', {
      entityName: 'dataset',
      aspectName: 'datasetProfile',
      metrics: [{ fieldPath: 'partitionSpec.partition', aggregationType: 'CARDINALITY' }],
      filter: { criteria: [{ field: 'urn', value: first, condition: 'EQUAL' }] },
    });
    expect((overall.json as { value: { table: { rows: unknown } } }).value.table.rows).toEqual([['2']]);
  });

  it('refuses what DataHub cannot aggregate with a 400 in the Rest.li error body', async () => {
    const stats = (body: Record<string, unknown>) =>
      http.post('/analytics?action=getTimeseriesStats', {
        entityName: 'dataset',
        aspectName: 'datasetProfile',
        metrics: [{ fieldPath: 'urn', aggregationType: 'CARDINALITY' }],
        ...body,
      });
    expect(restliError(await stats({ metrics: [{ fieldPath: 'rowCount', aggregationType: 'SUM' }] }), 400)).toBe(
      'Unknown TimeseriesField or TimeseriesFieldCollection: rowCount',
    );
    expect(restliError(await stats({ entityName: 'nope' }), 400)).toBe(
      'Failed to find entity with name nope in EntityRegistry',
    );
    expect(restliError(await stats({ aspectName: 'status' }), 400)).toMatch(/not a timeseries aspect/);
    expect(restliError(await stats({ metrics: [{ fieldPath: 'urn', aggregationType: 'MEDIAN' }] }), 400)).toMatch(
      /aggregationType/,
    );
    expect(restliError(await stats({ buckets: [{ type: 'DATE_GROUPING_BUCKET', key: 'timestampMillis' }] }), 400)).toBe(
      'A DATE_GROUPING_BUCKET needs a timeWindowSize',
    );
    expect(
      restliError(
        await stats({
          buckets: [
            {
              type: 'DATE_GROUPING_BUCKET',
              key: 'timestampMillis',
              timeWindowSize: { unit: 'DAY' },
              timeZone: 'Mars/Olympus_Mons',
            },
          ],
        }),
        400,
      ),
    ).toBe('Unknown time zone: Mars/Olympus_Mons');
    expect(restliError(await stats({ filter: { or: [{ and: [{ field: 'urn', condition: 'LIKE' }] }] } }), 400)).toMatch(
      /Unsupported condition/,
    );
  });
});

describe('standalone: platform events and the events API', () => {
  const name = `strataTestEvent_${run}`;
  const payload = (text: string) => ({ value: text, contentType: 'application/json' });

  it('polls a platform event produced after the offset it was given, once', async () => {
    const atEnd = await poll({ topic: 'PlatformEvent_v1', pollTimeoutSeconds: '0' });
    expect(atEnd).toMatchObject({ count: 0, events: [] });
    expect(typeof atEnd.offsetId).toBe('string');

    const response = await http.post('/platform?action=producePlatformEvent', {
      name,
      key: datasetUrn(`evented_${run}`),
      event: { header: { timestampMillis: D0 }, name, payload: payload(`{"run":"${run}","note":"café"}`) },
    });
    expect(response.status).toBe(200);

    const { event, offsetId } = await pollUntil('PlatformEvent_v1', atEnd.offsetId, (value) => value['name'] === name);
    // The record in Avro's JSON encoding, as DataHub's events API answers it.
    expect(event).toEqual({
      header: { timestampMillis: D0 },
      name,
      payload: { value: `{"run":"${run}","note":"café"}`, contentType: 'application/json' },
    });
    const after = await poll({ topic: 'PlatformEvent_v1', offsetId, pollTimeoutSeconds: '0' });
    expect(after.events.map((each) => (JSON.parse(each.value) as { name: string }).name)).not.toContain(name);

    // Without an offset, a look back over the last day finds it too.
    const looked = await poll({
      topic: 'PlatformEvent_v1',
      lookbackWindowDays: '1',
      pollTimeoutSeconds: '5',
      limit: '5000',
    });
    expect(looked.events.some((each) => (JSON.parse(each.value) as { name: string }).name === name)).toBe(true);
  });

  it('polls the change log of a write made after the offset it was given', async () => {
    const urn = datasetUrn(`logged_${run}`);
    const atEnd = await poll({ topic: 'MetadataChangeLog_Versioned_v1', pollTimeoutSeconds: '0' });
    const written = await http.post('/aspects?action=ingestProposal', {
      proposal: proposalOf(urn, 'status', { removed: false }),
    });
    expect(written.status).toBe(200);
    const { event } = await pollUntil(
      'MetadataChangeLog_Versioned_v1',
      atEnd.offsetId,
      (value) =>
        (value['entityUrn'] as { string?: string } | null)?.string === urn &&
        (value['aspectName'] as { string?: string } | null)?.string === 'status',
    );
    expect(event).toMatchObject({
      entityType: 'dataset',
      entityUrn: { string: urn },
      changeType: 'UPSERT',
      aspectName: { string: 'status' },
      aspect: {
        'com.linkedin.pegasus2avro.mxe.GenericAspect': { value: '{"removed":false}', contentType: 'application/json' },
      },
      created: { 'com.linkedin.pegasus2avro.common.AuditStamp': { actor: expect.any(String) } },
    });
  });

  it('waits for the next event of a long poll rather than answering empty', async () => {
    const atEnd = await poll({ topic: 'PlatformEvent_v1', pollTimeoutSeconds: '0' });
    const waiting = poll({ topic: 'PlatformEvent_v1', offsetId: atEnd.offsetId, pollTimeoutSeconds: '10' });
    const response = await http.post('/platform?action=producePlatformEvent', {
      name: `${name}_waited`,
      event: { header: { timestampMillis: D0 }, name: `${name}_waited`, payload: payload('{}') },
    });
    expect(response.status).toBe(200);
    expect((await waiting).count).toBeGreaterThan(0);
  });

  it('refuses bad input: the OpenAPI error body for a poll, the Rest.li one for an event', async () => {
    const bad = (query: string) => http.get(`/openapi/v1/events/poll?${query}`);
    expect(openapiError(await bad('topic=Nope_v1'), 400)).toMatch(/^Unsupported topic: Nope_v1/);
    expect(openapiError(await bad(''), 400)).toMatch(/topic/);
    expect(openapiError(await bad('topic=PlatformEvent_v1&offsetId=%25%25'), 400)).toMatch(
      /^Failed to decode and parse offsetId/,
    );
    expect(openapiError(await bad('topic=PlatformEvent_v1&limit=many'), 400)).toMatch(/limit/);
    expect(openapiError(await bad('topic=PlatformEvent_v1&limit=0'), 400)).toBe('limit must be at least 1');

    const produce = (body: Record<string, unknown>) => http.post('/platform?action=producePlatformEvent', body);
    expect(restliError(await produce({ name }), 400)).toMatch(/event/);
    expect(
      restliError(
        await produce({ name, event: { header: { timestampMillis: 1 }, name, payload: payload('snow ☃') } }),
        400,
      ),
    ).toMatch(/^event\.payload\.value is not bytes/);
    expect(restliError(await produce({ name, event: { header: {}, name, payload: payload('{}') } }), 400)).toMatch(
      /timestampMillis/,
    );
  });
});

describe('standalone-kafka: the events API over Kafka', () => {
  it('polls a platform event from the Kafka log, from the offset it was given, once', async () => {
    const kafka = new TestHttpClient((await sharedDeployment('standalone-kafka')).baseUrl);
    const pollKafka = async (query: Record<string, string>) => {
      const response = await kafka.get(`/openapi/v1/events/poll?${new URLSearchParams(query).toString()}`);
      expect(response.status).toBe(200);
      return response.json as PollAnswer;
    };
    const name = `strataKafkaEvent_${run}`;
    const atEnd = await pollKafka({ topic: 'PlatformEvent_v1', pollTimeoutSeconds: '0' });
    const produced = await kafka.post('/platform?action=producePlatformEvent', {
      name,
      event: { header: { timestampMillis: D0 }, name, payload: { value: '{}', contentType: 'application/json' } },
    });
    expect(produced.status).toBe(200);
    let offsetId = atEnd.offsetId;
    const seen: string[] = [];
    for (let attempt = 0; attempt < 20 && !seen.includes(name); attempt += 1) {
      const answer = await pollKafka({ topic: 'PlatformEvent_v1', offsetId, pollTimeoutSeconds: '10' });
      seen.push(...answer.events.map((event) => (JSON.parse(event.value) as { name: string }).name));
      offsetId = answer.offsetId;
    }
    expect(seen).toContain(name);
    // Every partition of the topic is in the offset id, as DataHub's consumer writes it.
    expect(Object.keys(JSON.parse(Buffer.from(offsetId, 'base64').toString('utf8')) as object).length).toBeGreaterThan(
      0,
    );
    const again = await pollKafka({ topic: 'PlatformEvent_v1', offsetId, pollTimeoutSeconds: '0' });
    expect(again.events.map((event) => (JSON.parse(event.value) as { name: string }).name)).not.toContain(name);
  }, 120_000);
});
