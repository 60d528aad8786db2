import { ConflictError, timeseriesPointId } from '@strata/model';
import { Binary, MongoClient, MongoServerError, ReadConcern, WriteConcern } from 'mongodb';
import type {
  AnyBulkWriteOperation,
  ClientSession,
  Collection,
  Db,
  Document,
  TransactionOptions,
  WithId,
} from 'mongodb';

import type {
  AspectKey,
  AspectMutation,
  AspectStore,
  CountLatestRequest,
  JsonObject,
  ListRunsRequest,
  ListUrnsRequest,
  OutboxRecord,
  PendingOutboxRecord,
  PutAspect,
  RestatedRow,
  RestatePage,
  RestateRequest,
  RunSummary,
  StoreCommit,
  StoredAspect,
  StoredTimeseriesValue,
  TimeRange,
  TimeseriesOfRun,
  TruncateTimeseries,
} from './aspect-store';
import { assertListed, EntityGrouping, listedAspectsOf, UNNAMED_RUN_ID, type ScannedEntity } from './aspect-store';
import { inUrnScope, restatePageAsync, seekFrom, urnScanStart } from './restate-scan';
import { MongoWriteTraces } from './mongo-write-traces';
import type { LogEnd, WriteTrace } from './write-traces';

/** Options of {@link MongoAspectStore.connect}. */
export interface MongoAspectStoreOptions {
  /** Connection string, e.g. `mongodb://127.0.0.1:27017/?replicaSet=rs0`. Not used when `client` is given. */
  readonly uri: string;
  /** Database holding the store's collections. */
  readonly database: string;
  /**
   * A client to share with other adapters. The store neither connects nor closes it (the composition root owns it);
   * without one, the store builds a client from `uri` and closes it in {@link MongoAspectStore.close}.
   */
  readonly client?: MongoClient;
  /** Prepended to every collection name (see {@link mongoCollectionNames}), so that several stores share a database. */
  readonly collectionPrefix?: string;
  /** Clock for the time a proposal id was recorded (`appliedAt`), epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** The aspects whose latest values {@link MongoAspectStore.listLatest} lists across entities. */
  readonly listedAspects?: readonly string[];
}

/**
 * The scale primary store: MongoDB, laid out like DataHub's `metadata_aspect_v2` (README: "MongoDB adapter").
 *
 * One document per (urn, aspect, version): version 0 holds the latest value and keeps its real ordinal in `ordinal`;
 * older values are archived under their ordinal (`version = ordinal`). Values and system metadata are stored as JSON
 * strings, as DataHub's `metadata` column is: they round-trip exactly, whatever their keys (dots, `$`), and nothing
 * ever queries inside them. Timeseries values, the outbox, its sequence and the applied proposal ids have collections
 * of their own.
 *
 * A commit is one multi-document transaction (`withTransaction`, read concern `snapshot`, write concern `majority`),
 * which needs a replica set or a sharded cluster: {@link MongoAspectStore.connect} refuses a standalone server.
 * Every expected ordinal is checked by reading the latest inside the transaction. Two overlapping commits that write
 * the same document hit a write conflict: the driver aborts one and re-runs its callback, which re-reads and then
 * fails with `ConflictError` if its expectation no longer holds. A duplicate key (E11000) from the unique indexes is
 * mapped to `ConflictError` as well.
 *
 * Outbox ids come from one sequence document incremented in every commit's transaction: a gap-free sequence in commit
 * order. The price is that every commit writes that document, so commits serialize on it (overlapping ones conflict
 * and are retried by the driver). That also makes commits serializable: snapshot isolation alone would let two
 * commits whose checks read documents they do not write (deleting an absent aspect) both succeed. Published outbox
 * records are deleted; the sequence never goes back, so ids are never reused.
 *
 * Reads outside commits use read concern `majority` on the primary: they never see a commit that a failover could
 * still roll back (the outbox relay must not publish one), and do see every commit that has resolved.
 */
export class MongoAspectStore implements AspectStore {
  private closed = false;

  private constructor(
    private readonly client: MongoClient,
    private readonly ownsClient: boolean,
    private readonly collections: StoreCollections,
    private readonly now: () => number,
    private readonly listed: readonly string[],
    private readonly writeTraces: MongoWriteTraces,
  ) {}

  /**
   * Connects, checks that the deployment supports transactions, and creates the collections and indexes the store
   * needs (idempotent: several instances may start at once on the same database).
   */
  static async connect(options: MongoAspectStoreOptions): Promise<MongoAspectStore> {
    const ownsClient = options.client === undefined;
    const client = options.client ?? new MongoClient(options.uri);
    try {
      if (ownsClient) await client.connect();
      assertSupportsTransactions(await client.db('admin').command({ hello: 1 }));
      const db = client.db(options.database, {
        readConcern: new ReadConcern('majority'),
        writeConcern: { w: 'majority' },
        readPreference: 'primary',
      });
      const names = mongoCollectionNames(options.collectionPrefix);
      const collections = await prepareCollections(db, names);
      return new MongoAspectStore(
        client,
        ownsClient,
        collections,
        options.now ?? Date.now,
        listedAspectsOf(options.listedAspects),
        await MongoWriteTraces.prepare(db, names.writeTraces, names.writeTracePublications),
      );
    } catch (error) {
      if (ownsClient) await client.close();
      throw error;
    }
  }

