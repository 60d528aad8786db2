/**
 * Malformed and invalid requests, against the standalone process: each gets a clear 4xx in its endpoint family's error
 * body, and nothing is written. (They ran on every deployment before; the refusals are made by the same code on each —
 * e2e/parity.e2e.spec.ts shows a bad request is refused alike on the others.)
 */
import { startDeployment, TestHttpClient, type RunningDeployment, type TestResponse } from '@strata/testing';

let http: TestHttpClient;

const datasetUrn = 'urn:li:dataset:(urn:li:dataPlatform:hive,badinput,PROD)';

function proposal(overrides: Record<string, unknown>, value: unknown = { removed: false }) {
  return {
    proposal: {
      entityType: 'dataset',
      entityUrn: datasetUrn,
      changeType: 'UPSERT',
      aspectName: 'status',
      aspect: { value: typeof value === 'string' ? value : JSON.stringify(value), contentType: 'application/json' },
      ...overrides,
    },
  };
}

/** Asserts DataHub's Rest.li error shape and returns the message. */
function restliError(response: TestResponse, status: number): string {
  expect({ status: response.status, header: response.headers.get('x-restli-error-response') }).toEqual({
    status,
    header: 'true',
  });
  const body = response.json as Record<string, unknown>;
  expect(body).toMatchObject({
    exceptionClass: 'com.linkedin.restli.server.RestLiServiceException',
    status,
    message: expect.any(String),
  });
  return body['message'] as string;
}

async function expectNothingWritten(urn = datasetUrn): Promise<void> {
  const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}`);
  if (response.status === 400) return; // an unreadable URN cannot have been written either
  expect(response.status).toBe(200);
  // Only the key aspect, derived from the URN: nothing was stored.
  expect(Object.keys((response.json as { aspects: object }).aspects)).toHaveLength(1);
  const key = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=${urn.split(':')[2]}Key`);
  expect(key.status).toBe(404);
}

