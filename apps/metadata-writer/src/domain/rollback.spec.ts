import type { CurrentAspect } from './decide';
import { BadRequestError } from '@strata/model';
import {
  parseRegistryId,
  planRegistryRollback,
  planRollback,
  ROLLBACK_RUN_ID,
  writtenIn,
  type RollbackCandidate,
} from './rollback';

type StoredAspect = NonNullable<ReturnType<CurrentAspect>>;

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const other = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.other,PROD)';

function row(entity: string, aspect: string, version: number, runId: string, value: object = {}): StoredAspect {
  return {
    urn: entity,
    aspect,
    version,
    value: { ...value },
    systemMetadata: { runId, lastObserved: 1000 + version },
    createdOn: 1,
    createdBy: 'urn:li:corpuser:x',
  };
}

function candidate(latest: StoredAspect, survivor?: StoredAspect): RollbackCandidate {
  return { entityType: 'dataset', latest, isKey: latest.aspect.endsWith('Key'), survivor };
}

describe('planRollback', () => {
  const restored = candidate(row(other, 'status', 2, 'run-b', { removed: true }), row(other, 'status', 1, 'run-a'));
  const removed = candidate(row(other, 'globalTags', 1, 'run-b'));
  const key = candidate(row(urn, 'datasetKey', 1, 'run-b'));
  const createdProperties = candidate(row(urn, 'datasetProperties', 1, 'run-b'));
  const createdEntities = new Map([[urn, [key.latest, createdProperties.latest, row(urn, 'ownership', 1, 'run-c')]]]);
  const candidates = [restored, removed, key, createdProperties];

  it('given a soft rollback, when planned, then values revert or go, and the created entity is hidden last', () => {
    const plan = planRollback('run-b', candidates, { hard: false, dryRun: false, createdEntities });
    expect(plan.proposals).toEqual([
      {
        entityType: 'dataset',
        entityUrn: other,
        changeType: 'UPSERT',
        aspectName: 'status',
        value: {},
        systemMetadata: { runId: 'run-a', lastObserved: 1001 },
      },
      { entityType: 'dataset', entityUrn: other, changeType: 'DELETE', aspectName: 'globalTags' },
      { entityType: 'dataset', entityUrn: urn, changeType: 'DELETE', aspectName: 'datasetProperties' },
      {
        entityType: 'dataset',
        entityUrn: urn,
        changeType: 'UPSERT',
        aspectName: 'status',
        value: { removed: true },
        systemMetadata: { runId: ROLLBACK_RUN_ID },
      },
    ]);
    expect(plan.response).toMatchObject({
      entitiesAffected: 2,
      aspectsReverted: 4,
      aspectsAffected: 1,
      entitiesDeleted: 1,
      unsafeEntitiesCount: 1,
      unsafeEntities: [{ urn }],
    });
  });

  it('given a hard rollback, when planned, then the created entity is deleted whole, and the rest reverts', () => {
    const plan = planRollback('run-b', candidates, { hard: true, dryRun: false, createdEntities });
    expect(plan.proposals.map(({ entityUrn, changeType, aspectName }) => [entityUrn, changeType, aspectName])).toEqual([
      [other, 'UPSERT', 'status'],
      [other, 'DELETE', 'globalTags'],
      [urn, 'DELETE', 'datasetKey'],
    ]);
  });

  it('given a soft dry run, when planned, then key rows are left out of the rows listed and the count, as in DataHub', () => {
    const { response } = planRollback('run-b', candidates, { hard: false, dryRun: true, createdEntities });
    expect(response.aspectsReverted).toBe(3);
    expect(response).not.toHaveProperty('aspectsAffected');
    expect(response.aspectRowSummaries.map((summary) => [summary.aspectName, summary.keyAspect])).toEqual([
      ['status', false],
      ['globalTags', false],
      ['datasetProperties', false],
    ]);
    expect(response.aspectRowSummaries[0]).toEqual({
      runId: 'run-b',
      aspectName: 'status',
      urn: other,
      timestamp: 1002,
      keyAspect: false,
    });
  });

  it('given a run that created a dataset and, as side effects, its fields, when planned, then only the dataset is reverted: its fields follow it', () => {
    const field = `urn:li:schemaField:(${urn},field_0)`;
    const fieldRow = (aspect: string) => ({
      entityType: 'schemaField',
      latest: row(field, aspect, 1, 'run-b'),
      isKey: aspect === 'schemaFieldKey',
      survivor: undefined,
    });
    const schema = candidate(row(urn, 'schemaMetadata', 1, 'run-b'));
    const documented = fieldRow('documentation');
    const run = [
      key,
      schema,
      fieldRow('schemaFieldKey'),
      fieldRow('status'),
      fieldRow('schemaFieldAliases'),
      documented,
    ];
    for (const hard of [false, true]) {
      const plan = planRollback('run-b', run, { hard, dryRun: false, createdEntities: new Map([[urn, [key.latest]]]) });
      expect(plan.proposals.filter((proposal) => proposal.entityUrn === field)).toEqual([
        { entityType: 'schemaField', entityUrn: field, changeType: 'DELETE', aspectName: 'documentation' },
      ]);
      expect(plan.response).toMatchObject({ entitiesAffected: 2, aspectsReverted: 3, entitiesDeleted: 1 });
    }
  });

  it('given timeseries values of the run, when planned, then each aspect holding them gets a DELETE naming the run, first, and they count as reverted', () => {
    const timeseries = [
      { entityType: 'dataset', urn, aspect: 'datasetProfile', count: 3 },
      { entityType: 'dataset', urn: other, aspect: 'datasetUsageStatistics', count: 2 },
    ];
    for (const hard of [false, true]) {
      const plan = planRollback('run-b', candidates, { hard, dryRun: false, createdEntities, timeseries });
      expect(plan.proposals.slice(0, 2)).toEqual([
        {
          entityType: 'dataset',
          entityUrn: urn,
          changeType: 'DELETE',
          aspectName: 'datasetProfile',
          headers: { runId: 'run-b' },
        },
        {
          entityType: 'dataset',
          entityUrn: other,
          changeType: 'DELETE',
          aspectName: 'datasetUsageStatistics',
          headers: { runId: 'run-b' },
        },
      ]);
      const versioned = planRollback('run-b', candidates, { hard, dryRun: false, createdEntities });
      expect(plan.proposals.slice(2)).toEqual(versioned.proposals);
      // As DataHub: the values count in aspectsReverted alone; the rows and entities listed are the versioned ones.
      expect(plan.response).toEqual({
        ...versioned.response,
        aspectsReverted: (versioned.response.aspectsReverted ?? 0) + 5,
      });
    }
  });

  it('given timeseries values of the run, when a dry run is planned, then they are neither removed nor counted, as DataHub’s dry run', () => {
    const timeseries = [{ entityType: 'dataset', urn, aspect: 'datasetProfile', count: 3 }];
    const options = { hard: false, dryRun: true, createdEntities };
    expect(planRollback('run-b', candidates, { ...options, timeseries })).toEqual(
      planRollback('run-b', candidates, options),
    );
  });

  it('given only timeseries values of the run, when planned, then they go and are counted, no entity affected', () => {
    const plan = planRollback('run-t', [], {
      hard: false,
      dryRun: false,
      createdEntities: new Map(),
      timeseries: [{ entityType: 'dataset', urn, aspect: 'datasetProfile', count: 4 }],
    });
    expect(plan.proposals).toHaveLength(1);
    expect(plan.response).toMatchObject({ entitiesAffected: 0, aspectsReverted: 4, aspectRowSummaries: [] });
  });

  it('given nothing the run wrote, when planned, then nothing to do', () => {
    expect(planRollback('run-z', [], { hard: false, dryRun: false, createdEntities: new Map() })).toEqual({
      proposals: [],
      response: {
        entitiesAffected: 0,
        aspectsReverted: 0,
        aspectsAffected: 0,
        entitiesDeleted: 0,
        unsafeEntitiesCount: 0,
        unsafeEntities: [],
        aspectRowSummaries: [],
      },
    });
  });
});