  async getLatest(keys: readonly AspectKey[]): Promise<StoredAspect[]> {
    this.assertOpen();
    // A key asked for twice is answered once.
    const unique = [...new Map(keys.map((key) => [JSON.stringify([key.urn, key.aspect]), key])).values()];
    if (unique.length === 0) return [];
    const documents = await this.collections.aspects
      .find({ $or: unique.map(({ urn, aspect }) => ({ urn, aspect, version: 0 })) })
      .toArray();
    return documents.map(fromAspectDocument);
  }

  async getEntity(urn: string, aspects?: readonly string[]): Promise<StoredAspect[]> {
    this.assertOpen();
    if (aspects?.length === 0) return [];
    const filter =
      aspects === undefined ? { urn, version: 0 } : { urn, version: 0, aspect: { $in: [...new Set(aspects)] } };
    const documents = await this.collections.aspects.find(filter).sort({ aspect: 1 }).toArray();
    return documents.map(fromAspectDocument);
  }

  async getVersion(urn: string, aspect: string, version: number): Promise<StoredAspect | undefined> {
    this.assertOpen();
    if (!Number.isInteger(version) || version < 0) return undefined;
    // The latest document answers for its own ordinal too: version N is either archived or the latest.
    const filter =
      version === 0
        ? { urn, aspect, version: 0 }
        : { urn, aspect, $or: [{ version }, { version: 0, ordinal: version }] };
    const document = await this.collections.aspects.findOne(filter);
    return document === null ? undefined : fromAspectDocument(document);
  }

  async findApplied(proposalIds: readonly string[]): Promise<Set<string>> {
    this.assertOpen();
    if (proposalIds.length === 0) return new Set();
    const documents = await this.collections.appliedProposals
      .find({ _id: { $in: [...new Set(proposalIds)] } }, { projection: { _id: 1 } })
      .toArray();
    return new Set(documents.map((document) => document._id));
  }

  async commit(commit: StoreCommit): Promise<void> {
    this.assertOpen();
    const appliedAt = new Date(this.now());
    const appliedIds = [...new Set(commit.appliedProposalIds)];
    const session = this.client.startSession();
    try {
      // The driver re-runs this callback on a TransientTransactionError (a write conflict with another commit): every
      // check is re-read then. Errors that are not MongoErrors (ConflictError, a caller's bad row) abort the
      // transaction and surface as they are, without a retry.
      await session.withTransaction(async () => {
        for (const mutation of commit.mutations) await this.apply(mutation, session);
        if (appliedIds.length > 0) {
          // The writer skips proposals that `findApplied` reports, so a duplicate here means a concurrent writer
          // applied the same proposal: a conflict, after which this writer re-reads and skips it.
          await duplicateAsConflict(
            () =>
              this.collections.appliedProposals.insertMany(
                appliedIds.map((id) => ({ _id: id, appliedAt })),
                { session },
              ),
            'a proposal of this commit was recorded as applied by a concurrent commit',
          );
        }
        // Near the end, so that the sequence document (which every commit writes) is held for as short a time as
        // possible; the traces follow it, as they record the id of the commit's last outbox record.
        const outboxPosition = await this.appendOutbox(commit.outbox, session);
        await this.writeTraces.record(commit.writeTraces ?? [], outboxPosition, session);
      }, TRANSACTION_OPTIONS);
    } finally {
      await session.endSession();
    }
  }

  async restate(
    request: RestateRequest,
    toRecords: (rows: readonly RestatedRow[]) => readonly OutboxRecord[],
  ): Promise<RestatePage> {
    this.assertOpen();
    const session = this.client.startSession();
    try {
      let page: RestatePage | undefined;
      // Like a commit, the page's outbox records take the sequence: a commit that changed a row this page read after
      // the page's snapshot conflicts with it, and the driver re-reads the page.
      await session.withTransaction(async () => {
        const { rows, page: read } = await restatePageAsync(request, this.restateRows(request, session));
        await this.appendOutbox(toRecords(rows), session);
        page = read;
      }, TRANSACTION_OPTIONS);
      if (page === undefined) throw new Error('The restore transaction ended without reading its page');
      return page;
    } finally {
      await session.endSession();
    }
  }

  async truncateTimeseries(request: TruncateTimeseries): Promise<number> {
    this.assertOpen();
    const { urnPrefix, aspect, endTimeMillis, limit } = request;
    if (!Number.isInteger(limit) || limit < 1) return 0;
    const doomed = await this.collections.timeseries
      .find(
        { aspect, timestampMillis: { $lte: endTimeMillis }, urn: { $regex: `^${escapeRegExp(urnPrefix)}` } },
        { projection: { _id: 1 } },
      )
      .limit(limit)
      .toArray();
    if (doomed.length === 0) return 0;
    const { deletedCount } = await this.collections.timeseries.deleteMany({
      _id: { $in: doomed.map((document) => document._id) },
    });
    return deletedCount;
  }

