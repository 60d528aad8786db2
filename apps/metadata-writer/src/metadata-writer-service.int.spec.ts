/**
 * Crash safety of the writer, on the embedded engines: a writer that dies between storing a change and emitting its
 * change log loses nothing, and a proposal delivered again after it was applied creates nothing twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { readSchemas } from '@strata/schemas';
import { createEntityRegistry } from '@strata/model';
import { createEventSerde, defaultTopicNames, RecordHeader, type MetadataChangeLog } from '@strata/events';
import { SqliteMessageLog, type LogRecord, type MessageLog, type OutgoingRecord } from '@strata/log';
import { SqliteAspectStore, type AspectStore, type StoreCommit } from '@strata/store';
import { datasetUrn, eventually, proposalOf, type ProposalJson } from '@strata/testing';
import { systemScheduler } from '@strata/timing';
import type { StrataService } from '@strata/runtime';
import { createMetadataWriterService } from './metadata-writer-service';

const schemas = readSchemas();
const registry = createEntityRegistry(schemas);
const serde = createEventSerde(schemas);
const topics = defaultTopicNames;
const urn = datasetUrn('db.crash');

let dir: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-writer-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function openEngines(): { log: SqliteMessageLog; store: SqliteAspectStore } {
  const log = new SqliteMessageLog({ path: join(dir, 'log.sqlite'), retryInitialDelayMs: 10, retryMaxDelayMs: 50 });
  const store = new SqliteAspectStore({ path: join(dir, 'writer.sqlite') });
  return { log, store };
}

function startWriter(log: MessageLog, store: AspectStore): Promise<StrataService> {
  const writer = createMetadataWriterService({
    log,
    store,
    registry,
    serde,
    topics,
    scheduler: { now: () => 1_700_000_000_000, sleep: (ms, signal) => systemScheduler.sleep(ms, signal) },
    logger: { warn: () => undefined },
    groupId: 'writer-under-test',
    systemActor: 'urn:li:corpuser:__datahub_system',
    maxAspectBytes: 16_000_000,
    maxBatchSize: 100,
  });
  return writer.start().then(() => writer);
}

/** A proposal as the gateway publishes it: Confluent-framed Avro (the record its JSON form decodes to), with headers. */
function proposalRecord(requestId: string, removed: boolean): OutgoingRecord {
  return {
    topic: topics.metadataChangeProposal,
    key: urn,
    headers: { [RecordHeader.requestId]: requestId, [RecordHeader.actor]: 'urn:li:corpuser:tester' },
    value: serde.proposal.encode(serde.proposal.decodeAny(jsonBytes(proposalOf(urn, 'status', { removed })))),
  };
}

/** A proposal as a plain JSON producer writes it. */
function jsonBytes(proposal: ProposalJson): Buffer {
  return Buffer.from(JSON.stringify(proposal));
}

/** Every record of a topic, read by a fresh consumer group; waits for `expected` of them and then for stragglers. */
async function readTopic(log: MessageLog, topic: string, expected: number): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  const subscription = await log.subscribe({
    groupId: `inspector-${randomUUID()}`,
    topics: [topic],
    handleBatch: (batch) => {
      records.push(...batch);
      return Promise.resolve();
    },
  });
  try {
    await eventually(() => {
      expect(records.length).toBeGreaterThanOrEqual(expected);
    });
    // A duplicate would arrive right behind the originals: give it the time to show before counting exactly.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return [...records];
  } finally {
    await subscription.stop();
  }
}

/** A log whose publishes to some topics fail: the writer "dies" right after its store commit, before emitting. */
function logFailingOn(log: MessageLog, failing: ReadonlySet<string>): MessageLog {
  return {
    publish: (records) =>
      records.some((record) => failing.has(record.topic))
        ? Promise.reject(new Error('broker unreachable'))
        : log.publish(records),
    subscribe: (options) => log.subscribe(options),
    close: () => log.close(),
  };
}

