/**
 * Timeseries reads and the index operations as their users drive them: values of timeseries aspects read back with
 * bounds, limits, filters and latest values, as stateful ingestion reads its checkpoints; index sizes; truncation as a
 * task whose status is asked for; restore of the indices from the primary store, down to a full rebuild of emptied
 * indices, compared result for result. Each operation under each of its paths, with its privilege. Over HTTP only,
 * with authentication on, on the embedded engines and split into processes over Kafka.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
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
const RESOURCES = ['/operations', '/gms/operations', '/api/gms/operations'];
const SYNC = { 'X-DataHub-Sync-Index-Update': 'true' };

/** Every operation under every path, with a body it accepts and DataHub's words for a refusal. */
const OPERATIONS = [
  ...RESOURCES.flatMap((resource) => [
    { path: `${resource}?action=getIndexSizes`, body: {}, denied: 'User is unauthorized to get index sizes.' },
    {
      path: `${resource}?action=getEsTaskStatus`,
      body: { task: 'node:1' },
      denied: 'User is unauthorized to get ES task status',
    },
    {
      path: `${resource}?action=truncateTimeseriesAspect`,
      body: { entityType: 'dataset', aspect: 'operation', endTimeMillis: 0 },
      denied: 'User is unauthorized to truncate timeseries index',
    },
    {
      path: `${resource}?action=restoreIndices`,
      body: { urn: datasetUrn('nothing_here') },
      denied: 'User is unauthorized to restore indices.',
    },
  ]),
  { path: '/operations?action=rebuildIndices', body: {}, denied: 'User is unauthorized to restore indices.' },
  {
    path: '/aspects?action=restoreIndices',
    body: { urn: datasetUrn('nothing_here') },
    denied: 'User is unauthorized to update entities.',
  },
];

interface TimeseriesValues {
  readonly value: {
    readonly entityName: string;
    readonly aspectName: string;
    readonly startTimeMillis?: number;
    readonly endTimeMillis?: number;
    readonly limit: number;
    readonly values: { aspect: { value: string; contentType: string }; systemMetadata?: Record<string, unknown> }[];
  };
}

let broker: KafkaTestBroker;

beforeAll(async () => {
  broker = await startKafkaTestBroker();
});

afterAll(async () => {
  await broker.stop();
});