  async listRuns(request: ListRunsRequest): Promise<RunSummary[]> {
    this.assertOpen();
    if (request.count < 1) return [];
    // The run's latest values (the `latest_by_run` index), each with its entity's status when removed ones are left
    // out; grouped per run with the newest time seen (system metadata is kept as a JSON string, so it is parsed).
    const pipeline: Document[] = [
      { $match: { version: 0, runId: { $exists: true, $ne: UNNAMED_RUN_ID } } },
      ...(request.includeSoft
        ? []
        : [
            {
              $lookup: {
                from: this.collections.aspects.collectionName,
                let: { urn: '$urn' },
                pipeline: [
                  {
                    $match: {
                      $expr: {
                        $and: [{ $eq: ['$urn', '$$urn'] }, { $eq: ['$aspect', 'status'] }, { $eq: ['$version', 0] }],
                      },
                    },
                  },
                  { $project: { _id: 0, metadata: 1 } },
                ],
                as: 'status',
              },
            },
          ]),
      { $project: { _id: 0, runId: 1, createdOn: 1, systemMetadata: 1, status: 1 } },
    ];
    const runs = new Map<string, { rows: number; timestamp: number }>();
    for await (const document of this.collections.aspects.aggregate(pipeline)) {
      const status = (document['status'] as { metadata: string }[] | undefined)?.[0];
      if (status !== undefined && (JSON.parse(status.metadata) as { removed?: unknown }).removed === true) continue;
      const system = JSON.parse(String(document['systemMetadata'])) as { lastObserved?: unknown };
      const seen = typeof system.lastObserved === 'number' ? system.lastObserved : Number(document['createdOn']);
      const runId = String(document['runId']);
      const run = runs.get(runId) ?? { rows: 0, timestamp: Number.NEGATIVE_INFINITY };
      runs.set(runId, { rows: run.rows + 1, timestamp: Math.max(run.timestamp, seen) });
    }
    return [...runs]
      .map(([runId, run]) => ({ runId, rows: run.rows, timestamp: run.timestamp }))
      .sort((a, b) => b.timestamp - a.timestamp || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0))
      .slice(request.start, request.start + request.count);
  }

  async listUrns(request: ListUrnsRequest): Promise<{ readonly urns: string[]; readonly total: number }> {
    this.assertOpen();
    const filter = {
      aspect: request.keyAspect,
      version: 0,
      urn: { $regex: `^${escapeRegExp(request.urnPrefix)}` },
    };
    const [total, documents] = await Promise.all([
      this.collections.aspects.countDocuments(filter),
      request.count < 1
        ? Promise.resolve([])
        : this.collections.aspects
            .find(filter, { projection: { _id: 0, urn: 1 } })
            .sort({ aspect: 1, urn: 1 })
            .skip(request.start)
            .limit(request.count)
            .toArray(),
    ]);
    return { urns: documents.map((document) => document.urn), total };
  }

  async countLatest(request: CountLatestRequest): Promise<number> {
    this.assertOpen();
    const filter = {
      aspect: request.aspect,
      version: 0,
      ...(request.urnPrefix ? { urn: { $regex: `^${escapeRegExp(request.urnPrefix)}` } } : {}),
    };
    const matches = request.urnMatches;
    if (matches === undefined) return this.collections.aspects.countDocuments(filter);
    let count = 0;
    for await (const document of this.collections.aspects.find(filter, { projection: { _id: 0, urn: 1 } })) {
      if (matches(document.urn)) count += 1;
    }
    return count;
  }

  async countRows(): Promise<{ readonly latest: number; readonly timeseries: number }> {
    this.assertOpen();
    const [latest, timeseries] = await Promise.all([
      this.collections.aspects.countDocuments({ version: 0 }),
      this.collections.timeseries.countDocuments({}),
    ]);
    return { latest, timeseries };
  }

  /**
   * Takes the next outbox ids from the sequence and inserts the records under them, in the session's transaction;
   * returns the last id taken (null for no records).
   */
  private async appendOutbox(records: readonly OutboxRecord[], session: ClientSession): Promise<number | null> {
    const sequence = await this.collections.outboxSequence.findOneAndUpdate(
      { _id: OUTBOX_SEQUENCE_ID },
      { $inc: { last: records.length, commits: 1 } },
      { session, upsert: true, returnDocument: 'after' },
    );
    if (sequence === null) throw new Error('The outbox sequence document vanished during a commit');
    if (records.length > 0) {
      const first = sequence.last - records.length + 1;
      await this.collections.outbox.insertMany(
        records.map((record, index) => toOutboxDocument(first + index, record)),
        { session },
      );
    }
    return records.length > 0 ? sequence.last : null;
  }

  /** The rows of the restore sequence from the request's start: the latest values, then the timeseries values. */
  private async *restateRows(request: RestateRequest, session: ClientSession): AsyncGenerator<RestatedRow> {
    const start = urnScanStart(request);
    const after = request.after;
    if (after === undefined || after.source === 'latest') {
      const [urn, aspect] = after === undefined ? ['', ''] : [after.urn, after.aspect];
      const cursor = this.collections.aspects
        .find(
          {
            version: 0,
            urn: { $gte: seekFrom(start, after) },
            $or: [{ urn: { $gt: urn } }, { urn, aspect: { $gt: aspect } }],
          },
          { session },
        )
        .sort({ urn: 1, aspect: 1 });
      try {
        for await (const document of cursor) {
          if (!inUrnScope(request, document.urn)) break;
          yield { source: 'latest', row: fromAspectDocument(document) };
        }
      } finally {
        await cursor.close();
      }
    }
    const [urn, aspect, id] = after?.source === 'timeseries' ? [after.urn, after.aspect, after.id] : ['', '', ''];
    const cursor = this.collections.timeseries
      .find(
        {
          urn: { $gte: after?.source === 'timeseries' ? seekFrom(start, after) : start },
          $or: [{ urn: { $gt: urn } }, { urn, aspect: { $gt: aspect } }, { urn, aspect, pointId: { $gt: id } }],
        },
        { session },
      )
      .sort({ urn: 1, aspect: 1, pointId: 1 });
    try {
      for await (const document of cursor) {
        if (!inUrnScope(request, document.urn)) break;
        yield { source: 'timeseries', row: fromTimeseriesDocument(document) };
      }
    } finally {
      await cursor.close();
    }
  }

  async pendingOutbox(limit: number): Promise<PendingOutboxRecord[]> {
    this.assertOpen();
    if (!Number.isInteger(limit) || limit < 1) return [];
    const documents = await this.collections.outbox.find({}).sort({ _id: 1 }).limit(limit).toArray();
    return documents.map(fromOutboxDocument);
  }

  async markPublished(ids: readonly string[]): Promise<void> {
    this.assertOpen();
    const sequenceNumbers = parseOutboxIds(ids);
    if (sequenceNumbers.length > 0) await this.collections.outbox.deleteMany({ _id: { $in: sequenceNumbers } });
  }

  async findWriteTraces(traceId: string, keys: readonly AspectKey[]): Promise<WriteTrace[]> {
    this.assertOpen();
    return this.writeTraces.find(traceId, keys);
  }

  async recordPublication(throughOutboxId: string, ends: readonly LogEnd[]): Promise<void> {
    this.assertOpen();
    // An id this store never handed out covers nothing of it.
    const [through] = parseOutboxIds([throughOutboxId]);
    if (through !== undefined) await this.writeTraces.recordPublication(through, ends);
  }

  async findLatestByRunId(runId: string, limit: number): Promise<StoredAspect[]> {
    this.assertOpen();
    if (limit < 1) return [];
    const documents = await this.collections.aspects
      .find({ runId, version: 0 })
      .sort({ urn: 1, aspect: 1 })
      .limit(limit)
      .toArray();
    return documents.map(fromAspectDocument);
  }

  /**
   * A scan, not an index: the registry is not a field of the documents (system metadata is kept as JSON text), and
   * making it one would change every write and need every stored document rewritten. Deleting what a registry wrote
   * is a rare administrative act, so it walks the latest values in (urn, aspect) order on the unique index, the server
   * passing on only documents whose text holds both values ({@link registryTextFilter}); each is then checked on
   * its parsed system metadata, and the walk stops at `limit`.
   */
  async findLatestByRegistry(registryName: string, registryVersion: string, limit: number): Promise<StoredAspect[]> {
    this.assertOpen();
    if (limit < 1) return [];
    const found: StoredAspect[] = [];
    const cursor = this.collections.aspects
      .find({ version: 0, ...registryTextFilter(registryName, registryVersion) })
      .sort({ urn: 1, aspect: 1 })
      .hint('urn_aspect_version');
    try {
      for await (const document of cursor) {
        const row = fromAspectDocument(document);
        if (writtenUnderRegistry(row.systemMetadata, registryName, registryVersion)) found.push(row);
        if (found.length >= limit) break;
      }
    } finally {
      await cursor.close();
    }
    return found;
  }

  listsAspect(aspect: string): boolean {
    return this.listed.includes(aspect);
  }

  async listLatest(
    aspect: string,
    options: { readonly afterUrn?: string; readonly limit: number },
  ): Promise<StoredAspect[]> {
    this.assertOpen();
    assertListed(this.listed, aspect);
    if (options.limit <= 0) return [];
    const documents = await this.collections.aspects
      .find({ aspect, version: 0, ...(options.afterUrn === undefined ? {} : { urn: { $gt: options.afterUrn } }) })
      .sort({ urn: 1 })
      .limit(options.limit)
      .toArray();
    return documents.map(fromAspectDocument);
  }

  async scanEntities(request: {
    readonly urnPrefix: string;
    readonly afterUrn?: string;
    readonly limit: number;
  }): Promise<ScannedEntity[]> {
    this.assertOpen();
    if (request.limit <= 0) return [];
    const grouping = new EntityGrouping(request.urnPrefix, request.limit);
    const urn =
      request.afterUrn !== undefined && request.afterUrn >= request.urnPrefix
        ? { $gt: request.afterUrn }
        : { $gte: request.urnPrefix };
    // Walks urn_version_aspect: the latest rows of each entity in turn, already in aspect order.
    const cursor = this.collections.aspects
      .find({ urn, version: 0 })
      .sort({ urn: 1, version: 1, aspect: 1 })
      .hint('urn_version_aspect');
    try {
      for await (const document of cursor) if (!grouping.offer(fromAspectDocument(document))) break;
    } finally {
      await cursor.close();
    }
    return grouping.entities;
  }

  async getMarks(names: readonly string[]): Promise<Map<string, string>> {
    this.assertOpen();
    if (names.length === 0) return new Map();
    const documents = await this.collections.marks.find({ _id: { $in: [...new Set(names)] } }).toArray();
    return new Map(documents.map((document) => [document._id, document.value]));
  }

  async countTimeseries(
    urn: string,
    aspects: readonly string[],
    range: TimeRange = {},
    runId?: string,
  ): Promise<number> {
    this.assertOpen();
    if (aspects.length === 0) return 0;
    return this.collections.timeseries.countDocuments({
      urn,
      aspect: { $in: [...aspects] },
      ...timestampFilter(range),
      ...(runId === undefined ? {} : { runId }),
    });
  }

  /**
   * By the index `timeseries_by_run` (run id, urn, aspect), not a scan: a covered walk of the run's entries in (urn,
   * aspect) order, counting each pair as it passes and stopping at the first entry of the pair past `limit`. What it
   * reads is the run's values in the pairs it answers, however many points other runs wrote.
   */
  async findTimeseriesByRunId(runId: string, limit: number): Promise<TimeseriesOfRun[]> {
    this.assertOpen();
    if (!Number.isInteger(limit) || limit < 1) return [];
    const found: { urn: string; aspect: string; count: number }[] = [];
    const cursor = this.collections.timeseries
      .find({ runId }, { projection: { _id: 0, urn: 1, aspect: 1 } })
      .sort({ runId: 1, urn: 1, aspect: 1 })
      .hint(TIMESERIES_BY_RUN);
    try {
      for await (const { urn, aspect } of cursor) {
        const last = found.at(-1);
        if (last?.urn === urn && last.aspect === aspect) {
          last.count += 1;
          continue;
        }
        if (found.length >= limit) break;
        found.push({ urn, aspect, count: 1 });
      }
    } finally {
      await cursor.close();
    }
    return found;
  }

  async getTimeseries(urn: string, aspect: string, options?: { limit?: number }): Promise<StoredTimeseriesValue[]> {
    this.assertOpen();
    const limit = options?.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return [];
    const cursor = this.collections.timeseries.find({ urn, aspect }).sort({ timestampMillis: -1 });
    if (limit !== undefined) cursor.limit(limit);
    return (await cursor.toArray()).map(fromTimeseriesDocument);
  }

  /** Closes the client if this store created it; an injected client stays open. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  private assertOpen(): void {
    // The driver would silently reconnect a closed client; a closed store must fail instead.
    if (this.closed) throw new Error('MongoAspectStore is closed');
  }

  private async apply(mutation: AspectMutation, session: ClientSession): Promise<void> {
    const { aspects, timeseries } = this.collections;
    switch (mutation.kind) {
      case 'put':
        await this.put(mutation, session);
        return;
      case 'deleteAspect':
        await this.expectVersion(mutation.urn, mutation.aspect, mutation.expectedVersion, session);
        await aspects.deleteMany({ urn: mutation.urn, aspect: mutation.aspect }, { session });
        return;
      case 'deleteEntity':
        await aspects.deleteMany({ urn: mutation.urn }, { session });
        await timeseries.deleteMany({ urn: mutation.urn }, { session });
        return;
      case 'deleteTimeseries':
        await timeseries.deleteMany(
          {
            urn: mutation.urn,
            aspect: mutation.aspect,
            ...timestampFilter(mutation.range),
            ...(mutation.runId === undefined ? {} : { runId: mutation.runId }),
          },
          { session },
        );
        return;
      case 'setMark':
        await this.collections.marks.updateOne(
          { _id: mutation.name },
          { $set: { value: mutation.value } },
          { session, upsert: true },
        );
        return;
      case 'putTimeseries': {
        const { urn, aspect, id, timestampMillis } = mutation.value;
        const { metadata, systemMetadata, runId, createdOn, createdBy } = toTimeseriesDocument(mutation.value);
        await duplicateAsConflict(
          () =>
            timeseries.updateOne(
              { urn, aspect, pointId: id },
              { $set: { timestampMillis, metadata, systemMetadata, runId, createdOn, createdBy } },
              { session, upsert: true },
            ),
          `timeseries value ${aspect} of ${urn} at ${timestampMillis} was written by a concurrent commit`,
        );
        return;
      }
    }
  }

  private async put(mutation: PutAspect, session: ClientSession): Promise<void> {
    const { urn, aspect, expectedVersion, row } = mutation;
    const current = await this.expectVersion(urn, aspect, expectedVersion, session);
    const isNewVersion = row.version === expectedVersion + 1;
    if (!isNewVersion && (row.version !== expectedVersion || expectedVersion === 0)) {
      // Not a conflict but a caller bug: the writer computes the new ordinal from the one it expects.
      throw new Error(
        `Invalid put of ${aspect} of ${urn}: row version ${row.version} must be ${expectedVersion + 1} (new version)` +
          (expectedVersion >= 1 ? ` or ${expectedVersion} (rewrite in place)` : ''),
      );
    }
    const latest = toLatestDocument(urn, aspect, row);
    const concurrently = `version ${row.version} of ${aspect} of ${urn} was written by a concurrent commit`;
    if (current === null) {
      await duplicateAsConflict(() => this.collections.aspects.insertOne(latest, { session }), concurrently);
      return;
    }
    if (isNewVersion) {
      await duplicateAsConflict(
        () => this.collections.aspects.insertOne(toArchivedDocument(current), { session }),
        concurrently,
      );
    }
    await this.collections.aspects.replaceOne({ _id: current._id }, latest, { session });
  }

  /** Checks an expected ordinal against the latest as this transaction sees it, and returns that latest document. */
  private async expectVersion(
    urn: string,
    aspect: string,
    expected: number,
    session: ClientSession,
  ): Promise<WithId<AspectDocument> | null> {
    if (!Number.isInteger(expected) || expected < 0) {
      throw new Error(`Invalid expected version ${expected} of ${aspect} of ${urn}`);
    }
    const current = await this.collections.aspects.findOne({ urn, aspect, version: 0 }, { session });
    const actual = current?.ordinal ?? 0;
    if (actual !== expected) {
      throw new ConflictError(
        `Conflict on aspect ${aspect} of ${urn}: expected version ${expected}, but the current version is ${actual}`,
      );
    }
    return current;
  }
}

