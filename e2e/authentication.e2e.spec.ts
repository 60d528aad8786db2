/**
 * Authentication as DataHub's clients meet it, with METADATA_SERVICE_AUTH_ENABLED=true: every case of DataHub's
 * authentication smoke test is a 401 in the endpoint's error body; an access token signed with the deployment's key
 * acts as its user, and that user is the `created` actor of what it writes; the system client acts as the system
 * actor; health, docs, /config and the schema registry stay open. Over HTTP only, on the standalone process. (They ran
 * on the distributed deployment too; there, e2e/access.e2e.spec.ts walks every route with and without credentials, and
 * shows no service behind the gateway answers anyone but the system client, and e2e/parity.e2e.spec.ts writes and
 * reads with tokens.)
 */
import { randomBytes } from 'node:crypto';
import { TokenService } from '@strata/auth';
import {
  authorizationHeaders,
  REFUSED_CREDENTIALS,
  datasetUrn,
  startDeployment,
  TestHttpClient,
  type RunningDeployment,
} from '@strata/testing';

const UNAUTHORIZED = 'Unauthorized to perform this action.';
const syncIndex = { 'X-DataHub-Sync-Index-Update': 'true' };

/** An ingestProposal body writing `value` as `aspectName` of `urn`. */
const write = (urn: string, aspectName: string, value: unknown) => ({
  proposal: {
    entityType: /^urn:li:([^:]+):/.exec(urn)?.[1],
    entityUrn: urn,
    changeType: 'UPSERT',
    aspectName,
    aspect: { value: JSON.stringify(value), contentType: 'application/json' },
  },
});
const proposal = (urn: string) =>
  write(urn, 'datasetProperties', { description: 'written with a token', customProperties: {} });
const stamp = { time: 0, actor: 'urn:li:corpuser:datahub' };

/** A METADATA policy granting `privileges` to `users`, active. */
const policyOf = (users: string[], privileges: string[], state = 'ACTIVE') => ({
  displayName: `e2e ${privileges.join(' ')}`,
  description: 'written by the authentication tests',
  type: 'METADATA',
  state,
  privileges,
  actors: { users },
});

