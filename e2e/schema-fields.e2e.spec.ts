/**
 * A dataset's fields as `schemaField` entities, kept by the writer with the dataset's writes: DataHub's smoke tests
 * `test_schema_evolution_field_dropped` and `test_soft_deleted_entity` (`smoke-test/tests/schema_fields/`) replayed
 * over REST as its Python SDK sends them (`graph.emit` → `ingestProposal`; `graph.exists` and `graph.get_aspect` →
 * `GET /aspects/{urn}?aspect=<name>&version=0`), then search, lineage, hard delete and rollback, on the shared
 * standalone process; then the smoke tests again on the shared distributed deployment (the writer on Kafka behind a
 * gateway with authentication on), where a user allowed to edit datasets alone writes a schema whose fields the writer
 * makes without asking the gateway again. Everything is named after the run.
 */
import { randomUUID } from 'node:crypto';
import { TokenService } from '@strata/auth';
import { eventually, sharedDeployment, TestHttpClient, type SharedDeployment } from '@strata/testing';

const run = `sf${randomUUID().slice(0, 8)}`;
const svc = { 'X-RestLi-Protocol-Version': '2.0.0' };
const syncIndex = { ...svc, 'X-DataHub-Sync-Index-Update': 'true' };

type FieldPathStyle = 'FLAT' | 'NESTED';

/** `make_dataset_urn("bigquery", name)`. */
const bigqueryDataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:bigquery,${name},PROD)`;

/** `make_schema_field_urn(parent_urn, field_path)`. */
const schemaFieldUrn = (parent: string, fieldPath: string) => `urn:li:schemaField:(${parent},${fieldPath})`;

/** The smoke tests' `_create_schema_with_fields(urn, num_fields, field_path_style)`, as the SDK serializes it. */
function schemaWithFields(count: number, style: FieldPathStyle = 'FLAT') {
  return {
    schemaName: 'my_schema',
    platform: 'urn:li:dataPlatform:bigquery',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: Array.from({ length: count }, (_, index) => ({
      fieldPath:
        style === 'FLAT' ? `field_${index}` : `[version=2.0].[type=Address].parent_field.[type=string].field_${index}`,
      nullable: true,
      description: '',
      type: { type: { 'com.linkedin.schema.StringType': {} } },
      nativeDataType: 'STRING',
      recursive: false,
      isPartOfKey: false,
    })),
  };
}

/** `graph.emit(MetadataChangeProposalWrapper(entityUrn=urn, aspect=...))`'s request: its proposal. */
function proposalOf(entityUrn: string, aspectName: string, value: unknown, runId = 'no-run-id-provided') {
  return {
    entityType: /^urn:li:([^:]+):/.exec(entityUrn)?.[1],
    entityUrn,
    changeType: 'UPSERT',
    aspectName,
    aspect: { value: JSON.stringify(value), contentType: 'application/json' },
    systemMetadata: { lastObserved: Date.now(), runId },
  };
}

/** A client of a deployment, as one caller (its credentials on every request). */
function clientOf(http: TestHttpClient, credentials: Record<string, string> = {}) {
  const as = (headers: Record<string, string>) => ({ ...svc, ...credentials, ...headers });
  const client = {
    /** `graph.emit(...)`: answers the status. */
    send: async (proposal: unknown, headers: Record<string, string> = {}) =>
      (await http.post('/aspects?action=ingestProposal', { proposal, async: 'false' }, as(headers))).status,
    async emit(
      entityUrn: string,
      aspectName: string,
      value: unknown,
      options: { readonly runId?: string; readonly headers?: Record<string, string> } = {},
    ): Promise<void> {
      const response = await http.post(
        '/aspects?action=ingestProposal',
        { proposal: proposalOf(entityUrn, aspectName, value, options.runId), async: 'false' },
        as(options.headers ?? {}),
      );
      expect({ status: response.status, body: response.json }).toEqual({ status: 200, body: { value: 'success' } });
    },
    /** `graph.get_aspect(urn, AspectClass)`: the value, or undefined for a 404. */
    async getAspect(urn: string, aspect: string, recordName: string): Promise<unknown> {
      const response = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=${aspect}&version=0`, as({}));
      if (response.status === 404) return undefined;
      expect(response.status).toBe(200);
      return (response.json as { aspect: Record<string, unknown> }).aspect[recordName];
    },
    /** `graph.exists(urn)`: its key aspect reads. */
    exists: async (urn: string) =>
      (await client.getAspect(urn, 'schemaFieldKey', 'com.linkedin.metadata.key.SchemaFieldKey')) !== undefined,
    status: (urn: string) =>
      client.getAspect(urn, 'status', 'com.linkedin.common.Status') as Promise<{ removed: boolean } | undefined>,
    /** The smoke tests' `assert_schema_field_exists`. */
    async assertSchemaFieldExists(urn: string, fieldPath: string): Promise<void> {
      const field = schemaFieldUrn(urn, fieldPath);
      expect(await client.exists(field)).toBe(true);
      const value = await client.status(field);
      // DataHub's assertion: `status is None or status.removed is False`.
      expect(value?.removed ?? false).toBe(false);
    },
    /** The smoke tests' `assert_schema_field_soft_deleted`. */
    async assertSchemaFieldSoftDeleted(urn: string, fieldPath: string): Promise<void> {
      expect(await client.status(schemaFieldUrn(urn, fieldPath))).toEqual({ removed: true });
    },
    async search(input: string, filter?: unknown): Promise<string[]> {
      const body = { input, entity: 'schemaField', start: 0, count: 100, ...(filter === undefined ? {} : { filter }) };
      const response = await http.post('/entities?action=search', body, as({}));
      expect(response.status).toBe(200);
      return (response.json as { value: { entities: string[] } }).value.entities;
    },
    post: (path: string, body: unknown, headers: Record<string, string> = {}) => http.post(path, body, as(headers)),
    get: (path: string) => http.get(path, as({})),
  };
  return client;
}

