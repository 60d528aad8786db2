/**
 * The audit trail as an administrator reads it through `POST /openapi/v1/events/audit/search`: logins and failed
 * logins, tokens made and revoked, every entity change with the actor of the request that made it and where the
 * request came from; only for callers holding the privilege; and a scroll that returns each event once while writes
 * go on. Over HTTP only, with authentication on, on the standalone process. (They ran split into processes over Kafka
 * too; there, e2e/parity.e2e.spec.ts shows changes and logins reaching the audit service's trail.)
 */
import { randomBytes } from 'node:crypto';
import { TokenService } from '@strata/auth';
import {
  authorizationHeaders,
  REFUSED_CREDENTIALS,
  datasetUrn,
  eventually,
  proposalOf,
  scaled,
  startDeployment,
  TestHttpClient,
  type RunningDeployment,
} from '@strata/testing';

const SEARCH = '/openapi/v1/events/audit/search';
const UNAUTHORIZED = 'Unauthorized to perform this action.';

interface UsageEvent {
  readonly eventType: string;
  readonly timestamp: number;
  readonly actorUrn: string;
  readonly entityUrn?: string;
  readonly entityType?: string;
  readonly aspectName?: string;
  readonly loginSource?: string;
  readonly sourceIP: string | null;
  readonly eventSource: string | null;
  readonly userAgent: string | null;
  readonly telemetryTraceId: string | null;
  readonly rawUsageEvent?: Record<string, unknown>;
}

interface SearchAnswer {
  readonly nextScrollId: string | null;
  readonly count: number;
  readonly total: number;
  readonly usageEvents: UsageEvent[];
}

/** How many events the scroll goes through, and the page size (STRATA_TEST_SCALE=large: 2,500 in pages of 100). */
const SCROLLED = scaled(500, 2_500);
const PAGE = scaled(40, 100);

