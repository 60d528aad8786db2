/**
 * DataHub's `setWritable`: writes switched off for a maintenance window, on the standalone process and on a gateway in
 * front of the services over Kafka, authentication on. Each deployment is this suite's own: switching writes off
 * would fail whatever else wrote to a shared one.
 */
import { randomBytes } from 'node:crypto';
import { TokenService } from '@strata/auth';
import {
  datasetUrn,
  proposalOf,
  startDeployment,
  startKafkaTestBroker,
  TestHttpClient,
  type KafkaTestBroker,
  type RunningDeployment,
} from '@strata/testing';

const SWITCHED_OFF = /^Writes are switched off \(POST \/entities\?action=setWritable \{"value": false\}\)/;

let broker: KafkaTestBroker;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

describe.each([
  ['standalone', 'strata'],
  ['distributed', 'gateway'],
] as const)('%s', (deployment, front) => {
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let root: Record<string, string>;
  let analyst: Record<string, string>;
  const table = datasetUrn(`switched_${deployment}`);
  const ingest = (description: string, extra: Record<string, unknown> = {}) =>
    http.post(
      '/aspects?action=ingestProposal',
      { proposal: proposalOf(table, 'datasetProperties', { description, customProperties: {} }), ...extra },
      root,
    );
  const setWritable = (value: unknown, headers = root) =>
    http.post('/entities?action=setWritable', value === undefined ? {} : { value }, headers);
  const description = async () =>
    (
      (await http.get(`/aspects/${encodeURIComponent(table)}?aspect=datasetProperties&version=0`, root)).json as {
        aspect: Record<string, { description: string }>;
      }
    ).aspect['com.linkedin.dataset.DatasetProperties']?.description;

  beforeAll(async () => {
    strata = await startDeployment(deployment, {
      kafkaBrokers: broker.brokers,
      env: { METADATA_SERVICE_AUTH_ENABLED: 'true', STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url') },
    });
    http = new TestHttpClient(strata.baseUrl);
    const tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    root = { Authorization: `Bearer ${(await tokens.mint('datahub', 'SESSION', 3_600_000)).token}` };
    analyst = { Authorization: `Bearer ${(await tokens.mint('analyst', 'SESSION', 3_600_000)).token}` };
    const user = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: proposalOf('urn:li:corpuser:analyst', 'corpUserInfo', { active: true }) },
      root,
    );
    expect(user.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it('refuses every write with a 503 while writes are off, keeps answering reads, and takes writes again after', async () => {
    expect((await ingest('before the window')).status).toBe(200);

    // Only a holder of DataHub's privilege may turn the switch.
    const refused = await setWritable(false, analyst);
    expect({ status: refused.status, body: refused.json }).toMatchObject({
      status: 403,
      body: { message: 'User is unauthorized to enable and disable write mode.' },
    });
    expect((await ingest('still writable')).status).toBe(200);

    // A value that is no boolean is a 400 in Rest.li's body, and switches nothing.
    const bad = await setWritable('maybe');
    expect({ status: bad.status, header: bad.headers.get('x-restli-error-response') }).toEqual({
      status: 400,
      header: 'true',
    });
    expect((await ingest('still writable')).status).toBe(200);

    expect((await setWritable(false)).status).toBe(200);
    for (const response of [
      await ingest('during the window'),
      await ingest('during the window, async', { async: 'true' }),
    ]) {
      expect({ status: response.status, header: response.headers.get('x-restli-error-response') }).toEqual({
        status: 503,
        header: 'true',
      });
      expect((response.json as { message: string }).message).toMatch(SWITCHED_OFF);
    }
    const openapi = await http.post(
      `/openapi/v3/entity/dataset?async=false`,
      [{ urn: table, datasetProperties: { value: { description: 'during the window, OpenAPI' } } }],
      root,
    );
    expect(openapi.status).toBe(503);
    expect(JSON.stringify(openapi.json)).toMatch(/Writes are switched off/);
    // Reads go on, and show what was written before.
    expect(await description()).toBe('still writable');

    // The switch holds across a restart of the process that serves writes.
    await strata.processes[front]?.stop();
    await strata.restart(front);
    expect((await ingest('after a restart, during the window')).status).toBe(503);

    expect((await setWritable(undefined)).status).toBe(200);
    expect((await ingest('after the window')).status).toBe(200);
    expect(await description()).toBe('after the window');
  });
});