describe('standalone with authentication on', () => {
  const deployment = 'standalone';
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let tokens: TokenService;

  beforeAll(async () => {
    // A password of its own: the default one ('datahub') is in every line naming root, and says nothing of leaks.
    strata = await startDeployment(deployment, {
      env: { METADATA_SERVICE_AUTH_ENABLED: 'true', STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url') },
    });
    http = new TestHttpClient(strata.baseUrl);
    tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    // A user to act as: a token's user must exist (the root user does from the start).
    const jdoe = await http.post(
      '/aspects?action=ingestProposal',
      write('urn:li:corpuser:jdoe', 'corpUserInfo', { active: true }),
      system(),
    );
    expect(jdoe.status).toBe(200);
    // The users the tests write as may edit datasets (the policy tests below use a user without this).
    const editors = await http.post(
      '/aspects?action=ingestProposal',
      write('urn:li:dataHubPolicy:e2e-editors', 'dataHubPolicyInfo', {
        ...policyOf(['urn:li:corpuser:jdoe', 'urn:li:corpuser:ann'], ['EDIT_ENTITY']),
        resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'EQUALS' }] } },
      }),
      system(),
    );
    expect(editors.status).toBe(200);
  });

  const system = () => ({ Authorization: `Basic __datahub_system:${strata.systemClientSecret}` });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  /** Every secret the tests handle: none may show in a log line or an answer (the last test checks). */
  const secrets: string[] = [];
  const bearer = async (user: string) => {
    const { token } = await tokens.mint(user, 'SESSION', 3_600_000);
    secrets.push(token);
    return `Bearer ${token}`;
  };

  it.each(REFUSED_CREDENTIALS)(
    'refuses %s with 401, in the Rest.li and the OpenAPI error bodies',
    async (_case, authorization) => {
      const headers = authorizationHeaders(authorization);
      const write = await http.post('/aspects?action=ingestProposal', proposal(datasetUrn('refused')), headers);
      expect(write.status).toBe(401);
      expect(write.json).toMatchObject({ status: 401, message: UNAUTHORIZED });
      const read = await http.get(`/entitiesV2/${encodeURIComponent(datasetUrn('refused'))}`, headers);
      expect(read.status).toBe(401);
      const progress = await http.get('/openapi/operations/indices/progress', headers);
      expect(progress.status).toBe(401);
      expect(progress.json).toEqual({ error: UNAUTHORIZED });
    },
  );

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
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), system())).status).toBe(200);
    const read = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(datasetProperties)`, system());
    const aspects = (read.json as { aspects: Record<string, { created?: { actor: string } }> }).aspects;
    expect(aspects['datasetProperties']?.created?.actor).toBe('urn:li:corpuser:__datahub_system');
  });

  it('accepts a personal token while its entity exists, and refuses it as soon as the revoking delete is answered', async () => {
    const { token, claims } = await tokens.mint('jdoe', 'PERSONAL', 3_600_000);
    secrets.push(token);
    const tokenUrn = `urn:li:dataHubAccessToken:${claims.jti}`;
    const auth = { Authorization: `Bearer ${token}` };
    const urn = datasetUrn(`personal_${deployment}`);
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(401); // not stored
    const info = {
      name: 'ingestion',
      actorUrn: 'urn:li:corpuser:jdoe',
      ownerUrn: 'urn:li:corpuser:jdoe',
      createdAt: Date.now(),
      expiresAt: (claims.exp ?? 0) * 1000,
    };
    expect(
      (await http.post('/aspects?action=ingestProposal', write(tokenUrn, 'dataHubAccessTokenInfo', info), system()))
        .status,
    ).toBe(200);
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(200);

    expect((await http.post('/entities?action=delete', { urn: tokenUrn }, system())).status).toBe(200);
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(401);
  });

  it('refuses the tokens of a suspended or soft-deleted user at once, and takes them again when reinstated', async () => {
    const ann = 'urn:li:corpuser:ann';
    const set = async (aspectName: string, value: unknown) => {
      const response = await http.post('/aspects?action=ingestProposal', write(ann, aspectName, value), system());
      expect(response.status).toBe(200);
    };
    await set('corpUserInfo', { active: true });
    const auth = { Authorization: await bearer('ann') };
    const urn = datasetUrn(`suspended_${deployment}`);
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(200);

    await set('corpUserStatus', { status: 'SUSPENDED', lastModified: stamp });
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(401);
    await set('corpUserStatus', { status: 'ACTIVE', lastModified: stamp });
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(200);
    await set('status', { removed: true });
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), auth)).status).toBe(401);
    // A user nobody created is nobody.
    const ghost = { Authorization: await bearer('ghost') };
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), ghost)).status).toBe(401);
  });

  it('makes, lists and revokes personal tokens through the token API, each user its own, an admin anyone’s', async () => {
    const jdoe = { Authorization: await bearer('jdoe') };
    const root = { Authorization: await bearer('datahub') };
    const made = await http.post('/openapi/v1/tokens', { name: 'ingestion', duration: 'ONE_HOUR' }, jdoe);
    expect(made.status).toBe(200);
    const { accessToken, metadata } = made.json as { accessToken: string; metadata: Record<string, unknown> };
    secrets.push(accessToken);
    expect(metadata).toEqual({
      id: expect.any(String) as unknown,
      name: 'ingestion',
      actorUrn: 'urn:li:corpuser:jdoe',
      ownerUrn: 'urn:li:corpuser:jdoe',
      createdAt: expect.any(Number) as unknown,
      expiresAt: (metadata['createdAt'] as number) + 3_600_000,
    });
    const personal = { Authorization: `Bearer ${accessToken}` };
    const urn = datasetUrn(`token_api_${deployment}`);
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), personal)).status).toBe(200);

    const mine = await http.get('/openapi/v1/tokens', jdoe);
    expect(mine.status).toBe(200);
    expect((mine.json as { tokens: { id: string }[] }).tokens.map((token) => token.id)).toContain(metadata['id']);
    const othersOwn = await http.get(`/openapi/v1/tokens?actorUrn=${encodeURIComponent('urn:li:corpuser:jdoe')}`, root);
    expect((othersOwn.json as { tokens: { id: string }[] }).tokens.map((token) => token.id)).toContain(metadata['id']);

    // Not for someone else, unless one may manage everyone's tokens.
    const forRoot = await http.post(
      '/openapi/v1/tokens',
      { name: 'x', duration: 'ONE_DAY', actorUrn: 'urn:li:corpuser:datahub' },
      jdoe,
    );
    expect(forRoot.status).toBe(403);
    expect(forRoot.json).toEqual({
      error: 'Unauthorized to perform this action. Please contact your DataHub administrator.',
    });
    expect(
      (await http.get(`/openapi/v1/tokens?actorUrn=${encodeURIComponent('urn:li:corpuser:datahub')}`, jdoe)).status,
    ).toBe(403);
    const forJdoe = await http.post(
      '/openapi/v1/tokens',
      { name: 'by root', duration: 'NO_EXPIRY', actorUrn: 'urn:li:corpuser:jdoe' },
      root,
    );
    expect(forJdoe.status).toBe(200);
    expect((forJdoe.json as { metadata: Record<string, unknown> }).metadata).toMatchObject({
      actorUrn: 'urn:li:corpuser:jdoe',
      ownerUrn: 'urn:li:corpuser:datahub',
      expiresAt: null,
    });
    expect((await http.post('/openapi/v1/tokens', { name: 'x', duration: 'FOREVER' }, jdoe)).status).toBe(400);
    expect((await http.post('/openapi/v1/tokens', { name: 'x', duration: 'ONE_DAY' })).status).toBe(401);

    // Revoked by its maker; refused at once; gone.
    const id = metadata['id'] as string;
    const kim = 'urn:li:corpuser:kim';
    expect(
      (await http.post('/aspects?action=ingestProposal', write(kim, 'corpUserInfo', { active: true }), system()))
        .status,
    ).toBe(200);
    expect(
      (await http.send('DELETE', `/openapi/v1/tokens/${id}`, undefined, { Authorization: await bearer('kim') })).status,
    ).toBe(403);
    expect((await http.send('DELETE', `/openapi/v1/tokens/${id}`, undefined, jdoe)).status).toBe(204);
    expect((await http.post('/aspects?action=ingestProposal', proposal(urn), personal)).status).toBe(401);
    expect((await http.send('DELETE', `/openapi/v1/tokens/${id}`, undefined, jdoe)).status).toBe(404);
  });

  it('logs the root user in with its password, and a user whose password an administrator set', async () => {
    const login = await http.post('/logIn', { username: 'datahub', password: strata.rootPassword });
    expect(login.status).toBe(200);
    const { accessToken } = login.json as { accessToken: string };
    secrets.push(accessToken);
    const root = { Authorization: `Bearer ${accessToken}` };
    expect(
      (await http.post('/aspects?action=ingestProposal', proposal(datasetUrn(`login_${deployment}`)), root)).status,
    ).toBe(200);

    for (const refused of [
      { username: 'datahub', password: `${strata.rootPassword}x` },
      { username: 'nobody', password: 'whatever1' },
      { username: 'jdoe', password: 'no password set yet' },
    ]) {
      const response = await http.post('/logIn', refused);
      expect(response.status).toBe(401);
      expect(response.json).toEqual({ error: 'Invalid Credentials' });
    }
    expect((await http.post('/logIn', { username: '', password: 'x' })).status).toBe(400);

    const set = (headers: Record<string, string>, password = 'a long passphrase') =>
      http.post('/openapi/v1/users/credentials', { userUrn: 'urn:li:corpuser:jdoe', password }, headers);
    expect((await set({ Authorization: await bearer('jdoe') })).status).toBe(403);
    expect((await set(root, 'short')).status).toBe(400);
    expect((await set({})).status).toBe(401);
    expect((await set(root)).status).toBe(204);
    const jdoe = await http.post('/logIn', { username: 'jdoe', password: 'a long passphrase' });
    expect(jdoe.status).toBe(200);
    const read = await http.get(`/entitiesV2/${encodeURIComponent('urn:li:corpuser:jdoe')}`, root);
    expect(JSON.stringify(read.json)).not.toContain('scrypt');
  });

  it('decides reads and writes of metadata by the policies, and a policy change holds from the next request', async () => {
    const lee = 'urn:li:corpuser:lee';
    expect(
      (await http.post('/aspects?action=ingestProposal', write(lee, 'corpUserInfo', { active: true }), system()))
        .status,
    ).toBe(200);
    const asLee = { Authorization: await bearer('lee') };
    const mine = datasetUrn(`owned_by_lee_${deployment}`);
    const theirs = datasetUrn(`not_lees_${deployment}`);
    expect((await http.post('/aspects?action=ingestProposal', proposal(theirs), system())).status).toBe(200);

    // Every user reads and searches (the default policies); nobody edits what is not theirs.
    expect((await http.get(`/entitiesV2/${encodeURIComponent(theirs)}`, asLee)).status).toBe(200);
    expect(
      (await http.post('/entities?action=search', { input: '*', entity: 'dataset', start: 0, count: 1 }, asLee)).status,
    ).toBe(200);
    const refused = await http.post('/aspects?action=ingestProposal', proposal(theirs), asLee);
    expect(refused.status).toBe(403);
    expect((refused.json as { message: string }).message).toBe(
      `User ${lee} is unauthorized to modify entity: HttpStatus: 403 Urn: ${theirs}`,
    );
    // An owner edits what it owns (DataHub's asset owners policy).
    const ownership = { owners: [{ owner: lee, type: 'DATAOWNER' }], lastModified: stamp };
    expect(
      (await http.post('/aspects?action=ingestProposal', write(mine, 'ownership', ownership), system())).status,
    ).toBe(200);
    expect((await http.post('/aspects?action=ingestProposal', proposal(mine), asLee)).status).toBe(200);
    expect((await http.post('/entities?action=delete', { urn: mine }, asLee)).status).toBe(403);

    // A policy granting it holds from the next request, and so does its deactivation.
    const grant = (state: string) =>
      http.post(
        '/aspects?action=ingestProposal',
        write('urn:li:dataHubPolicy:e2e-lee', 'dataHubPolicyInfo', policyOf([lee], ['EDIT_ENTITY'], state)),
        system(),
      );
    expect((await grant('ACTIVE')).status).toBe(200);
    expect((await http.post('/aspects?action=ingestProposal', proposal(theirs), asLee)).status).toBe(200);
    expect((await grant('INACTIVE')).status).toBe(200);
    expect((await http.post('/aspects?action=ingestProposal', proposal(theirs), asLee)).status).toBe(403);

    // Take reading away from all users: reads and searches are refused, with DataHub's messages.
    const viewAll = 'urn:li:dataHubPolicy:view-entity-page-all';
    const read = await http.get(`/entitiesV2/${encodeURIComponent(viewAll)}?aspects=List(dataHubPolicyInfo)`, system());
    const info = (read.json as { aspects: { dataHubPolicyInfo: { value: Record<string, unknown> } } }).aspects
      .dataHubPolicyInfo.value;
    const setViewAll = (state: string) =>
      http.post('/aspects?action=ingestProposal', write(viewAll, 'dataHubPolicyInfo', { ...info, state }), system());
    expect((await setViewAll('INACTIVE')).status).toBe(200);
    try {
      const entity = await http.get(`/entitiesV2/${encodeURIComponent(theirs)}`, asLee);
      expect(entity.status).toBe(403);
      expect((entity.json as { message: string }).message).toBe(`User is unauthorized to get entity ${theirs}`);
      const search = await http.post(
        '/entities?action=search',
        { input: '*', entity: 'dataset', start: 0, count: 1 },
        asLee,
      );
      expect(search.status).toBe(403);
      expect((search.json as { message: string }).message).toBe('User is unauthorized to search.');
      expect(
        (await http.get(`/relationships?urn=${encodeURIComponent(theirs)}&direction=INCOMING`, asLee)).status,
      ).toBe(403);
      // Reading oneself stays (DataHub's "view self"); root still reads everything.
      expect((await http.get(`/entitiesV2/${encodeURIComponent(lee)}`, asLee)).status).toBe(200);
      expect(
        (await http.get(`/entitiesV2/${encodeURIComponent(theirs)}`, { Authorization: await bearer('datahub') }))
          .status,
      ).toBe(200);
    } finally {
      expect((await setViewAll('ACTIVE')).status).toBe(200);
    }
    expect((await http.get(`/entitiesV2/${encodeURIComponent(theirs)}`, asLee)).status).toBe(200);
    expect((await http.get('/openapi/operations/indices/progress', asLee)).status).toBe(403);
  });

  it('keeps health, /config, the documentation and the schema registry open', async () => {
    expect((await http.get('/health')).status).toBe(200);
    expect((await http.get('/config')).status).toBe(200);
    expect((await http.get('/api/gms/config')).status).toBe(200);
    expect((await http.get('/openapi/v3/api-docs')).status).toBe(200);
    expect((await http.get('/schema-registry/api/subjects')).status).toBe(200);
    expect((await http.get('/config', { Authorization: 'Bearer junk' })).status).toBe(200);
  });
  it('never writes a secret or a password into a log line', () => {
    const logs = Object.values(strata.processes)
      .map((process) => process.output())
      .join('\n');
    expect(logs).toContain('refused a request without valid credentials'); // the refusals above were logged
    for (const secret of [
      strata.signingKey,
      strata.systemClientSecret,
      strata.rootPassword,
      'a long passphrase',
      'scrypt$',
      ...secrets,
    ]) {
      expect(logs).not.toContain(secret);
    }
  });
});