const ofDataset = (urn: string) => ({ or: [{ and: [{ field: 'parent', value: urn, condition: 'EQUAL' }] }] });

/** The smoke tests of `smoke-test/tests/schema_fields/schema_evolution.py`, as written there. */
function smokeTests(name: string, client: () => ReturnType<typeof clientOf>): void {
  describe.each(['NESTED', 'FLAT'] as const)('test_schema_evolution_field_dropped[%s]', (style) => {
    it('soft-deletes the field a schema drops, and keeps the one it keeps', async () => {
      const graph = client();
      const urn = bigqueryDataset(`my_dataset.my_table.${run}_${name}_${style.toLowerCase()}`);
      const twoFields = schemaWithFields(2, style);
      const fieldNames = twoFields.fields.map((field) => field.fieldPath);
      await graph.emit(urn, 'schemaMetadata', twoFields);
      for (const fieldName of fieldNames) await graph.assertSchemaFieldExists(urn, fieldName);

      const oneField = schemaWithFields(1, style);
      const newFieldName = oneField.fields[0]?.fieldPath ?? '';
      const removedFieldName = fieldNames.filter((field) => field !== newFieldName)[0] ?? '';
      await graph.emit(urn, 'schemaMetadata', oneField);

      await graph.assertSchemaFieldExists(urn, newFieldName);
      await graph.assertSchemaFieldSoftDeleted(urn, removedFieldName);
    });
  });

  it('test_soft_deleted_entity: soft-deletes the fields of a soft-deleted dataset', async () => {
    const graph = client();
    const urn = bigqueryDataset(`my_dataset.my_table.${run}_${name}_soft`);
    const twoFields = schemaWithFields(2);
    await graph.emit(urn, 'schemaMetadata', twoFields);
    for (const field of twoFields.fields) await graph.assertSchemaFieldExists(urn, field.fieldPath);

    await graph.emit(urn, 'status', { removed: true });
    for (const field of twoFields.fields) await graph.assertSchemaFieldSoftDeleted(urn, field.fieldPath);
  });
}

