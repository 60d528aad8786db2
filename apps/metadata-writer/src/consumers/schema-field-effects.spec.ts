/**
 * The `schemaField` side effects as the proposal processor applies them: `handleBatch(records)` on a real SQLite store
 * (in memory), its outbox relayed to a log that records what it is given.
 */
import type { EntityRegistry, JsonObject } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { readSchemas } from '@strata/schemas';
import {
  createEventSerde,
  defaultTopicNames as topics,
  RecordHeader,
  type MetadataChangeLog,
  type MetadataChangeProposalOutcome,
} from '@strata/events';
import type { LogRecord, MessageLog, OutgoingRecord, Subscription } from '@strata/log';
import { SqliteAspectStore, type AspectStore, type StoreCommit } from '@strata/store';
import { proposalOf, type ProposalJson } from '@strata/testing';

import { schemaFieldUrn } from '../domain/schema-field-side-effects';
import { OutboxRelay } from './outbox-relay';
import { ProposalProcessor } from './proposal-processor';

const registry: EntityRegistry = testEntityRegistry();
const serde = createEventSerde(readSchemas());
const now = 1_700_000_000_000;
const dataset = 'urn:li:dataset:(urn:li:dataPlatform:bigquery,my_dataset.my_table,PROD)';
const field = (path: string, of = dataset) => schemaFieldUrn(of, path) ?? '';

class RecordingLog implements MessageLog {
  readonly published: OutgoingRecord[] = [];

  publish(records: readonly OutgoingRecord[]): Promise<void> {
    this.published.push(...records);
    return Promise.resolve();
  }

