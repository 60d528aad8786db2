import type Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '@strata/sqlite';
import { ConflictError, timeseriesPointId } from '@strata/model';

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
import { inUrnScope, restatePage, seekFrom, urnScanStart } from './restate-scan';
import { SqliteWriteTraces } from './sqlite-write-traces';
import type { LogEnd, WriteTrace } from './write-traces';

/** The tables of the store file, with a partial index for each listed aspect. */
const storeSchema = (listed: readonly string[]) => `
  CREATE TABLE IF NOT EXISTS metadata_aspect_v2 (
    urn TEXT NOT NULL,
    aspect TEXT NOT NULL,
    version INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    metadata TEXT NOT NULL,
    systemmetadata TEXT NOT NULL,
    createdon INTEGER NOT NULL,
    createdby TEXT NOT NULL,
    PRIMARY KEY (urn, aspect, version)
  );
  CREATE INDEX IF NOT EXISTS latest_by_run ON metadata_aspect_v2 (json_extract(systemmetadata, '$.runId'))
    WHERE version = 0;
  CREATE INDEX IF NOT EXISTS latest_by_registry ON metadata_aspect_v2 (
    json_extract(systemmetadata, '$.registryName'), json_extract(systemmetadata, '$.registryVersion'), urn, aspect)
    WHERE version = 0 AND json_extract(systemmetadata, '$.registryName') IS NOT NULL;
  DROP INDEX IF EXISTS latest_by_aspect;
  ${listed
    .map(
      (aspect) =>
        `CREATE INDEX IF NOT EXISTS latest_${aspect} ON metadata_aspect_v2 (urn) WHERE version = 0 AND aspect = '${aspect}';`,
    )
    .join('\n  ')}
  CREATE TABLE IF NOT EXISTS timeseries_point (
    urn TEXT NOT NULL,
    aspect TEXT NOT NULL,
    pointid TEXT NOT NULL,
    timestampmillis INTEGER NOT NULL,
    metadata TEXT NOT NULL,
    systemmetadata TEXT NOT NULL,
    createdon INTEGER NOT NULL,
    createdby TEXT NOT NULL,
    PRIMARY KEY (urn, aspect, pointid)
  );
  CREATE INDEX IF NOT EXISTS timeseries_by_time ON timeseries_point (urn, aspect, timestampmillis);
  CREATE INDEX IF NOT EXISTS timeseries_by_aspect_time ON timeseries_point (aspect, timestampmillis);
  CREATE INDEX IF NOT EXISTS timeseries_by_run ON timeseries_point (json_extract(systemmetadata, '$.runId'), urn, aspect);
  CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    headers TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS applied_proposal (
    id TEXT PRIMARY KEY,
    appliedat INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS mark (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
`;

/** Options of {@link SqliteAspectStore}. */
export interface SqliteAspectStoreOptions {
  /**
   * Database file. Several instances (or processes) may open the same file; commits serialize on SQLite's write lock
   * and the optimistic version checks keep them correct. `':memory:'` gives a store private to this instance.
   */
  readonly path: string;
  /** Clock for the time a proposal id was recorded (`appliedAt`), epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** How long a commit waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * SQLite `synchronous` setting. Default `FULL`: a commit is on disk (fsynced) before `commit()` resolves, so a
   * consumer that commits its log position afterwards can never be ahead of the store, even across a power loss.
   * `NORMAL` survives process crashes only.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** The aspects whose latest values {@link SqliteAspectStore.listLatest} lists across entities (indexed for it). */
  readonly listedAspects?: readonly string[];
}

/**
 * The embedded primary store: one SQLite file (WAL) laid out like DataHub's `metadata_aspect_v2`.
 *
 * Row version 0 holds the latest value of an aspect and keeps its real ordinal in the `ordinal` column; older values
 * are archived under their ordinal (`version = ordinal`). Timeseries values, the outbox and the applied proposal ids
 * live in tables of their own. A commit is one `BEGIN IMMEDIATE` transaction, so version checks and writes of
 * concurrent writers (other instances or processes on the same file) are serialized by SQLite's write lock.
 * Published outbox records are deleted; ids come from an AUTOINCREMENT column and therefore are never reused.
 */