describe('standalone: the audit trail', () => {
  const deployment = 'standalone';
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let tokens: TokenService;
  /** Every secret the tests handle: none may show in a log line, an answer or an event. */
  const secrets: string[] = [];

  const system = () => ({ Authorization: `Basic __datahub_system:${strata.systemClientSecret}` });
  const bearer = async (user: string) => {
    const { token } = await tokens.mint(user, 'SESSION', 3_600_000);
    secrets.push(token);
    return { Authorization: `Bearer ${token}` };
  };
  const ingest = async (proposal: unknown, headers: Record<string, string>) => {
    const response = await http.post('/aspects?action=ingestProposal', { proposal }, headers);
    expect(response.status).toBe(200);
  };
  /** One page of the audit search, as root. */
  const search = async (body: unknown, query = '', headers?: Record<string, string>): Promise<SearchAnswer> => {
    const response = await http.post(`${SEARCH}${query}`, body, headers ?? (await bearer('datahub')));
    expect(response.status).toBe(200);
    return response.json as SearchAnswer;
  };
  /** Waits until the search finds `count` events (the trail is written after the change is answered). */
  const awaitEvents = (body: unknown, count: number, query = '') =>
    eventually(
      async () => {
        const answer = await search(body, query);
        expect(answer.total).toBe(count);
        return answer;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

  beforeAll(async () => {
    strata = await startDeployment(deployment, {
      env: { METADATA_SERVICE_AUTH_ENABLED: 'true', STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url') },
    });
    http = new TestHttpClient(strata.baseUrl);
    tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    for (const user of ['jdoe', 'auditor', 'scroller']) {
      await ingest(proposalOf(`urn:li:corpuser:${user}`, 'corpUserInfo', { active: true }), system());
    }
    // jdoe may edit datasets.
    await ingest(
      proposalOf('urn:li:dataHubPolicy:audit-e2e-editors', 'dataHubPolicyInfo', {
        displayName: 'e2e editors',
        description: 'written by the audit tests',
        type: 'METADATA',
        state: 'ACTIVE',
        privileges: ['EDIT_ENTITY'],
        actors: { users: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:scroller'] },
        resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'EQUALS' }] } },
      }),
      system(),
    );
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it.each(REFUSED_CREDENTIALS)(
    'refuses %s with 401 on the audit search, the token API and a write of a policy',
    async (_case, authorization) => {
      const headers = authorizationHeaders(authorization);
      const audit = await http.post(SEARCH, {}, headers);
      expect(audit.status).toBe(401);
      expect(audit.json).toEqual({ error: UNAUTHORIZED });
      const token = await http.post('/openapi/v1/tokens', { name: 'x', duration: 'ONE_DAY' }, headers);
      expect(token.status).toBe(401);
      expect(token.json).toEqual({ error: UNAUTHORIZED });
      const policy = await http.post(
        '/aspects?action=ingestProposal',
        { proposal: proposalOf('urn:li:dataHubPolicy:x', 'dataHubPolicyInfo', { displayName: 'x' }) },
        headers,
      );
      expect(policy.status).toBe(401);
      expect(policy.json).toMatchObject({ status: 401, message: UNAUTHORIZED });
    },
  );

  it('records logins and failed logins with their login source, the reason of a refusal, and never the password', async () => {
    const agent = { 'User-Agent': `audit-e2e-login/${deployment}` };
    const kept = await http.post('/logIn', { username: 'datahub', password: strata.rootPassword }, agent);
    expect(kept.status).toBe(200);
    secrets.push((kept.json as { accessToken: string }).accessToken);
    const wrong = `${strata.rootPassword}-wrong`;
    expect((await http.post('/logIn', { username: 'datahub', password: wrong }, agent)).status).toBe(401);
    expect((await http.post('/logIn', { username: 'ghost', password: 'whatever1' }, agent)).status).toBe(401);

    const filter = { eventTypes: ['LogInEvent', 'FailedLogInEvent'], actorUrns: ['urn:li:corpuser:datahub'] };
    const answer = await awaitEvents(filter, 2);
    const [failed, login] = answer.usageEvents;
    expect(login).toMatchObject({
      eventType: 'LogInEvent',
      actorUrn: 'urn:li:corpuser:datahub',
      loginSource: 'PASSWORD_LOGIN',
      eventSource: 'RESTLI',
      userAgent: `audit-e2e-login/${deployment}`,
    });
    expect(login?.sourceIP).toEqual(expect.stringContaining('127.0.0.1'));
    expect(failed).toMatchObject({ eventType: 'FailedLogInEvent', loginSource: 'PASSWORD_LOGIN' });
    expect(failed?.rawUsageEvent).toMatchObject({
      type: 'FailedLogInEvent',
      loginSource: 'passwordLogin',
      loginDenialReason: 'INVALID_CREDENTIALS',
      usageSource: 'backend',
    });
    expect(failed?.entityUrn).toBeUndefined();
    expect(JSON.stringify(answer)).not.toContain(wrong);

    const ghost = await awaitEvents({ eventTypes: ['FailedLogInEvent'], actorUrns: ['urn:li:corpuser:ghost'] }, 1);
    expect(ghost.usageEvents[0]?.rawUsageEvent?.['loginDenialReason']).toBe('HARD_DELETED');
  });

  it('records the making and revoking of a token with the actor who did it', async () => {
    const jdoe = await bearer('jdoe');
    const made = await http.post('/openapi/v1/tokens', { name: 'audited', duration: 'ONE_HOUR' }, jdoe);
    expect(made.status).toBe(200);
    const { accessToken, metadata } = made.json as { accessToken: string; metadata: { id: string } };
    secrets.push(accessToken);
    expect((await http.send('DELETE', `/openapi/v1/tokens/${metadata.id}`, undefined, jdoe)).status).toBe(204);
    // Refused at once.
    const refused = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: proposalOf(datasetUrn('after_revoke'), 'status', { removed: false }) },
      { Authorization: `Bearer ${accessToken}` },
    );
    expect(refused.status).toBe(401);

    const tokenUrn = `urn:li:dataHubAccessToken:${metadata.id}`;
    const answer = await awaitEvents(
      { eventTypes: ['CreateAccessTokenEvent', 'RevokeAccessTokenEvent'], actorUrns: ['urn:li:corpuser:jdoe'] },
      2,
    );
    expect(answer.usageEvents.map((event) => [event.eventType, event.entityUrn, event.aspectName])).toEqual([
      ['RevokeAccessTokenEvent', tokenUrn, 'dataHubAccessTokenKey'],
      ['CreateAccessTokenEvent', tokenUrn, 'dataHubAccessTokenKey'],
    ]);
    for (const event of answer.usageEvents) {
      expect(event).toMatchObject({ actorUrn: 'urn:li:corpuser:jdoe', entityType: 'dataHubAccessToken' });
      expect(event.eventSource).toBe('OPENAPI');
    }
  });

  it("records an entity change with its token's actor, as the stored value's created actor", async () => {
    const urn = datasetUrn(`audited_${deployment}`);
    const headers = {
      ...(await bearer('jdoe')),
      'User-Agent': 'acryl-datahub/0.15.0',
      traceparent: `00-${'a1'.repeat(16)}-${'b2'.repeat(8)}-01`,
    };
    await ingest(proposalOf(urn, 'datasetProperties', { description: 'audited', customProperties: {} }), headers);

    const stored = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(datasetProperties)`, system());
    expect(stored.status).toBe(200);
    const aspects = (stored.json as { aspects: Record<string, { created?: { actor: string } }> }).aspects;
    expect(aspects['datasetProperties']?.created?.actor).toBe('urn:li:corpuser:jdoe');

    const answer = await awaitEvents(
      { entityTypes: ['dataset'], aspectTypes: ['datasetProperties'], actorUrns: ['urn:li:corpuser:jdoe'] },
      1,
    );
    expect(answer.usageEvents[0]).toMatchObject({
      eventType: 'UpdateAspectEvent',
      actorUrn: 'urn:li:corpuser:jdoe',
      entityUrn: urn,
      entityType: 'dataset',
      aspectName: 'datasetProperties',
      eventSource: 'RESTLI',
      userAgent: 'acryl-datahub/0.15.0',
      telemetryTraceId: 'a1'.repeat(16),
    });
    expect(answer.usageEvents[0]?.sourceIP).toEqual(expect.stringContaining('127.0.0.1'));
    // The new entity's key came with it; no event carries a value.
    const all = await search({ actorUrns: ['urn:li:corpuser:jdoe'], entityTypes: ['dataset'] }, '?size=100');
    expect(all.usageEvents.map((event) => event.aspectName)).toEqual(
      expect.arrayContaining(['datasetKey', 'datasetProperties']),
    );
    expect(JSON.stringify(all)).not.toContain('"audited"');
    const withoutRaw = await search({ actorUrns: ['urn:li:corpuser:jdoe'] }, '?includeRaw=false&size=1');
    expect(withoutRaw.usageEvents[0]?.rawUsageEvent).toBeUndefined();
  });

  it('refuses the audit search without the privilege, and grants it once a policy does', async () => {
    const auditor = await bearer('auditor');
    const refused = await http.post(SEARCH, {}, auditor);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'urn:li:corpuser:auditor is unauthorized to READ ANALYTICS.' });
    await ingest(
      proposalOf('urn:li:dataHubPolicy:audit-e2e-analytics', 'dataHubPolicyInfo', {
        displayName: 'auditors read the trail',
        description: 'written by the audit tests',
        type: 'PLATFORM',
        state: 'ACTIVE',
        privileges: ['GET_ANALYTICS_PRIVILEGE'],
        actors: { users: ['urn:li:corpuser:auditor'] },
      }),
      await bearer('datahub'),
    );
    const granted = await http.post(SEARCH, { eventTypes: ['CreatePolicyEvent', 'UpdatePolicyEvent'] }, auditor);
    expect(granted.status).toBe(200);
    const policies = await awaitEvents(
      { eventTypes: ['CreatePolicyEvent', 'UpdatePolicyEvent'], actorUrns: ['urn:li:corpuser:datahub'] },
      2,
    );
    expect(policies.usageEvents.map((event) => event.entityUrn)).toEqual([
      'urn:li:dataHubPolicy:audit-e2e-analytics',
      'urn:li:dataHubPolicy:audit-e2e-analytics',
    ]);
  });

  it('answers 400 for a malformed scroll id, a bad size or time, in the OpenAPI error body', async () => {
    const root = await bearer('datahub');
    const malformed = await http.post(`${SEARCH}?scrollId=not-a-scroll-id`, {}, root);
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ error: 'Invalid scroll Id cannot be mapped: not-a-scroll-id' });
    for (const query of ['?size=0', '?size=10001', '?size=ten', '?startTime=yesterday']) {
      const response = await http.post(`${SEARCH}${query}`, {}, root);
      expect(response.status).toBe(400);
      expect(typeof (response.json as { error: unknown }).error).toBe('string');
    }
    expect((await http.post(SEARCH, { eventTypes: 'LogInEvent' }, root)).status).toBe(400);
  });

  it('scrolls thousands of events in pages while writes go on, returning each exactly once', async () => {
    const scroller = await bearer('scroller');
    const proposals = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        proposalOf(datasetUrn(`scrolled_${deployment}_${from + i}`), 'datasetProperties', {
          description: `number ${from + i}`,
          customProperties: {},
        }),
      );
    for (let first = 0; first < SCROLLED; first += 250) {
      const batch = await http.post(
        '/aspects?action=ingestProposalBatch',
        { proposals: proposals(first, 250) },
        scroller,
      );
      expect(batch.status).toBe(200);
    }
    const filter = { actorUrns: ['urn:li:corpuser:scroller'], aspectTypes: ['datasetProperties'] };
    const before = await awaitEvents(filter, SCROLLED);
    expect(before.total).toBe(SCROLLED);

    const seen: UsageEvent[] = [];
    let scrollId: string | null = null;
    let written = SCROLLED;
    for (let page = 0; page < 100; page++) {
      const query: string = `?size=${PAGE}${scrollId === null ? '' : `&scrollId=${encodeURIComponent(scrollId)}`}`;
      const answer = await search(filter, query);
      expect(answer.count).toBe(answer.usageEvents.length);
      seen.push(...answer.usageEvents);
      scrollId = answer.nextScrollId;
      if (scrollId === null) break;
      // Writes go on between pages.
      const more = await http.post(
        '/aspects?action=ingestProposalBatch',
        { proposals: proposals(written, 20) },
        scroller,
      );
      expect(more.status).toBe(200);
      written += 20;
    }
    const urns = seen.map((event) => event.entityUrn);
    expect(new Set(urns).size).toBe(urns.length);
    const first = new Set(Array.from({ length: SCROLLED }, (_, i) => datasetUrn(`scrolled_${deployment}_${i}`)));
    expect(urns.filter((urn) => first.has(urn ?? '')).length).toBe(SCROLLED);
    const timestamps = seen.map((event) => event.timestamp);
    expect([...timestamps].sort((a, b) => b - a)).toEqual(timestamps);
  }, 240_000);

  it('keeps every secret and password out of the logs and the trail', async () => {
    const everything: string[] = [];
    let scrollId: string | null = null;
    do {
      const answer: SearchAnswer = await search(
        {},
        `?size=1000${scrollId === null ? '' : `&scrollId=${encodeURIComponent(scrollId)}`}`,
      );
      everything.push(JSON.stringify(answer.usageEvents));
      scrollId = answer.nextScrollId;
    } while (scrollId !== null);
    const trail = everything.join('\n');
    const logs = Object.values(strata.processes)
      .map((process) => process.output())
      .join('\n');
    for (const secret of [strata.signingKey, strata.systemClientSecret, strata.rootPassword, 'scrypt$', ...secrets]) {
      expect(logs).not.toContain(secret);
      expect(trail).not.toContain(secret);
    }
  });
});