describe('the metadata writer under faults', () => {
  it('emits every change log exactly once when it dies between storing and emitting, and a redelivered proposal changes nothing', async () => {
    const first = openEngines();
    const crashing = await startWriter(
      logFailingOn(first.log, new Set([topics.metadataChangeLogVersioned, topics.metadataChangeProposalOutcome])),
      first.store,
    );
    await first.log.publish([proposalRecord('request-1', true)]);
    await eventually(async () => {
      expect((await first.store.getVersion(urn, 'status', 0))?.version).toBe(1);
    });
    expect((await first.store.pendingOutbox(100)).length).toBeGreaterThan(0);
    // The crash: nothing more is published by this writer.
    await crashing.stop();
    await first.log.close();
    await first.store.close();

    const second = openEngines();
    cleanups.push(async () => {
      await second.log.close();
      await second.store.close();
    });
    const restarted = await startWriter(second.log, second.store);
    cleanups.push(() => restarted.stop());
    // The same proposal delivered again, as a consumer that had not committed its position would see it.
    await second.log.publish([proposalRecord('request-1', true)]);

    const changeLogs = (await readTopic(second.log, topics.metadataChangeLogVersioned, 5)).map((record) =>
      serde.changeLog.decode(record.value),
    );
    expect(changeLogs.map((log: MetadataChangeLog) => log.aspectName).sort()).toEqual(
      ['browsePaths', 'browsePathsV2', 'dataPlatformInstance', 'datasetKey', 'status'].sort(),
    );
    const outcomes = (await readTopic(second.log, topics.metadataChangeProposalOutcome, 1)).map((record) =>
      serde.outcome.decode(record.value),
    );
    expect(outcomes).toEqual([expect.objectContaining({ requestId: 'request-1', status: 'APPLIED', version: 1 })]);
    expect(await second.store.getVersion(urn, 'status', 2)).toBeUndefined();
    expect(await second.store.pendingOutbox(100)).toEqual([]);
  });

  it('keeps a batch unacknowledged while the store fails, then applies it once', async () => {
    const engines = openEngines();
    let failuresLeft = 2;
    const flakyStore: AspectStore = Object.assign(Object.create(engines.store) as AspectStore, {
      commit: (commit: StoreCommit) =>
        failuresLeft-- > 0 ? Promise.reject(new Error('disk unavailable')) : engines.store.commit(commit),
    });
    const writer = await startWriter(engines.log, flakyStore);
    cleanups.push(async () => {
      await writer.stop();
      await engines.log.close();
      await engines.store.close();
    });
    await engines.log.publish([proposalRecord('request-a', true), proposalRecord('request-b', false)]);

    const outcomes = (await readTopic(engines.log, topics.metadataChangeProposalOutcome, 2)).map((record) =>
      serde.outcome.decode(record.value),
    );
    expect(outcomes.map(({ requestId, status, version }) => ({ requestId, status, version }))).toEqual([
      { requestId: 'request-a', status: 'APPLIED', version: 1 },
      { requestId: 'request-b', status: 'APPLIED', version: 2 },
    ]);
    expect(failuresLeft).toBeLessThan(0);
    expect((await engines.store.getVersion(urn, 'status', 1))?.value).toEqual({ removed: true });
    expect((await engines.store.getVersion(urn, 'status', 0))?.value).toEqual({ removed: false });
  });

  it('answers a record it cannot decode with a failed-proposal record and goes on with the next', async () => {
    const engines = openEngines();
    const writer = await startWriter(engines.log, engines.store);
    cleanups.push(async () => {
      await writer.stop();
      await engines.log.close();
      await engines.store.close();
    });
    await engines.log.publish([
      { topic: topics.metadataChangeProposal, key: urn, value: Buffer.from('not a proposal'), headers: {} },
      {
        topic: topics.metadataChangeProposal,
        key: urn,
        value: jsonBytes(proposalOf(urn, 'status', { removed: false })),
        headers: {},
      },
    ]);
    const failed = (await readTopic(engines.log, topics.failedMetadataChangeProposal, 1)).map((record) =>
      serde.failedProposal.decode(record.value),
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toMatch(/neither Confluent-framed Avro/);
    await eventually(async () => {
      expect((await engines.store.getVersion(urn, 'status', 0))?.value).toEqual({ removed: false });
    });
  });
});