export class SqliteAspectStore implements AspectStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly listed: readonly string[];
  private readonly statements;
  private readonly commitTransaction;
  private readonly readLatestTransaction;
  private readonly markPublishedTransaction;
  private readonly restateTransaction;
  private readonly readCountsTransaction;
  private readonly writeTraces: SqliteWriteTraces;

  constructor(options: SqliteAspectStoreOptions) {
    this.now = options.now ?? Date.now;
    this.listed = listedAspectsOf(options.listedAspects);
    const db = openDatabase(options.path, {
      synchronous: options.synchronous ?? 'FULL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      schema: storeSchema(this.listed),
    });
    this.db = db;
    this.writeTraces = new SqliteWriteTraces(db);

    const aspectColumns = 'urn, aspect, ordinal AS version, metadata, systemmetadata, createdon, createdby';
    const timeseriesColumns = 'urn, aspect, pointid, timestampmillis, metadata, systemmetadata, createdon, createdby';
    this.statements = {
      selectLatest: db.prepare<[string, string], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ? AND version = 0`,
      ),
      selectLatestByRun: db.prepare<[string, number], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2
         WHERE json_extract(systemmetadata, '$.runId') = ? AND version = 0 ORDER BY urn, aspect LIMIT ?`,
      ),
      // By the index latest_by_registry rather than a scan: the embedded store reads synchronously, so a scan of every
      // latest value would hold the event loop for as long as the store is large. The index is partial: it holds only
      // the values whose writer named a registry (few do), so the other writes add no entry to it.
      selectLatestByRegistry: db.prepare<[string, string, number], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2 INDEXED BY latest_by_registry
         WHERE json_extract(systemmetadata, '$.registryName') = ?
           AND json_extract(systemmetadata, '$.registryVersion') = ? AND version = 0
         ORDER BY urn, aspect LIMIT ?`,
      ),
      // One partial index per listed aspect, and the aspect written out in the query as in the index's condition:
      // SQLite uses a partial index only when it can see that the query's rows satisfy that condition.
      selectLatestOfAspect: new Map(
        this.listed.map((aspect) => [
          aspect,
          db.prepare<[string, number], AspectRow>(
            `SELECT ${aspectColumns} FROM metadata_aspect_v2 INDEXED BY latest_${aspect}
             WHERE version = 0 AND aspect = '${aspect}' AND urn > ? ORDER BY urn LIMIT ?`,
          ),
        ]),
      ),
      // A scan of whole entities: from a URN (inclusive, the prefix) or after one (exclusive, the cursor).
      scanLatestFrom: db.prepare<[string], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2 WHERE urn >= ? AND version = 0 ORDER BY urn, aspect`,
      ),
      scanLatestAfter: db.prepare<[string], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2 WHERE urn > ? AND version = 0 ORDER BY urn, aspect`,
      ),
      selectEntity: db.prepare<[string], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2 WHERE urn = ? AND version = 0 ORDER BY aspect`,
      ),
      // The latest row answers for its own ordinal too: version N is either archived or the latest.
      selectVersion: db.prepare<[string, string, number, number], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2
         WHERE urn = ? AND aspect = ? AND (version = ? OR (version = 0 AND ordinal = ?))`,
      ),
      selectOrdinal: db.prepare<[string, string], { ordinal: number }>(
        'SELECT ordinal FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ? AND version = 0',
      ),
      archiveLatest: db.prepare<[string, string]>(
        `INSERT INTO metadata_aspect_v2 (urn, aspect, version, ordinal, metadata, systemmetadata, createdon, createdby)
         SELECT urn, aspect, ordinal, ordinal, metadata, systemmetadata, createdon, createdby
         FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ? AND version = 0`,
      ),
      upsertLatest: db.prepare<[string, string, number, string, string, number, string]>(
        `INSERT INTO metadata_aspect_v2 (urn, aspect, version, ordinal, metadata, systemmetadata, createdon, createdby)
         VALUES (?, ?, 0, ?, ?, ?, ?, ?)
         ON CONFLICT (urn, aspect, version) DO UPDATE SET ordinal = excluded.ordinal, metadata = excluded.metadata,
           systemmetadata = excluded.systemmetadata, createdon = excluded.createdon, createdby = excluded.createdby`,
      ),
      deleteAspect: db.prepare<[string, string]>('DELETE FROM metadata_aspect_v2 WHERE urn = ? AND aspect = ?'),
      deleteEntityAspects: db.prepare<[string]>('DELETE FROM metadata_aspect_v2 WHERE urn = ?'),
      deleteEntityTimeseries: db.prepare<[string]>('DELETE FROM timeseries_point WHERE urn = ?'),
      deleteTimeseriesRange: db.prepare<[string, string, number, number]>(
        'DELETE FROM timeseries_point WHERE urn = ? AND aspect = ? AND timestampmillis BETWEEN ? AND ?',
      ),
      countTimeseriesRange: db.prepare<[string, string, number, number], { n: number }>(
        'SELECT count(*) AS n FROM timeseries_point WHERE urn = ? AND aspect = ? AND timestampmillis BETWEEN ? AND ?',
      ),
      // The values of one run within a range: seeks the entity's aspect by timeseries_by_time, then reads each row's run.
      deleteTimeseriesRunRange: db.prepare<[string, string, number, number, string]>(
        `DELETE FROM timeseries_point WHERE urn = ? AND aspect = ? AND timestampmillis BETWEEN ? AND ?
           AND json_extract(systemmetadata, '$.runId') = ?`,
      ),
      countTimeseriesRunRange: db.prepare<[string, string, number, number, string], { n: number }>(
        `SELECT count(*) AS n FROM timeseries_point WHERE urn = ? AND aspect = ? AND timestampmillis BETWEEN ? AND ?
           AND json_extract(systemmetadata, '$.runId') = ?`,
      ),
      // By the index timeseries_by_run, not a scan: its entries of the run come in (urn, aspect) order, so the groups
      // are counted as they are read and the read stops after `limit` of them. What it reads is the run's values in
      // those pairs, however many points other runs wrote.
      selectTimeseriesByRun: db.prepare<[string, number], { urn: string; aspect: string; n: number }>(
        `SELECT urn, aspect, count(*) AS n FROM timeseries_point INDEXED BY timeseries_by_run
         WHERE json_extract(systemmetadata, '$.runId') = ? GROUP BY urn, aspect ORDER BY urn, aspect LIMIT ?`,
      ),
      upsertTimeseries: db.prepare<[string, string, string, number, string, string, number, string]>(
        `INSERT INTO timeseries_point (${timeseriesColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (urn, aspect, pointid) DO UPDATE SET timestampmillis = excluded.timestampmillis,
           metadata = excluded.metadata, systemmetadata = excluded.systemmetadata, createdon = excluded.createdon,
           createdby = excluded.createdby`,
      ),
      selectTimeseries: db.prepare<[string, string, number], TimeseriesRow>(
        `SELECT ${timeseriesColumns} FROM timeseries_point WHERE urn = ? AND aspect = ?
         ORDER BY timestampmillis DESC, pointid LIMIT ?`,
      ),
      // The restore sequence: seek to the scan's start, then walk the primary keys in order.
      scanLatest: db.prepare<[string, string, string, string], AspectRow>(
        `SELECT ${aspectColumns} FROM metadata_aspect_v2
         WHERE version = 0 AND urn >= ? AND (urn > ? OR (urn = ? AND aspect > ?)) ORDER BY urn, aspect`,
      ),
      scanTimeseries: db.prepare<[string, string, string, string, string, string], TimeseriesRow>(
        `SELECT ${timeseriesColumns} FROM timeseries_point
         WHERE urn >= ? AND (urn > ? OR (urn = ? AND (aspect > ? OR (aspect = ? AND pointid > ?))))
         ORDER BY urn, aspect, pointid`,
      ),
      countLatest: db.prepare<[], number>('SELECT count(*) FROM metadata_aspect_v2 WHERE version = 0').pluck(),
      countPoints: db.prepare<[], number>('SELECT count(*) FROM timeseries_point').pluck(),
      truncateTimeseries: db.prepare<[string, number, string, string, number]>(
        `DELETE FROM timeseries_point WHERE rowid IN (
           SELECT rowid FROM timeseries_point INDEXED BY timeseries_by_aspect_time
           WHERE aspect = ? AND timestampmillis <= ? AND substr(urn, 1, length(?)) = ? LIMIT ?)`,
      ),
      insertOutbox: db.prepare<[string, string, Buffer, string]>(
        'INSERT INTO outbox (topic, key, value, headers) VALUES (?, ?, ?, ?)',
      ),
      selectOutbox: db.prepare<[number], OutboxRow>(
        'SELECT id, topic, key, value, headers FROM outbox ORDER BY id LIMIT ?',
      ),
      deleteOutbox: db.prepare<[number]>('DELETE FROM outbox WHERE id = ?'),
      insertApplied: db.prepare<[string, number]>(
        'INSERT OR IGNORE INTO applied_proposal (id, appliedat) VALUES (?, ?)',
      ),
      selectApplied: db.prepare<[string], { id: string }>('SELECT id FROM applied_proposal WHERE id = ?'),
      upsertMark: db.prepare<[string, string]>(
        'INSERT INTO mark (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      ),
      selectMark: db.prepare<[string], { value: string }>('SELECT value FROM mark WHERE name = ?'),
    };

    this.commitTransaction = db.transaction((commit: StoreCommit, now: number): void => {
      // In order, each mutation seeing the ones before it; any throw rolls the whole commit back.
      for (const mutation of commit.mutations) this.apply(mutation);
      let outboxPosition: number | null = null;
      for (const record of commit.outbox) outboxPosition = this.appendOutbox(record);
      for (const id of commit.appliedProposalIds) this.statements.insertApplied.run(id, now);
      this.writeTraces.record(commit.writeTraces ?? [], outboxPosition);
    });
    // Reads of several rows run in one (deferred) transaction so that they see one snapshot.
    this.readLatestTransaction = db.transaction((keys: readonly AspectKey[]): StoredAspect[] => {
      const found: StoredAspect[] = [];
      for (const { urn, aspect } of keys) {
        const row = this.statements.selectLatest.get(urn, aspect);
        if (row !== undefined) found.push(toStoredAspect(row));
      }
      return found;
    });
    this.markPublishedTransaction = db.transaction((ids: readonly number[]): void => {
      for (const id of ids) this.statements.deleteOutbox.run(id);
    });
    this.restateTransaction = db.transaction(
      (request: RestateRequest, toRecords: (rows: readonly RestatedRow[]) => readonly OutboxRecord[]): RestatePage => {
        // The page is read whole (closing the scans) before the outbox is written: one connection runs one statement.
        const { rows, page } = restatePage(request, this.restateRows(request));
        for (const record of toRecords(rows)) this.appendOutbox(record);
        return page;
      },
    );
    this.readCountsTransaction = db.transaction(() => ({
      latest: this.statements.countLatest.get() ?? 0,
      timeseries: this.statements.countPoints.get() ?? 0,
    }));
    migrateTimeseries(db);
  }

  getLatest(keys: readonly AspectKey[]): Promise<StoredAspect[]> {
    return settle(() => {
      // A key asked for twice is answered once.
      const unique = new Map(keys.map((key) => [JSON.stringify([key.urn, key.aspect]), key]));
      return this.readLatestTransaction.deferred([...unique.values()]);
    });
  }

  getEntity(urn: string, aspects?: readonly string[]): Promise<StoredAspect[]> {
    return settle(() => {
      const wanted = aspects === undefined ? undefined : new Set(aspects);
      return this.statements.selectEntity
        .all(urn)
        .filter((row) => wanted === undefined || wanted.has(row.aspect))
        .map(toStoredAspect);
    });
  }

  getVersion(urn: string, aspect: string, version: number): Promise<StoredAspect | undefined> {
    return settle(() => {
      if (!Number.isInteger(version) || version < 0) return undefined;
      const row =
        version === 0
          ? this.statements.selectLatest.get(urn, aspect)
          : this.statements.selectVersion.get(urn, aspect, version, version);
      return row === undefined ? undefined : toStoredAspect(row);
    });
  }

  findApplied(proposalIds: readonly string[]): Promise<Set<string>> {
    return settle(() => new Set(proposalIds.filter((id) => this.statements.selectApplied.get(id) !== undefined)));
  }

  commit(commit: StoreCommit): Promise<void> {
    // IMMEDIATE takes the write lock before the version checks: a deferred transaction could read, then fail to
    // upgrade to a writer when another connection committed in between.
    return settle(() => {
      this.commitTransaction.immediate(commit, this.now());
    });
  }

  pendingOutbox(limit: number): Promise<PendingOutboxRecord[]> {
    return settle(() => {
      if (!Number.isInteger(limit) || limit < 1) return [];
      return this.statements.selectOutbox.all(limit).map((row) => ({
        id: String(row.id),
        topic: row.topic,
        key: row.key,
        value: row.value,
        headers: JSON.parse(row.headers) as Record<string, string>,
      }));
    });
  }

  markPublished(ids: readonly string[]): Promise<void> {
    return settle(() => {
      // Ids this store never handed out (not a decimal integer) cannot be pending: ignored, as the port requires.
      const numeric = ids.filter((id) => /^[0-9]{1,15}$/.test(id)).map(Number);
      if (numeric.length > 0) this.markPublishedTransaction.immediate(numeric);
    });
  }

  findWriteTraces(traceId: string, keys: readonly AspectKey[]): Promise<WriteTrace[]> {
    return settle(() => this.writeTraces.find(traceId, keys));
  }

  recordPublication(throughOutboxId: string, ends: readonly LogEnd[]): Promise<void> {
    return settle(() => {
      // An id this store never handed out covers nothing of it.
      if (/^[0-9]{1,15}$/.test(throughOutboxId)) this.writeTraces.recordPublication(Number(throughOutboxId), ends);
    });
  }

  findLatestByRunId(runId: string, limit: number): Promise<StoredAspect[]> {
    return settle(() => this.statements.selectLatestByRun.all(runId, Math.max(0, limit)).map(toStoredAspect));
  }

  findLatestByRegistry(registryName: string, registryVersion: string, limit: number): Promise<StoredAspect[]> {
    return settle(() =>
      this.statements.selectLatestByRegistry.all(registryName, registryVersion, Math.max(0, limit)).map(toStoredAspect),
    );
  }

  listsAspect(aspect: string): boolean {
    return this.listed.includes(aspect);
  }

  listLatest(aspect: string, options: { readonly afterUrn?: string; readonly limit: number }): Promise<StoredAspect[]> {
    return settle(() => {
      assertListed(this.listed, aspect);
      const statement = this.statements.selectLatestOfAspect.get(aspect);
      return (statement?.all(options.afterUrn ?? '', Math.max(0, options.limit)) ?? []).map(toStoredAspect);
    });
  }

  scanEntities(request: {
    readonly urnPrefix: string;
    readonly afterUrn?: string;
    readonly limit: number;
  }): Promise<ScannedEntity[]> {
    return settle(() => {
      if (request.limit <= 0) return [];
      const grouping = new EntityGrouping(request.urnPrefix, request.limit);
      const rows =
        request.afterUrn !== undefined && request.afterUrn >= request.urnPrefix
          ? this.statements.scanLatestAfter.iterate(request.afterUrn)
          : this.statements.scanLatestFrom.iterate(request.urnPrefix);
      // Leaving the loop early closes the statement's iterator.
      for (const row of rows) if (!grouping.offer(toStoredAspect(row))) break;
      return grouping.entities;
    });
  }

  getMarks(names: readonly string[]): Promise<Map<string, string>> {
    return settle(() => {
      const marks = new Map<string, string>();
      for (const name of names) {
        const row = this.statements.selectMark.get(name);
        if (row !== undefined) marks.set(name, row.value);
      }
      return marks;
    });
  }

  countTimeseries(urn: string, aspects: readonly string[], range: TimeRange = {}, runId?: string): Promise<number> {
    return settle(() => {
      const [from, until] = bounds(range);
      let total = 0;
      for (const aspect of aspects) {
        const row =
          runId === undefined
            ? this.statements.countTimeseriesRange.get(urn, aspect, from, until)
            : this.statements.countTimeseriesRunRange.get(urn, aspect, from, until, runId);
        total += row?.n ?? 0;
      }
      return total;
    });
  }

  findTimeseriesByRunId(runId: string, limit: number): Promise<TimeseriesOfRun[]> {
    return settle(() => {
      if (!Number.isInteger(limit) || limit < 1) return [];
      return this.statements.selectTimeseriesByRun
        .all(runId, limit)
        .map((row) => ({ urn: row.urn, aspect: row.aspect, count: row.n }));
    });
  }

  getTimeseries(urn: string, aspect: string, options?: { limit?: number }): Promise<StoredTimeseriesValue[]> {
    return settle(() => {
      const limit = options?.limit;
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) return [];
      // LIMIT -1 is SQLite's "no limit".
      return this.statements.selectTimeseries.all(urn, aspect, limit ?? -1).map(toStoredTimeseriesValue);
    });
  }

  restate(
    request: RestateRequest,
    toRecords: (rows: readonly RestatedRow[]) => readonly OutboxRecord[],
  ): Promise<RestatePage> {
    return settle(() => this.restateTransaction.immediate(request, toRecords));
  }

  truncateTimeseries(request: TruncateTimeseries): Promise<number> {
    return settle(() => {
      const { urnPrefix, aspect, endTimeMillis, limit } = request;
      if (!Number.isInteger(limit) || limit < 1) return 0;
      return this.statements.truncateTimeseries.run(aspect, endTimeMillis, urnPrefix, urnPrefix, limit).changes;
    });
  }

  countRows(): Promise<{ readonly latest: number; readonly timeseries: number }> {
    return settle(() => this.readCountsTransaction.deferred());
  }

  listRuns(request: ListRunsRequest): Promise<RunSummary[]> {
    return settle(() => {
      if (request.count < 1) return [];
      // Per run: its latest values (those of removed entities left out unless asked), and the newest time it saw.
      const removed = `EXISTS (SELECT 1 FROM metadata_aspect_v2 s WHERE s.urn = m.urn AND s.aspect = 'status'
        AND s.version = 0 AND json_extract(s.metadata, '$.removed') = 1)`;
      const rows = this.db
        .prepare<[string, number, number], { runId: unknown; rows: number; timestamp: unknown }>(
          `SELECT json_extract(m.systemmetadata, '$.runId') AS runId, COUNT(*) AS rows,
             MAX(COALESCE(json_extract(m.systemmetadata, '$.lastObserved'), m.createdon)) AS timestamp
           FROM metadata_aspect_v2 m
           WHERE m.version = 0 AND json_extract(m.systemmetadata, '$.runId') IS NOT NULL
             AND json_extract(m.systemmetadata, '$.runId') != ?${request.includeSoft ? '' : ` AND NOT ${removed}`}
           GROUP BY runId ORDER BY timestamp DESC, runId LIMIT ? OFFSET ?`,
        )
        .all(UNNAMED_RUN_ID, request.count, request.start);
      return rows.map((row) => ({ runId: String(row.runId), rows: row.rows, timestamp: Number(row.timestamp) }));
    });
  }

  listUrns(request: ListUrnsRequest): Promise<{ readonly urns: string[]; readonly total: number }> {
    return settle(() =>
      this.db
        .transaction(() => {
          // The primary key (urn, aspect, version) serves the URN range; the prefix's end is its last character + 1.
          const end = prefixEnd(request.urnPrefix);
          const scope = `FROM metadata_aspect_v2 WHERE urn >= ? AND urn < ? AND aspect = ? AND version = 0`;
          const params = [request.urnPrefix, end, request.keyAspect] as const;
          const total = (this.db.prepare(`SELECT COUNT(*) AS n ${scope}`).get(...params) as { n: number }).n;
          const urns =
            request.count < 1
              ? []
              : (
                  this.db
                    .prepare(`SELECT urn ${scope} ORDER BY urn LIMIT ? OFFSET ?`)
                    .all(...params, request.count, request.start) as { urn: string }[]
                ).map((row) => row.urn);
          return { urns, total };
        })
        .deferred(),
    );
  }

  countLatest(request: CountLatestRequest): Promise<number> {
    return settle(() => {
      const prefix = request.urnPrefix ?? '';
      const matches = request.urnMatches;
      const scope = `FROM metadata_aspect_v2 WHERE urn >= ? AND urn < ? AND aspect = ? AND version = 0`;
      const params = [prefix, prefixEnd(prefix), request.aspect] as const;
      if (matches === undefined) {
        return (this.db.prepare(`SELECT COUNT(*) AS n ${scope}`).get(...params) as { n: number }).n;
      }
      let count = 0;
      for (const row of this.db.prepare(`SELECT urn ${scope}`).iterate(...params) as Iterable<{ urn: string }>) {
        if (matches(row.urn)) count += 1;
      }
      return count;
    });
  }

  close(): Promise<void> {
    return settle(() => {
      closeDatabase(this.db);
    });
  }

  /** The rows of the restore sequence from the request's start, lazily: the latest values, then the timeseries. */
  private *restateRows(request: RestateRequest): Generator<RestatedRow> {
    const start = urnScanStart(request);
    const after = request.after;
    if (after === undefined || after.source === 'latest') {
      const [urn, aspect] = after === undefined ? ['', ''] : [after.urn, after.aspect];
      // Seek to the cursor itself: every row after it has a URN at least the cursor's (rescanning from the scope's
      // start would make a restore quadratic in its pages).
      for (const row of this.statements.scanLatest.iterate(seekFrom(start, after), urn, urn, aspect)) {
        if (!inUrnScope(request, row.urn)) break;
        yield { source: 'latest', row: toStoredAspect(row) };
      }
    }
    const [urn, aspect, id] = after?.source === 'timeseries' ? [after.urn, after.aspect, after.id] : ['', '', ''];
    const seek = after?.source === 'timeseries' ? seekFrom(start, after) : start;
    for (const row of this.statements.scanTimeseries.iterate(seek, urn, urn, aspect, aspect, id)) {
      if (!inUrnScope(request, row.urn)) break;
      yield { source: 'timeseries', row: toStoredTimeseriesValue(row) };
    }
  }

  private apply(mutation: AspectMutation): void {
    switch (mutation.kind) {
      case 'put':
        this.put(mutation);
        return;
      case 'deleteAspect':
        this.expectVersion(mutation.urn, mutation.aspect, mutation.expectedVersion);
        this.statements.deleteAspect.run(mutation.urn, mutation.aspect);
        return;
      case 'deleteEntity':
        this.statements.deleteEntityAspects.run(mutation.urn);
        this.statements.deleteEntityTimeseries.run(mutation.urn);
        return;
      case 'deleteTimeseries': {
        const [from, until] = bounds(mutation.range);
        if (mutation.runId === undefined) {
          this.statements.deleteTimeseriesRange.run(mutation.urn, mutation.aspect, from, until);
        } else {
          this.statements.deleteTimeseriesRunRange.run(mutation.urn, mutation.aspect, from, until, mutation.runId);
        }
        return;
      }
      case 'setMark':
        this.statements.upsertMark.run(mutation.name, mutation.value);
        return;
      case 'putTimeseries': {
        const value = mutation.value;
        this.statements.upsertTimeseries.run(
          value.urn,
          value.aspect,
          value.id,
          value.timestampMillis,
          JSON.stringify(value.value),
          JSON.stringify(value.systemMetadata),
          value.createdOn,
          value.createdBy,
        );
        return;
      }
    }
  }

  private put(mutation: PutAspect): void {
    const { urn, aspect, expectedVersion, row } = mutation;
    this.expectVersion(urn, aspect, expectedVersion);
    if (row.version === expectedVersion + 1) {
      if (expectedVersion >= 1) this.statements.archiveLatest.run(urn, aspect);
    } else if (row.version !== expectedVersion || expectedVersion === 0) {
      // Not a conflict but a caller bug: the writer computes the new ordinal from the one it expects.
      throw new Error(
        `Invalid put of ${aspect} of ${urn}: row version ${row.version} must be ${expectedVersion + 1} (new version)` +
          (expectedVersion >= 1 ? ` or ${expectedVersion} (rewrite in place)` : ''),
      );
    }
    this.statements.upsertLatest.run(
      urn,
      aspect,
      row.version,
      JSON.stringify(row.value),
      JSON.stringify(row.systemMetadata),
      row.createdOn,
      row.createdBy,
    );
  }

  private expectVersion(urn: string, aspect: string, expected: number): void {
    if (!Number.isInteger(expected) || expected < 0) {
      throw new Error(`Invalid expected version ${expected} of ${aspect} of ${urn}`);
    }
    const actual = this.statements.selectOrdinal.get(urn, aspect)?.ordinal ?? 0;
    if (actual !== expected) {
      throw new ConflictError(
        `Conflict on aspect ${aspect} of ${urn}: expected version ${expected}, but the current version is ${actual}`,
      );
    }
  }

  /** Appends one record to the outbox; returns its id (AUTOINCREMENT: ids only grow, even once rows are deleted). */
  private appendOutbox(record: OutboxRecord): number {
    const { lastInsertRowid } = this.statements.insertOutbox.run(
      record.topic,
      record.key,
      record.value,
      JSON.stringify(record.headers),
    );
    return Number(lastInsertRowid);
  }
}

interface AspectRow {
  readonly urn: string;
  readonly aspect: string;
  readonly version: number;
  readonly metadata: string;
  readonly systemmetadata: string;
  readonly createdon: number;
  readonly createdby: string;
}

interface TimeseriesRow {
  readonly urn: string;
  readonly aspect: string;
  readonly pointid: string;
  readonly timestampmillis: number;
  readonly metadata: string;
  readonly systemmetadata: string;
  readonly createdon: number;
  readonly createdby: string;
}

interface OutboxRow {
  readonly id: number;
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: string;
}

function toStoredAspect(row: AspectRow): StoredAspect {
  return {
    urn: row.urn,
    aspect: row.aspect,
    version: row.version,
    value: JSON.parse(row.metadata) as JsonObject,
    systemMetadata: JSON.parse(row.systemmetadata) as JsonObject,
    createdOn: row.createdon,
    createdBy: row.createdby,
  };
}

function toStoredTimeseriesValue(row: TimeseriesRow): StoredTimeseriesValue {
  return {
    urn: row.urn,
    aspect: row.aspect,
    id: row.pointid,
    timestampMillis: row.timestampmillis,
    value: JSON.parse(row.metadata) as JsonObject,
    systemMetadata: JSON.parse(row.systemmetadata) as JsonObject,
    createdOn: row.createdon,
    createdBy: row.createdby,
  };
}

/** Runs synchronous database work as a promise, so that a failure rejects instead of throwing at the caller. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(work());
  });
}

/** A range's bounds as SQL parameters: an open bound is the extreme safe integer. */
function bounds(range: TimeRange): [number, number] {
  return [range.fromMillis ?? Number.MIN_SAFE_INTEGER, range.untilMillis ?? Number.MAX_SAFE_INTEGER];
}

/**
 * Moves the values of a store written before timeseries points had an identity of their own (the table
 * `timeseries_aspect`, one value per (urn, aspect, timestampMillis)) into `timeseries_point`, giving each its id, in
 * one transaction; a store that has no such table is left as it is.
 */
function migrateTimeseries(db: Database.Database): void {
  const legacy = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'timeseries_aspect'")
    .get();
  if (legacy === undefined) return;
  const insert = db.prepare<[string, string, string, number, string, string, number, string]>(
    `INSERT OR REPLACE INTO timeseries_point
       (urn, aspect, pointid, timestampmillis, metadata, systemmetadata, createdon, createdby)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    const rows = db
      .prepare<[], Omit<TimeseriesRow, 'pointid'>>(
        'SELECT urn, aspect, timestampmillis, metadata, systemmetadata, createdon, createdby FROM timeseries_aspect',
      )
      .all();
    for (const row of rows) {
      const id = timeseriesPointId(row.urn, JSON.parse(row.metadata) as JsonObject);
      insert.run(
        row.urn,
        row.aspect,
        id,
        row.timestampmillis,
        row.metadata,
        row.systemmetadata,
        row.createdon,
        row.createdby,
      );
    }
    db.exec('DROP TABLE timeseries_aspect');
  }).immediate();
}

/** The smallest string after every string that starts with `prefix` (an empty prefix: after every URN). */
function prefixEnd(prefix: string): string {
  if (prefix === '') return '\u{10FFFF}';
  return prefix.slice(0, -1) + String.fromCodePoint((prefix.codePointAt(prefix.length - 1) ?? 0) + 1);
}
