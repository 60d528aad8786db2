/**
 * The proposal processor as the log drives it: `handleBatch(records)` with proposal records, on a real SQLite store (in
 * memory) and a real outbox relay publishing to a log that records what it is given.
 */
import { ConflictError, type EntityRegistry } from '@strata/model';
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
import { datasetUrn, proposalOf, type ProposalJson } from '@strata/testing';

import { OutboxRelay } from './outbox-relay';
import { ProposalProcessor, type ProposalProcessorOptions } from './proposal-processor';

const registry: EntityRegistry = testEntityRegistry();
const serde = createEventSerde(readSchemas());
const now = 1_700_000_000_000;
const systemActor = 'urn:li:corpuser:__datahub_system';
const urn = datasetUrn('db.orders');
const versioned = topics.metadataChangeLogVersioned;
const timeseries = topics.metadataChangeLogTimeseries;

/** A log that keeps what the relay publishes, in order. The processor never subscribes. */
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

  on(topic: string): OutgoingRecord[] {
    return this.published.filter((record) => record.topic === topic);
  }

  changeLogs(topic = versioned): MetadataChangeLog[] {
    return this.on(topic).map((record) => serde.changeLog.decode(record.value));
  }

  outcomes(): MetadataChangeProposalOutcome[] {
    return this.on(topics.metadataChangeProposalOutcome).map((record) => serde.outcome.decode(record.value));
  }
}

/** A logger that keeps the lines it is given. */
class RecordingLogger {
  readonly lines: { level: string; details: Record<string, unknown>; message: string }[] = [];

  warn(details: object, message: string): void {
    this.lines.push({ level: 'warn', details: { ...details }, message });
  }

  refusals(): Record<string, unknown>[] {
    return this.lines.filter((line) => line.message === 'proposal refused').map((line) => line.details);
  }
}

/** The headers the gateway puts on a proposal of request `requestId`. */
function requestHeaders(requestId: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    [RecordHeader.requestId]: requestId,
    [RecordHeader.actor]: 'urn:li:corpuser:jdoe',
    [RecordHeader.traceId]: `trace-of-${requestId}`,
    ...more,
  };
}

let nextOffset = 0;

/** A proposal record as the log delivers it: Confluent-framed Avro (as the gateway writes it), or JSON bytes. */
function recordOf(
  proposal: ProposalJson,
  headers: Record<string, string> = {},
  { encoding = 'avro', offset = nextOffset++ }: { encoding?: 'avro' | 'json'; offset?: number } = {},
): LogRecord {
  const json = Buffer.from(JSON.stringify(proposal));
  return {
    topic: topics.metadataChangeProposal,
    partition: 0,
    offset: String(offset),
    key: proposal.entityUrn,
    // The Avro record is the one the writer reads from the JSON form: one proposal shape, two encodings.
    value: encoding === 'json' ? json : serde.proposal.encode(serde.proposal.decodeAny(json)),
    headers,
    timestamp: now,
  };
}

/** A store whose commits go through `commit` (given the real store's), everything else straight to the store. */
function withCommit(store: AspectStore, commit: (commit: StoreCommit) => Promise<void>): AspectStore {
  return {
    getLatest: (keys) => store.getLatest(keys),
    getEntity: (entityUrn, aspects) => store.getEntity(entityUrn, aspects),
    getVersion: (entityUrn, aspect, version) => store.getVersion(entityUrn, aspect, version),
    findApplied: (ids) => store.findApplied(ids),
    commit,
    pendingOutbox: (limit) => store.pendingOutbox(limit),
    markPublished: (ids) => store.markPublished(ids),
    findWriteTraces: (traceId, keys) => store.findWriteTraces(traceId, keys),
    recordPublication: (through, ends) => store.recordPublication(through, ends),
    findLatestByRunId: (runId, limit) => store.findLatestByRunId(runId, limit),
    findLatestByRegistry: (name, version, limit) => store.findLatestByRegistry(name, version, limit),
    listRuns: (request) => store.listRuns(request),
    listUrns: (request) => store.listUrns(request),
    countLatest: (request) => store.countLatest(request),
    getMarks: (names) => store.getMarks(names),
    listLatest: (aspect, options) => store.listLatest(aspect, options),
    listsAspect: (aspect) => store.listsAspect(aspect),
    scanEntities: (request) => store.scanEntities(request),
    countTimeseries: (entityUrn, aspects, range, runId) => store.countTimeseries(entityUrn, aspects, range, runId),
    findTimeseriesByRunId: (runId, limit) => store.findTimeseriesByRunId(runId, limit),
    getTimeseries: (entityUrn, aspect, options) => store.getTimeseries(entityUrn, aspect, options),
    restate: (request, toRecords) => store.restate(request, toRecords),
    truncateTimeseries: (request) => store.truncateTimeseries(request),
    countRows: () => store.countRows(),
    close: () => store.close(),
  };
}