describe('schemaField entities (standalone)', () => {
  let graph: ReturnType<typeof clientOf>;

  beforeAll(async () => {
    graph = clientOf(new TestHttpClient((await sharedDeployment('standalone')).baseUrl));
  });

  smokeTests('standalone', () => graph);
  const emit: ReturnType<typeof clientOf>['emit'] = (...args) => graph.emit(...args);
  const exists = (urn: string) => graph.exists(urn);
  const status = (urn: string) => graph.status(urn);
  const search = (input: string, filter?: unknown) => graph.search(input, filter);

  it('restores the fields still in the schema when the dataset is restored, and a dropped field that comes back', async () => {
    const urn = bigqueryDataset(`my_dataset.my_table.${run}_restore`);
    await emit(urn, 'schemaMetadata', schemaWithFields(2));
    await emit(urn, 'schemaMetadata', schemaWithFields(1));
    await emit(urn, 'status', { removed: true });
    await emit(urn, 'status', { removed: false });
    expect(await status(schemaFieldUrn(urn, 'field_0'))).toEqual({ removed: false });
    expect(await status(schemaFieldUrn(urn, 'field_1'))).toEqual({ removed: true });

    await emit(urn, 'schemaMetadata', schemaWithFields(2));
    expect(await status(schemaFieldUrn(urn, 'field_1'))).toEqual({ removed: false });
  });

  it('reads a field’s key, status and aliases, and writes no new version when the same schema comes again', async () => {
    const urn = bigqueryDataset(`my_dataset.my_table.${run}_same`);
    await emit(urn, 'schemaMetadata', schemaWithFields(1, 'NESTED'));
    await emit(urn, 'schemaMetadata', schemaWithFields(1, 'NESTED'));
    const nested = '[version=2.0].[type=Address].parent_field.[type=string].field_0';
    const field = schemaFieldUrn(urn, nested);
    const entity = await graph.get(`/entitiesV2/${encodeURIComponent(field)}`);
    expect(entity.status).toBe(200);
    const aspects = (entity.json as { aspects: Record<string, { value: unknown; version: number }> }).aspects;
    expect(aspects['schemaFieldKey']?.value).toEqual({ parent: urn, fieldPath: nested });
    expect(aspects['status']?.value).toEqual({ removed: false });
    expect(aspects['schemaFieldAliases']?.value).toEqual({
      aliases: [schemaFieldUrn(urn, 'parent_field.field_0'), field].sort(),
    });
    const versions = await graph.get(`/aspects/${encodeURIComponent(field)}?aspect=status&version=2`);
    expect(versions.status).toBe(404);
  });

  it('makes the fields searchable as schemaField entities, the soft-deleted ones hidden', async () => {
    const urn = bigqueryDataset(`my_dataset.my_table.${run}_search`);
    await emit(urn, 'schemaMetadata', schemaWithFields(3), { headers: syncIndex });
    await emit(urn, 'schemaMetadata', schemaWithFields(2), { headers: syncIndex });
    expect((await search('*', ofDataset(urn))).sort()).toEqual([
      schemaFieldUrn(urn, 'field_0'),
      schemaFieldUrn(urn, 'field_1'),
    ]);
    expect(await search('field_1', ofDataset(urn))).toEqual([schemaFieldUrn(urn, 'field_1')]);
  });

  it('gives the column-level lineage of fineGrainedLineages entities at both ends', async () => {
    const upstream = bigqueryDataset(`my_dataset.upstream.${run}`);
    const downstream = bigqueryDataset(`my_dataset.downstream.${run}`);
    await emit(upstream, 'schemaMetadata', schemaWithFields(1), { headers: syncIndex });
    await emit(downstream, 'schemaMetadata', schemaWithFields(1), { headers: syncIndex });
    const from = schemaFieldUrn(upstream, 'field_0');
    const to = schemaFieldUrn(downstream, 'field_0');
    const stamp = { time: 0, actor: 'urn:li:corpuser:datahub' };
    await emit(
      downstream,
      'upstreamLineage',
      {
        upstreams: [{ auditStamp: stamp, dataset: upstream, type: 'TRANSFORMED' }],
        fineGrainedLineages: [
          { upstreamType: 'FIELD_SET', upstreams: [from], downstreamType: 'FIELD', downstreams: [to] },
        ],
      },
      { headers: syncIndex },
    );
    const incoming = await graph.get(
      `/relationships?direction=INCOMING&urn=${encodeURIComponent(from)}&types=List(DownstreamOf)`,
    );
    expect(incoming.status).toBe(200);
    // The dataset's lineage names the field, and the downstream field is DownstreamOf it (column-level lineage).
    expect((incoming.json as { entities: string[] }).entities).toEqual([downstream, to]);
    expect(await exists(from)).toBe(true);
    expect(await exists(to)).toBe(true);
    expect(await search('*', ofDataset(upstream))).toEqual([from]);
  });

  it('hard-deletes the fields with the dataset (POST /entities?action=delete), dropped ones included', async () => {
    const urn = bigqueryDataset(`my_dataset.my_table.${run}_hard`);
    await emit(urn, 'schemaMetadata', schemaWithFields(2), { headers: syncIndex });
    await emit(urn, 'schemaMetadata', schemaWithFields(1), { headers: syncIndex });
    const deleted = await graph.post('/entities?action=delete', { urn }, syncIndex);
    expect(deleted.status).toBe(200);
    expect(await exists(schemaFieldUrn(urn, 'field_0'))).toBe(false);
    expect(await exists(schemaFieldUrn(urn, 'field_1'))).toBe(false);
    expect(await search('*', ofDataset(urn))).toEqual([]);
  });

  describe.each([
    { mode: 'soft', body: { dryRun: false } },
    { mode: 'hard', body: { dryRun: false, hardDelete: true } },
  ])('rolling back the run that created a dataset ($mode)', ({ mode, body }) => {
    it('leaves none of its fields behind', async () => {
      const runId = `${run}-rollback-${mode}`;
      const urn = bigqueryDataset(`my_dataset.my_table.${run}_rollback_${mode}`);
      await emit(urn, 'schemaMetadata', schemaWithFields(2), { runId });
      await emit(urn, 'schemaMetadata', schemaWithFields(1), { runId });
      const rollback = await graph.post('/runs?action=rollback', { runId, ...body });
      expect(rollback.status).toBe(200);
      expect(rollback.json).toMatchObject({ value: { entitiesDeleted: 1 } });
      // Soft: the dataset is hidden and its schema, the run's alone, deleted; hard: the dataset is deleted.
      expect(await exists(schemaFieldUrn(urn, 'field_0'))).toBe(false);
      expect(await exists(schemaFieldUrn(urn, 'field_1'))).toBe(false);
    });
  });
});