/**
 * `snapshot` reads majority-committed data from one point in time, across shards too (on a replica set it behaves
 * like `majority`); its guarantee holds because the commit uses write concern `majority`. Transactions always run on
 * the primary.
 */
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: new WriteConcern('majority'),
  readPreference: 'primary',
};

const OUTBOX_SEQUENCE_ID = 'outbox';

/** The index of the timeseries values by the run that wrote them. */
const TIMESERIES_BY_RUN = 'timeseries_by_run';

// ---------------------------------------------------------------------------------------------------------------------
// Document layout and the pure functions around it (exported for the unit tests; not part of the package's API).

/** Names of the store's collections. */
export interface MongoCollectionNames {
  /** Versioned aspects, DataHub's `metadata_aspect_v2`. */
  readonly aspects: string;
  /** Durable timeseries values. */
  readonly timeseries: string;
  /** Outbox records not yet published. */
  readonly outbox: string;
  /** The outbox sequence document. */
  readonly outboxSequence: string;
  /** The idempotency ledger. */
  readonly appliedProposals: string;
  /** Named marks (see `SetMark`). */
  readonly marks: string;
  /** Write traces (see `AspectStore.findWriteTraces`). */
  readonly writeTraces: string;
  /** The publications the outbox relay recorded (see `AspectStore.recordPublication`). */
  readonly writeTracePublications: string;
}