describe('ProposalProcessor', () => {
  let store: SqliteAspectStore;
  let log: RecordingLog;
  let logger: RecordingLogger;
  const relays: OutboxRelay[] = [];

  /** A processor on `on` (default: the store), its relay publishing to the recording log. */
  function processor(
    on: AspectStore = store,
    options: Partial<Pick<ProposalProcessorOptions, 'maxConflictRetries' | 'marksOf'>> = {},
  ): ProposalProcessor {
    const relay = new OutboxRelay({
      store: on,
      log,
      onError: (error) => {
        throw error;
      },
    });
    relays.push(relay);
    return new ProposalProcessor({
      store: on,
      registry,
      serde,
      topics,
      relay,
      now: () => now,
      systemActor,
      maxAspectBytes: 16_000_000,
      logger,
      ...options,
    });
  }

  beforeEach(() => {
    store = new SqliteAspectStore({ path: ':memory:' });
    log = new RecordingLog();
    logger = new RecordingLogger();
  });

  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await store.close();
  });

  describe('a valid proposal', () => {
    it('is stored, and its change logs and then its outcome are published with the request’s id, actor and trace id', async () => {
      const headers = requestHeaders('request-1');
      await processor().handleBatch([recordOf(proposalOf(urn, 'status', { removed: false }), headers)]);

      expect(await store.getVersion(urn, 'status', 0)).toMatchObject({
        version: 1,
        value: { removed: false },
        createdOn: now,
        createdBy: 'urn:li:corpuser:jdoe',
      });
      expect(log.published.map((record) => record.topic)).toEqual([
        versioned,
        versioned,
        versioned,
        versioned,
        versioned,
        topics.metadataChangeProposalOutcome,
      ]);
      // Each change log is named `<proposal>/<index>`, so that a trail records it once however often it is published.
      expect(log.published.map((record) => record.headers?.[RecordHeader.changeId])).toEqual([
        'request-1/0',
        'request-1/1',
        'request-1/2',
        'request-1/3',
        'request-1/4',
        undefined,
      ]);
      // Each change log also says its change type, for consumers that pass over some unread.
      expect(log.published.map((record) => record.headers?.[RecordHeader.changeType])).toEqual([
        ...Array<string>(5).fill('UPSERT'),
        undefined,
      ]);
      for (const record of log.published) {
        const { [RecordHeader.changeId]: _changeId, [RecordHeader.changeType]: _type, ...rest } = record.headers ?? {};
        expect(rest).toEqual(headers);
        expect(record.key).toBe(urn);
      }
      expect(log.changeLogs().map((changeLog) => [changeLog.aspectName, changeLog.created?.actor])).toEqual([
        ['datasetKey', 'urn:li:corpuser:jdoe'],
        ['browsePaths', 'urn:li:corpuser:jdoe'],
        ['browsePathsV2', 'urn:li:corpuser:jdoe'],
        ['dataPlatformInstance', 'urn:li:corpuser:jdoe'],
        ['status', 'urn:li:corpuser:jdoe'],
      ]);
      expect(log.outcomes()).toEqual([
        {
          requestId: 'request-1',
          entityType: 'dataset',
          entityUrn: urn,
          aspectName: 'status',
          status: 'APPLIED',
          version: 1,
          errorCode: null,
          error: null,
          indexedChangeLogs: 5,
          changeLogTopics: [versioned],
          timestampMillis: now,
          deletedRows: null,
          deletedTimeseriesRows: null,
        },
      ]);
      expect(await store.pendingOutbox(100)).toEqual([]);
      expect(await store.findApplied(['request-1'])).toEqual(new Set(['request-1']));
    });

    it('sets the marks its composition root says a change sets, in the same commit, and nothing else', async () => {
      // As the gateway's security reads would have it: users' existence and status, and policies.
      const marksOf = (changed: string, aspect: string | undefined) =>
        changed.startsWith('urn:li:dataHubPolicy:')
          ? ['security.policies']
          : changed.startsWith('urn:li:corpuser:') &&
              (aspect === undefined || ['corpUserKey', 'status'].includes(aspect))
            ? ['security.principals']
            : [];
      const marks = () => store.getMarks(['security.policies', 'security.principals']);
      await processor(store, { marksOf }).handleBatch([
        recordOf(proposalOf(urn, 'status', { removed: true }), requestHeaders('r-1')),
      ]);
      expect(await marks()).toEqual(new Map());

      const user = 'urn:li:corpuser:ann';
      await processor(store, { marksOf }).handleBatch([
        recordOf(proposalOf(user, 'corpUserInfo', { active: true }), requestHeaders('r-2')),
      ]);
      expect(await marks()).toEqual(new Map([['security.principals', 'r-2']])); // the user's key is new
      await processor(store, { marksOf }).handleBatch([
        recordOf(proposalOf(user, 'corpUserInfo', { active: false }), requestHeaders('r-3')),
        recordOf(proposalOf(user, 'status', { removed: true }), requestHeaders('r-4')),
      ]);
      expect(await marks()).toEqual(new Map([['security.principals', 'r-4']]));

      const policy = {
        displayName: 'p',
        description: '',
        type: 'PLATFORM',
        state: 'ACTIVE',
        privileges: ['MANAGE_POLICIES'],
        actors: { users: [user] },
      };
      await processor(store, { marksOf }).handleBatch([
        recordOf(proposalOf('urn:li:dataHubPolicy:p', 'dataHubPolicyInfo', policy), requestHeaders('r-5')),
      ]);
      expect((await marks()).get('security.policies')).toBe('r-5');
      // Deleting the user marks too.
      await processor(store, { marksOf }).handleBatch([
        recordOf(proposalOf(user, 'corpUserKey', undefined, { changeType: 'DELETE' }), requestHeaders('r-6')),
      ]);
      expect((await marks()).get('security.principals')).toBe('r-6');
    });

    it('is applied from JSON bytes too, and written by the system actor when the record names no actor', async () => {
      await processor().handleBatch([recordOf(proposalOf(urn, 'status', { removed: true }), {}, { encoding: 'json' })]);

      expect(await store.getVersion(urn, 'status', 0)).toMatchObject({
        value: { removed: true },
        createdBy: systemActor,
      });
      // No request id: change logs, and no outcome (nobody waits for one).
      expect(log.changeLogs().map((changeLog) => changeLog.aspectName)).toContain('status');
      expect(log.outcomes()).toEqual([]);
    });
  });

  describe('a redelivered proposal', () => {
    it('with the same request id creates nothing twice: no new version, no change log, no outcome', async () => {
      const writer = processor();
      const proposal = proposalOf(urn, 'datasetProperties', { description: 'orders', customProperties: {} });
      await writer.handleBatch([recordOf(proposal, requestHeaders('request-1'))]);
      const publishedOnce = log.published.length;

      // Delivered again, as after a consumer that did not commit its position (at another offset, even).
      await writer.handleBatch([recordOf(proposal, requestHeaders('request-1'))]);

      expect(log.published).toHaveLength(publishedOnce);
      expect(log.outcomes()).toHaveLength(1);
      expect(await store.getVersion(urn, 'datasetProperties', 0)).toMatchObject({ version: 1 });
      expect(await store.getVersion(urn, 'datasetProperties', 2)).toBeUndefined();
    });

    it('without a request id is recognised by its log position, even after a later write', async () => {
      const writer = processor();
      const removed = recordOf(proposalOf(urn, 'status', { removed: true }));
      await writer.handleBatch([removed]);
      await writer.handleBatch([recordOf(proposalOf(urn, 'status', { removed: false }))]);
      const publishedBefore = log.published.length;

      // The older record again, at its position: applying it again would bring back its value as version 3.
      await writer.handleBatch([removed]);

      expect(log.published).toHaveLength(publishedBefore);
      expect(await store.getVersion(urn, 'status', 0)).toMatchObject({ version: 2, value: { removed: false } });
    });
  });

  describe('a record that cannot be applied', () => {
    const good = proposalOf(datasetUrn('db.good'), 'status', { removed: false });

    it('when undecodable, is answered with a failed-proposal record and a REJECTED outcome, and the rest of the batch is applied', async () => {
      const garbage: LogRecord = {
        ...recordOf(good, requestHeaders('request-bad')),
        key: urn,
        value: Buffer.from('definitely not a proposal'),
      };
      await processor().handleBatch([garbage, recordOf(good, requestHeaders('request-good'))]);

      const failed = log.on(topics.failedMetadataChangeProposal);
      expect(failed).toHaveLength(1);
      expect(failed[0]?.headers).toEqual(requestHeaders('request-bad'));
      const failure = serde.failedProposal.decode(failed[0]!.value);
      expect(failure.error).toMatch(/neither Confluent-framed Avro/);
      // The raw bytes travel in a placeholder proposal, keyed as the record was.
      expect(failure.metadataChangeProposal).toMatchObject({ entityType: 'unknown', entityUrn: urn });
      expect(failure.metadataChangeProposal.aspect?.value.toString()).toBe('definitely not a proposal');
      expect(log.outcomes().map(({ requestId, status, errorCode }) => ({ requestId, status, errorCode }))).toEqual([
        { requestId: 'request-bad', status: 'REJECTED', errorCode: 'bad-request' },
        { requestId: 'request-good', status: 'APPLIED', errorCode: null },
      ]);
      expect(await store.getVersion(good.entityUrn, 'status', 0)).toMatchObject({ value: { removed: false } });
      expect(await store.findApplied(['request-bad', 'request-good'])).toEqual(
        new Set(['request-bad', 'request-good']),
      );
    });

    it('when invalid (an unknown aspect), is answered with a failed-proposal record and a REJECTED outcome, and the rest of the batch is applied', async () => {
      const invalid = proposalOf(urn, 'noSuchAspect', { anything: true });
      await processor().handleBatch([
        recordOf(invalid, requestHeaders('request-bad')),
        recordOf(good, requestHeaders('request-good')),
      ]);

      const failed = log
        .on(topics.failedMetadataChangeProposal)
        .map((record) => serde.failedProposal.decode(record.value));
      expect(failed).toHaveLength(1);
      expect(failed[0]?.error).toBe('Unknown aspect noSuchAspect for entity dataset');
      // The proposal decoded, so the failure record carries it as sent.
      expect(failed[0]?.metadataChangeProposal).toMatchObject({ entityUrn: urn, aspectName: 'noSuchAspect' });
      expect(log.outcomes()).toEqual([
        expect.objectContaining({
          requestId: 'request-bad',
          entityUrn: urn,
          aspectName: 'noSuchAspect',
          status: 'REJECTED',
          version: null,
          errorCode: 'validation',
          error: 'Unknown aspect noSuchAspect for entity dataset',
          changeLogTopics: [],
        }),
        expect.objectContaining({ requestId: 'request-good', status: 'APPLIED', version: 1 }),
      ]);
      expect(await store.getEntity(urn)).toEqual([]);
      expect(await store.getVersion(good.entityUrn, 'status', 0)).toMatchObject({ value: { removed: false } });
    });

    it('is logged once, with its urn, aspect, change type, request id, actor and the reason, and never its value', async () => {
      const invalid = proposalOf(urn, 'noSuchAspect', { secretish: 'do-not-log-me' });
      await processor().handleBatch([
        recordOf(invalid, requestHeaders('request-bad')),
        recordOf(good, requestHeaders('request-good')),
      ]);

      expect(logger.lines.map(({ level, message }) => ({ level, message }))).toEqual([
        { level: 'warn', message: 'proposal refused' },
      ]);
      expect(logger.refusals()).toEqual([
        expect.objectContaining({
          urn,
          aspect: 'noSuchAspect',
          changeType: 'UPSERT',
          requestId: 'request-bad',
          actor: 'urn:li:corpuser:jdoe',
          errorCode: 'validation',
          reason: 'Unknown aspect noSuchAspect for entity dataset',
        }),
      ]);
      expect(JSON.stringify(logger.lines)).not.toContain('do-not-log-me');
    });

    it('when undecodable, is logged under its record key with the reason, and its position in the log', async () => {
      const garbage: LogRecord = { ...recordOf(good, {}, { offset: 41 }), key: urn, value: Buffer.from('garbage') };
      await processor().handleBatch([garbage]);

      expect(logger.refusals()).toEqual([
        expect.objectContaining({
          urn,
          actor: systemActor,
          errorCode: 'bad-request',
          reason: expect.stringMatching(/neither Confluent-framed Avro/) as unknown,
          topic: topics.metadataChangeProposal,
          partition: 0,
          offset: '41',
        }),
      ]);
      expect(logger.refusals()[0]?.['requestId']).toBeUndefined();
    });
  });

  describe('a proposal waiting for indexing (strata-await-indexing)', () => {
    const marked = (record: OutgoingRecord) => record.headers?.[RecordHeader.awaitIndexing] === 'true';

    it('marks the last versioned change log only, and its outcome names the versioned topic', async () => {
      await processor().handleBatch([
        recordOf(
          proposalOf(urn, 'status', { removed: false }),
          requestHeaders('request-1', { [RecordHeader.awaitIndexing]: 'true' }),
        ),
      ]);

      expect(log.on(versioned).map(marked)).toEqual([false, false, false, false, true]);
      expect(log.on(versioned).at(-1)?.headers).toEqual({
        ...requestHeaders('request-1'),
        [RecordHeader.awaitIndexing]: 'true',
        [RecordHeader.changeId]: 'request-1/4',
        [RecordHeader.changeType]: 'UPSERT',
      });
      expect(log.on(topics.metadataChangeProposalOutcome).map(marked)).toEqual([false]);
      expect(log.outcomes()).toEqual([
        expect.objectContaining({ status: 'APPLIED', indexedChangeLogs: 5, changeLogTopics: [versioned] }),
      ]);
    });

    it('marks the last change log of each topic for a timeseries aspect (datasetProfile), and its outcome names both topics', async () => {
      const profile = { timestampMillis: 1_699_000_000_000, rowCount: 42 };
      await processor().handleBatch([
        recordOf(
          proposalOf(urn, 'datasetProfile', profile),
          requestHeaders('request-1', { [RecordHeader.awaitIndexing]: 'true' }),
        ),
      ]);

      expect(log.changeLogs(versioned).map((changeLog) => changeLog.aspectName)).toEqual([
        'datasetKey',
        'browsePaths',
        'browsePathsV2',
        'dataPlatformInstance',
      ]);
      expect(log.on(versioned).map(marked)).toEqual([false, false, false, true]);
      expect(log.changeLogs(timeseries).map((changeLog) => changeLog.aspectName)).toEqual(['datasetProfile']);
      expect(log.on(timeseries).map(marked)).toEqual([true]);
      expect(log.outcomes()).toEqual([
        expect.objectContaining({
          status: 'APPLIED',
          version: null,
          indexedChangeLogs: 4,
          changeLogTopics: [versioned, timeseries],
        }),
      ]);
    });

    it('counts what a delete removes, the values the same batch wrote before it included', async () => {
      const profile = (timestampMillis: number) => proposalOf(urn, 'datasetProfile', { timestampMillis, rowCount: 1 });
      await processor().handleBatch([
        recordOf(profile(1000)),
        recordOf(profile(2000)),
        recordOf(profile(3000)),
        recordOf(
          proposalOf(urn, 'datasetProfile', undefined, {
            changeType: 'DELETE',
            headers: { startTimeMillis: '2000', endTimeMillis: '2000' },
          }),
          requestHeaders('ranged'),
        ),
        recordOf(proposalOf(urn, 'datasetKey', undefined, { changeType: 'DELETE' }), requestHeaders('whole')),
      ]);
      const counts = log.outcomes().map(({ requestId, status, deletedRows, deletedTimeseriesRows }) => ({
        requestId,
        status,
        deletedRows,
        deletedTimeseriesRows,
      }));
      // The entity's versions: its key and the three default aspects, one each.
      expect(counts).toEqual([
        { requestId: 'ranged', status: 'APPLIED', deletedRows: null, deletedTimeseriesRows: 1 },
        { requestId: 'whole', status: 'APPLIED', deletedRows: 4, deletedTimeseriesRows: 2 },
      ]);
      expect(await store.countTimeseries(urn, ['datasetProfile'])).toBe(0);
      expect(await store.getEntity(urn)).toEqual([]);
    });

    it('deletes and counts only the values of the run a timeseries delete names, the range too', async () => {
      const profile = (timestampMillis: number, runId: string) =>
        proposalOf(urn, 'datasetProfile', { timestampMillis, rowCount: 1 }, { systemMetadata: { runId } });
      const deleting = (requestId: string, headers: Record<string, string>) =>
        recordOf(
          proposalOf(urn, 'datasetProfile', undefined, { changeType: 'DELETE', headers }),
          requestHeaders(requestId),
        );
      await processor().handleBatch([
        recordOf(profile(1000, 'run-a')),
        recordOf(profile(2000, 'run-a')),
        recordOf(profile(3000, 'run-b')),
        recordOf(profile(4000, 'run-a')),
        deleting('ranged', { runId: 'run-a', startTimeMillis: '2000' }),
        deleting('again', { runId: 'run-a', startTimeMillis: '2000' }),
        deleting('rest', { runId: 'run-a' }),
      ]);
      expect(
        log
          .outcomes()
          .map(({ requestId, status, deletedTimeseriesRows }) => [requestId, status, deletedTimeseriesRows]),
      ).toEqual([
        ['ranged', 'APPLIED', 2],
        ['again', 'UNCHANGED', 0],
        ['rest', 'APPLIED', 1],
      ]);
      expect((await store.getTimeseries(urn, 'datasetProfile')).map((value) => value.timestampMillis)).toEqual([3000]);
    });

    it('marks nothing when the proposal does not wait', async () => {
      await processor().handleBatch([recordOf(proposalOf(urn, 'status', { removed: false }), requestHeaders('r'))]);

      expect(log.published.some(marked)).toBe(false);
    });
  });

  describe('proposals of one entity in one batch', () => {
    it('see each other: the second upsert builds on the first, and a CREATE after them is rejected', async () => {
      await processor().handleBatch([
        recordOf(proposalOf(urn, 'status', { removed: false }), requestHeaders('request-1')),
        recordOf(proposalOf(urn, 'status', { removed: true }), requestHeaders('request-2')),
        recordOf(proposalOf(urn, 'status', { removed: false }, { changeType: 'CREATE' }), requestHeaders('request-3')),
      ]);

      expect(log.outcomes().map(({ requestId, status, version }) => ({ requestId, status, version }))).toEqual([
        { requestId: 'request-1', status: 'APPLIED', version: 1 },
        { requestId: 'request-2', status: 'APPLIED', version: 2 },
        { requestId: 'request-3', status: 'REJECTED', version: null },
      ]);
      expect(log.outcomes()[2]?.error).toContain('already exists');
      // The refusal is logged with its reason, the proposals applied are not.
      expect(logger.refusals()).toEqual([
        expect.objectContaining({
          urn,
          aspect: 'status',
          changeType: 'CREATE',
          requestId: 'request-3',
          reason: expect.stringContaining('already exists') as unknown,
        }),
      ]);
      // The entity is created once, by the first.
      expect(log.changeLogs().map((changeLog) => changeLog.aspectName)).toEqual([
        'datasetKey',
        'browsePaths',
        'browsePathsV2',
        'dataPlatformInstance',
        'status',
        'status',
      ]);
      expect(await store.getVersion(urn, 'status', 0)).toMatchObject({ version: 2, value: { removed: true } });
      expect(await store.getVersion(urn, 'status', 1)).toMatchObject({ value: { removed: false } });
    });
  });

  describe('write traces (for the trace API)', () => {
    const traceOf = (requestId: string, aspect = 'status') =>
      store.findWriteTraces(`trace-of-${requestId}`, [{ urn, aspect }]);

    it('records what each proposal with a trace id did to its aspect, in the commit of its effects', async () => {
      await processor().handleBatch([
        recordOf(proposalOf(urn, 'status', { removed: false }), requestHeaders('request-1')),
        recordOf(proposalOf(urn, 'status', { removed: false }), requestHeaders('request-2')),
        recordOf(proposalOf(urn, 'status', { removed: true }, { changeType: 'CREATE' }), requestHeaders('request-3')),
      ]);

      expect(await traceOf('request-1')).toEqual([
        {
          traceId: 'trace-of-request-1',
          urn,
          aspect: 'status',
          proposalId: 'request-1',
          status: 'APPLIED',
          version: 1,
          createdOn: now,
          errorCode: null,
          error: null,
          changeLogged: true,
          recordedAt: now,
          // Not yet: the relay under test records no publication (its log reports no positions).
          publishedBefore: null,
        },
      ]);
      expect(await traceOf('request-2')).toEqual([
        expect.objectContaining({ status: 'UNCHANGED', version: 1, createdOn: null, changeLogged: false }),
      ]);
      expect(await traceOf('request-3')).toEqual([
        expect.objectContaining({
          status: 'REJECTED',
          version: null,
          errorCode: 'validation',
          error: expect.stringContaining('already exists') as unknown,
          changeLogged: false,
        }),
      ]);
      // Only the proposal's own aspect is traced, not the key and default aspects its decision wrote with it.
      expect(await traceOf('request-1', 'datasetKey')).toEqual([]);
    });

    it('records nothing for a proposal without a trace id (a direct producer’s)', async () => {
      const direct = recordOf(proposalOf(urn, 'status', { removed: false }));
      await processor().handleBatch([direct]);
      expect(await store.getVersion(urn, 'status', 0)).toMatchObject({ version: 1 });
      expect(await store.findWriteTraces('', [{ urn, aspect: 'status' }])).toEqual([]);
    });
  });

  describe('a proposal the gateway refused (strata-refusal)', () => {
    const traceOf = (requestId: string) => store.findWriteTraces(`trace-of-${requestId}`, [{ urn, aspect: 'status' }]);
    const refusal = (reason: string, code = 'validation') => ({
      [RecordHeader.refusal]: reason,
      [RecordHeader.refusalCode]: code,
    });

    it('is refused with the gateway’s reason, even when the writer would accept it, and reported as any refusal', async () => {
      // Valid here (a registry the gateway lacked, say): the gateway's verdict stands, so nothing unauthorized is written.
      const valid = proposalOf(urn, 'status', { removed: true });
      const headers = requestHeaders('request-bad', refusal('Unknown aspect status for entity dataset'));
      await processor().handleBatch([
        recordOf(valid, headers, { encoding: 'json' }),
        recordOf(proposalOf(datasetUrn('db.good'), 'status', { removed: false }), requestHeaders('request-good')),
      ]);

      expect(await store.getEntity(urn)).toEqual([]);
      const failed = log
        .on(topics.failedMetadataChangeProposal)
        .map((record) => serde.failedProposal.decode(record.value));
      expect(failed).toEqual([
        expect.objectContaining({
          error: 'Unknown aspect status for entity dataset',
          metadataChangeProposal: expect.objectContaining({ entityUrn: urn, aspectName: 'status' }) as unknown,
        }),
      ]);
      expect(
        log.outcomes().map(({ requestId, status, errorCode, error }) => ({ requestId, status, errorCode, error })),
      ).toEqual([
        {
          requestId: 'request-bad',
          status: 'REJECTED',
          errorCode: 'validation',
          error: 'Unknown aspect status for entity dataset',
        },
        { requestId: 'request-good', status: 'APPLIED', errorCode: null, error: null },
      ]);
      expect(logger.refusals()).toEqual([
        expect.objectContaining({ requestId: 'request-bad', reason: 'Unknown aspect status for entity dataset' }),
      ]);
      expect(await traceOf('request-bad')).toEqual([
        expect.objectContaining({
          status: 'REJECTED',
          errorCode: 'validation',
          error: 'Unknown aspect status for entity dataset',
        }),
      ]);
    });

    it('that does not decode travels as its bytes in the failed-proposal record, with the gateway’s reason', async () => {
      const record: LogRecord = {
        ...recordOf(
          proposalOf(urn, 'status', { removed: true }),
          requestHeaders('request-bad', refusal('Bad', 'bad-request')),
        ),
        value: Buffer.from('{"entityType": 42}'),
      };
      await processor().handleBatch([record]);

      const [failure] = log
        .on(topics.failedMetadataChangeProposal)
        .map((published) => serde.failedProposal.decode(published.value));
      expect(failure?.error).toBe('Bad');
      expect(failure?.metadataChangeProposal).toMatchObject({ entityType: 'unknown', entityUrn: urn });
      expect(log.outcomes()).toEqual([expect.objectContaining({ status: 'REJECTED', errorCode: 'bad-request' })]);
      expect(await store.getEntity(urn)).toEqual([]);
    });
  });

  describe('store failures', () => {
    const properties = (description: string) =>
      proposalOf(urn, 'datasetProperties', { description, customProperties: {} });

    it('retries a commit that lost a race (ConflictError): re-reads, decides again, and builds on the other write', async () => {
      await processor().handleBatch([recordOf(properties('first'), requestHeaders('request-1'))]);
      let raced = false;
      const racing = withCommit(store, async (commit) => {
        if (!raced) {
          raced = true;
          // Another writer stores version 2 between this batch's read and its commit.
          await processor().handleBatch([recordOf(properties('theirs'), requestHeaders('request-theirs'))]);
        }
        await store.commit(commit);
      });

      await processor(racing).handleBatch([recordOf(properties('mine'), requestHeaders('request-mine'))]);

      expect(raced).toBe(true);
      expect((await store.getVersion(urn, 'datasetProperties', 2))?.value).toMatchObject({ description: 'theirs' });
      expect(await store.getVersion(urn, 'datasetProperties', 0)).toMatchObject({
        version: 3,
        value: { description: 'mine' },
      });
      expect(log.outcomes().at(-1)).toMatchObject({ requestId: 'request-mine', status: 'APPLIED', version: 3 });
      const lastChangeLog = log.changeLogs().at(-1);
      expect(JSON.parse(lastChangeLog?.previousAspectValue?.value.toString() ?? 'null')).toMatchObject({
        description: 'theirs',
      });
    });

    it('logs a refusal once, when the batch deciding it is committed, however often it is decided', async () => {
      await processor().handleBatch([recordOf(properties('first'), requestHeaders('request-1'))]);
      let raced = false;
      const racing = withCommit(store, async (commit) => {
        if (!raced) {
          raced = true;
          await processor().handleBatch([recordOf(properties('theirs'), requestHeaders('request-theirs'))]);
        }
        await store.commit(commit);
      });

      await processor(racing).handleBatch([
        recordOf(proposalOf(urn, 'noSuchAspect', { anything: true }), requestHeaders('request-bad')),
        recordOf(properties('mine'), requestHeaders('request-mine')),
      ]);

      expect(raced).toBe(true);
      expect(logger.refusals().map((refusal) => refusal['requestId'])).toEqual(['request-bad']);
    });

    it('logs no refusal of a batch given back to the log', async () => {
      const failing = withCommit(store, () => Promise.reject(new Error('disk unavailable')));

      await expect(
        processor(failing).handleBatch([recordOf(proposalOf(urn, 'noSuchAspect', {}), requestHeaders('request-bad'))]),
      ).rejects.toThrow('disk unavailable');
      expect(logger.refusals()).toEqual([]);
    });

    it('gives the batch back to the log when conflicts persist past maxConflictRetries, having stored nothing', async () => {
      let commits = 0;
      const conflicting = withCommit(store, () => {
        commits += 1;
        return Promise.reject(new ConflictError('someone else wrote it'));
      });

      await expect(
        processor(conflicting, { maxConflictRetries: 2 }).handleBatch([
          recordOf(properties('mine'), requestHeaders('request-1')),
        ]),
      ).rejects.toThrow(ConflictError);
      expect(commits).toBe(3);
      expect(await store.getEntity(urn)).toEqual([]);
      expect(log.published).toEqual([]);
    });

    it('gives the batch back to the log at once on any other store error', async () => {
      let commits = 0;
      const failing = withCommit(store, () => {
        commits += 1;
        return Promise.reject(new Error('disk unavailable'));
      });

      await expect(
        processor(failing).handleBatch([recordOf(properties('mine'), requestHeaders('request-1'))]),
      ).rejects.toThrow('disk unavailable');
      expect(commits).toBe(1);
      expect(await store.findApplied(['request-1'])).toEqual(new Set());
    });
  });
});