describe.each(['standalone', 'distributed'] as const)('%s: timeseries and index operations', (deployment) => {
  let strata: RunningDeployment;
  let http: TestHttpClient;
  let tokens: TokenService;
  let root: Record<string, string>;

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
      expect(response.status).toBe(200);
    }
  };
  const operation = async (path: string, body: unknown, headers: Record<string, string> = root) => {
    const response = await http.post(path, body, headers);
    expect({ path, status: response.status, body: response.json }).toMatchObject({ status: 200 });
    return (response.json as { value: unknown }).value;
  };
  const values = async (body: Record<string, unknown>) => {
    const response = await http.post('/aspects?action=getTimeseriesAspectValues', body, root);
    expect({ status: response.status, body: response.json }).toMatchObject({ status: 200 });
    return (response.json as TimeseriesValues).value;
  };
  const profile = (timestampMillis: number, extra: Record<string, unknown> = {}) => ({
    timestampMillis,
    rowCount: timestampMillis,
    partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
    ...extra,
  });
  /** The whole restore, page after page, until it says it is complete; answers the rows restored. */
  const restoreAll = async (body: Record<string, unknown>) => {
    let start = 0;
    let rows = 0;
    for (;;) {
      const value = String(await operation('/operations?action=restoreIndices', { ...body, start, batchSize: 5_000 }));
      rows += Number(/rowsMigrated=([0-9]+)/.exec(value)?.[1]);
      start = Number(/nextStart=([0-9]+)/.exec(value)?.[1]);
      if (value.includes('complete=true')) return rows;
    }
  };

  beforeAll(async () => {
    strata = await startDeployment(deployment, {
      kafkaBrokers: broker.brokers,
      env: { METADATA_SERVICE_AUTH_ENABLED: 'true', STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url') },
    });
    http = new TestHttpClient(strata.baseUrl);
    tokens = new TokenService({ signingKey: strata.signingKey, now: Date.now });
    root = await bearer('datahub');
    await ingest(
      ['operator', 'reader'].map((user) => proposalOf(`urn:li:corpuser:${user}`, 'corpUserInfo', { active: true })),
    );
  });

  afterAll(async () => {
    await strata.stop();
    strata.cleanUp();
  });

  it.each(REFUSED_CREDENTIALS)(
    'refuses %s with 401 on every operation under every path',
    async (_case, authorization) => {
      const headers = authorizationHeaders(authorization);
      for (const { path, body } of OPERATIONS) {
        const response = await http.post(path, body, headers);
        expect({ path, status: response.status, body: response.json }).toMatchObject({
          status: 401,
          body: { status: 401, message: UNAUTHORIZED },
        });
      }
    },
  );

  it("refuses every operation with 403 and DataHub's words without its privilege, and allows it once a policy grants it", async () => {
    const operator = await bearer('operator');
    for (const { path, body, denied } of OPERATIONS) {
      const response = await http.post(path, body, operator);
      expect({ path, status: response.status, body: response.json }).toMatchObject({
        status: 403,
        body: { status: 403, message: denied },
      });
    }
    await ingest([
      proposalOf('urn:li:dataHubPolicy:operations-e2e', 'dataHubPolicyInfo', {
        displayName: 'operators',
        description: 'written by the operations tests',
        type: 'PLATFORM',
        state: 'ACTIVE',
        privileges: [
          'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE',
          'GET_ES_TASK_STATUS_PRIVILEGE',
          'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE',
          'RESTORE_INDICES_PRIVILEGE',
        ],
        actors: { users: ['urn:li:corpuser:operator'] },
      }),
    ]);
    for (const { path, body } of OPERATIONS) await operation(path, body, operator);
  });

  it('reads timeseries values newest first, with inclusive bounds, limits, latest value and the values as JSON strings', async () => {
    const urn = datasetUrn(`profiled_${deployment}`);
    await ingest([1_000, 2_000, 3_000, 4_000].map((time) => proposalOf(urn, 'datasetProfile', profile(time))));
    // The same point again (same time, same partition) replaces it; another partition at that time is another point.
    await ingest([
      proposalOf(urn, 'datasetProfile', profile(4_000, { columnCount: 7 })),
      proposalOf(urn, 'datasetProfile', profile(4_000, { partitionSpec: { type: 'PARTITION', partition: 'ds=1' } })),
    ]);

    const all = await values({ urn, entity: 'dataset', aspect: 'datasetProfile' });
    expect(all).toMatchObject({ entityName: 'dataset', aspectName: 'datasetProfile', limit: 10_000 });
    expect(all.startTimeMillis).toBeUndefined();
    const parsed = all.values.map((entry) => JSON.parse(entry.aspect.value) as Record<string, unknown>);
    expect(parsed.map((value) => value['timestampMillis'])).toEqual([4_000, 4_000, 3_000, 2_000, 1_000]);
    expect(parsed.filter((value) => value['columnCount'] === 7)).toHaveLength(1);
    expect(all.values[0]?.aspect.contentType).toBe('application/json');
    expect(all.values[0]?.systemMetadata).toMatchObject({ runId: 'no-run-id-provided' });

    const bounded = await values({
      urn,
      entity: 'DATASET',
      aspect: 'datasetprofile',
      startTimeMillis: 2_000,
      endTimeMillis: 3_000,
    });
    expect(bounded).toMatchObject({ entityName: 'DATASET', aspectName: 'datasetprofile', startTimeMillis: 2_000 });
    expect(bounded.values.map((entry) => (JSON.parse(entry.aspect.value) as { rowCount: number }).rowCount)).toEqual([
      3_000, 2_000,
    ]);
    expect((await values({ urn, entity: 'dataset', aspect: 'datasetProfile', limit: 2 })).values).toHaveLength(2);
    const latest = await values({ urn, entity: 'dataset', aspect: 'datasetProfile', latestValue: true });
    expect(latest.limit).toBe(1);
    expect(latest.values).toHaveLength(1);
  });

  it('answers 400 with the reason for an unknown entity or aspect, a versioned aspect, a bad range or limit', async () => {
    const urn = datasetUrn('anything');
    for (const [body, message] of [
      [
        { urn, entity: 'spaceship', aspect: 'datasetProfile' },
        'Failed to find entity with name spaceship in EntityRegistry',
      ],
      [{ urn, entity: 'dataset', aspect: 'noSuchAspect' }, 'Unknown aspect noSuchAspect for entity dataset'],
      [{ urn, entity: 'dataset', aspect: 'status' }, 'is not a timeseries aspect'],
      [
        { urn, entity: 'dataset', aspect: 'datasetProfile', startTimeMillis: 5, endTimeMillis: 4 },
        'is after endTimeMillis',
      ],
      [{ urn, entity: 'dataset', aspect: 'datasetProfile', limit: 10_001 }, 'limit must be at most 10000'],
      [{ urn: 'not-a-urn', entity: 'dataset', aspect: 'datasetProfile' }, 'Invalid urn'],
      [{ entity: 'dataset', aspect: 'datasetProfile' }, 'urn'],
    ] as const) {
      const response = await http.post('/aspects?action=getTimeseriesAspectValues', body, root);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect((response.json as { message: string }).message).toContain(message);
    }
  });

  it('reads ingestion checkpoints back as stateful ingestion does: by pipeline, newest first, from a soft-deleted job', async () => {
    const config = await http.get('/config');
    expect((config.json as { statefulIngestionCapable: boolean }).statefulIngestionCapable).toBe(true);
    const job = 'urn:li:dataJob:(urn:li:dataFlow:(datahub,mysql_prod,prod),common_ingest_backend)';
    const checkpoint = (pipelineName: string, timestampMillis: number, runId: string) =>
      proposalOf(job, 'datahubIngestionCheckpoint', {
        timestampMillis,
        pipelineName,
        platformInstanceId: '',
        config: '',
        state: { formatVersion: '1.0', serde: 'base85-bz2-json', payload: `state of ${runId}` },
        runId,
      });
    await ingest([
      checkpoint('mysql_prod', 1_000, 'run-1'),
      checkpoint('mysql_prod', 3_000, 'run-3'),
      checkpoint('other_pipeline', 5_000, 'run-5'),
      proposalOf(job, 'status', { removed: true }),
    ]);
    for (const criterion of [
      { field: 'pipelineName', values: ['mysql_prod'], condition: 'EQUAL' },
      { field: 'pipelineName', value: 'mysql_prod', condition: 'EQUAL' },
    ]) {
      const answer = await values({
        urn: job,
        entity: 'dataJob',
        aspect: 'datahubIngestionCheckpoint',
        limit: 1,
        filter: { or: [{ and: [criterion] }] },
      });
      expect(answer.values).toHaveLength(1);
      expect(JSON.parse(answer.values[0]!.aspect.value)).toMatchObject({ pipelineName: 'mysql_prod', runId: 'run-3' });
    }
  });

  it('reports every timeseries index with its entity, aspect and size', async () => {
    const { indexSizes } = (await operation('/gms/operations?action=getIndexSizes', {})) as {
      indexSizes: { indexName: string; entityName: string; aspectName: string; sizeInMb: number; sizeMb: number }[];
    };
    const profiles = indexSizes.find((index) => index.indexName.endsWith('dataset_datasetprofileaspect_v1'));
    expect(profiles).toMatchObject({ entityName: 'dataset', aspectName: 'datasetprofile' });
    expect(profiles?.sizeInMb).toBeGreaterThan(0);
    expect(profiles?.sizeMb).toBe(profiles?.sizeInMb);
    expect(indexSizes.map((index) => index.aspectName)).toEqual(
      expect.arrayContaining(['datasetusagestatistics', 'operation', 'datahubingestioncheckpoint']),
    );
  });

  it('truncates: a dry run reports and changes nothing; a real run is a task whose status is asked; truncated points stay gone', async () => {
    const urn = datasetUrn(`truncated_${deployment}`);
    const operationOf = (time: number) => ({
      timestampMillis: time,
      operationType: 'INSERT',
      lastUpdatedTimestamp: time,
    });
    await ingest([100, 200, 300, 400].map((time) => proposalOf(urn, 'operation', operationOf(time))));
    const count = async () => (await values({ urn, entity: 'dataset', aspect: 'operation' })).values.length;
    const before = await operation('/api/gms/operations?action=truncateTimeseriesAspect', {
      entityType: 'dataset',
      aspect: 'operation',
      endTimeMillis: 0,
    });
    expect(before).toMatch(
      /^Delete 0 out of [0-9]+ rows \(0\.00%\)\. Issuing a delete by query request\. This was a dry run\. Run with dryRun = false to execute\.$/,
    );

    const dryRun = String(
      await operation('/operations?action=truncateTimeseriesAspect', {
        entityType: 'DATASET',
        aspect: 'OPERATION',
        endTimeMillis: 250,
        forceDeleteByQuery: true,
      }),
    );
    expect(dryRun).toMatch(
      /^Delete 2 out of [0-9]+ rows \([0-9.]+%\)\. Issuing a delete by query request\. This was a dry run\./,
    );
    expect(await count()).toBe(4);

    for (const [body, message] of [
      [
        { entityType: 'dataset', aspect: 'operation', endTimeMillis: 1, forceReindex: true, forceDeleteByQuery: true },
        'please only set forceReindex OR forceDeleteByQuery flags',
      ],
      [
        { entityType: 'spaceship', aspect: 'operation', endTimeMillis: 1 },
        'Failed to find entity with name spaceship in EntityRegistry',
      ],
      [{ entityType: 'dataset', aspect: 'status', endTimeMillis: 1 }, 'is not a timeseries aspect'],
      [{ entityType: 'dataset', aspect: 'operation' }, 'endTimeMillis'],
    ] as const) {
      const response = await http.post('/operations?action=truncateTimeseriesAspect', body, root);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect((response.json as { message: string }).message).toContain(message);
    }

    const task = String(
      await operation('/gms/operations?action=truncateTimeseriesAspect', {
        entityType: 'dataset',
        aspect: 'operation',
        endTimeMillis: 250,
        dryRun: false,
        batchSize: 1,
      }),
    );
    expect(task).toMatch(/^[a-zA-Z0-9_-]+:[0-9]+$/);
    const [nodeId, taskId] = task.split(':') as [string, string];
    const status = await eventually(
      async () => {
        const answer = JSON.parse(String(await operation('/operations?action=getEsTaskStatus', { task }))) as {
          completed: boolean;
          taskId: string;
          runTimeNanos: number;
          status: string;
        };
        expect(answer.completed).toBe(true);
        return answer;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(status.taskId).toBe(task);
    expect(status.runTimeNanos).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(status.status)).toMatchObject({
      total: 2,
      deleted: 2,
      batches: 2,
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
    });
    const byParts = await operation('/api/gms/operations?action=getEsTaskStatus', { nodeId, taskId: Number(taskId) });
    expect(JSON.parse(String(byParts))).toMatchObject({ completed: true, taskId: task });
    const unknown = await operation('/operations?action=getEsTaskStatus', { task: `${nodeId}:999999` });
    expect(JSON.parse(String(unknown))).toEqual({ error: `Could not get task status for ${nodeId}:999999` });
    for (const [body, message] of [
      [{}, 'Please specify either Node ID + task ID OR composite task parameters'],
      [
        { nodeId, taskId: 5, task: `${nodeId}:6` },
        'Please specify only one of Node ID + task ID OR composite task parameters',
      ],
      [
        { task: 'no-colon' },
        'Task should be in the form nodeId:taskId e.g. aB1cdEf2GHIJKLMnoPQr3S:123456 (got no-colon)',
      ],
    ] as const) {
      const response = await http.post('/operations?action=getEsTaskStatus', body, root);
      expect({ body, status: response.status, message: (response.json as { message: string }).message }).toEqual({
        body,
        status: 400,
        message,
      });
    }
    expect(await count()).toBe(2);

    // A restore of the entity's points replays the durable copy: the truncated points do not come back.
    await restoreAll({ urn, aspect: 'operation' });
    await ingest([proposalOf(urn, 'operation', operationOf(500))]);
    const after = await values({ urn, entity: 'dataset', aspect: 'operation' });
    expect(
      after.values.map((entry) => (JSON.parse(entry.aspect.value) as { timestampMillis: number }).timestampMillis),
    ).toEqual([500, 400, 300]);
  });

  it('restores by urn, aspect, LIKE pattern and regular expression, from a row, and says where to continue', async () => {
    const urns = ['a', 'b', 'c'].map((name) => datasetUrn(`restored_${deployment}_${name}`, 'kafka'));
    await ingest(urns.map((urn) => proposalOf(urn, 'status', { removed: false })));
    const restore = async (body: Record<string, unknown>) =>
      String(await operation('/operations?action=restoreIndices', body));
    const like = await restore({
      urnLike: `urn:li:dataset:(urn:li:dataPlatform:kafka,restored_${deployment}_%`,
      aspect: 'status',
    });
    expect(like).toContain('rowsMigrated=3,');
    expect(like).toContain('complete=true');
    const regex = await restore({ urnLike: `.*restored_${deployment}_[ab],PROD\\)`, aspect: 'status', batchSize: 1 });
    expect(regex).toContain('rowsMigrated=1,');
    expect(regex).toContain(`lastUrn=${urns[0]}`);
    expect(regex).toContain('nextStart=1, complete=false');
    const next = await restore({
      urnLike: `.*restored_${deployment}_[ab],PROD\\)`,
      aspect: 'status',
      start: 1,
      batchSize: 10,
    });
    expect(next).toContain(`lastUrn=${urns[1]}`);
    expect(next).toContain('complete=true');
    const one = await restore({ urn: urns[2] });
    expect(one).toMatch(/rowsMigrated=[1-9]/);
    for (const body of [{ urnLike: 'urn:li:(dataset' }, { aspect: 'noSuchAspect' }, { batchSize: 0 }, { start: -1 }]) {
      const response = await http.post('/operations?action=restoreIndices', body, root);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
  });

  it('rebuilds emptied indices from the primary store exactly: search, browse, autocomplete, relationships and timeseries', async () => {
    // STRATA_TEST_SCALE=large: 2,000 datasets (npm run bench restores 100,000 rows).
    const count = scaled(300, 2_000);
    const name = (index: number) => `rebuilt_${deployment}_${index}`;
    const proposals = Array.from({ length: count }, (_, index) => {
      const urn = datasetUrn(name(index), index % 2 === 0 ? 'hive' : 'kafka');
      return [
        proposalOf(urn, 'datasetProperties', {
          name: name(index),
          description: `table number ${index}`,
          customProperties: {},
        }),
        proposalOf(urn, 'ownership', {
          owners: [{ owner: `urn:li:corpuser:owner${index % 7}`, type: 'DATAOWNER' }],
          lastModified: { time: 1, actor: 'urn:li:corpuser:datahub' },
        }),
        proposalOf(urn, 'globalTags', { tags: [{ tag: `urn:li:tag:tier${index % 3}` }] }),
        ...(index % 10 === 0 ? [proposalOf(urn, 'datasetProfile', profile(1_000 + index))] : []),
      ];
    }).flat();
    await ingest(proposals);

    /** Everything the indices answer about this corpus, for comparison. */
    const snapshot = async () => {
      const answers: unknown[] = [];
      for (const body of [
        { input: `rebuilt_${deployment}`, entity: 'dataset', start: 0, count: 10_000 },
        { input: 'number', entity: 'dataset', start: 0, count: 50 },
        {
          input: `rebuilt_${deployment}`,
          entity: 'dataset',
          start: 0,
          count: 100,
          filter: { or: [{ and: [{ field: 'tags', values: ['urn:li:tag:tier1'], condition: 'EQUAL' }] }] },
        },
      ]) {
        const response = await http.post('/entities?action=search', body, root);
        expect(response.status).toBe(200);
        answers.push(response.json);
      }
      for (const path of ['/prod', '/prod/hive', '/prod/kafka']) {
        const response = await http.post(
          '/entities?action=browse',
          { path, entity: 'dataset', start: 0, limit: 100 },
          root,
        );
        expect(response.status).toBe(200);
        answers.push(response.json);
      }
      const suggestions = await http.post(
        '/entities?action=autocomplete',
        { query: `rebuilt_${deployment}_1`, entity: 'dataset', limit: 20 },
        root,
      );
      answers.push(suggestions.json);
      for (const owner of [0, 3, 6]) {
        const response = await http.get(
          `/relationships?direction=INCOMING&urn=${encodeURIComponent(`urn:li:corpuser:owner${owner}`)}&types=List(OwnedBy)&count=1000`,
          root,
        );
        const entities = (response.json as { entities: string[] }).entities;
        answers.push([...entities].sort());
      }
      for (const index of [0, 10, 1_990]) {
        answers.push(
          await values({ urn: datasetUrn(name(index), 'hive'), entity: 'dataset', aspect: 'datasetProfile' }),
        );
      }
      return answers;
    };
    const before = await snapshot();
    expect((before[0] as { value: { numEntities: number } }).value.numEntities).toBe(count);

    // An entity the store will lose (as when the store is restored from a backup taken before it was written).
    const orphan = datasetUrn(`orphan_${deployment}`);
    await ingest([
      proposalOf(orphan, 'datasetProperties', { name: `rebuilt_${deployment}_orphan`, customProperties: {} }),
      proposalOf(orphan, 'ownership', {
        owners: [{ owner: 'urn:li:corpuser:owner0', type: 'DATAOWNER' }],
        lastModified: { time: 1, actor: 'urn:li:corpuser:datahub' },
      }),
      proposalOf(orphan, 'datasetProfile', profile(1_000)),
    ]);
    const withOrphan = await snapshot();
    expect(withOrphan).not.toEqual(before);

    // The indices survive a restart of their services.
    const indexers = deployment === 'standalone' ? ['strata'] : ['search-indexer', 'timeseries-indexer'];
    for (const service of indexers) await strata.processes[service]!.stop();
    for (const service of indexers) await strata.restart(service);
    expect(await snapshot()).toEqual(withOrphan);

    // The store loses the orphan behind the indices' back; a full rebuild makes them hold exactly what it backs.
    const writer = deployment === 'standalone' ? 'strata' : 'metadata-writer';
    await strata.processes[writer]!.stop();
    const store = new Database(join(strata.dataDir, 'metadata-writer.sqlite'));
    store.prepare('DELETE FROM metadata_aspect_v2 WHERE urn = ?').run(orphan);
    store.prepare('DELETE FROM timeseries_point WHERE urn = ?').run(orphan);
    store.close();
    await strata.restart(writer);
    const task = String(await operation('/operations?action=rebuildIndices', {}));
    expect(task).toMatch(/^[a-zA-Z0-9_-]+:[0-9]+$/);
    const rebuilt = await eventually(
      async () => {
        const answer = JSON.parse(String(await operation('/gms/operations?action=getEsTaskStatus', { task }))) as {
          completed: boolean;
          status: string;
          error?: string;
        };
        expect(answer.completed).toBe(true);
        return answer;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(rebuilt.error).toBeUndefined();
    const progress = JSON.parse(rebuilt.status) as Record<string, number | string>;
    expect(progress).toMatchObject({ phase: 'done', eta_millis: 0, change_logs_pending: 0 });
    expect(progress['created']).toBe(progress['total']);
    expect(progress['created']).toBeGreaterThanOrEqual(proposals.length);
    const metricsOwner = strata.processes['operations'] ?? strata.processes['strata'];
    const metrics = await new TestHttpClient(metricsOwner?.baseUrl ?? '').get('/metrics');
    expect(metrics.text).toMatch(/strata_rebuild_rows_done [1-9]/);
    expect(metrics.text).toMatch(/strata_rebuild_change_logs_pending 0/);
    // Done means done: every index holds what it held before, at once — no waiting after the task says so.
    expect(await snapshot()).toEqual(before);
    // And the indexers say they have nothing left to apply, with no lag while idle.
    for (const path of ['/openapi/operations/indices/progress', '/openapi/operations/indices/timeseries/progress']) {
      const report = (await http.get(path, root)).json as {
        backlog: { pending: number; partitions: { end: string; position: string; pending: number }[] };
        partitions: { lagMs: number }[];
      };
      expect({ path, pending: report.backlog.pending }).toEqual({ path, pending: 0 });
      for (const partition of report.backlog.partitions) {
        expect(partition.pending).toBe(Number(partition.end) - Number(partition.position));
      }
      expect(report.partitions.every((partition) => partition.lagMs === 0)).toBe(true);
    }

    // Empty every index: the indexers' files go while they are stopped; their consumers resume at the log's end.
    for (const service of indexers) await strata.processes[service]!.stop();
    for (const file of ['search-indexer', 'search-indexer-graph', 'timeseries-indexer']) {
      for (const suffix of ['.sqlite', '.sqlite-wal', '.sqlite-shm']) {
        rmSync(join(strata.dataDir, `${file}${suffix}`), { force: true });
      }
    }
    for (const service of indexers) await strata.restart(service);
    const emptied = await http.post(
      '/entities?action=search',
      { input: `rebuilt_${deployment}`, entity: 'dataset', start: 0, count: 1 },
      root,
    );
    expect((emptied.json as { value: { numEntities: number } }).value.numEntities).toBe(0);
    expect(
      (await values({ urn: datasetUrn(name(0), 'hive'), entity: 'dataset', aspect: 'datasetProfile' })).values,
    ).toEqual([]);

    const restored = await restoreAll({});
    expect(restored).toBeGreaterThanOrEqual(proposals.length);
    const after = await eventually(
      async () => {
        const answers = await snapshot();
        expect(answers).toEqual(before);
        return answers;
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    expect(after).toEqual(before);
  }, 300_000);
});
