import { readSchemas } from '@strata/schemas';
import { createEventSerde, defaultTopicNames, RecordHeader, type MetadataIndexAcknowledgement } from '@strata/events';
import { UnavailableError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { SqliteMessageLog, type LogRecord, type MessageLog, type OutgoingRecord } from '@strata/log';
import { FakeScheduler } from '@strata/timing/testing';
import { eventually } from '@strata/testing';
import { ChangeLogProcessor } from './change-log-processor';
import type { ChangeLogEvent, ChangeLogHook, ChangeLogKind } from './change-log-hook';

const serde = createEventSerde(readSchemas());
const registry = testEntityRegistry();
const topics = defaultTopicNames;
const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';

/** A change log as the writer emits it, wrapped in a log record at `offset`. */
function changeLogRecord(
  offset: number,
  change: { entityType?: string; urn?: string; aspectName?: string; value?: unknown; kind?: ChangeLogKind } = {},
  headers: Record<string, string> = {},
): LogRecord {
  const kind = change.kind ?? 'versioned';
  return {
    topic: kind === 'versioned' ? topics.metadataChangeLogVersioned : topics.metadataChangeLogTimeseries,
    partition: 0,
    offset: String(offset),
    key: change.urn ?? dataset,
    timestamp: 1_000 + offset,
    headers,
    value: serde.changeLog.encode({
      auditHeader: null,
      entityType: change.entityType ?? 'dataset',
      entityUrn: change.urn ?? dataset,
      entityKeyAspect: null,
      changeType: 'UPSERT',
      aspectName: change.aspectName ?? 'status',
      aspect: {
        value: Buffer.from(JSON.stringify(change.value ?? { removed: false })),
        contentType: 'application/json',
      },
      systemMetadata: null,
      headers: null,
      previousAspectValue: null,
      previousSystemMetadata: null,
      created: { time: 7, actor: 'urn:li:corpuser:jdoe', impersonator: null, message: null },
    }),
  };
}

function undecodableRecord(offset: number, headers: Record<string, string> = {}): LogRecord {
  return { ...changeLogRecord(offset), value: Buffer.from('not avro'), headers };
}

const awaiting = (requestId: string) => ({ [RecordHeader.requestId]: requestId, [RecordHeader.awaitIndexing]: 'true' });

/** A hook that records what it was given, and fails as long as `failures` says. */
function recordingHook(name: string, options: Partial<ChangeLogHook> & { failures?: number } = {}) {
  const batches: ChangeLogEvent[][] = [];
  let failures = options.failures ?? 0;
  const hook: ChangeLogHook = {
    name,
    consumes: options.consumes ?? ['versioned'],
    servesReads: options.servesReads ?? true,
    ...(options.accepts === undefined ? {} : { accepts: options.accepts }),
    ...(options.appliesRestatements === undefined ? {} : { appliesRestatements: options.appliesRestatements }),
    apply: (events) => {
      if (failures > 0) {
        failures -= 1;
        return Promise.reject(new Error(`${name} is down`));
      }
      batches.push([...events]);
      return Promise.resolve();
    },
  };
  return { hook, batches };
}

/**
 * A log that only records what is published (the processor's handleBatch is driven directly). It lists no partition
 * when asked for positions: the backlog of a processor on it is empty.
 */
function publishingLog(): { log: MessageLog; published: OutgoingRecord[] } {
  const published: OutgoingRecord[] = [];
  const log: MessageLog = {
    publish: (records) => {
      published.push(...records);
      return Promise.resolve();
    },
    subscribe: () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
    groupPositions: () => Promise.resolve([]),
  };
  return { log, published };
}

function processorWith(hooks: ChangeLogHook[], log: MessageLog, scheduler = new FakeScheduler(5_000)) {
  const warnings: { details: Record<string, unknown>; message: string }[] = [];
  const processor = new ChangeLogProcessor({
    name: 'search-indexer',
    groupId: 'search-indexer-test',
    log,
    serde,
    registry,
    topics,
    hooks,
    scheduler,
    logger: { warn: (details, message) => warnings.push({ details: details as Record<string, unknown>, message }) },
    retryBackoff: { initialMs: 100, maxMs: 1_000 },
  });
  return { processor, warnings, scheduler };
}

function acknowledgements(published: readonly OutgoingRecord[]): MetadataIndexAcknowledgement[] {
  return published
    .filter((record) => record.topic === topics.metadataIndexAcknowledgement)
    .map((record) => serde.indexAcknowledgement.decode(record.value));
}

describe('ChangeLogProcessor', () => {
  it('hands every hook the decoded events of the kinds it consumes, in log order', async () => {
    const search = recordingHook('search');
    const usage = recordingHook('usage', { consumes: ['timeseries'] });
    const { processor } = processorWith([search.hook, usage.hook], publishingLog().log);

    await processor.handleBatch([
      changeLogRecord(0, { aspectName: 'status', value: { removed: true } }),
      changeLogRecord(1, { aspectName: 'globalTags', value: { tags: [] } }),
    ]);

    expect(usage.batches).toEqual([]);
    expect(search.batches).toHaveLength(1);
    expect(
      search.batches[0]!.map(({ kind, urn, aspect, entity, changeType, value, created, record }) => ({
        kind,
        urn,
        aspect: aspect.name,
        entity: entity.name,
        changeType,
        value,
        created,
        offset: record.offset,
      })),
    ).toEqual([
      {
        kind: 'versioned',
        urn: dataset,
        aspect: 'status',
        entity: 'dataset',
        changeType: 'UPSERT',
        value: { removed: true },
        created: { time: 7, actor: 'urn:li:corpuser:jdoe' },
        offset: '0',
      },
      expect.objectContaining({ aspect: 'globalTags', offset: '1' }),
    ]);
  });

  it('parses no aspect value when no hook reads values, and every value when one does', async () => {
    const trail = recordingHook('trail');
    const trailOnly = processorWith([{ ...trail.hook, readsValues: false }], publishingLog().log).processor;
    await trailOnly.handleBatch([changeLogRecord(0, { aspectName: 'status', value: { removed: true } })]);
    expect(trail.batches[0]?.map((event) => [event.aspect.name, event.value])).toEqual([['status', undefined]]);

    const both = recordingHook('trail-beside-search');
    const search = recordingHook('search');
    const mixed = processorWith([{ ...both.hook, readsValues: false }, search.hook], publishingLog().log).processor;
    await mixed.handleBatch([changeLogRecord(0, { aspectName: 'status', value: { removed: true } })]);
    expect(search.batches[0]?.map((event) => event.value)).toEqual([{ removed: true }]);
  });

  it('gives restatements only to hooks that apply them, and decodes none a processor has no hook for', async () => {
    const restated = { [RecordHeader.changeType]: 'RESTATE' };
    const trail = recordingHook('trail', { appliesRestatements: false });
    const search = recordingHook('search');
    const mixed = processorWith([trail.hook, search.hook], publishingLog().log).processor;
    // The header says RESTATE, the record too: the search hook gets it, the trail does not.
    const record = changeLogRecord(1, {}, restated);
    const restatement = { ...record, value: reencoded(record.value, 'RESTATE') };
    await mixed.handleBatch([changeLogRecord(0), restatement]);
    expect(search.batches[0]?.map((event) => event.changeType)).toEqual(['UPSERT', 'RESTATE']);
    expect(trail.batches[0]?.map((event) => event.changeType)).toEqual(['UPSERT']);

    const trailOnly = recordingHook('trail-only', { appliesRestatements: false });
    const { processor, warnings } = processorWith([trailOnly.hook], publishingLog().log);
    // Not decoded at all: a record that could not be decoded is not even reported.
    const garbled = { ...changeLogRecord(2, {}, restated), value: Buffer.from('not avro') };
    await processor.handleBatch([changeLogRecord(1), garbled]);
    expect(trailOnly.batches[0]?.map((event) => event.record.offset)).toEqual(['1']);
    expect(warnings).toEqual([]);
    expect((await processor.progress()).recordsSkipped).toBe(0);
  });

  it('gives a hook only what it accepts, yet counts it up to date with the whole batch', async () => {
    const tags = recordingHook('tags', { accepts: (event) => event.aspect.name === 'globalTags' });
    const { processor } = processorWith([tags.hook], publishingLog().log);

    await processor.handleBatch([
      changeLogRecord(0),
      changeLogRecord(1, { aspectName: 'globalTags', value: { tags: [] } }),
    ]);

    expect(tags.batches.map((batch) => batch.map((event) => event.record.offset))).toEqual([['1']]);
    const [report] = (await processor.progress()).hooks;
    expect(report).toMatchObject({
      hook: 'tags',
      recordsApplied: 1,
      partitions: [{ offset: '1', lagMs: 5_000 - 1_001 }],
    });
  });

  it('skips, logs with its position, counts and acknowledges as SKIPPED a record that can never be applied', async () => {
    const search = recordingHook('search');
    const graph = recordingHook('graph');
    const { log, published } = publishingLog();
    const { processor, warnings } = processorWith([search.hook, graph.hook], log);

    await processor.handleBatch([
      changeLogRecord(0),
      undecodableRecord(1, awaiting('req-1')),
      changeLogRecord(2, { entityType: 'spaceship', urn: 'urn:li:spaceship:x' }, awaiting('req-2')),
      changeLogRecord(3, { aspectName: 'noSuchAspect' }),
      changeLogRecord(4, { aspectName: 'datasetProfile', value: { timestampMillis: 1 } }),
      changeLogRecord(5, {}, awaiting('req-5')),
    ]);

    expect(search.batches.map((batch) => batch.map((event) => event.record.offset))).toEqual([['0', '5']]);
    expect(warnings.map(({ details }) => [details['offset'], details['reason']])).toEqual([
      ['1', 'undecodable'],
      ['2', 'unknown-entity'],
      ['3', 'unknown-aspect'],
      ['4', 'wrong-topic'],
    ]);
    expect(warnings[0]).toMatchObject({
      message: 'skipping a change log that can never be applied',
      details: { consumer: 'search-indexer', topic: topics.metadataChangeLogVersioned, partition: 0, key: dataset },
    });
    expect(acknowledgements(published).map(({ requestId, indexer, status }) => [requestId, indexer, status])).toEqual([
      ['req-1', 'search', 'SKIPPED'],
      ['req-1', 'graph', 'SKIPPED'],
      ['req-2', 'search', 'SKIPPED'],
      ['req-2', 'graph', 'SKIPPED'],
      ['req-5', 'search', 'APPLIED'],
      ['req-5', 'graph', 'APPLIED'],
    ]);
    const [skipped] = acknowledgements(published);
    expect(skipped?.error).toMatch(/^search-indexer skipped the change log at MetadataChangeLog_Versioned_v1\/0@1: /);
    expect(acknowledgements(published)[4]).toMatchObject({ entityUrn: dataset, error: null, timestampMillis: 5_000 });
    expect(await processor.progress()).toMatchObject({ recordsApplied: 6, recordsSkipped: 4 });
    expect(await processor.metrics.metrics()).toContain(
      'strata_change_log_records_skipped_total{consumer="search-indexer",reason="undecodable"} 1',
    );
  });

  it('acknowledges only for hooks that serve reads, and only records that ask for it', async () => {
    const search = recordingHook('search');
    const audit = recordingHook('audit', { servesReads: false });
    const { log, published } = publishingLog();
    const { processor } = processorWith([search.hook, audit.hook], log);

    await processor.handleBatch([changeLogRecord(0), changeLogRecord(1, {}, awaiting('req-1'))]);

    expect(acknowledgements(published).map(({ requestId, indexer }) => [requestId, indexer])).toEqual([
      ['req-1', 'search'],
    ]);
    expect(published[0]).toMatchObject({ key: dataset, headers: { [RecordHeader.requestId]: 'req-1' } });
    expect(processor.readModels).toEqual([{ name: 'search', topics: [topics.metadataChangeLogVersioned] }]);
  });

  it('retries a failing hook with backoff on the scheduler, acknowledging nothing until it applied', async () => {
    const search = recordingHook('search');
    const graph = recordingHook('graph', { failures: 3 });
    const { log, published } = publishingLog();
    const { processor, warnings, scheduler } = processorWith([search.hook, graph.hook], log);

    let done = false;
    const handled = processor.handleBatch([changeLogRecord(0, {}, awaiting('req-0'))]).then(() => {
      done = true;
    });
    await scheduler.untilSleeping();
    expect(scheduler.pending).toEqual([5_100]);
    await scheduler.advance(100);
    expect(scheduler.pending).toEqual([5_300]);
    await scheduler.advance(200);
    expect(done).toBe(false);
    expect(published).toEqual([]);
    await scheduler.advance(400);
    await handled;

    expect(search.batches).toHaveLength(1);
    expect(graph.batches).toHaveLength(1);
    expect(warnings.map(({ details }) => [details['hook'], details['attempt']])).toEqual([
      ['graph', 1],
      ['graph', 2],
      ['graph', 3],
    ]);
    expect(acknowledgements(published)).toHaveLength(2);
    expect(await processor.metrics.metrics()).toContain(
      'strata_change_log_hook_failures_total{consumer="search-indexer",hook="graph"} 3',
    );
  });

  it('gives up a retry when stopped, rejecting so that the batch stays uncommitted', async () => {
    const down = recordingHook('search', { failures: 1_000 });
    const { processor, scheduler } = processorWith([down.hook], publishingLog().log);
    const handled = processor.handleBatch([changeLogRecord(0)]);
    await scheduler.untilSleeping();
    await processor.stop();
    await expect(handled).rejects.toThrow('search is down');
    expect(scheduler.pending).toEqual([]);
  });

  it('refuses hooks with one name, and a processor without hooks', () => {
    const { log } = publishingLog();
    expect(() => processorWith([recordingHook('a').hook, recordingHook('a').hook], log)).toThrow(
      'two hooks are named a',
    );
    expect(() => processorWith([], log)).toThrow('needs a hook');
  });

  it('consumes from the log: applies, commits, and acknowledges a record marked for a waiting writer', async () => {
    const log = new SqliteMessageLog({ path: ':memory:' });
    const search = recordingHook('search');
    const { processor } = processorWith([search.hook], log);
    try {
      const record = changeLogRecord(0, {}, awaiting('req-live'));
      await log.publish([{ topic: record.topic, key: record.key, value: record.value, headers: record.headers }]);
      const acknowledged: MetadataIndexAcknowledgement[] = [];
      await log.subscribe({
        groupId: 'gateway-test',
        topics: [topics.metadataIndexAcknowledgement],
        handleBatch: (records) => {
          acknowledged.push(...records.map((each) => serde.indexAcknowledgement.decode(each.value)));
          return Promise.resolve();
        },
      });
      await processor.start();
      await eventually(() => {
        expect(acknowledged.map(({ requestId, status }) => [requestId, status])).toEqual([['req-live', 'APPLIED']]);
        return Promise.resolve();
      });
      expect(search.batches).toHaveLength(1);
    } finally {
      await processor.stop();
      await log.close();
    }
  });

  it('given change logs appended and not yet applied, then its backlog counts them; once applied and idle, nothing is pending and no lag shows', async () => {
    const scheduler = new FakeScheduler(5_000);
    const log = new SqliteMessageLog({ path: ':memory:', scheduler });
    let release: () => void = () => undefined;
    let entered = false;
    const gated: ChangeLogHook = {
      name: 'search',
      consumes: ['versioned'],
      servesReads: true,
      apply: () => {
        entered = true;
        return new Promise((resolve) => (release = resolve));
      },
    };
    const { processor } = processorWith([gated], log, scheduler);
    const append = (offsets: number[]) =>
      log.publish(
        offsets.map((offset) => {
          const { topic, key, value } = changeLogRecord(offset);
          return { topic, key, value };
        }),
      );
    try {
      await processor.start();
      await append([0, 1, 2]);
      await eventually(() => {
        expect(entered).toBe(true);
      });
      expect(await processor.backlog()).toEqual({
        indexer: 'search-indexer',
        measuredAt: 5_000,
        pending: 3,
        partitions: [{ topic: topics.metadataChangeLogVersioned, partition: 0, end: '3', position: '0', pending: 3 }],
      });

      release();
      await eventually(async () => {
        expect((await processor.backlog()).pending).toBe(0);
      });
      // A minute without change logs: the indexer is idle, not a minute behind.
      await scheduler.advance(60_000);
      const idle = await processor.progress();
      expect(idle.backlog).toMatchObject({ measuredAt: 65_000, pending: 0 });
      expect(idle.partitions).toMatchObject([{ offset: '2', recordTimestamp: 5_000, appliedAt: 5_000, lagMs: 0 }]);
      expect(idle.hooks[0]?.partitions).toMatchObject([{ offset: '2', lagMs: 0 }]);

      // Behind again: the lag is the age of the last change log applied (the pending one is younger).
      entered = false;
      await append([3]);
      await eventually(() => {
        expect(entered).toBe(true);
      });
      const behind = await processor.progress();
      expect(behind.backlog).toMatchObject({ pending: 1, partitions: [{ end: '4', position: '3', pending: 1 }] });
      expect(behind.partitions).toMatchObject([{ offset: '2', lagMs: 60_000 }]);
      release();
    } finally {
      await processor.stop();
      await log.close();
    }
  });

  it('given a log that cannot tell positions, when asked for its backlog, then it is unavailable, with the reason', async () => {
    const { log } = publishingLog();
    const failing: MessageLog = {
      ...log,
      groupPositions: () => Promise.reject(new Error('brokers unreachable')),
    };
    const { processor } = processorWith([recordingHook('search').hook], failing);
    const refusal = processor.backlog();
    await expect(refusal).rejects.toBeInstanceOf(UnavailableError);
    await expect(refusal).rejects.toThrow(
      'search-indexer could not read its backlog from the log: brokers unreachable',
    );
  });
});

/** A change log's bytes with another change type. */
function reencoded(value: Buffer, changeType: 'RESTATE'): Buffer {
  return serde.changeLog.encode({ ...serde.changeLog.decode(value), changeType });
}
