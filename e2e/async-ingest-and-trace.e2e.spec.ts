/**
 * Asynchronous ingest applied proposal by proposal, and DataHub's trace API, over HTTP against the shared standalone
 * process (and, for the failed-proposal topic, the shared standalone process on Kafka, whose topics a test can read).
 * An asynchronous batch is accepted once it is on the log; each proposal is validated as it is applied, an invalid
 * one refused on its own — on `FailedMetadataChangeProposal_v1`, and in the trace API's answer for the write's trace
 * id, which every write is answered with (`traceparent`). Everything written is named after the run.
 */
import { randomUUID } from 'node:crypto';
import { readSchemas } from '@strata/schemas';
import { createEventSerde } from '@strata/events';
import { KafkaMessageLog } from '@strata/log';
import {
  datasetUrn,
  eventually,
  proposalOf,
  sharedDeployment,
  TestHttpClient,
  type ProposalJson,
  type TestResponse,
} from '@strata/testing';
import { collectTopic } from './support/topic-collector';

const serde = createEventSerde(readSchemas());
const encoded = encodeURIComponent;
/** Long enough for a loaded machine; every wait is for a condition, never a duration. */
const WAIT = { timeoutMs: 30_000, intervalMs: 100 };

/** The trace id a write was answered with: the second field of its `traceparent`, as DataHub's emitter reads it. */
function traceIdOf(response: TestResponse): string {
  const traceparent = response.headers.get('traceparent') ?? '';
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  return traceparent.split('-')[1] ?? '';
}

/** A dataset's properties, as the Python emitter sends them. */
function properties(urn: string, description: string): ProposalJson {
  return proposalOf(urn, 'datasetProperties', { description, customProperties: {} });
}

/** Invalid: `customProperties` must be a map of strings. */
function invalidProperties(urn: string): ProposalJson {
  return proposalOf(urn, 'datasetProperties', { description: 'never written', customProperties: 'not a map' });
}