export function mongoCollectionNames(prefix = ''): MongoCollectionNames {
  return {
    aspects: `${prefix}metadata_aspect_v2`,
    timeseries: `${prefix}timeseries_aspect`,
    outbox: `${prefix}outbox`,
    outboxSequence: `${prefix}outbox_sequence`,
    appliedProposals: `${prefix}applied_proposal`,
    marks: `${prefix}mark`,
    writeTraces: `${prefix}write_trace`,
    writeTracePublications: `${prefix}write_trace_publication`,
  };
}

/** One version of an aspect: the latest under `version` 0, an archived one under `version === ordinal`. */
export interface AspectDocument {
  readonly urn: string;
  readonly aspect: string;
  readonly version: number;
  /** The real ordinal of the value (≥ 1); equal to `version` on archived documents. */
  readonly ordinal: number;
  /** The aspect value, as a JSON string. */
  readonly metadata: string;
  /** The system metadata, as a JSON string. */
  readonly systemMetadata: string;
  /** The system metadata's `runId`, as a field of its own so that a run's values can be found (its rollback). */
  readonly runId?: string;
  /** Epoch milliseconds, as written (a number, so that it round-trips exactly). */
  readonly createdOn: number;
  readonly createdBy: string;
}

export interface TimeseriesDocument {
  readonly urn: string;
  readonly aspect: string;
  /** The point's id (`timeseriesPointId`): unique within (urn, aspect). */
  readonly pointId: string;
  readonly timestampMillis: number;
  readonly metadata: string;
  readonly systemMetadata: string;
  /**
   * The system metadata's `runId`, as a field of its own so that a run's values can be found (its rollback); null when
   * the system metadata names no run. Absent only on documents written before the field was (see `migrateTimeseries`).
   */
  readonly runId?: string | null;
  readonly createdOn: number;
  readonly createdBy: string;
}

