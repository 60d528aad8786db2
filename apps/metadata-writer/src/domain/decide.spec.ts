import {
  CREATION_REQUIRES_HEADER,
  timeseriesPointId,
  validateProposal,
  type JsonObject,
  type ValidatedProposal,
} from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { proposalOf, type ProposalOptions } from '@strata/testing';
import { deciderSpecification } from '@strata/testing/specifications';

import { decide, defaultRunId, type CurrentAspect, type Decision, type DecisionContext } from './decide';
import { jsonEqual } from './json-equal';

// Domain code may not import the store library, even for types: take the shapes from decide's own signature.
type StoredAspect = NonNullable<ReturnType<CurrentAspect>>;
type Mutation = Decision['mutations'][number];

const registry = testEntityRegistry();
const context: DecisionContext = { now: 1_700_000_000_000, actor: 'urn:li:corpuser:writer' };
const hiveDataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';
const hiveKey = { platform: 'urn:li:dataPlatform:hive', name: 'db.table', origin: 'PROD' };
const stampedByDefault = { lastObserved: context.now, runId: defaultRunId, lastRunId: defaultRunId };

/** given(the stored aspects of the proposal's entity).when(a validated proposal).then(what the decision must be). */
const spec = deciderSpecification((proposal: ValidatedProposal, current: CurrentAspect) =>
  decide(proposal, current, context),
);

/** A proposal as the writer receives it after validation against the real registry. */
function validated(
  entityUrn: string,
  aspectName: string,
  value?: JsonObject,
  options: ProposalOptions & { readonly changeType?: 'UPSERT' | 'CREATE' | 'CREATE_ENTITY' | 'DELETE' | 'PATCH' } = {},
): ValidatedProposal {
  return validateProposal(registry, proposalOf(entityUrn, aspectName, value, options));
}

/** A PATCH proposal of JSON Patch operations, as DataHub's SDK sends it. */
function patch(aspectName: string, operations: unknown, headers?: Record<string, string>): ValidatedProposal {
  return validateProposal(
    registry,
    proposalOf(hiveDataset, aspectName, operations, { changeType: 'PATCH', ...(headers ? { headers } : {}) }),
  );
}

/** The current state of the proposal's entity: the latest stored value of each aspect listed. */
function stored(...aspects: StoredAspect[]): CurrentAspect {
  return (name) => aspects.find((aspect) => aspect.aspect === name);
}

const nothingStored: CurrentAspect = stored();

function latest(aspect: string, version: number, value: JsonObject, systemMetadata?: JsonObject): StoredAspect {
  return {
    urn: hiveDataset,
    aspect,
    version,
    value,
    systemMetadata: systemMetadata ?? {
      lastObserved: 1000,
      runId: 'run-old',
      lastRunId: 'run-old',
      version: String(version),
    },
    createdOn: 1000,
    createdBy: 'urn:li:corpuser:earlier',
  };
}

/** An existing hive dataset: its key stored, plus the given aspects. */
function existingDataset(...aspects: StoredAspect[]): CurrentAspect {
  return stored(latest('datasetKey', 1, hiveKey), ...aspects);
}

function putNames(decision: Decision): string[] {
  return decision.mutations.map((mutation) => (mutation.kind === 'put' ? mutation.aspect : `<${mutation.kind}>`));
}

function putValue(decision: Decision, aspect: string): JsonObject | undefined {
  const found = decision.mutations.find((mutation) => mutation.kind === 'put' && mutation.aspect === aspect);
  return found?.kind === 'put' ? found.row.value : undefined;
}