describe('standalone', () => {
  const run = `trace_${randomUUID().slice(0, 8)}`;
  let http: TestHttpClient;

  const trace = (traceId: string, body: unknown, query = 'onlyIncludeErrors=false&detailed=true') =>
    http.post(`/openapi/v1/trace/write/${traceId}?${query}`, body);
  const latestProperties = (urn: string) => http.get(`/aspects/${encoded(urn)}?aspect=datasetProperties&version=0`);

  beforeAll(async () => {
    http = new TestHttpClient((await sharedDeployment('standalone')).baseUrl);
  }, 120_000);

  describe('an asynchronous batch of 100 with one invalid proposal', () => {
    const urns = Array.from({ length: 99 }, (_, index) => datasetUrn(`${run}.table_${index}`));
    const invalid = datasetUrn(`${run}.invalid`);
    let traceId: string;
    let requestId: unknown;

    beforeAll(async () => {
      const proposals = urns.map((urn) => properties(urn, `Table of ${run}`));
      proposals.splice(50, 0, invalidProperties(invalid));
      const response = await http.post('/aspects?action=ingestProposalBatch', { proposals, async: 'true' });
      expect({ status: response.status, body: response.json }).toMatchObject({
        status: 200,
        body: { value: expect.any(String) as unknown },
      });
      requestId = (response.json as { value: unknown }).value;
      traceId = traceIdOf(response);
    });

    it('is accepted at once, and the 99 valid proposals are written', async () => {
      expect(requestId).toEqual(expect.any(String));
      await eventually(async () => {
        expect((await latestProperties(urns[98] ?? '')).status).toBe(200);
      }, WAIT);
      for (const urn of urns) {
        const read = await latestProperties(urn);
        expect({ urn, status: read.status, body: read.json }).toMatchObject({
          status: 200,
          body: { aspect: { 'com.linkedin.dataset.DatasetProperties': { description: `Table of ${run}` } } },
        });
      }
      expect((await latestProperties(invalid)).status).toBe(404);
    });

    it('reports the invalid one, with its reason, in the trace API’s answer (and only it, by default)', async () => {
      const answer = await eventually(async () => {
        const response = await trace(traceId, { [invalid]: ['datasetProperties'], [urns[0] ?? '']: [] }, '');
        expect(response.status).toBe(200);
        expect(Object.keys(response.json as object)).toEqual([invalid]);
        return response.json as Record<string, Record<string, unknown>>;
      }, WAIT);
      expect(answer[invalid]).toEqual({
        datasetProperties: {
          success: false,
          primaryStorage: {
            writeStatus: 'ERROR',
            writeMessage: expect.stringContaining('datasetProperties') as unknown,
          },
          searchStorage: { writeStatus: 'ERROR', writeMessage: 'Primary storage write failed.' },
        },
      });
      const detailed = await trace(traceId, { [invalid]: ['datasetProperties'] });
      expect(detailed.json).toMatchObject({
        [invalid]: {
          datasetProperties: {
            primaryStorage: { writeExceptions: [{ message: expect.stringContaining('datasetProperties') as unknown }] },
          },
        },
      });
    });

    it('answers a valid write ACTIVE_STATE in both storages once indexed, then HISTORIC_STATE once overwritten', async () => {
      const urn = urns[0] ?? '';
      await eventually(async () => {
        const response = await trace(traceId, { [urn]: ['datasetProperties'] });
        expect(response.json).toEqual({
          [urn]: {
            datasetProperties: {
              success: true,
              primaryStorage: { writeStatus: 'ACTIVE_STATE' },
              searchStorage: { writeStatus: 'ACTIVE_STATE' },
            },
          },
        });
      }, WAIT);
      // Indexed means searchable: the trace says so only once the search indexer applied the write.
      const search = await http.post('/entities?action=search', {
        input: `${run}.table_0`,
        entity: 'dataset',
        start: 0,
        count: 10,
      });
      expect((search.json as { value: { entities: string[] } }).value.entities).toContain(urn);

      const again = await http.post('/aspects?action=ingestProposal', {
        proposal: properties(urn, 'A later value'),
      });
      expect(again.status).toBe(200);
      expect(traceIdOf(again)).not.toBe(traceId);
      expect((await trace(traceId, { [urn]: ['datasetProperties'] })).json).toEqual({
        [urn]: {
          datasetProperties: {
            success: true,
            primaryStorage: { writeStatus: 'HISTORIC_STATE' },
            searchStorage: { writeStatus: 'HISTORIC_STATE' },
          },
        },
      });
    });
  });

  it('keeps a client’s traceparent as the write’s trace id', async () => {
    const traceId = randomUUID().replace(/-/g, '');
    const urn = datasetUrn(`${run}.traced_by_client`);
    const response = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: properties(urn, 'traced'), async: 'true' },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(traceIdOf(response)).toBe(traceId);
    await eventually(async () => {
      const answer = await trace(`00-${traceId}-00f067aa0ba902b7-01`, { [urn]: ['datasetProperties'] });
      expect(answer.json).toMatchObject({
        [urn]: { datasetProperties: { primaryStorage: { writeStatus: 'ACTIVE_STATE' } } },
      });
    }, WAIT);
  });

  it('replays DataHub’s smoke test test_restli_batch_ingestion_exception_async (and its synchronous twin)', async () => {
    // `_create_invalid_dataset_mcps`: a status, and an upstream lineage naming an ML model where a dataset belongs.
    const dataset = datasetUrn(`${run}.my_dataset`, 'kafka');
    const systemMetadata = { lastObserved: Date.now(), runId: 'no-run-id-provided' };
    const badMcps = [
      proposalOf(dataset, 'status', { removed: false }, { systemMetadata }),
      proposalOf(
        dataset,
        'upstreamLineage',
        {
          upstreams: [
            {
              auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' },
              dataset: `urn:li:mlModel:(urn:li:dataPlatform:mlflow,${run}_my_model,PROD)`,
              type: 'TRANSFORMED',
            },
          ],
        },
        { systemMetadata },
      ),
    ];
    // emit_mcps(bad_mcps, async_flag=False): "should have thrown an exception".
    const sync = await http.post('/aspects?action=ingestProposalBatch', { proposals: badMcps, async: 'false' });
    expect(sync.status).toBeGreaterThanOrEqual(400);
    expect(sync.status).toBeLessThan(500);
    expect((await http.get(`/aspects/${encoded(dataset)}?aspect=status&version=0`)).status).toBe(404);

    // emit_mcps(bad_mcps, async_flag=True): no error at emit time.
    const async = await http.post('/aspects?action=ingestProposalBatch', { proposals: badMcps, async: 'true' });
    expect({ status: async.status, body: async.json }).toMatchObject({
      status: 200,
      body: { value: expect.any(String) as unknown },
    });
    const traceId = traceIdOf(async);
    await eventually(async () => {
      const answer = await trace(traceId, { [dataset]: ['status', 'upstreamLineage'] });
      expect(answer.json).toMatchObject({
        [dataset]: {
          status: { success: true, primaryStorage: { writeStatus: 'ACTIVE_STATE' } },
          upstreamLineage: {
            success: false,
            primaryStorage: { writeStatus: 'ERROR', writeMessage: expect.stringContaining('mlModel') as unknown },
          },
        },
      });
    }, WAIT);
    expect((await http.get(`/aspects/${encoded(dataset)}?aspect=upstreamLineage&version=0`)).status).toBe(404);
  });

  it('answers PENDING for a write it has not seen under a trace id', async () => {
    const urn = datasetUrn(`${run}.never_written`);
    const answer = await trace('0123456789abcdef0123456789abcdef', { [urn]: ['status'] });
    expect(answer.json).toEqual({
      [urn]: {
        status: {
          success: true,
          primaryStorage: { writeStatus: 'PENDING', writeMessage: 'Not applied yet.' },
          searchStorage: { writeStatus: 'PENDING', writeMessage: 'Pending primary storage write.' },
        },
      },
    });
  });

  it('refuses bad input to the trace API with a 4xx and the OpenAPI error body', async () => {
    const urn = datasetUrn(`${run}.bad_input`);
    const cases: [string, unknown][] = [
      ['not-a-trace-id', { [urn]: ['status'] }],
      ['0123456789abcdef0123456789abcdef', { 'not a urn': ['status'] }],
      ['0123456789abcdef0123456789abcdef', { 'urn:li:noSuchEntity:x': ['status'] }],
      ['0123456789abcdef0123456789abcdef', { [urn]: 'status' }],
      ['0123456789abcdef0123456789abcdef', [urn]],
      ['0123456789abcdef0123456789abcdef', '{"unterminated'],
    ];
    for (const [traceId, body] of cases) {
      const response = await trace(traceId, body);
      expect({ traceId, body, status: response.status, json: response.json }).toMatchObject({
        status: 400,
        json: { error: expect.any(String) as unknown },
      });
    }
    const badFlag = await trace('0123456789abcdef0123456789abcdef', { [urn]: ['status'] }, 'detailed=maybe');
    expect({ status: badFlag.status, json: badFlag.json }).toMatchObject({
      status: 400,
      json: { error: expect.any(String) as unknown },
    });
  });

  it('documents the trace API in /openapi/v3/api-docs', async () => {
    const docs = (await http.get('/openapi/v3/api-docs')).json as { paths: Record<string, Record<string, unknown>> };
    expect(docs.paths['/openapi/v1/trace/write/{traceId}']).toHaveProperty('post');
  });
});