describe('standalone', () => {
  let strata: RunningDeployment;

  beforeAll(async () => {
    strata = await startDeployment('standalone', {
      env: { MAX_BODY_BYTES: String(64 * 1024), INGESTION_MAX_SERIALIZED_STRING_LENGTH: '4096' },
    });
    http = new TestHttpClient(strata.baseUrl);
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  describe('ingestProposal rejects', () => {
    const cases: [string, unknown, number, RegExp][] = [
      ['an unknown entity type', proposal({ entityType: 'spaceship' }), 422, /^Unknown entity: spaceship$/],
      ['an unknown aspect', proposal({ aspectName: 'colour' }), 422, /^Unknown aspect colour for entity dataset$/],
      [
        'a URN of another entity type',
        proposal({ entityUrn: 'urn:li:chart:(looker,x)' }),
        422,
        /URN entity type does not match MCP entity type\. chart != dataset/,
      ],
      [
        'a malformed URN',
        proposal({ entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,unbalanced' }),
        422,
        /Invalid URN/,
      ],
      ['a URN that is not a URN', proposal({ entityUrn: 'not-a-urn' }), 422, /Invalid URN/],
      ['an unsupported change type', proposal({ changeType: 'RESTATE' }), 422, /ChangeType RESTATE not supported/],
      [
        'a PATCH that is not a JSON Patch',
        proposal({ changeType: 'PATCH' }),
        422,
        /Invalid JSON Patch for aspect status/,
      ],
      ['a missing aspect name', proposal({ aspectName: undefined }), 422, /Aspect name is required/],
      ['an aspect value that is not JSON', proposal({}, '{"removed": tru'), 422, /Could not deserialize/],
      [
        'a content type other than JSON',
        proposal({ aspect: { value: '{}', contentType: 'application/xml' } }),
        422,
        /application\/json/,
      ],
      [
        'a field of the wrong type',
        proposal({}, { removed: 'yes' }),
        422,
        /Invalid format for aspect: status[\s\S]*removed/,
      ],
      [
        'a missing required field',
        proposal(
          { aspectName: 'upstreamLineage' },
          { upstreams: [{ type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] },
        ),
        422,
        /upstreams\/0\/dataset/,
      ],
      [
        'a URN field given a URN of the wrong entity type',
        proposal(
          { aspectName: 'upstreamLineage' },
          {
            upstreams: [
              {
                dataset: 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)',
                type: 'TRANSFORMED',
                auditStamp: { time: 0, actor: 'urn:li:corpuser:x' },
              },
            ],
          },
        ),
        422,
        /upstreams\/0\/dataset/,
      ],
      [
        'an enum symbol that does not exist',
        proposal({ aspectName: 'ownership' }, { owners: [{ owner: 'urn:li:corpuser:x', type: 'OVERLORD' }] }),
        422,
        /owners\/0\/type/,
      ],
      [
        'a key aspect that does not fit its schema',
        proposal({ aspectName: 'datasetKey' }, { platform: 'urn:li:dataPlatform:hive', name: 3, origin: 'PROD' }),
        422,
        /Invalid format for aspect: datasetKey/,
      ],
      [
        'a timeseries aspect without timestampMillis',
        proposal({ aspectName: 'datasetProfile' }, { rowCount: 3 }),
        422,
        /timestampMillis/,
      ],
      [
        'a CREATE of a timeseries aspect',
        proposal({ aspectName: 'datasetProfile', changeType: 'CREATE' }, { timestampMillis: 1 }),
        422,
        /not supported for timeseries aspect datasetProfile: expected UPSERT \(or DELETE\)/,
      ],
      [
        'an aspect over the size limit',
        proposal({ aspectName: 'datasetProperties' }, { description: 'x'.repeat(5000) }),
        413,
        /limit/,
      ],
      ['a missing proposal', { notAProposal: true }, 400, /proposal/],
      ['a proposal that is not an object', { proposal: 'nope' }, 400, /proposal/],
      ['an async flag that is not a boolean', { ...proposal({}), async: 'maybe' }, 400, /async/],
    ];

    it.each(cases)('%s', async (_name, body, status, message) => {
      const response = await http.post('/aspects?action=ingestProposal', body);
      expect(restliError(response, status)).toMatch(message);
      await expectNothingWritten();
    });

    it('a rejected write still answers with its request id', async () => {
      const response = await http.post('/aspects?action=ingestProposal', proposal({ aspectName: 'colour' }));
      restliError(response, 422);
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('a body that is not JSON, with a 400', async () => {
      const response = await http.post('/aspects?action=ingestProposal', '{"proposal": {');
      expect(restliError(response, 400)).toMatch(/not valid JSON/);
      await expectNothingWritten();
    });

    it('an empty body, with a 400', async () => {
      const response = await http.send('POST', '/aspects?action=ingestProposal', undefined, {});
      expect(restliError(response, 400)).toMatch(/body/i);
    });

    it('a body over the size limit, with a 413', async () => {
      const response = await http.post(
        '/aspects?action=ingestProposal',
        proposal({}, { removed: false, pad: 'x'.repeat(70 * 1024) }),
      );
      expect(restliError(response, 413)).toMatch(/larger than the limit/);
      await expectNothingWritten();
    });

    it('an unknown action, or none', async () => {
      expect(restliError(await http.post('/aspects?action=ingestSomething', proposal({})), 400)).toMatch(
        /Unknown action 'ingestSomething'/,
      );
      expect(restliError(await http.post('/aspects', proposal({})), 400)).toMatch(/action/);
      await expectNothingWritten();
    });

    it('accepts a JSON body whatever its Content-Type, as Rest.li does', async () => {
      const urn = 'urn:li:tag:FormEncoded';
      const body = JSON.stringify({
        proposal: {
          entityType: 'tag',
          entityUrn: urn,
          changeType: 'UPSERT',
          aspectName: 'tagProperties',
          aspect: { value: '{"name":"f"}', contentType: 'application/json' },
        },
      });
      const response = await http.send('POST', '/aspects?action=ingestProposal', body, {
        'Content-Type': 'application/x-www-form-urlencoded',
      });
      expect(response.status).toBe(200);
    });
  });

  describe('batch and legacy ingest are all or nothing', () => {
    it('rejects a batch with one invalid proposal and writes none of it', async () => {
      const good = proposal({}).proposal;
      const bad = proposal({ aspectName: 'colour' }).proposal;
      const response = await http.post('/aspects?action=ingestProposalBatch', { proposals: [good, bad] });
      expect(restliError(response, 422)).toMatch(/proposals\[1\]: Unknown aspect colour/);
      await expectNothingWritten();
    });

    it('rejects a snapshot with one invalid aspect and writes none of it', async () => {
      const response = await http.post('/entities?action=ingest', {
        entity: {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {
              urn: datasetUrn,
              aspects: [
                { 'com.linkedin.common.Status': { removed: false } },
                { 'com.linkedin.common.Ownership': { owners: [{ owner: 'not a urn', type: 'DATAOWNER' }] } },
              ],
            },
          },
        },
      });
      expect(restliError(response, 422)).toMatch(/owners\/0\/owner/);
      await expectNothingWritten();
    });

    it.each([
      [
        'an unknown snapshot type',
        { value: { 'com.linkedin.metadata.snapshot.SpaceshipSnapshot': { urn: 'urn:li:spaceship:x', aspects: [] } } },
        /Unknown snapshot type/,
      ],
      [
        'an aspect the entity does not have',
        {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {
              urn: datasetUrn,
              aspects: [{ 'com.linkedin.chart.ChartInfo': {} }],
            },
          },
        },
        /Unknown aspect com\.linkedin\.chart\.ChartInfo for entity dataset/,
      ],
      [
        'a snapshot without a URN',
        { value: { 'com.linkedin.metadata.snapshot.DatasetSnapshot': { aspects: [] } } },
        /urn/,
      ],
      [
        'two snapshots at once',
        {
          value: {
            'com.linkedin.metadata.snapshot.DatasetSnapshot': {},
            'com.linkedin.metadata.snapshot.ChartSnapshot': {},
          },
        },
        /exactly one snapshot/,
      ],
      [
        'aspects that are not an array',
        { value: { 'com.linkedin.metadata.snapshot.DatasetSnapshot': { urn: datasetUrn, aspects: {} } } },
        /aspects must be an array/,
      ],
    ])('rejects %s with a 422', async (_name, entity, message) => {
      expect(restliError(await http.post('/entities?action=ingest', { entity }), 422)).toMatch(message);
      await expectNothingWritten();
    });
  });

  describe('hostile input found by the fuzzing of earlier issues', () => {
    it.each([1.5, 1e300, 2 ** 53 + 1, -0.5])(
      'rejects systemMetadata.lastObserved %s, which no Avro long carries, with a 422',
      async (lastObserved) => {
        const body = { proposal: { ...proposal({}).proposal, systemMetadata: { lastObserved } } };
        expect(restliError(await http.post('/aspects?action=ingestProposal', body), 422)).toMatch(
          /systemMetadata\.lastObserved/,
        );
        expect(
          restliError(await http.post('/aspects?action=ingestProposalBatch', { proposals: [body.proposal] }), 422),
        ).toMatch(/lastObserved/);
        await expectNothingWritten();
      },
    );

    it('rejects values nested deeper than 1,000 levels on every write endpoint, naming the limit', async () => {
      const deep = `${'['.repeat(1_500)}${']'.repeat(1_500)}`;
      const text = `{"removed": false, "deep": ${deep}}`;
      const single = await http.post('/aspects?action=ingestProposal', proposal({}, text));
      expect([400, 422]).toContain(single.status);
      expect(restliError(single, single.status)).toMatch(/deeper than the limit of 1000 levels/);
      const legacy = await http.post(
        '/entities?action=ingest',
        `{"entity": {"value": {"com.linkedin.metadata.snapshot.DatasetSnapshot": {"urn": ${JSON.stringify(
          datasetUrn,
        )}, "aspects": [{"com.linkedin.common.Status": {"removed": false, "deep": ${deep}}}]}}}}`,
      );
      expect([400, 422]).toContain(legacy.status);
      expect(restliError(legacy, legacy.status)).toMatch(/deeper than the limit of 1000 levels/);
      await expectNothingWritten();
    });

    it('keeps map keys named __proto__ and constructor, as it keeps any other', async () => {
      const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,protokeys,PROD)';
      // As JSON text: an object literal would treat __proto__ as the prototype, not a key.
      const value = '{"customProperties": {"__proto__": "x", "constructor": "y", "ordinary": "z"}}';
      const write = await http.post(
        '/aspects?action=ingestProposal',
        proposal({ entityUrn: urn, aspectName: 'datasetProperties' }, value),
      );
      expect(write.status).toBe(200);
      const read = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=datasetProperties`);
      const stored = JSON.parse(read.text) as {
        aspect: Record<string, { customProperties: Record<string, string> }>;
      };
      const properties = Object.values(stored.aspect)[0]?.customProperties ?? {};
      expect(Object.keys(properties).sort()).toEqual(['__proto__', 'constructor', 'ordinary']);
      expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toBe('x');
    });

    it('refuses a URN longer than 512 characters URL-encoded on write (422) and on read (400)', async () => {
      const long = `urn:li:dataset:(urn:li:dataPlatform:hive,${'t'.repeat(520)},PROD)`;
      const write = await http.post('/aspects?action=ingestProposal', proposal({ entityUrn: long }));
      expect(restliError(write, 422)).toMatch(/cannot provide an URN longer than 512 bytes \(when URL encoded\)/);
      const read = await http.get(`/entitiesV2/${encodeURIComponent(long)}`);
      expect(restliError(read, 400)).toMatch(/longer than 512/);
    });

    it('reports a bad id of a batch get for that id, answering the good ones', async () => {
      const good = encodeURIComponent(datasetUrn);
      const bad = 'urn:li:dataset:(urn:li:dataPlatform:hive,,PROD)';
      const response = await http.get(`/entitiesV2?ids=List(${good},${encodeURIComponent(bad)})`);
      expect(response.status).toBe(200);
      const body = response.json as {
        results: Record<string, unknown>;
        errors: Record<string, Record<string, unknown>>;
      };
      expect(Object.keys(body.results)).toEqual([datasetUrn]);
      expect(body.errors[bad]).toMatchObject({
        status: 400,
        exceptionClass: 'com.linkedin.restli.server.RestLiServiceException',
        message: expect.stringMatching(/Invalid URN/),
      });
    });

    it('answers search text with hundreds of operators, and filters of a thousand criteria, with a 400', async () => {
      const criteria = Array.from({ length: 1_000 }, (_unused, index) => ({ field: 'origin', values: [`X${index}`] }));
      const filter = { or: [{ and: criteria }] };
      const requests: [string, unknown][] = [
        ['search', { input: '-a '.repeat(400), entity: 'dataset', start: 0, count: 10 }],
        ['search', { input: 'NOT a '.repeat(300), entity: 'dataset', start: 0, count: 10 }],
        ['search', { input: `${'('.repeat(2_000)}a${')'.repeat(2_000)}`, entity: 'dataset', start: 0, count: 10 }],
        ['search', { input: '*', entity: 'dataset', start: 0, count: 10, filter }],
        ['browse', { path: '/', entity: 'dataset', start: 0, limit: 10, filter }],
        ['autocomplete', { query: 'a', entity: 'dataset', limit: 10, filter }],
      ];
      for (const [action, body] of requests) {
        const response = await http.post(`/entities?action=${action}`, body);
        expect({ action, status: response.status }).toEqual({ action, status: 400 });
        expect(restliError(response, 400)).toMatch(/limit|longer than|Invalid search text/);
      }
    });

    it('says which proposals of a refused batch were applied, and why each other one was refused', async () => {
      const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,halfbatch,PROD)';
      expect((await http.post('/aspects?action=ingestProposal', proposal({ entityUrn: urn }))).status).toBe(200);
      const applied = proposal({ entityUrn: urn, aspectName: 'datasetProperties' }, { description: 'kept' }).proposal;
      const refused = proposal({ entityUrn: urn, changeType: 'CREATE' }).proposal;
      const response = await http.post('/aspects?action=ingestProposalBatch', { proposals: [applied, refused] });
      const message = restliError(response, 422);
      expect(message).toMatch(/^1 of 2 proposals were refused; the other 1 was applied/);
      expect(message).toMatch(/proposals\[0\]: applied, version 1/);
      expect(message).toMatch(/proposals\[1\]: refused: .*already exists/);
      expect((response.json as { errorDetails: unknown }).errorDetails).toEqual({
        outcomes: [
          { index: 0, entityUrn: urn, aspectName: 'datasetProperties', status: 'APPLIED', version: 1 },
          {
            index: 1,
            entityUrn: urn,
            aspectName: 'status',
            status: 'REJECTED',
            error: expect.stringMatching(/exists/),
          },
        ],
      });
      const read = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=datasetProperties`);
      expect(read.status).toBe(200);
    });
  });

  describe('reads reject', () => {
    const encoded = encodeURIComponent(datasetUrn);

    it.each([
      ['a malformed URN', `/entitiesV2/${encodeURIComponent('urn:li:dataset:(')}`, 400, /Invalid URN/],
      ['an unknown entity type', '/entities/urn:li:spaceship:enterprise', 400, /Unknown entity type spaceship/],
      [
        'an unknown aspect in the list',
        `/entitiesV2/${encoded}?aspects=List(colour)`,
        400,
        /Unknown aspect colour for entity dataset/,
      ],
      ['a missing aspect parameter', `/aspects/${encoded}`, 400, /aspect/],
      ['a version that is not a whole number', `/aspects/${encoded}?aspect=status&version=1.5`, 400, /version/],
      ['a version that is not a number', `/aspects/${encoded}?aspect=status&version=latest`, 400, /version/],
      ['a timeseries aspect as a version', `/aspects/${encoded}?aspect=datasetProfile`, 400, /timeseries/],
      ['a bad percent-escape in the URN', '/entities/urn%ZZli', 400, /escape|URN/i],
      [
        'an aspect version that does not exist',
        `/aspects/${encoded}?aspect=status&version=7`,
        404,
        /No version 7 of aspect status/,
      ],
      ['an unknown path', '/spaceships', 404, /No root resource defined for path '\/spaceships'/],
    ])('%s', async (_name, path, status, message) => {
      expect(restliError(await http.get(path), status)).toMatch(message);
    });

    it('a URL over the size limit, with a 431 in the family’s error body rather than a bare status', async () => {
      const restli = await http.get(`/entitiesV2/${encodeURIComponent(`urn:li:corpuser:${'x'.repeat(20_000)}`)}`);
      expect(restliError(restli, 431)).toMatch(/larger than the limit/);
      const openapi = await http.get(`/openapi/operations/indices/progress?${'x'.repeat(20_000)}`);
      expect(openapi.status).toBe(431);
      expect(openapi.json).toEqual({ error: expect.stringMatching(/larger than the limit/) });
    });

    it('a method the resource does not support, with a 405', async () => {
      const response = await http.send('DELETE', '/aspects?action=ingestProposal', undefined, {});
      expect(restliError(response, 405)).toMatch(/POST/);
      expect(response.headers.get('allow')).toBe('POST');
    });

    it('answers the OpenAPI family with its own error body', async () => {
      const response = await http.get('/openapi/v1/nothing-here');
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: expect.stringContaining('/openapi/v1/nothing-here') });
    });
  });
});