describe('decide', () => {
  describe('the first write to an entity', () => {
    it('given no stored dataset, when an aspect is upserted, then key (v1), browsePaths, dataPlatformInstance and the aspect are written in that order', () => {
      const row = (version: number, value: JsonObject) => ({
        version,
        value,
        systemMetadata: { ...stampedByDefault, version: String(version) },
        createdOn: context.now,
        createdBy: context.actor,
      });
      const put = (aspect: string, value: JsonObject): Mutation => ({
        kind: 'put',
        urn: hiveDataset,
        aspect,
        expectedVersion: 0,
        row: row(1, value),
      });

      spec
        .given(nothingStored)
        .when(validated(hiveDataset, 'status', { removed: false }))
        .then((decision) => {
          expect(decision.mutations).toEqual([
            put('datasetKey', hiveKey),
            put('browsePaths', { paths: ['/prod/hive/db'] }),
            put('browsePathsV2', { path: [{ id: 'db' }] }),
            put('dataPlatformInstance', { platform: 'urn:li:dataPlatform:hive' }),
            put('status', { removed: false }),
          ]);
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 1 });
        });
    });

    it('given no stored dataset, when an aspect is upserted, then each written aspect has its own UPSERT change log, in write order, created by the context', () => {
      spec
        .given(nothingStored)
        .when(validated(hiveDataset, 'status', { removed: false }))
        .then((decision) => {
          expect(decision.changeLogs.map((log) => log.aspectName)).toEqual([
            'datasetKey',
            'browsePaths',
            'browsePathsV2',
            'dataPlatformInstance',
            'status',
          ]);
          for (const log of decision.changeLogs) {
            expect(log).toMatchObject({
              timeseries: false,
              entityType: 'dataset',
              entityUrn: hiveDataset,
              changeType: 'UPSERT',
              systemMetadata: { ...stampedByDefault, version: '1' },
              previousAspectValue: undefined,
              previousSystemMetadata: undefined,
              created: { time: context.now, actor: context.actor },
            });
          }
          expect(decision.changeLogs.map((log) => log.aspect)).toEqual([
            hiveKey,
            { paths: ['/prod/hive/db'] },
            { path: [{ id: 'db' }] },
            { platform: 'urn:li:dataPlatform:hive' },
            { removed: false },
          ]);
        });
    });

    it.each([
      ['a dotted name on hive', 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)', '/prod/hive/db'],
      ['a path on s3', 'urn:li:dataset:(urn:li:dataPlatform:s3,bucket/dir/file,PROD)', '/prod/s3/bucket/dir'],
      [
        'mixed case, lowercased',
        'urn:li:dataset:(urn:li:dataPlatform:hive,Sales.Orders.Daily,DEV)',
        '/dev/hive/sales/orders',
      ],
      ['a name without folders', 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)', '/prod/hive'],
    ])(
      'given a new dataset with %s, when first written, then its default browse path is DataHub’s',
      (_case, urn, path) => {
        spec
          .given(nothingStored)
          .when(validated(urn, 'status', { removed: false }))
          .then((decision) => {
            expect(putValue(decision, 'browsePaths')).toEqual({ paths: [path] });
          });
      },
    );

    it('given no stored dataset, when the first write is browsePaths, then browsePaths is written once, with the proposal’s value', () => {
      spec
        .given(nothingStored)
        .when(validated(hiveDataset, 'browsePaths', { paths: ['/mine'] }))
        .then((decision) => {
          expect(putNames(decision)).toEqual(['datasetKey', 'browsePathsV2', 'dataPlatformInstance', 'browsePaths']);
          expect(decision.changeLogs.map((log) => log.aspectName)).toEqual([
            'datasetKey',
            'browsePathsV2',
            'dataPlatformInstance',
            'browsePaths',
          ]);
          expect(putValue(decision, 'browsePaths')).toEqual({ paths: ['/mine'] });
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 1 });
        });
    });

    it('given no stored dataset, when the first write is the key aspect, then the key is written once and first, then the defaults', () => {
      spec
        .given(nothingStored)
        .when(validated(hiveDataset, 'datasetKey', hiveKey))
        .then((decision) => {
          // The key leads, as for every first write, and nothing is written twice.
          expect(putNames(decision)).toEqual(['datasetKey', 'browsePaths', 'browsePathsV2', 'dataPlatformInstance']);
          expect(decision.changeLogs.map((log) => log.aspectName)).toEqual([
            'datasetKey',
            'browsePaths',
            'browsePathsV2',
            'dataPlatformInstance',
          ]);
          expect(putValue(decision, 'datasetKey')).toEqual(hiveKey);
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 1 });
        });
    });

    it('given a new chart, when first written, then its browse path is /<tool> with the tool’s case kept', () => {
      spec
        .given(nothingStored)
        .when(validated('urn:li:chart:(Looker,c1)', 'status', { removed: false }))
        .then((decision) => {
          expect(putNames(decision)).toEqual([
            'chartKey',
            'browsePaths',
            'browsePathsV2',
            'dataPlatformInstance',
            'status',
          ]);
          expect(putValue(decision, 'chartKey')).toEqual({ dashboardTool: 'Looker', chartId: 'c1' });
          expect(putValue(decision, 'browsePaths')).toEqual({ paths: ['/Looker'] });
          expect(putValue(decision, 'browsePathsV2')).toEqual({ path: [{ id: 'Default' }] });
          // DataHub names the platform by the tool, lowercased.
          expect(putValue(decision, 'dataPlatformInstance')).toEqual({ platform: 'urn:li:dataPlatform:looker' });
        });
    });

    it('given a new dashboard, when first written, then its browse path is /<tool> lowercased', () => {
      spec
        .given(nothingStored)
        .when(validated('urn:li:dashboard:(Looker,d1)', 'status', { removed: false }))
        .then((decision) => {
          expect(putNames(decision)).toEqual([
            'dashboardKey',
            'browsePaths',
            'browsePathsV2',
            'dataPlatformInstance',
            'status',
          ]);
          expect(putValue(decision, 'browsePaths')).toEqual({ paths: ['/looker'] });
        });
    });

    it.each([
      [
        'a data job',
        'urn:li:dataJob:(urn:li:dataFlow:(Airflow,nightly,PROD),load)',
        {
          browsePaths: { paths: ['/airflow/prod'] },
          browsePathsV2: {
            path: [{ id: 'urn:li:dataFlow:(Airflow,nightly,PROD)', urn: 'urn:li:dataFlow:(Airflow,nightly,PROD)' }],
          },
          dataPlatformInstance: { platform: 'urn:li:dataPlatform:airflow' },
        },
      ],
      [
        'a data flow',
        'urn:li:dataFlow:(airflow,nightly,prod)',
        {
          browsePaths: { paths: ['/airflow/prod'] },
          browsePathsV2: { path: [{ id: 'Default' }] },
          dataPlatformInstance: { platform: 'urn:li:dataPlatform:airflow' },
        },
      ],
      [
        'an ML model',
        'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)',
        {
          browsePathsV2: { path: [{ id: 'Default' }] },
          dataPlatformInstance: { platform: 'urn:li:dataPlatform:sagemaker' },
        },
      ],
      ['a container', 'urn:li:container:abc', { browsePathsV2: { path: [{ id: 'Default' }] } }],
      [
        'a dataset whose name has no folders',
        'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)',
        {
          browsePaths: { paths: ['/prod/hive'] },
          browsePathsV2: { path: [{ id: 'Default' }] },
          dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' },
        },
      ],
    ])(
      'given %s never written, when first written, then DataHub’s default aspects come with it',
      (_case, urn, defaults) => {
        spec
          .given(nothingStored)
          .when(validated(urn, 'status', { removed: false }))
          .then((decision) => {
            const written = Object.fromEntries(
              decision.mutations.flatMap((mutation) =>
                mutation.kind === 'put' && !mutation.aspect.endsWith('Key') && mutation.aspect !== 'status'
                  ? [[mutation.aspect, mutation.row.value]]
                  : [],
              ),
            );
            expect(written).toEqual(defaults);
          });
      },
    );

    it('given a new corpuser, when first written, then only its key is added (it has no default aspects)', () => {
      spec
        .given(nothingStored)
        .when(validated('urn:li:corpuser:jdoe', 'status', { removed: false }))
        .then((decision) => {
          expect(putNames(decision)).toEqual(['corpUserKey', 'status']);
          expect(putValue(decision, 'corpUserKey')).toEqual({ username: 'jdoe' });
          expect(decision.changeLogs.map((log) => log.aspectName)).toEqual(['corpUserKey', 'status']);
        });
    });

    it('given no stored user, when a write that may not create it arrives, then it is REJECTED as forbidden, naming the privilege', () => {
      const headers = { [CREATION_REQUIRES_HEADER]: 'MANAGE_USERS_AND_GROUPS' };
      spec
        .given(nothingStored)
        .when(validated('urn:li:corpuser:jdoe', 'corpUserInfo', { active: true }, { headers }))
        .then((decision) => {
          expect(decision.mutations).toEqual([]);
          expect(decision.outcome).toEqual({
            status: 'REJECTED',
            errorCode: 'forbidden',
            error:
              'urn:li:corpuser:jdoe does not exist, and creating it needs MANAGE_USERS_AND_GROUPS, which the caller does not hold',
          });
        });
      // A user that exists is changed as usual.
      spec
        .given(stored(latest('corpUserKey', 1, { username: 'jdoe' })))
        .when(validated('urn:li:corpuser:jdoe', 'corpUserInfo', { active: true }, { headers }))
        .then((decision) => {
          expect(putNames(decision)).toEqual(['corpUserInfo']);
        });
    });

    it('given an existing dataset, when a new aspect is upserted, then neither its key nor its defaults are written again', () => {
      spec
        .given(existingDataset())
        .when(validated(hiveDataset, 'status', { removed: true }))
        .then((decision) => {
          expect(putNames(decision)).toEqual(['status']);
          expect(decision.changeLogs.map((log) => log.aspectName)).toEqual(['status']);
          expect(decision.mutations[0]).toMatchObject({ expectedVersion: 0, row: { version: 1 } });
        });
    });
  });

  describe('an upsert of an existing aspect', () => {
    const current = latest(
      'status',
      3,
      { removed: false },
      { lastObserved: 1000, runId: 'run-1', lastRunId: 'run-1', version: '3' },
    );

    it('given the same value from a later run, when upserted, then it is UNCHANGED with no change log, and only lastObserved/lastRunId are rewritten in place', () => {
      spec
        .given(existingDataset(current))
        .when(validated(hiveDataset, 'status', { removed: false }, { systemMetadata: { runId: 'run-2' } }))
        .then((decision) => {
          expect(decision.outcome).toEqual({ status: 'UNCHANGED', version: 3 });
          expect(decision.changeLogs).toEqual([]);
          expect(decision.mutations).toHaveLength(1);
          const [mutation] = decision.mutations;
          expect(mutation).toMatchObject({ kind: 'put', urn: hiveDataset, aspect: 'status', expectedVersion: 3 });
          if (mutation?.kind !== 'put') throw new Error('expected a put');
          expect(mutation.row.version).toBe(mutation.expectedVersion);
          expect(mutation.row.value).toEqual({ removed: false });
          expect(mutation.row.createdOn).toBe(current.createdOn);
          expect(mutation.row.createdBy).toBe(current.createdBy);
          // runId stays the run that wrote the value; only the observation moves.
          expect(mutation.row.systemMetadata).toEqual({
            lastObserved: context.now,
            runId: 'run-1',
            lastRunId: 'run-2',
            version: '3',
          });
        });
    });

    it('given the same value with the same run and observation time, when upserted, then nothing is mutated at all', () => {
      spec
        .given(existingDataset(current))
        .when(
          validated(
            hiveDataset,
            'status',
            { removed: false },
            { systemMetadata: { runId: 'run-1', lastObserved: 1000 } },
          ),
        )
        .then({ mutations: [], changeLogs: [], outcome: { status: 'UNCHANGED', version: 3 } });
    });

    it('given a different value, when upserted, then it becomes version N+1 expecting N, and the change log carries the previous value', () => {
      const systemMetadata = { lastObserved: context.now, runId: 'run-2', lastRunId: 'run-2', version: '4' };

      spec
        .given(existingDataset(current))
        .when(validated(hiveDataset, 'status', { removed: true }, { systemMetadata: { runId: 'run-2' } }))
        .then((decision) => {
          expect(decision.mutations).toEqual([
            {
              kind: 'put',
              urn: hiveDataset,
              aspect: 'status',
              expectedVersion: 3,
              row: {
                version: 4,
                value: { removed: true },
                systemMetadata,
                createdOn: context.now,
                createdBy: context.actor,
              },
            },
          ]);
          expect(decision.changeLogs).toEqual([
            {
              timeseries: false,
              entityType: 'dataset',
              entityUrn: hiveDataset,
              changeType: 'UPSERT',
              aspectName: 'status',
              aspect: { removed: true },
              systemMetadata,
              previousAspectValue: { removed: false },
              previousSystemMetadata: current.systemMetadata,
              created: { time: context.now, actor: context.actor },
              headers: {},
            },
          ]);
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 4 });
        });
    });

    it('given a stored value whose keys are in another order, when the same document is upserted, then it is UNCHANGED', () => {
      const properties = latest('datasetProperties', 2, {
        description: 'orders',
        customProperties: { b: '2', a: '1' },
      });

      spec
        .given(existingDataset(properties))
        .when(
          validated(
            hiveDataset,
            'datasetProperties',
            { customProperties: { a: '1', b: '2' }, description: 'orders' },
            { systemMetadata: { runId: 'run-old', lastObserved: 1000 } },
          ),
        )
        .then({ mutations: [], changeLogs: [], outcome: { status: 'UNCHANGED', version: 2 } });
    });

    it('given headers on the proposal, when a change is logged, then the change log carries them', () => {
      spec
        .given(existingDataset(current))
        .when(validated(hiveDataset, 'status', { removed: true }, { headers: { 'If-Match': 'x' } }))
        .then((decision) => {
          expect(decision.changeLogs[0]?.headers).toEqual({ 'If-Match': 'x' });
        });
    });
  });

  describe('CREATE and CREATE_ENTITY', () => {
    it('given the aspect exists, when CREATE is proposed, then it is REJECTED as a validation error and nothing changes', () => {
      spec
        .given(existingDataset(latest('status', 1, { removed: false })))
        .when(validated(hiveDataset, 'status', { removed: true }, { changeType: 'CREATE' }))
        .then((decision) => {
          expect(decision.mutations).toEqual([]);
          expect(decision.changeLogs).toEqual([]);
          expect(decision.outcome).toMatchObject({ status: 'REJECTED', errorCode: 'validation' });
          expect(decision.outcome).toHaveProperty('error', expect.stringContaining('status'));
          expect(decision.outcome).toHaveProperty('error', expect.stringContaining(hiveDataset));
        });
    });

    it('given the aspect is absent, when CREATE is proposed, then it is written as version 1', () => {
      spec
        .given(existingDataset())
        .when(validated(hiveDataset, 'status', { removed: true }, { changeType: 'CREATE' }))
        .then((decision) => {
          expect(putNames(decision)).toEqual(['status']);
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 1 });
        });
    });

    it('given the entity exists, when CREATE_ENTITY is proposed, then it is REJECTED as a validation error and nothing changes', () => {
      spec
        .given(existingDataset())
        .when(validated(hiveDataset, 'status', { removed: true }, { changeType: 'CREATE_ENTITY' }))
        .then((decision) => {
          expect(decision.mutations).toEqual([]);
          expect(decision.changeLogs).toEqual([]);
          expect(decision.outcome).toMatchObject({ status: 'REJECTED', errorCode: 'validation' });
          expect(decision.outcome).toHaveProperty('error', expect.stringContaining(hiveDataset));
        });
    });

    it('given the entity is absent, when CREATE_ENTITY is proposed, then the entity is created with the aspect', () => {
      spec
        .given(nothingStored)
        .when(validated(hiveDataset, 'status', { removed: true }, { changeType: 'CREATE_ENTITY' }))
        .then((decision) => {
          expect(putNames(decision)).toEqual([
            'datasetKey',
            'browsePaths',
            'browsePathsV2',
            'dataPlatformInstance',
            'status',
          ]);
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 1 });
        });
    });
  });

  describe('DELETE', () => {
    const deletion = (aspectName: string) => validated(hiveDataset, aspectName, undefined, { changeType: 'DELETE' });

    it('given the aspect exists, when it is deleted, then it is removed at its version and a DELETE change log carries the previous value', () => {
      const current = latest('status', 2, { removed: true });

      spec
        .given(existingDataset(current))
        .when(deletion('status'))
        .then((decision) => {
          expect(decision.mutations).toEqual([
            { kind: 'deleteAspect', urn: hiveDataset, aspect: 'status', expectedVersion: 2 },
          ]);
          expect(decision.changeLogs).toHaveLength(1);
          expect(decision.changeLogs[0]).toMatchObject({
            changeType: 'DELETE',
            aspectName: 'status',
            aspect: undefined,
            previousAspectValue: { removed: true },
            previousSystemMetadata: current.systemMetadata,
            created: { time: context.now, actor: context.actor },
          });
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: undefined });
        });
    });

    it('given the aspect is absent, when it is deleted, then it is UNCHANGED and nothing happens', () => {
      spec
        .given(existingDataset())
        .when(deletion('status'))
        .then({ mutations: [], changeLogs: [], outcome: { status: 'UNCHANGED', version: undefined } });
    });

    it('given the entity exists, when its key aspect is deleted, then the entity is deleted with one DELETE change log for the key', () => {
      spec
        .given(existingDataset(latest('status', 1, { removed: false })))
        .when(deletion('datasetKey'))
        .then((decision) => {
          expect(decision.mutations).toEqual([{ kind: 'deleteEntity', urn: hiveDataset }]);
          expect(decision.changeLogs).toHaveLength(1);
          expect(decision.changeLogs[0]).toMatchObject({
            changeType: 'DELETE',
            aspectName: 'datasetKey',
            aspect: undefined,
            previousAspectValue: hiveKey,
          });
          // The versions removed: the key's and status's one each.
          expect(decision.outcome).toEqual({
            status: 'APPLIED',
            version: undefined,
            deleted: { rows: 2, timeseriesRows: 0 },
          });
        });
    });

    it('given stored timeseries values, when the entity is deleted, then the outcome counts them and each timeseries aspect logs a DELETE', () => {
      const decision = decide(
        deletion('datasetKey'),
        existingDataset(latest('status', 3, { removed: false })),
        context,
        {
          timeseriesRows: 7,
        },
      );
      expect(decision.outcome).toMatchObject({ status: 'APPLIED', deleted: { rows: 4, timeseriesRows: 7 } });
      const timeseries = decision.changeLogs.filter((changeLog) => changeLog.timeseries);
      expect(timeseries.map((changeLog) => [changeLog.aspectName, changeLog.changeType])).toEqual(
        expect.arrayContaining([
          ['datasetProfile', 'DELETE'],
          ['datasetUsageStatistics', 'DELETE'],
          ['operation', 'DELETE'],
        ]),
      );
      expect(timeseries.every((changeLog) => changeLog.headers['endTimeMillis'] === undefined)).toBe(true);
    });

    it('given the entity is absent, when its key aspect is deleted, then it is UNCHANGED and nothing happens', () => {
      spec
        .given(nothingStored)
        .when(deletion('datasetKey'))
        .then({
          mutations: [],
          changeLogs: [],
          outcome: { status: 'UNCHANGED', version: undefined, deleted: { rows: 0, timeseriesRows: 0 } },
        });
    });

    it('given timeseries values in a range, when the aspect is deleted with the range, then they go and are counted', () => {
      const ranged = validated(hiveDataset, 'datasetProfile', undefined, {
        changeType: 'DELETE',
        headers: { startTimeMillis: '100', endTimeMillis: '200' },
      });
      expect(decide(ranged, existingDataset(), context, { timeseriesRows: 3 })).toEqual({
        mutations: [
          {
            kind: 'deleteTimeseries',
            urn: hiveDataset,
            aspect: 'datasetProfile',
            range: { fromMillis: 100, untilMillis: 200 },
          },
        ],
        changeLogs: [
          expect.objectContaining({
            timeseries: true,
            changeType: 'DELETE',
            aspectName: 'datasetProfile',
            aspect: undefined,
            headers: { startTimeMillis: '100', endTimeMillis: '200' },
          }),
        ],
        outcome: { status: 'APPLIED', version: undefined, deleted: { timeseriesRows: 3 } },
      });
      expect(decide(ranged, existingDataset(), context, { timeseriesRows: 0 }).outcome).toEqual({
        status: 'UNCHANGED',
        version: undefined,
        deleted: { timeseriesRows: 0 },
      });
    });

    it('given timeseries values of a run, when the aspect is deleted naming the run, then only its values go, and the change log names it', () => {
      const ofRun = validated(hiveDataset, 'datasetUsageStatistics', undefined, {
        changeType: 'DELETE',
        headers: { runId: 'postgres-1', endTimeMillis: '200' },
      });
      expect(decide(ofRun, existingDataset(), context, { timeseriesRows: 2 })).toEqual({
        mutations: [
          {
            kind: 'deleteTimeseries',
            urn: hiveDataset,
            aspect: 'datasetUsageStatistics',
            range: { untilMillis: 200 },
            runId: 'postgres-1',
          },
        ],
        changeLogs: [
          expect.objectContaining({
            timeseries: true,
            changeType: 'DELETE',
            aspectName: 'datasetUsageStatistics',
            headers: { runId: 'postgres-1', endTimeMillis: '200' },
          }),
        ],
        outcome: { status: 'APPLIED', version: undefined, deleted: { timeseriesRows: 2 } },
      });
      expect(decide(ofRun, existingDataset(), context, { timeseriesRows: 0 })).toMatchObject({
        mutations: [],
        changeLogs: [],
        outcome: { status: 'UNCHANGED', deleted: { timeseriesRows: 0 } },
      });
    });

    it('given a run named on the deletion of the entity, when decided, then every timeseries point still goes: its logs name no run', () => {
      const entity = validated(hiveDataset, 'datasetKey', undefined, {
        changeType: 'DELETE',
        headers: { runId: 'postgres-1', startTimeMillis: '100' },
      });
      const decision = decide(entity, existingDataset(), context, { timeseriesRows: 5 });
      expect(decision.mutations).toEqual([{ kind: 'deleteEntity', urn: hiveDataset }]);
      const timeseries = decision.changeLogs.filter((changeLog) => changeLog.timeseries);
      expect(timeseries.length).toBeGreaterThan(0);
      expect(timeseries.every((changeLog) => Object.keys(changeLog.headers).length === 0)).toBe(true);
    });
  });

  describe('timeseries aspects', () => {
    const profile = { timestampMillis: 1_699_000_000_000, rowCount: 42 };

    it('given an existing dataset, when a timeseries value is upserted, then it is kept as its point and logged as timeseries, unversioned', () => {
      spec
        .given(existingDataset())
        .when(validated(hiveDataset, 'datasetProfile', profile))
        .then((decision) => {
          expect(decision.mutations).toEqual([
            {
              kind: 'putTimeseries',
              value: {
                urn: hiveDataset,
                aspect: 'datasetProfile',
                id: timeseriesPointId(hiveDataset, profile),
                timestampMillis: profile.timestampMillis,
                value: profile,
                systemMetadata: stampedByDefault,
                createdOn: context.now,
                createdBy: context.actor,
              },
            },
          ]);
          expect(decision.changeLogs).toHaveLength(1);
          expect(decision.changeLogs[0]).toMatchObject({
            timeseries: true,
            changeType: 'UPSERT',
            aspectName: 'datasetProfile',
            aspect: profile,
            systemMetadata: stampedByDefault,
            previousAspectValue: undefined,
          });
          expect(decision.changeLogs[0]?.systemMetadata).not.toHaveProperty('version');
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: undefined });
        });
    });

    it('given no stored dataset, when a timeseries value is upserted, then the entity is created first (key and defaults)', () => {
      spec
        .given(nothingStored)
        .when(validated(hiveDataset, 'datasetProfile', profile))
        .then((decision) => {
          expect(putNames(decision)).toEqual([
            'datasetKey',
            'browsePaths',
            'browsePathsV2',
            'dataPlatformInstance',
            '<putTimeseries>',
          ]);
          expect(decision.changeLogs.map((log) => [log.aspectName, log.timeseries])).toEqual([
            ['datasetKey', false],
            ['browsePaths', false],
            ['browsePathsV2', false],
            ['dataPlatformInstance', false],
            ['datasetProfile', true],
          ]);
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: undefined });
        });
    });
  });

  describe('system metadata stamping', () => {
    /** The system metadata stamped on the change log of an upsert to an existing dataset proposing `systemMetadata`. */
    function stamping(systemMetadata: JsonObject | undefined) {
      return spec
        .given(existingDataset())
        .when(validated(hiveDataset, 'status', { removed: true }, { systemMetadata }));
    }
    const stampedOn = (decision: Decision): unknown => decision.changeLogs[0]?.systemMetadata;

    it('given no system metadata, when stamped, then runId is the default run id, lastRunId the same, and lastObserved now', () => {
      stamping(undefined).then((decision) => {
        expect(stampedOn(decision)).toEqual({
          lastObserved: context.now,
          runId: 'no-run-id-provided',
          lastRunId: 'no-run-id-provided',
          version: '1',
        });
      });
    });

    it('given a runId and lastObserved, when stamped, then both are kept, runId is copied to lastRunId, and other fields pass through', () => {
      stamping({ runId: 'run-7', lastObserved: 123, pipelineName: 'nightly', lastRunId: 'stale' }).then((decision) => {
        expect(stampedOn(decision)).toEqual({
          runId: 'run-7',
          lastRunId: 'run-7',
          lastObserved: 123,
          pipelineName: 'nightly',
          version: '1',
        });
      });
    });

    it('given lastObserved 0, when stamped, then lastObserved is now', () => {
      stamping({ lastObserved: 0 }).then((decision) => {
        expect(stampedOn(decision)).toMatchObject({ lastObserved: context.now });
      });
    });
  });
});