describe('standalone on Kafka: the failed-proposal topic', () => {
  it('holds the refused proposal of an asynchronous batch, with its reason', async () => {
    const strata = await sharedDeployment('standalone-kafka');
    const http = new TestHttpClient(strata.baseUrl);
    const log = new KafkaMessageLog({
      brokers: strata.kafkaBrokers ?? [],
      clientId: 'failed-proposal-reader',
      consumer: { maxWaitTimeMs: 100 },
    });
    const failed = await collectTopic(log, `FailedMetadataChangeProposal_v1.${strata.namespace}`);
    try {
      const run = `failed_${randomUUID().slice(0, 8)}`;
      const good = datasetUrn(`${run}.good`);
      const invalid = datasetUrn(`${run}.invalid`);
      const response = await http.post('/aspects?action=ingestProposalBatch', {
        proposals: [properties(good, 'kept'), invalidProperties(invalid)],
        async: 'true',
      });
      expect(response.status).toBe(200);

      const record = await eventually(() => {
        const found = failed.records.find((candidate) => candidate.key === invalid);
        expect(found).toBeDefined();
        return found!;
      }, WAIT);
      const failure = serde.failedProposal.decode(record.value);
      expect(failure.error).toContain('datasetProperties');
      expect(failure.metadataChangeProposal).toMatchObject({
        entityType: 'dataset',
        entityUrn: invalid,
        changeType: 'UPSERT',
        aspectName: 'datasetProperties',
      });
      expect(record.headers['strata-trace-id']).toBe(traceIdOf(response));
      expect((await http.get(`/aspects/${encoded(good)}?aspect=datasetProperties&version=0`)).status).toBe(200);
      expect(failed.records.filter((candidate) => candidate.key === good)).toEqual([]);
    } finally {
      await failed.stop();
      await log.close();
    }
  }, 120_000);
});