export interface OutboxDocument {
  /** The record's position in the outbox sequence (its id, as a decimal string, outside the store). */
  readonly _id: number;
  readonly topic: string;
  readonly key: string;
  /** Written as a Buffer, read back as a BSON Binary. */
  readonly value: Uint8Array | Binary;
  /** Headers as a JSON string: header names are not restricted the way field names are. */
  readonly headers: string;
}

export interface OutboxSequenceDocument {
  readonly _id: string;
  /** The last outbox id handed out. */
  readonly last: number;
  /** How many commits ran: every commit changes this document, which serializes commits. */
  readonly commits: number;
}

export interface AppliedProposalDocument {
  readonly _id: string;
  readonly appliedAt: Date;
}

export interface MarkDocument {
  readonly _id: string;
  readonly value: string;
}

interface StoreCollections {
  readonly aspects: Collection<AspectDocument>;
  readonly timeseries: Collection<TimeseriesDocument>;
  readonly outbox: Collection<OutboxDocument>;
  readonly outboxSequence: Collection<OutboxSequenceDocument>;
  readonly appliedProposals: Collection<AppliedProposalDocument>;
  readonly marks: Collection<MarkDocument>;
}

export function toLatestDocument(urn: string, aspect: string, row: PutAspect['row']): AspectDocument {
  return {
    urn,
    aspect,
    version: 0,
    ordinal: row.version,
    metadata: JSON.stringify(row.value),
    systemMetadata: JSON.stringify(row.systemMetadata),
    ...(typeof row.systemMetadata['runId'] === 'string' ? { runId: row.systemMetadata['runId'] } : {}),
    createdOn: row.createdOn,
    createdBy: row.createdBy,
  };
}

