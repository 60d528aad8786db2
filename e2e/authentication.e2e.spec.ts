/**
 * Authentication as DataHub's clients meet it, with METADATA_SERVICE_AUTH_ENABLED=true: every case of DataHub's
 * authentication smoke test is a 401 in the endpoint's error body; an access token signed with the deployment's key
 * acts as its user, and that user is the `created` actor of what it writes; the system client acts as the system
 * actor; health, docs, /config and the schema registry stay open. Over HTTP only, on the embedded engines and split
 * into processes over Kafka.
 */
import { TokenService } from '@strata/auth';
import {
  datasetUrn,
  startDeployment,
  startKafkaTestBroker,
  TestHttpClient,
  type KafkaTestBroker,
  type RunningDeployment,
} from '@strata/testing';

const UNAUTHORIZED = 'Unauthorized to perform this action.';
const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true' };

let broker: KafkaTestBroker;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

const proposal = (urn: string) => ({
  proposal: {
    entityType: 'dataset',
    entityUrn: urn,
    changeType: 'UPSERT',
    aspectName: 'datasetProperties',
    aspect: {
      value: JSON.stringify({ description: 'written with a token', customProperties: {} }),
      contentType: 'application/json',
    },
  },
});

describe.each(['standalone', 'distributed'] as const)('%s with authentication on', (deployment) => {
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let tokens: TokenService;

  beforeAll(async () => {
    strata = await startDeployment(deployment, {
      kafkaBrokers: broker.brokers,
      env: { METADATA_SERVICE_AUTH_ENABLED: 'true' },
    });
    http = new TestHttpClient(strata.baseUrl);
    tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  const bearer = async (user: string, durationMs: number | undefined = 3_600_000) =>
    `Bearer ${(await tokens.mint(user, 'PERSONAL', durationMs)).token}`;

  it.each([
    ['no header', undefined],
    ['a malformed token', 'Bearer invalid.jwt.token'],
    ['Bearer with nothing', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['a lower-case bearer with junk', 'bearer invalid-token'],
    ['base64 Basic credentials', 'Basic dXNlcjpwYXNz'],
    ['an unknown prefix', 'InvalidPrefix token'],
  ])('refuses %s with 401, in the Rest.li and the OpenAPI error bodies', async (_case, authorization) => {
    const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
    const write = await http.post('/aspects?action=ingestProposal', proposal(datasetUrn('refused')), headers);
    expect(write.status).toBe(401);
    expect(write.json).toMatchObject({ status: 401, message: UNAUTHORIZED });
    const read = await http.get(`/entitiesV2/${encodeURIComponent(datasetUrn('refused'))}`, headers);
    expect(read.status).toBe(401);
    const progress = await http.get('/openapi/operations/indices/progress', headers);
    expect(progress.status).toBe(401);
    expect(progress.json).toEqual({ error: UNAUTHORIZED });
  });

  it('refuses an expired token, one of another key, and the system client with the wrong secret', async () => {
    const expired = await new TokenService({ signingKey: strata.signingKey, now: () => Date.now() - 7_200_000 }).mint(
      'datahub',
      'PERSONAL',
      3_600_000,
    );
    const foreign = await new TokenService({ signingKey: 'another-key-another-key-another-key', now: Date.now }).mint(
      'datahub',
      'PERSONAL',
      3_600_000,
    );
    for (const authorization of [
      `Bearer ${expired.token}`,
      `Bearer ${foreign.token}`,
      'Basic __datahub_system:JohnSnowKnowsNothing',
    ]) {
      const response = await http.post('/aspects?action=ingestProposal', proposal(datasetUrn('refused')), {
        Authorization: authorization,
      });
      expect(response.status).toBe(401);
    }
  });

  it('writes with a token as its user, who becomes the created actor of the value', async () => {
    const urn = datasetUrn(`with_token_${deployment}`);
    const response = await http.post('/aspects?action=ingestProposal', proposal(urn), {
      Authorization: await bearer('jdoe'),
      ...syncIndex,
    });
    expect(response.status).toBe(200);
    const read = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(datasetProperties)`, {
      Authorization: await bearer('datahub'),
    });
    expect(read.status).toBe(200);
    const aspects = (read.json as { aspects: Record<string, { created?: { actor: string } }> }).aspects;
    expect(aspects['datasetProperties']?.created?.actor).toBe('urn:li:corpuser:jdoe');
  });

  it('acts as the system actor for the system client', async () => {
    const urn = datasetUrn(`with_system_client_${deployment}`);
    const system = { Authorization: `Basic __datahub_system:${strata.systemClientSecret}` };
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), system)).status).toBe(200);
    const read = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(datasetProperties)`, system);
    const aspects = (read.json as { aspects: Record<string, { created?: { actor: string } }> }).aspects;
    expect(aspects['datasetProperties']?.created?.actor).toBe('urn:li:corpuser:__datahub_system');
  });

  it('keeps health, /config, the documentation and the schema registry open', async () => {
    expect((await http.get('/health')).status).toBe(200);
    expect((await http.get('/config')).status).toBe(200);
    expect((await http.get('/api/gms/config')).status).toBe(200);
    expect((await http.get('/openapi/v3/api-docs')).status).toBe(200);
    expect((await http.get('/schema-registry/api/subjects')).status).toBe(200);
    expect((await http.get('/config', { Authorization: 'Bearer junk' })).status).toBe(200);
  });
});