  subscribe(): Promise<Subscription> {
    return Promise.reject(new Error('the processor under test never subscribes'));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  changeLogs(): { record: OutgoingRecord; changeLog: MetadataChangeLog }[] {
    return this.published
      .filter((record) => record.topic === topics.metadataChangeLogVersioned)
      .map((record) => ({ record, changeLog: serde.changeLog.decode(record.value) }));
  }

  outcomes(): MetadataChangeProposalOutcome[] {
    return this.published
      .filter((record) => record.topic === topics.metadataChangeProposalOutcome)
      .map((record) => serde.outcome.decode(record.value));
  }
}

let nextOffset = 0;

function recordOf(proposal: ProposalJson, headers: Record<string, string> = {}): LogRecord {
  return {
    topic: topics.metadataChangeProposal,
    partition: 0,
    offset: String(nextOffset++),
    key: proposal.entityUrn,
    value: serde.proposal.encode(serde.proposal.decodeAny(Buffer.from(JSON.stringify(proposal)))),
    headers,
    timestamp: now,
  };
}

/** A schema as DataHub's smoke tests make it: string fields with these paths. */
function schema(paths: readonly string[]): JsonObject {
  return {
    schemaName: 'my_schema',
    platform: 'urn:li:dataPlatform:bigquery',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: paths.map((fieldPath) => ({
      fieldPath,
      nativeDataType: 'STRING',
      type: { type: { 'com.linkedin.schema.StringType': {} } },
      nullable: true,
    })),
  };
}

const paths = (count: number, prefix = 'field_') => Array.from({ length: count }, (_, index) => `${prefix}${index}`);
const schemaRecord = (fieldPaths: readonly string[], headers: Record<string, string> = {}, of = dataset) =>
  recordOf(proposalOf(of, 'schemaMetadata', schema(fieldPaths)), headers);
const statusRecord = (removed: boolean, of = dataset) => recordOf(proposalOf(of, 'status', { removed }));
const deleteRecord = () => recordOf(proposalOf(dataset, 'datasetKey', undefined, { changeType: 'DELETE' }));

describe('schemaField side effects in the proposal processor', () => {
  let store: SqliteAspectStore;
  let log: RecordingLog;
  let commits: StoreCommit[];
  const relays: OutboxRelay[] = [];

  /** A processor on the store, counting its commits. */
  function processor(): ProposalProcessor {
    const counting: AspectStore = Object.create(store) as AspectStore;
    counting.commit = (commit) => {
      commits.push(commit);
      return store.commit(commit);
    };
    const relay = new OutboxRelay({
      store,
      log,
      onError: (error) => {
        throw error;
      },
    });
    relays.push(relay);
    return new ProposalProcessor({
      store: counting,
      registry,
      serde,
      topics,
      relay,
      now: () => now,
      systemActor: 'urn:li:corpuser:__datahub_system',
      maxAspectBytes: 16_000_000,
      logger: { warn: () => undefined },
    });
  }

  async function removed(path: string, of = dataset): Promise<unknown> {
    return (await store.getVersion(field(path, of), 'status', 0))?.value['removed'];
  }

  beforeEach(() => {
    store = new SqliteAspectStore({ path: ':memory:' });
    log = new RecordingLog();
    commits = [];
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await store.close();
  });

  it('commits a schema’s fields with it, in the same commit, their change logs before the dataset’s own, whose last one a write waiting for indexing marks', async () => {
    const waiting = { [RecordHeader.requestId]: 'r-1', [RecordHeader.awaitIndexing]: 'true' };
    await processor().handleBatch([schemaRecord(['field_0', 'field_1'], waiting)]);

    expect(commits).toHaveLength(1);
    expect(commits[0]?.appliedProposalIds).toEqual(['r-1']);
    for (const path of ['field_0', 'field_1']) {
      expect((await store.getEntity(field(path))).map((row) => [row.aspect, row.value])).toEqual([
        ['schemaFieldAliases', { aliases: [field(path)] }],
        ['schemaFieldKey', { parent: dataset, fieldPath: path }],
        ['status', { removed: false }],
      ]);
    }
    const published = log.changeLogs();
    expect(published.map(({ changeLog }) => `${changeLog.entityType} ${changeLog.aspectName ?? ''}`)).toEqual([
      'schemaField schemaFieldKey',
      'schemaField status',
      'schemaField schemaFieldAliases',
      'schemaField schemaFieldKey',
      'schemaField status',
      'schemaField schemaFieldAliases',
      'dataset datasetKey',
      'dataset browsePaths',
      'dataset browsePathsV2',
      'dataset dataPlatformInstance',
      'dataset schemaMetadata',
    ]);
    expect(published.map(({ record }) => record.key).slice(0, 3)).toEqual([
      field('field_0'),
      field('field_0'),
      field('field_0'),
    ]);
    expect(published.map(({ record }) => record.headers?.[RecordHeader.changeId])).toEqual(
      published.map((_, index) => `r-1/${index}`),
    );
    expect(published.filter(({ record }) => record.headers?.[RecordHeader.awaitIndexing] === 'true')).toEqual([
      published[published.length - 1],
    ]);
    expect(log.outcomes()).toMatchObject([{ requestId: 'r-1', status: 'APPLIED', indexedChangeLogs: 11 }]);
  });

  it('follows a schema’s evolution and the dataset’s soft deletion, in one batch as in several', async () => {
    const steps = (of: string) => [
      schemaRecord(['field_0', 'field_1'], {}, of),
      schemaRecord(['field_0'], {}, of),
      statusRecord(true, of),
      schemaRecord(['field_0', 'field_2'], {}, of),
      statusRecord(false, of),
    ];
    await processor().handleBatch(steps(dataset));
    const state = async (of: string) => [
      await removed('field_0', of),
      await removed('field_1', of),
      await removed('field_2', of),
    ];
    expect(await state(dataset)).toEqual([false, true, false]);
    // field_2 was created soft-deleted (the dataset was), then restored.
    expect((await store.getVersion(field('field_2'), 'status', 0))?.version).toBe(2);

    const other = dataset.replace('my_table', 'other_table');
    for (const step of steps(other)) await processor().handleBatch([step]);
    expect(await state(other)).toEqual([false, true, false]);
  });

  it('writes nothing for the fields when the same schema comes again', async () => {
    await processor().handleBatch([schemaRecord(['field_0', 'field_1'])]);
    const before = log.changeLogs().length;
    await processor().handleBatch([schemaRecord(['field_0', 'field_1'])]);
    expect(log.changeLogs()).toHaveLength(before);
    expect((await store.getVersion(field('field_0'), 'status', 0))?.version).toBe(1);
  });

  it('deletes every field entity of a hard-deleted dataset, dropped ones and ones created in the same batch included', async () => {
    await processor().handleBatch([schemaRecord(['field_0', 'field_1']), schemaRecord(['field_0'])]);
    await processor().handleBatch([schemaRecord(['field_0', 'field_2']), deleteRecord()]);

    for (const path of ['field_0', 'field_1', 'field_2']) expect(await store.getEntity(field(path))).toEqual([]);
    expect(await store.getEntity(dataset)).toEqual([]);
    const deletes = log.changeLogs().filter(({ changeLog }) => changeLog.changeType === 'DELETE');
    expect(deletes.map(({ changeLog }) => `${changeLog.entityUrn} ${changeLog.aspectName ?? ''}`).sort()).toEqual(
      [
        `${dataset} datasetKey`,
        `${field('field_0')} schemaFieldKey`,
        `${field('field_1')} schemaFieldKey`,
        `${field('field_2')} schemaFieldKey`,
      ].sort(),
    );
  });

  it('commits a schema of 10,000 fields and its 30,000 field rows in one commit, and a batch of such schemas in several', async () => {
    const many = paths(10_000);
    await processor().handleBatch([schemaRecord(many)]);
    expect(commits).toHaveLength(1);
    expect(commits[0]?.mutations.length).toBe(30_000 + 5);
    expect(await store.getVersion(field('field_9999'), 'schemaFieldKey', 0)).toMatchObject({
      value: { parent: dataset, fieldPath: 'field_9999' },
    });

    // Three schemas of 7,000 fields: each proposal's 21,000 rows pass the bound, so each commits on its own.
    commits = [];
    const some = paths(7_000);
    const other = (name: string) =>
      recordOf(proposalOf(dataset.replace('my_table', name), 'schemaMetadata', schema(some)));
    await processor().handleBatch([other('t1'), other('t2'), other('t3')]);
    expect(commits.map((commit) => commit.mutations.length)).toEqual([21_005, 21_005, 21_005]);
  });
});