/** The archived copy of a latest document: the same value, under its own ordinal. */
export function toArchivedDocument(latest: AspectDocument): AspectDocument {
  return {
    urn: latest.urn,
    aspect: latest.aspect,
    version: latest.ordinal,
    ordinal: latest.ordinal,
    metadata: latest.metadata,
    systemMetadata: latest.systemMetadata,
    ...(latest.runId === undefined ? {} : { runId: latest.runId }),
    createdOn: latest.createdOn,
    createdBy: latest.createdBy,
  };
}

export function fromAspectDocument(document: AspectDocument): StoredAspect {
  return {
    urn: document.urn,
    aspect: document.aspect,
    version: document.ordinal,
    value: JSON.parse(document.metadata) as JsonObject,
    systemMetadata: JSON.parse(document.systemMetadata) as JsonObject,
    createdOn: document.createdOn,
    createdBy: document.createdBy,
  };
}

export function toTimeseriesDocument(value: StoredTimeseriesValue): TimeseriesDocument {
  return {
    urn: value.urn,
    aspect: value.aspect,
    pointId: value.id,
    timestampMillis: value.timestampMillis,
    metadata: JSON.stringify(value.value),
    systemMetadata: JSON.stringify(value.systemMetadata),
    runId: runIdOf(value.systemMetadata),
    createdOn: value.createdOn,
    createdBy: value.createdBy,
  };
}

/** The run that wrote a value, as the documents keep it: the system metadata's `runId` when a string, else null. */
function runIdOf(systemMetadata: JsonObject): string | null {
  const runId = systemMetadata['runId'];
  return typeof runId === 'string' ? runId : null;
}

export function fromTimeseriesDocument(document: TimeseriesDocument): StoredTimeseriesValue {
  return {
    urn: document.urn,
    aspect: document.aspect,
    id: document.pointId,
    timestampMillis: document.timestampMillis,
    value: JSON.parse(document.metadata) as JsonObject,
    systemMetadata: JSON.parse(document.systemMetadata) as JsonObject,
    createdOn: document.createdOn,
    createdBy: document.createdBy,
  };
}

export function toOutboxDocument(id: number, record: OutboxRecord): OutboxDocument {
  return {
    _id: id,
    topic: record.topic,
    key: record.key,
    value: record.value,
    headers: JSON.stringify(record.headers),
  };
}

export function fromOutboxDocument(document: OutboxDocument): PendingOutboxRecord {
  const value = document.value instanceof Binary ? document.value.value() : document.value;
  return {
    id: String(document._id),
    topic: document.topic,
    key: document.key,
    value: Buffer.from(value),
    headers: JSON.parse(document.headers) as Record<string, string>,
  };
}

/** The outbox sequence numbers among `ids`; ids this store never handed out cannot be pending and are dropped. */
export function parseOutboxIds(ids: readonly string[]): number[] {
  return [...new Set(ids.filter((id) => /^[0-9]{1,15}$/.test(id)).map(Number))];
}

/** Whether an error is MongoDB's duplicate key error (E11000), from a single write or a bulk one. */
export function isDuplicateKeyError(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

const DUPLICATE_KEY = 11000;

/** Runs one write of a commit, turning a duplicate key (a unique index caught a concurrent writer) into ConflictError. */
export async function duplicateAsConflict<T>(write: () => Promise<T>, what: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateKeyError(error)) throw new ConflictError(`Conflict: ${what}`, { cause: error });
    throw error;
  }
}

/**
 * Refuses a deployment without multi-document transactions, given its `hello` response: a replica set member reports
 * `setName`, a mongos reports `msg: 'isdbgrid'`; anything else is a standalone server.
 */