describe('schemaField entities (distributed, authentication on)', () => {
  let deployment: SharedDeployment;
  let root: ReturnType<typeof clientOf>;
  const editor = `urn:li:corpuser:${run}_editor`;

  beforeAll(async () => {
    deployment = await sharedDeployment('distributed');
    const http = new TestHttpClient(deployment.baseUrl);
    const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
    const bearer = async (user: string) => ({
      Authorization: `Bearer ${(await tokens.mint(user, 'SESSION', 3_600_000)).token}`,
    });
    root = clientOf(http, await bearer('datahub'));
    // The editor exists, and may edit datasets: nothing else, schemaField entities included.
    await root.emit(editor, 'corpUserInfo', { active: true });
    await root.emit(`urn:li:dataHubPolicy:${run}-editor`, 'dataHubPolicyInfo', {
      displayName: `${run} dataset editor`,
      description: 'written by the schemaField tests',
      type: 'METADATA',
      state: 'ACTIVE',
      privileges: ['EDIT_ENTITY'],
      actors: { users: [editor] },
      resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'], condition: 'EQUALS' }] } },
      editable: true,
    });
    editing = clientOf(http, await bearer(editor.slice('urn:li:corpuser:'.length)));
  }, 180_000);
  let editing: ReturnType<typeof clientOf>;

  smokeTests('distributed', () => root);

  it('makes the fields of a schema written by a user who may edit datasets alone, whose own write of a field is refused', async () => {
    const urn = bigqueryDataset(`my_dataset.my_table.${run}_editor`);
    await editing.emit(urn, 'schemaMetadata', schemaWithFields(2), { headers: syncIndex });
    await editing.emit(urn, 'schemaMetadata', schemaWithFields(1), { headers: syncIndex });
    await editing.emit(urn, 'status', { removed: true });
    await root.assertSchemaFieldSoftDeleted(urn, 'field_0');
    await root.assertSchemaFieldSoftDeleted(urn, 'field_1');
    expect(await editing.send(proposalOf(schemaFieldUrn(urn, 'field_0'), 'status', { removed: false }))).toBe(403);

    // Search shows what the writer committed once the indexer reaches each field's partition.
    await root.emit(urn, 'status', { removed: false }, { headers: syncIndex });
    await eventually(async () => {
      expect(await root.search('*', ofDataset(urn))).toEqual([schemaFieldUrn(urn, 'field_0')]);
    });

    expect((await root.post('/entities?action=delete', { urn }, syncIndex)).status).toBe(200);
    expect(await root.exists(schemaFieldUrn(urn, 'field_0'))).toBe(false);
    expect(await root.exists(schemaFieldUrn(urn, 'field_1'))).toBe(false);
  });
});