describe('planRegistryRollback', () => {
  const under = (latest: StoredAspect) => ({
    ...latest,
    systemMetadata: { ...latest.systemMetadata, registryName: 'model', registryVersion: '1.0.0' },
  });
  const restored = candidate(
    under(row(other, 'status', 2, 'run-b', { removed: true })),
    row(other, 'status', 1, 'run-a'),
  );
  const removed = candidate(under(row(other, 'globalTags', 1, 'run-b')));
  const key = candidate(under(row(urn, 'datasetKey', 1, 'run-c')));
  const properties = candidate(under(row(urn, 'datasetProperties', 3, 'run-c')));

  it('given values written under a registry, when planned, then a soft rollback and DataHub’s deleteAll answer', () => {
    const plan = planRegistryRollback([restored, removed, key, properties]);
    expect(plan.proposals.map(({ entityUrn, changeType, aspectName }) => [entityUrn, changeType, aspectName])).toEqual([
      [other, 'UPSERT', 'status'],
      [other, 'DELETE', 'globalTags'],
      [urn, 'DELETE', 'datasetProperties'],
      // The entity whose key the registry wrote is hidden, not deleted: DataHub's deleteAll is never hard.
      [urn, 'UPSERT', 'status'],
    ]);
    expect(plan.proposals[3]).toMatchObject({ value: { removed: true }, systemMetadata: { runId: ROLLBACK_RUN_ID } });
    expect(plan.response).toEqual({
      entitiesAffected: 2,
      aspectsAffected: 4,
      entitiesDeleted: 1,
      aspectRowSummaries: [
        { runId: 'run-b', aspectName: 'status', urn: other, timestamp: 1002, keyAspect: false },
        { runId: 'run-b', aspectName: 'globalTags', urn: other, timestamp: 1001, keyAspect: false },
        { runId: 'run-c', aspectName: 'datasetKey', urn, timestamp: 1001, keyAspect: true },
        { runId: 'run-c', aspectName: 'datasetProperties', urn, timestamp: 1003, keyAspect: false },
      ],
    });
  });

  it('given a row with no run id, and nothing at all, when planned, then the unnamed run, and nothing to do', () => {
    const unnamed = candidate({
      ...removed.latest,
      systemMetadata: { registryName: 'model', registryVersion: '1.0.0' },
    });
    expect(planRegistryRollback([unnamed]).response.aspectRowSummaries[0]).toMatchObject({
      runId: 'no-run-id-provided',
      timestamp: 0,
    });
    expect(planRegistryRollback([])).toEqual({
      proposals: [],
      response: { entitiesAffected: 0, aspectsAffected: 0, entitiesDeleted: 0, aspectRowSummaries: [] },
    });
  });
});