export function assertSupportsTransactions(hello: Document): void {
  if (typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid') return;
  const requirement =
    'MongoAspectStore needs a MongoDB deployment that supports multi-document transactions: a replica set (a ' +
    'single-node one will do: start mongod with --replSet rs0, then run rs.initiate() once) or a sharded cluster.';
  if (hello['isreplicaset'] === true) {
    throw new Error(`${requirement} The server was started with --replSet but its replica set is not initiated yet.`);
  }
  throw new Error(`${requirement} The server is a standalone mongod (its hello reports no replica set name).`);
}

async function prepareCollections(db: Db, names: MongoCollectionNames): Promise<StoreCollections> {
  // Collections are created up front: creating one implicitly inside concurrent transactions makes them conflict.
  const existing = new Set(
    (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name),
  );
  const all = [
    names.aspects,
    names.timeseries,
    names.outbox,
    names.outboxSequence,
    names.appliedProposals,
    names.marks,
  ];
  for (const name of all) {
    if (!existing.has(name)) await createCollectionIfAbsent(db, name);
  }
  const collections: StoreCollections = {
    aspects: db.collection<AspectDocument>(names.aspects),
    timeseries: db.collection<TimeseriesDocument>(names.timeseries),
    outbox: db.collection<OutboxDocument>(names.outbox),
    outboxSequence: db.collection<OutboxSequenceDocument>(names.outboxSequence),
    appliedProposals: db.collection<AppliedProposalDocument>(names.appliedProposals),
    marks: db.collection<MarkDocument>(names.marks),
  };
  // Same names and options every time, so that creating them again is a no-op. The outbox (by sequence) and the
  // ledger (by proposal id) are served by their `_id` index. No TTL on the ledger: pruning it is future work (ADR 0002).
  await collections.aspects.createIndexes([
    // One document per version: a second writer of the same version fails with E11000 (→ ConflictError).
    { key: { urn: 1, aspect: 1, version: 1 }, name: 'urn_aspect_version', unique: true },
    // getEntity: the latest (version 0) of every aspect of an entity, already in aspect order.
    { key: { urn: 1, version: 1, aspect: 1 }, name: 'urn_version_aspect' },
    // findLatestByRunId: the latest values an ingestion run wrote, for its rollback.
    {
      key: { runId: 1, urn: 1, aspect: 1 },
      name: 'latest_by_run',
      partialFilterExpression: { version: 0 },
    },
    // listLatest: the latest values of a listed aspect across entities, by URN.
    { key: { aspect: 1, urn: 1 }, name: 'latest_by_aspect', partialFilterExpression: { version: 0 } },
  ]);
  await migrateTimeseries(collections.timeseries);
  await collections.timeseries.createIndexes([
    // One value per point, which the upsert relies on; the restore walks it in order.
    { key: { urn: 1, aspect: 1, pointId: 1 }, name: 'urn_aspect_pointId', unique: true },
    // Newest-first reads of one entity scan it backwards.
    { key: { urn: 1, aspect: 1, timestampMillis: 1 }, name: 'urn_aspect_time' },
    // Truncation of an aspect up to a time.
    { key: { aspect: 1, timestampMillis: 1 }, name: 'aspect_time' },
    // findTimeseriesByRunId: the values an ingestion run wrote, by (urn, aspect), for its rollback.
    { key: { runId: 1, urn: 1, aspect: 1 }, name: TIMESERIES_BY_RUN },
  ]);
  await collections.outboxSequence.updateOne(
    { _id: OUTBOX_SEQUENCE_ID },
    { $setOnInsert: { last: 0, commits: 0 } },
    { upsert: true },
  );
  return collections;
}

async function createCollectionIfAbsent(db: Db, name: string): Promise<void> {
  try {
    await db.createCollection(name);
  } catch (error) {
    // Another instance created it since we listed the collections.
    if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
  }
}

const NAMESPACE_EXISTS = 48;

/** The filter on `timestampMillis` of an inclusive range; none when both bounds are open. */
function timestampFilter(range: TimeRange): { timestampMillis?: { $gte?: number; $lte?: number } } {
  if (range.fromMillis === undefined && range.untilMillis === undefined) return {};
  return {
    timestampMillis: {
      ...(range.fromMillis === undefined ? {} : { $gte: range.fromMillis }),
      ...(range.untilMillis === undefined ? {} : { $lte: range.untilMillis }),
    },
  };
}

/**
 * Brings a collection written before timeseries points had an identity of their own, or before they kept their run
 * apart, up to date: the unique index on (urn, aspect, timestampMillis), which would refuse two points at one time,
 * goes; every value without a `pointId` gets its id, and every value without a `runId` field gets its system
 * metadata's (null when none). One pass over the collection, as before the run was kept; idempotent, and safe to run
 * again after a crash halfway.
 */
async function migrateTimeseries(timeseries: Collection<TimeseriesDocument>): Promise<void> {
  const indexes = await timeseries.listIndexes().toArray();
  if (indexes.some((index) => (index as { name?: string }).name === 'urn_aspect_timestampMillis')) {
    await timeseries.dropIndex('urn_aspect_timestampMillis');
  }
  const legacy = timeseries.find({ $or: [{ pointId: { $exists: false } }, { runId: { $exists: false } }] });
  // Written a thousand at a time: a store from before the run was kept apart has every value to rewrite.
  let updates: AnyBulkWriteOperation<TimeseriesDocument>[] = [];
  for await (const document of legacy) {
    // A legacy document may lack either field: what it has is kept.
    const earlier: Partial<TimeseriesDocument> = document;
    const pointId = earlier.pointId ?? timeseriesPointId(document.urn, JSON.parse(document.metadata) as JsonObject);
    const runId = document.runId ?? runIdOf(JSON.parse(document.systemMetadata) as JsonObject);
    updates.push({ updateOne: { filter: { _id: document._id }, update: { $set: { pointId, runId } } } });
    if (updates.length >= 1000) {
      await timeseries.bulkWrite(updates, { ordered: false });
      updates = [];
    }
  }
  if (updates.length > 0) await timeseries.bulkWrite(updates, { ordered: false });
}

/**
 * What the server can check of a registry on a document's system metadata, kept as the text `JSON.stringify` wrote:
 * that it holds `"registryName":<name as JSON>` and `"registryVersion":<version as JSON>`. Every document written
 * under the registry passes; one whose text merely holds them elsewhere (a nested property) passes too, which
 * {@link writtenUnderRegistry} then refuses.
 */
export function registryTextFilter(registryName: string, registryVersion: string): Document {
  const holds = (field: string, value: string) => ({
    systemMetadata: { $regex: escapeRegExp(`${JSON.stringify(field)}:${JSON.stringify(value)}`) },
  });
  return { $and: [holds('registryName', registryName), holds('registryVersion', registryVersion)] };
}

/** Whether system metadata names this registry and version, as strings. */
export function writtenUnderRegistry(
  systemMetadata: JsonObject,
  registryName: string,
  registryVersion: string,
): boolean {
  return systemMetadata['registryName'] === registryName && systemMetadata['registryVersion'] === registryVersion;
}

/** The text matched literally in a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
