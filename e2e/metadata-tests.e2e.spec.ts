/**
 * Metadata tests as their users drive them: tests defined as entities (and refused when their definition does not
 * hold), evaluated with evaluate and batchEvaluate under each path, with and without push, the pushed testResults read
 * back through entitiesV2, relationships and search; and, with automatic evaluation on, kept current by themselves —
 * a dataset changed so that it fails shows up in the search of failures, and a new test over thousands of datasets
 * runs as a task whose progress is visible. Over HTTP only, with authentication on, on the embedded engines and split
 * into processes over Kafka.
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
  startKafkaTestBroker,
  TestHttpClient,
  type KafkaTestBroker,
  type RunningDeployment,
} from '@strata/testing';

const UNAUTHORIZED = 'Unauthorized to perform this action.';
const DENIED = 'User is unauthorized to evaluate tests.';
const RESOURCES = ['/test', '/gms/test', '/api/gms/test'];
const SYNC = { 'X-DataHub-Sync-Index-Update': 'true' };

const OWNERSHIP = 'urn:li:test:ownership-required';
const DESCRIPTION = 'urn:li:test:description-present';
const PII_TAG = 'urn:li:test:pii-tag';
const NESTED = 'urn:li:test:nested';
const TESTS = {
  [OWNERSHIP]: {
    on: { types: ['dataset'] },
    rules: { property: 'ownership.owners.owner', operator: 'exists' },
  },
  [DESCRIPTION]: {
    on: { types: ['dataset'] },
    rules: [{ property: 'datasetProperties.description', operator: 'exists' }],
  },
  [PII_TAG]: {
    match: { types: ['dataset'] },
    rules: { query: 'globalTags.tags.tag', operation: 'regex_match', values: ['^urn:li:tag:pii-[a-z]+$'] },
  },
  // Owned and not removed, or named gold_…, and in any case not tagged deprecated.
  [NESTED]: {
    on: { types: ['dataset'], conditions: { property: 'datasetProperties.name', operator: 'exists' } },
    rules: {
      and: [
        {
          or: [
            {
              and: [
                { property: 'ownership.owners.owner', operator: 'exists' },
                { not: { property: 'status.removed', operator: 'is_true' } },
              ],
            },
            { property: 'datasetProperties.name', operator: 'starts_with', values: ['gold_'] },
          ],
        },
        { property: 'globalTags.tags.tag', operator: 'equals', values: ['urn:li:tag:deprecated'], negate: true },
      ],
    },
  },
};

interface Outcomes {
  readonly passing: { test: string; type: string }[];
  readonly failing: { test: string; type: string }[];
}

interface TestResultsAspect {
  readonly value: {
    passing: { test: string; lastComputed?: { actor: string } }[];
    failing: { test: string; lastComputed?: { actor: string } }[];
  };
  readonly created: { actor: string };
  readonly systemMetadata?: { version?: string };
}

let broker: KafkaTestBroker;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

describe.each([
  // The datasets of the bulk test (STRATA_TEST_SCALE=large: 10,000 and 2,000). Split into processes over Kafka, the
  // evaluation's delivery differs (the operations service consumes the change logs itself): that keeps a run here.
  ['standalone', scaled(400, 10_000)],
  ['distributed', scaled(200, 2_000)],
] as const)('%s: metadata tests', (deployment, manyDatasets) => {
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let tokens: TokenService;
  let root: Record<string, string>;
  const good = datasetUrn(`gold_orders_${deployment}`);
  const bad = datasetUrn(`scratch_${deployment}`);
  const changing = datasetUrn(`customers_${deployment}`);

  const bearer = async (user: string) => {
    const { token } = await tokens.mint(user, 'SESSION', 3_600_000);
    return { Authorization: `Bearer ${token}` };
  };
  const ingest = async (proposals: unknown[], headers: Record<string, string> = root) => {
    for (let first = 0; first < proposals.length; first += 500) {
      const response = await http.post(
        '/aspects?action=ingestProposalBatch',
        { proposals: proposals.slice(first, first + 500) },
        { ...headers, ...SYNC },
      );
      expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
    }
  };
  const testInfo = (name: string, definition: unknown) => ({
    name,
    category: 'Governance',
    description: `${name}, written by the metadata tests' end-to-end tests`,
    definition: { type: 'JSON', json: JSON.stringify(definition) },
  });
  const evaluate = async (path: string, body: unknown, headers: Record<string, string> = root) => {
    const response = await http.post(path, body, headers);
    expect({ path, status: response.status, body: response.json }).toMatchObject({ status: 200 });
    return (response.json as { value: unknown }).value;
  };
  const testResults = async (urn: string) => {
    const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}?aspects=List(testResults)`, root);
    expect(response.status).toBe(200);
    return (response.json as { aspects: { testResults?: TestResultsAspect } }).aspects.testResults;
  };
  const failingSearch = async (test: string, count = 10) => {
    const response = await http.post(
      '/entities?action=search',
      {
        input: '*',
        entity: 'dataset',
        start: 0,
        count,
        filter: { or: [{ and: [{ field: 'failingTests', value: test, condition: 'EQUAL' }] }] },
      },
      root,
    );
    expect(response.status).toBe(200);
    return (
      response.json as {
        value: {
          numEntities: number;
          entities: string[];
          metadata: { searchResultMetadatas: { name: string; aggregations: Record<string, number> }[] };
        };
      }
    ).value;
  };
  const related = async (test: string, type: 'IsPassing' | 'IsFailing') => {
    const response = await http.get(
      `/relationships?urn=${encodeURIComponent(test)}&types=List(${type})&direction=INCOMING&count=100`,
      root,
    );
    expect(response.status).toBe(200);
    return (response.json as { relationships: { entity: string }[] }).relationships.map((edge) => edge.entity);
  };
  const tested = (outcomes: Outcomes) => ({
    passing: outcomes.passing.map((result) => result.test).sort(),
    failing: outcomes.failing.map((result) => result.test).sort(),
  });

  beforeAll(async () => {
    strata = await startDeployment(deployment, {
      kafkaBrokers: broker.brokers,
      env: {
        METADATA_SERVICE_AUTH_ENABLED: 'true',
        STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url'),
        METADATA_TESTS_AUTO_EVALUATION: 'true',
      },
    });
    http = new TestHttpClient(strata.baseUrl);
    tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    root = await bearer('datahub');
    await ingest(
      ['steward', 'analyst'].map((user) => proposalOf(`urn:li:corpuser:${user}`, 'corpUserInfo', { active: true })),
    );
  }, 120_000);

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it.each(REFUSED_CREDENTIALS)(
    'refuses %s with 401 on evaluate and batchEvaluate under every path',
    async (_case, authorization) => {
      const headers = authorizationHeaders(authorization);
      for (const resource of RESOURCES) {
        for (const [action, body] of [
          ['evaluate', { urn: good }],
          ['batchEvaluate', { urns: [good] }],
        ] as const) {
          const response = await http.post(`${resource}?action=${action}`, body, headers);
          expect({ resource, action, status: response.status, body: response.json }).toMatchObject({
            status: 401,
            body: { status: 401, message: UNAUTHORIZED },
          });
        }
      }
      const list = await http.get('/openapi/operations/tests/evaluations', headers);
      expect(list.status).toBe(401);
    },
  );

  it('refuses a definition that does not hold, with the reason and its path', async () => {
    const refused = await http.post(
      '/aspects?action=ingestProposal',
      {
        proposal: proposalOf(
          'urn:li:test:broken',
          'testInfo',
          testInfo('Broken', {
            on: { types: ['dataset'] },
            rules: { or: [{ property: 'ownership.owners.owner', operator: 'smells_like' }] },
          }),
        ),
      },
      root,
    );
    expect({ status: refused.status, body: refused.json }).toMatchObject({
      status: 422,
      body: { message: expect.stringContaining('definition.rules.or[0].operator: unknown operator smells_like') },
    });
  });

  it('defines tests, and evaluates them on datasets that pass and fail each, without writing anything', async () => {
    await ingest(
      Object.entries(TESTS).map(([urn, definition]) => proposalOf(urn, 'testInfo', testInfo(urn, definition))),
    );
    await ingest([
      proposalOf(good, 'datasetProperties', { name: 'gold_orders', description: 'Every order', customProperties: {} }),
      proposalOf(good, 'ownership', {
        owners: [{ owner: 'urn:li:corpuser:steward', type: 'DATAOWNER' }],
        lastModified: { time: 0, actor: 'urn:li:corpuser:steward' },
      }),
      proposalOf(good, 'globalTags', { tags: [{ tag: 'urn:li:tag:pii-email' }] }),
      proposalOf(bad, 'datasetProperties', { name: 'scratch', customProperties: {} }),
      proposalOf(bad, 'globalTags', { tags: [{ tag: 'urn:li:tag:PII_email' }, { tag: 'urn:li:tag:deprecated' }] }),
      proposalOf(changing, 'datasetProperties', { name: 'customers', description: 'Who buys', customProperties: {} }),
      proposalOf(changing, 'ownership', {
        owners: [{ owner: 'urn:li:corpuser:analyst', type: 'DATAOWNER' }],
        lastModified: { time: 0, actor: 'urn:li:corpuser:analyst' },
      }),
    ]);

    for (const resource of RESOURCES) {
      const passes = (await evaluate(`${resource}?action=evaluate`, { urn: good })) as Outcomes;
      expect(tested(passes)).toEqual({ passing: [DESCRIPTION, NESTED, OWNERSHIP, PII_TAG].sort(), failing: [] });
      expect(passes.passing[0]).toEqual({ test: expect.any(String), type: 'SUCCESS' });
    }
    const fails = (await evaluate('/gms/test?action=evaluate', { urn: bad })) as Outcomes;
    expect(tested(fails)).toEqual({ passing: [], failing: [DESCRIPTION, NESTED, OWNERSHIP, PII_TAG].sort() });
    expect(fails.failing[0]).toEqual({ test: expect.any(String), type: 'FAILURE' });

    // Some tests only, named either way; a test that does not select the entity is in neither list.
    const some = (await evaluate('/test?action=evaluate', { urn: bad, testUrns: [OWNERSHIP] })) as Outcomes;
    expect(tested(some)).toEqual({ passing: [], failing: [OWNERSHIP] });
    const older = (await evaluate('/test?action=evaluate', { urn: good, tests: [PII_TAG] })) as Outcomes;
    expect(tested(older)).toEqual({ passing: [PII_TAG], failing: [] });

    const batch = (await evaluate('/gms/test?action=batchEvaluate', { urns: [good, bad], testUrns: [NESTED] })) as {
      results: Record<string, Outcomes>;
    };
    expect(Object.keys(batch.results).sort()).toEqual([good, bad].sort());
    expect(tested(batch.results[good] as Outcomes)).toEqual({ passing: [NESTED], failing: [] });
    expect(tested(batch.results[bad] as Outcomes)).toEqual({ passing: [], failing: [NESTED] });
  });

  it('answers 404 naming an unknown entity or test, and 400 without a URN', async () => {
    const unknownEntity = await http.post('/test?action=evaluate', { urn: datasetUrn('never_written') }, root);
    expect({ status: unknownEntity.status, body: unknownEntity.json }).toMatchObject({
      status: 404,
      body: { message: expect.stringContaining(datasetUrn('never_written')) },
    });
    const unknownTest = await http.post('/test?action=evaluate', { urn: good, testUrns: ['urn:li:test:nope'] }, root);
    expect({ status: unknownTest.status, body: unknownTest.json }).toMatchObject({
      status: 404,
      body: { message: 'Test urn:li:test:nope not found' },
    });
    const noUrn = await http.post('/test?action=evaluate', { push: true }, root);
    expect({ status: noUrn.status, body: noUrn.json }).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining("'urn' is required") },
    });
  });

  it('pushes testResults as the caller, read back through entitiesV2, relationships and a search of failures', async () => {
    // Automatic evaluation stored them first, as the system actor.
    await eventually(async () => {
      expect((await testResults(bad))?.value.failing).toHaveLength(4);
      expect((await testResults(good))?.value.passing).toHaveLength(4);
    });
    const before = await testResults(bad);
    expect(before?.created.actor).toBe('urn:li:corpuser:__datahub_system');

    // Without push, nothing is written.
    await evaluate('/test?action=evaluate', { urn: bad, push: false });
    expect(await testResults(bad)).toEqual(before);

    const steward = await bearer('steward');
    const forbidden = await http.post('/test?action=evaluate', { urn: bad, push: true }, steward);
    expect({ status: forbidden.status, body: forbidden.json }).toMatchObject({
      status: 403,
      body: { status: 403, message: DENIED },
    });
    await ingest([
      proposalOf('urn:li:dataHubPolicy:metadata-tests-e2e', 'dataHubPolicyInfo', {
        displayName: 'stewards manage tests',
        description: "written by the metadata tests' end-to-end tests",
        type: 'PLATFORM',
        state: 'ACTIVE',
        privileges: ['MANAGE_TESTS'],
        actors: { users: ['urn:li:corpuser:steward'] },
      }),
    ]);
    await evaluate('/api/gms/test?action=evaluate', { urn: bad, shouldPush: true }, { ...steward, ...SYNC });
    const pushed = await testResults(bad);
    expect(pushed?.created.actor).toBe('urn:li:corpuser:steward');
    expect(pushed?.value.failing.map((result) => result.test).sort()).toEqual(
      [DESCRIPTION, NESTED, OWNERSHIP, PII_TAG].sort(),
    );
    expect(pushed?.value.failing[0]?.lastComputed?.actor).toBe('urn:li:corpuser:steward');
    expect(pushed?.value.passing).toEqual([]);

    expect(await related(OWNERSHIP, 'IsFailing')).toContain(bad);
    expect(await related(OWNERSHIP, 'IsPassing')).toContain(good);
    expect(await related(OWNERSHIP, 'IsFailing')).not.toContain(good);
    const failures = await failingSearch(OWNERSHIP);
    expect(failures.entities).toContain(bad);
    expect(failures.entities).not.toContain(good);
    const facet = failures.metadata.searchResultMetadatas.find((metadata) => metadata.name === 'failingTests');
    expect(facet?.aggregations[OWNERSHIP]).toBe(failures.numEntities);
    // The automatic evaluation checks the caller's push and finds nothing to change.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await testResults(bad))?.created.actor).toBe('urn:li:corpuser:steward');
  });

  it('with automatic evaluation, a dataset changed so that it fails shows up in the search of failures', async () => {
    expect((await failingSearch(OWNERSHIP)).entities).not.toContain(changing);
    await ingest([
      proposalOf(changing, 'ownership', { owners: [], lastModified: { time: 0, actor: 'urn:li:corpuser:analyst' } }),
    ]);
    await eventually(async () => {
      expect((await failingSearch(OWNERSHIP)).entities).toContain(changing);
    });
    expect(await related(OWNERSHIP, 'IsFailing')).toContain(changing);
    const results = await testResults(changing);
    expect(results?.created.actor).toBe('urn:li:corpuser:__datahub_system');
    expect(results?.value.failing.map((result) => result.test).sort()).toEqual([NESTED, OWNERSHIP, PII_TAG].sort());
    // Its own push, come back as a change, pushes nothing more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await testResults(changing))?.systemMetadata?.version).toBe(results?.systemMetadata?.version);
  });

  it(`with automatic evaluation, a new test over ${manyDatasets} datasets runs as a task whose progress is visible`, async () => {
    const urns = Array.from({ length: manyDatasets }, (_, index) => datasetUrn(`bulk_${deployment}_${index}`));
    // Every third one is owned.
    await ingest(
      urns.map((urn, index) =>
        index % 3 === 0
          ? proposalOf(urn, 'ownership', {
              owners: [{ owner: 'urn:li:corpuser:steward', type: 'DATAOWNER' }],
              lastModified: { time: 0, actor: 'urn:li:corpuser:steward' },
            })
          : proposalOf(urn, 'status', { removed: false }),
      ),
    );
    const test = `urn:li:test:bulk-owned-${deployment}`;
    const started = Date.now();
    // Answered once the writer stored it (not waiting for the indices), so that the task is watched from its start.
    const written = await http.post(
      '/aspects?action=ingestProposal',
      {
        proposal: proposalOf(
          test,
          'testInfo',
          testInfo('Bulk ownership', {
            on: {
              types: ['dataset'],
              conditions: { property: 'datasetKey.name', operator: 'starts_with', values: ['bulk_'] },
            },
            rules: { property: 'ownership.owners.owner', operator: 'exists' },
          }),
        ),
      },
      root,
    );
    expect(written.status).toBe(200);
    // The task's progress, polled from the list of re-evaluations as soon as the test is written.
    const statuses: { completed: boolean; status: Record<string, unknown> }[] = [];
    const task = await eventually(
      async () => {
        const response = await http.get(`/openapi/operations/tests/evaluations?test=${encodeURIComponent(test)}`, root);
        expect(response.status).toBe(200);
        const body = response.json as {
          autoEvaluation: boolean;
          tasks: { task: string; completed: boolean; status: Record<string, unknown> }[];
        };
        expect(body.autoEvaluation).toBe(true);
        expect(body.tasks).toHaveLength(1);
        const [listed] = body.tasks;
        if (listed !== undefined) statuses.push(listed);
        expect(listed?.completed).toBe(true);
        return listed?.task ?? '';
      },
      { timeoutMs: 240_000, intervalMs: 50 },
    );
    const value = JSON.parse(String(await evaluate('/operations?action=getEsTaskStatus', { task }, root))) as {
      completed: boolean;
      taskId: string;
      runTimeNanos: number;
      status: string;
      error?: string;
    };
    expect(value).toMatchObject({ completed: true, taskId: task });
    expect(value.error).toBeUndefined();
    const final = JSON.parse(value.status) as Record<string, unknown>;
    const taskMillis = Date.now() - started;
    process.stdout.write(
      `metadata tests (${deployment}): a new test over ${manyDatasets} datasets: task ${value.runTimeNanos / 1e6} ms, ` +
        `written to done ${taskMillis} ms, ${statuses.filter((entry) => !entry.completed).length} progress reports\n`,
    );
    const owned = Math.ceil(manyDatasets / 3);
    expect(final).toMatchObject({ test, phase: 'done', passing: owned, failing: manyDatasets - owned });
    expect(final['evaluated']).toBeGreaterThanOrEqual(manyDatasets);
    // Pushed where the results changed: the hook may have evaluated some — on a busy machine all — of the new datasets
    // against the new test already (their change logs can reach it after the test), and those the task finds up to
    // date; the results above are right either way.
    expect(Number.isInteger(final['pushed'])).toBe(true);
    expect(final['pushed']).toBeLessThanOrEqual(Number(final['evaluated']));
    // Its progress: the total it went over, its rate and the time left (none: it is done). Reports seen while it ran
    // (it may well finish between two polls) were on their way there.
    expect(final['total']).toBeGreaterThanOrEqual(manyDatasets);
    expect(final['entities_per_second']).toBeGreaterThan(0);
    expect(final['eta_millis']).toBe(0);
    for (const entry of statuses.filter((listed) => !listed.completed)) {
      expect(entry.status['phase']).toMatch(/queued|evaluating/);
      expect(Number(entry.status['evaluated'])).toBeLessThanOrEqual(Number(final['evaluated']));
    }

    await eventually(
      async () => {
        expect((await failingSearch(test, 0)).numEntities).toBe(manyDatasets - owned);
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    process.stdout.write(
      `metadata tests (${deployment}): search shows every failure ${Date.now() - started} ms after the test was written\n`,
    );
    const operations = strata.processes['operations'] ?? strata.processes['strata'];
    const metrics = await new TestHttpClient(operations?.baseUrl ?? '').get('/metrics', root);
    expect(metrics.text).toMatch(/^strata_metadata_tests_entities_evaluated_total [1-9]/m);
  }, 600_000);
});