describe('writtenIn', () => {
  it('given a scope, when a version is tested, then its system metadata must carry the same strings', () => {
    expect(writtenIn({ runId: 'r' }, { runId: 'r' })).toBe(true);
    expect(writtenIn({ runId: 'r' }, { runId: 'other' })).toBe(false);
    const registry = { registryName: 'model', registryVersion: '1.0.0' };
    expect(writtenIn(registry, { ...registry, runId: 'r' })).toBe(true);
    expect(writtenIn(registry, { registryName: 'model', registryVersion: '1.0' })).toBe(false);
    expect(writtenIn(registry, { registryName: 'model' })).toBe(false);
    expect(writtenIn(registry, {})).toBe(false);
  });
});

describe('parseRegistryId', () => {
  it('given name:version, when read, then both parts', () => {
    expect(parseRegistryId('mycompany-dq-model:0.0.1')).toEqual({
      registryName: 'mycompany-dq-model',
      registryVersion: '0.0.1',
    });
  });

  it("given anything else, when read, then a 400 in DataHub's words", () => {
    for (const id of ['model', 'model:', ':1.0.0', 'a:b:c', '']) {
      expect(() => parseRegistryId(id)).toThrow(new BadRequestError(`Failed to parse registry id: ${id}`));
    }
  });
});