describe('jsonEqual', () => {
  it('given objects with keys in different orders, then they are equal', () => {
    expect(jsonEqual({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
  });

  it('given a key whose value is undefined, then it counts as absent, on either side', () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, c: undefined })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(true);
    expect(jsonEqual({ a: undefined }, { a: null })).toBe(false);
  });

  it('given arrays with the same items in another order, then they differ (arrays are order-sensitive)', () => {
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1, 2], [1, 2])).toBe(true);
    expect(jsonEqual([1], [1, 1])).toBe(false);
  });

  it('given nested documents, then a difference at any depth is found', () => {
    const left = { paths: [{ id: 'x', tags: ['a', 'b'] }], meta: { owner: { urn: 'u' } } };
    expect(jsonEqual(left, { meta: { owner: { urn: 'u' } }, paths: [{ tags: ['a', 'b'], id: 'x' }] })).toBe(true);
    expect(jsonEqual(left, { meta: { owner: { urn: 'v' } }, paths: [{ tags: ['a', 'b'], id: 'x' }] })).toBe(false);
    expect(jsonEqual(left, { meta: { owner: { urn: 'u' } }, paths: [{ tags: ['b', 'a'], id: 'x' }] })).toBe(false);
  });

  it('given values of different kinds, then they differ', () => {
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ 0: 'a' }, ['a'])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual(null, null)).toBe(true);
    expect(jsonEqual('x', 'x')).toBe(true);
  });

  describe('PATCH', () => {
    const tags = (...names: string[]) => ({ tags: names.map((name) => ({ tag: `urn:li:tag:${name}` })) });

    it('given stored tags, when a tag is added by URN, then a new version holds both', () => {
      spec
        .given(existingDataset(latest('globalTags', 1, tags('a'))))
        .when(patch('globalTags', [{ op: 'add', path: '/tags/urn:li:tag:b', value: { tag: 'urn:li:tag:b' } }]))
        .then((decision) => {
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 2 });
          expect(putValue(decision, 'globalTags')).toEqual(tags('a', 'b'));
          expect(decision.changeLogs[0]).toMatchObject({ changeType: 'UPSERT', previousAspectValue: tags('a') });
        });
    });

    it('given a new entity, when patched, then the entity is created and the patch applies to the empty template', () => {
      spec
        .given(nothingStored)
        .when(patch('globalTags', [{ op: 'add', path: '/tags/urn:li:tag:a', value: { tag: 'urn:li:tag:a' } }]))
        .then((decision) => {
          expect(putNames(decision)).toContain('datasetKey');
          expect(putValue(decision, 'globalTags')).toEqual(tags('a'));
        });
    });

    it('given a patch that changes nothing, when applied, then no version is written', () => {
      spec
        .given(existingDataset(latest('globalTags', 1, tags('a'))))
        .when(patch('globalTags', [{ op: 'remove', path: '/tags/urn:li:tag:zzz' }]))
        .then((decision) => {
          expect(decision.outcome).toEqual({ status: 'UNCHANGED', version: 1 });
        });
    });

    it('given a patch whose result breaks the schema, when applied, then refused with the field, nothing written', () => {
      spec
        .given(existingDataset(latest('globalTags', 1, tags('a'))))
        .when(patch('globalTags', [{ op: 'add', path: '/tags/urn:li:tag:b', value: { tag: 'not a urn' } }]))
        .then((decision) => {
          expect(decision.mutations).toEqual([]);
          expect(decision.outcome).toMatchObject({ status: 'REJECTED', errorCode: 'validation' });
          expect(decision.outcome).toMatchObject({
            error: expect.stringMatching(/^Invalid format for aspect: globalTags\n Cause: \/tags\/1\/tag/) as unknown,
          });
        });
    });

    it('given an operation that cannot apply, when applied, then refused naming the operation', () => {
      spec
        .given(existingDataset())
        .when(patch('status', [{ op: 'replace', path: '/nowhere/deep', value: true }]))
        .then((decision) => {
          expect(decision.outcome).toMatchObject({
            status: 'REJECTED',
            errorCode: 'validation',
            error: expect.stringMatching(
              /^Patch operation 0 \(replace \/nowhere\/deep\) cannot apply to aspect status/,
            ) as unknown,
          });
        });
    });
  });

  describe('conditional writes', () => {
    const status = (removed: boolean) => ({ removed });

    it('given If-Version-Match equal to the stored version, when upserted, then applied', () => {
      spec
        .given(existingDataset(latest('status', 3, status(false))))
        .when(validated(hiveDataset, 'status', status(true), { headers: { 'If-Version-Match': '3' } }))
        .then((decision) => {
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 4 });
        });
    });

    it('given If-Version-Match of another version, when upserted, then refused as a failed precondition, nothing written', () => {
      spec
        .given(existingDataset(latest('status', 3, status(false))))
        .when(validated(hiveDataset, 'status', status(true), { headers: { 'if-version-match': '2' } }))
        .then({
          mutations: [],
          changeLogs: [],
          outcome: {
            status: 'REJECTED',
            errorCode: 'precondition-failed',
            error: 'Expected version 2, actual version 3',
          },
        });
    });

    it('given If-Version-Match -1, when the aspect is absent, then applied; when present, refused', () => {
      spec
        .given(existingDataset())
        .when(validated(hiveDataset, 'status', status(true), { headers: { 'If-Version-Match': '-1' } }))
        .then((decision) => {
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 1 });
        });
      spec
        .given(existingDataset(latest('status', 1, status(false))))
        .when(validated(hiveDataset, 'status', status(true), { headers: { 'If-Version-Match': '-1' } }))
        .then((decision) => {
          expect(decision.outcome).toMatchObject({
            errorCode: 'precondition-failed',
            error: 'Expected version -1, actual version 1',
          });
        });
    });

    it('given If-None-Match: * and an existing aspect, when created, then nothing is written and it succeeds', () => {
      spec
        .given(existingDataset(latest('status', 2, status(false))))
        .when(
          validated(hiveDataset, 'status', status(true), { changeType: 'CREATE', headers: { 'If-None-Match': '*' } }),
        )
        .then({ mutations: [], changeLogs: [], outcome: { status: 'UNCHANGED', version: 2 } });
    });

    it('given If-None-Match: * and an existing entity, when created as an entity, then nothing is written and it succeeds', () => {
      spec
        .given(existingDataset())
        .when(
          validated(hiveDataset, 'status', status(true), {
            changeType: 'CREATE_ENTITY',
            headers: { 'If-None-Match': '*' },
          }),
        )
        .then({ mutations: [], changeLogs: [], outcome: { status: 'UNCHANGED', version: undefined } });
    });
  });
});
