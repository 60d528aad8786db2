import { randomBytes } from 'node:crypto';

import type Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '@strata/sqlite';
import { systemScheduler, type Scheduler } from '@strata/timing';

import { valueNumber } from './search-documents';
import type { Criterion, Filter } from './search-index';
import { settle } from './settle';
import { assembleAggregationRows } from './timeseries-aggregation';
import { calendarBucketStart, type CalendarUnit } from './timeseries-calendar';
import {
  timeseriesIndexName,
  type TaskCounters,
  type TimeseriesAggregation,
  type TimeseriesAggregationRow,
  type TimeseriesBucket,
  type TimeseriesMetric,
  type TaskId,
  type TaskStatus,
  type TimeseriesAspectRef,
  type TimeseriesChange,
  type TimeseriesIndex,
  type TimeseriesIndexSize,
  type TimeseriesPoint,
  type TimeseriesQuery,
  type TruncationRequest,
} from './timeseries-index';
import {
  checkAggregation,
  checkPoint,
  checkTimeseriesQuery,
  checkTruncation,
  indicesOf,
  indicesOfEntity,
  initialCounters,
  itemsOf,
  knownIndex,
  TIME_FIELD,
  URN_FIELD,
} from './timeseries-requests';

export interface SqliteTimeseriesIndexOptions {
  /** Database file; `':memory:'` gives an index private to this instance. */
  readonly path: string;
  /** Every timeseries aspect of the registry: one table each, created at open. */
  readonly aspects: readonly TimeseriesAspectRef[];
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /** The clock of the tasks' run times and timeouts. Default: the system's. */
  readonly scheduler?: Scheduler;
}

/** The tasks (their status outlives the process that ran them) and the file's node id. */
const TASK_SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS timeseries_task (
    number INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    request TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    completed INTEGER NOT NULL DEFAULT 0,
    counters TEXT NOT NULL,
    error TEXT,
    finished_at INTEGER
  );
`;

/**
 * One index's tables. The points: a rowid table (the id is a 32-character hash, a poor clustering key), `(urn,
 * timestampmillis DESC, id)` serving a query's rows in their default order, `(timestampmillis)` a truncation's batches
 * and counts. Beside it, `<index>_items`: the items of the points' collections (DataHub's exploded documents), a row
 * per (point, collection, key) with the point's urn and time, read by aggregations only.
 */
function indexSchema(name: string): string {
  const table = quoted(name);
  const items = quoted(itemsTableOf(name));
  return `
    CREATE TABLE IF NOT EXISTS ${table} (
      id TEXT NOT NULL PRIMARY KEY,
      urn TEXT NOT NULL,
      timestampmillis INTEGER NOT NULL,
      value TEXT NOT NULL,
      systemmetadata TEXT,
      fields TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${quoted(`${name}_by_urn`)} ON ${table} (urn, timestampmillis DESC, id);
    CREATE INDEX IF NOT EXISTS ${quoted(`${name}_by_time`)} ON ${table} (timestampmillis);
    CREATE TABLE IF NOT EXISTS ${items} (
      point_id TEXT NOT NULL,
      collection TEXT NOT NULL,
      key TEXT NOT NULL,
      urn TEXT NOT NULL,
      timestampmillis INTEGER NOT NULL,
      fields TEXT NOT NULL,
      PRIMARY KEY (point_id, collection, key)
    );
    CREATE INDEX IF NOT EXISTS ${quoted(`${itemsTableOf(name)}_by_urn`)} ON ${items} (urn, timestampmillis);
    CREATE INDEX IF NOT EXISTS ${quoted(`${itemsTableOf(name)}_by_time`)} ON ${items} (timestampmillis);
  `;
}

/** The table of an index's collection items (no index name ends so: they end with `aspect_v1`). */
function itemsTableOf(name: string): string {
  return `${name}_items`;
}

const NODE_ID_KEY = 'node_id';

/** What a task a stopped process left unfinished reports. */
const INTERRUPTED = { type: 'task_interrupted', reason: 'the process running the task stopped before it finished' };

/** A missing bound of a time range: no point lies beyond it (timestamps are safe integers, checked on write). */
const EARLIEST = Number.MIN_SAFE_INTEGER;
const LATEST = Number.MAX_SAFE_INTEGER;

interface PointRow {
  readonly id: string;
  readonly urn: string;
  readonly timestampmillis: number;
  readonly value: string;
  readonly systemmetadata: string | null;
  readonly fields: string;
}

interface TaskRow {
  readonly started_at: number;
  readonly completed: number;
  readonly counters: string;
  readonly error: string | null;
  readonly finished_at: number | null;
}

type SqlValue = string | number;

/** A piece of SQL and its parameters, in order. */
interface Sql {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/**
 * The embedded timeseries indices: one SQLite file (WAL) with one table per (entity type, aspect), named as the
 * Elasticsearch index (`dataset_datasetprofileaspect_v1`), a row per point under its id. Runs with `synchronous =
 * NORMAL`, as the embedded log it is fed from: an applied change survives the crash of any process; a power loss may
 * take the last ones, and the log's last records with them, so replaying the log restores them. `apply` is one
 * transaction.
 *
 * - **Filters** are SQL over the row's columns (`urn`, `timestampMillis`) and `json_extract` of its `fields` (the path
 *   a bound parameter, so a client's field name is never SQL), typed by `json_type` as Elasticsearch types a field by
 *   its mapping: strings compare as text, numbers as numbers, booleans as `true`/`false`. `CONTAIN`, `START_WITH` and
 *   `END_WITH` apply to strings, ignoring case, as Elasticsearch's case-insensitive wildcards.
 * - **Collection items** are rows of `<index>_items` (point, collection, key, and the point's urn and time), replaced
 *   with their point, and deleted with it by every delete, truncation and clear (a truncation's counters count them,
 *   as Elasticsearch counts exploded documents).
 * - **Aggregations** are one statement over the points and items the filter keeps (a urn or time condition of the
 *   filter narrowing the rows read through the indexes), grouping by `timeseries_bucket` (the calendar rules of
 *   `timeseries-calendar.ts`, a function of this connection) and the fields' JSON values; the groups are ordered, cut
 *   to size and completed with empty periods in memory. Like a query, one statement holds the event loop for as long
 *   as it runs: a filter on the entity keeps it short.
 * - **Truncations** are tasks recorded in `timeseries_task`, named `<node id>:<number>` as Elasticsearch names its
 *   tasks, the node id generated once per file (in `meta`). A task deletes its batches in the background, one
 *   transaction each (recording its counters with them), giving the event loop a turn between two. Closing stops a
 *   running task, which then reports that it was interrupted; so does, at the next open, a task whose process crashed:
 *   one process has a file open at a time, so a task the file says is running is one nobody runs any more.
 */
export class SqliteTimeseriesIndex implements TimeseriesIndex {
  private readonly db: Database.Database;
  private readonly indices: ReadonlyMap<string, TimeseriesAspectRef>;
  private readonly scheduler: Scheduler;
  private readonly nodeId: string;
  private readonly statements;
  private readonly tables: ReadonlyMap<string, ReturnType<typeof tableStatements>>;
  private readonly applyAll;
  private readonly clearAll;
  /** The truncations running in the background; closing waits for them to stop. */
  private readonly running = new Set<Promise<void>>();
  private closing = false;

  constructor(options: SqliteTimeseriesIndexOptions) {
    this.indices = indicesOf(options.aspects, '');
    this.scheduler = options.scheduler ?? systemScheduler;
    const db = openDatabase(options.path, {
      synchronous: 'NORMAL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      schema: TASK_SCHEMA + [...this.indices.keys()].map(indexSchema).join(''),
    });
    this.db = db;
    try {
      // Case folding as Elasticsearch's case-insensitive wildcards do it (SQLite's lower() folds ASCII only).
      db.function('timeseries_lower', { deterministic: true }, (text: unknown) =>
        typeof text === 'string' ? text.toLowerCase() : text,
      );
      // The start of a time's calendar bucket, as Elasticsearch's date histogram cuts it (timeseries-calendar.ts).
      db.function('timeseries_bucket', { deterministic: true }, (time: unknown, unit: unknown, zone: unknown) =>
        calendarBucketStart(Number(time), String(unit) as CalendarUnit, String(zone)),
      );
      this.statements = {
        insertNodeId: db.prepare<[string, string]>('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)'),
        nodeId: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
        interruptAll: db.prepare<[string, number]>(
          'UPDATE timeseries_task SET completed = 1, error = ?, finished_at = ? WHERE completed = 0',
        ),
        insertTask: db.prepare<[string, string, number, string]>(
          'INSERT INTO timeseries_task (kind, request, started_at, counters) VALUES (?, ?, ?, ?)',
        ),
        updateTask: db.prepare<[string, number, string | null, number | null, number]>(
          'UPDATE timeseries_task SET counters = ?, completed = ?, error = ?, finished_at = ? WHERE number = ?',
        ),
        task: db.prepare<[number], TaskRow>(
          'SELECT started_at, completed, counters, error, finished_at FROM timeseries_task WHERE number = ?',
        ),
        objects: db
          .prepare<[string, string], string>('SELECT name FROM sqlite_schema WHERE tbl_name IN (?, ?)')
          .pluck(),
        objectSize: db
          .prepare<[string], number>('SELECT pgsize FROM dbstat WHERE name = ? AND aggregate = TRUE')
          .pluck(),
      };
      this.tables = new Map([...this.indices.keys()].map((name) => [name, tableStatements(db, name)]));
      this.statements.insertNodeId.run(NODE_ID_KEY, randomBytes(16).toString('base64url'));
      const nodeId = this.statements.nodeId.get(NODE_ID_KEY);
      if (nodeId === undefined) throw new Error('The timeseries index lost its node id');
      this.nodeId = nodeId;
      this.statements.interruptAll.run(JSON.stringify(INTERRUPTED), this.scheduler.now());
      this.applyAll = db.transaction((changes: readonly TimeseriesChange[]) => {
        for (const change of changes) this.applyOne(change);
      });
      this.clearAll = db.transaction(() => {
        for (const table of this.tables.values()) {
          table.deleteAll.run();
          table.deleteAllItems.run();
        }
      });
    } catch (error) {
      closeDatabase(db);
      throw error;
    }
  }

  indexName(entity: string, aspect: string): string {
    return timeseriesIndexName(entity, aspect);
  }

  apply(changes: readonly TimeseriesChange[]): Promise<void> {
    return settle(() => {
      if (changes.length > 0) this.applyAll(changes);
    });
  }

  /**
   * Deletes every row of every index's table in one transaction; `timeseries_task` and `meta` stay. A truncation
   * running meanwhile finds nothing more to delete, and completes.
   */
  clear(): Promise<void> {
    return settle(() => {
      this.clearAll();
    });
  }

  query(query: TimeseriesQuery): Promise<readonly TimeseriesPoint[]> {
    return settle(() => {
      const { filter, sortField } = checkTimeseriesQuery(query);
      const table = quoted(this.index(query.entity, query.aspect));
      const where = filterSql(filter);
      const order: Sql[] = [];
      if (query.sort !== undefined && sortField !== undefined) {
        const field = fieldExpression(sortField).value;
        const direction = query.sort.order === 'ASCENDING' ? 'ASC' : 'DESC';
        // Points without the field last, either way, as Elasticsearch sorts missing values.
        order.push({ sql: `(${field.sql}) IS NULL`, params: field.params });
        order.push({ sql: `${field.sql} ${direction}`, params: field.params });
      }
      order.push({ sql: 'timestampmillis DESC', params: [] }, { sql: 'id ASC', params: [] });
      const rows = this.db
        .prepare<SqlValue[], PointRow>(
          `SELECT id, urn, timestampmillis, value, systemmetadata, fields FROM ${table}
           WHERE urn = ? AND timestampmillis BETWEEN ? AND ? AND (${where.sql})
           ORDER BY ${order.map((part) => part.sql).join(', ')} LIMIT ?`,
        )
        .all(
          query.urn,
          query.startTimeMillis ?? EARLIEST,
          query.endTimeMillis ?? LATEST,
          ...where.params,
          ...order.flatMap((part) => part.params),
          query.limit,
        );
      return rows.map((row): TimeseriesPoint => ({
        entity: query.entity,
        aspect: query.aspect,
        id: row.id,
        urn: row.urn,
        timestampMillis: row.timestampmillis,
        value: row.value,
        systemMetadata: row.systemmetadata ?? undefined,
        fields: JSON.parse(row.fields) as TimeseriesPoint['fields'],
      }));
    });
  }

  /**
   * One statement: the documents (points and items) the filter keeps, grouped by the buckets' keys with their metrics
   * (a LATEST by a window over the group's values); the groups are then ordered, cut to size and completed with the
   * empty periods of a date histogram in memory ({@link assembleAggregationRows}).
   */
  aggregate(aggregation: TimeseriesAggregation): Promise<readonly TimeseriesAggregationRow[]> {
    return settle(() => {
      const { filter, buckets, metrics } = checkAggregation(aggregation);
      const name = this.index(aggregation.entity, aggregation.aspect);
      const statement = aggregationSql(name, filter, buckets, metrics);
      const rows = this.db.prepare<SqlValue[], Record<string, unknown>>(statement.sql).all(...statement.params);
      const groups = rows.map((row): TimeseriesAggregationRow => ({
        keys: buckets.map((_bucket, level) => typedValue(row[`g${level}`], row[`t${level}`]) ?? 0),
        values: metrics.map((metric, position) =>
          metric.kind === 'LATEST'
            ? (typedValue(row[`m${position}`], row[`mt${position}`]) ?? null)
            : Number(row[`m${position}`] ?? 0),
        ),
      }));
      return assembleAggregationRows(groups, buckets, metrics);
    });
  }

  count(entity: string, aspect: string, endTimeMillis?: number): Promise<number> {
    return settle(() => this.table(entity, aspect).count.get(endTimeMillis ?? LATEST) ?? 0);
  }

  sizes(): Promise<readonly TimeseriesIndexSize[]> {
    // dbstat (compiled into better-sqlite3's SQLite) walks only the pages of the b-tree it is asked about.
    return settle(() =>
      [...this.indices].map(([name, ref]) => ({
        indexName: name,
        entity: ref.entity,
        aspect: ref.aspect,
        bytes: this.statements.objects
          .all(name, itemsTableOf(name))
          .reduce((sum, object) => sum + (this.statements.objectSize.get(object) ?? 0), 0),
      })),
    );
  }

  startTruncation(request: TruncationRequest): Promise<TaskId> {
    return settle(() => {
      checkTruncation(request);
      const table = this.table(request.entity, request.aspect);
      const startedAt = this.scheduler.now();
      const { number, total } = this.db.transaction(() => {
        // Documents, as Elasticsearch counts them: the points and the items of their collections.
        const matching =
          (table.count.get(request.endTimeMillis) ?? 0) + (table.countItems.get(request.endTimeMillis) ?? 0);
        const { lastInsertRowid } = this.statements.insertTask.run(
          'truncation',
          JSON.stringify(request),
          startedAt,
          JSON.stringify(initialCounters(matching)),
        );
        return { number: Number(lastInsertRowid), total: matching };
      })();
      const run = this.truncate(number, table, request, startedAt, initialCounters(total));
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
      return { nodeId: this.nodeId, number };
    });
  }

  taskStatus(task: TaskId): Promise<TaskStatus | undefined> {
    return settle(() => {
      if (task.nodeId !== this.nodeId) return undefined;
      const row = this.statements.task.get(task.number);
      if (row === undefined) return undefined;
      const end = row.finished_at ?? this.scheduler.now();
      return {
        task: { nodeId: this.nodeId, number: task.number },
        completed: row.completed === 1,
        runTimeNanos: Math.max(0, end - row.started_at) * 1e6,
        status: JSON.parse(row.counters) as TaskCounters,
        ...(row.error === null ? {} : { error: JSON.parse(row.error) as TaskStatus['error'] }),
      };
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    // A running truncation sees `closing` at its next batch, records that it was interrupted, and stops.
    await Promise.all([...this.running]);
    closeDatabase(this.db);
  }

  /**
   * Deletes the batches of a truncation until one comes short, each batch in one transaction with the task's new
   * counters. A batch counts when it deleted something, as Elasticsearch counts the scroll pages it deleted.
   */
  private async truncate(
    number: number,
    table: ReturnType<typeof tableStatements>,
    request: TruncationRequest,
    startedAt: number,
    initial: TaskCounters,
  ): Promise<void> {
    let counters = initial;
    const finish = (error: TaskStatus['error']) =>
      this.statements.updateTask.run(
        JSON.stringify(counters),
        1,
        error === undefined ? null : JSON.stringify(error),
        this.scheduler.now(),
        number,
      );
    const batch = this.db.transaction((): boolean => {
      let changes = table.deleteBatch.run(request.endTimeMillis, request.batchSize).changes;
      if (changes < request.batchSize) {
        changes += table.deleteItemsBatch.run(request.endTimeMillis, request.batchSize - changes).changes;
      }
      counters = {
        ...counters,
        deleted: counters.deleted + changes,
        batches: counters.batches + (changes > 0 ? 1 : 0),
      };
      const done = changes < request.batchSize;
      this.statements.updateTask.run(
        JSON.stringify(counters),
        done ? 1 : 0,
        null,
        done ? this.scheduler.now() : null,
        number,
      );
      return done;
    });
    try {
      for (;;) {
        // The turn before every batch, the first included: the caller has its task id before anything is deleted.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.closing) {
          finish(INTERRUPTED);
          return;
        }
        const timeout = request.timeoutSeconds;
        if (timeout !== undefined && this.scheduler.now() - startedAt >= timeout * 1000) {
          finish({ type: 'timeout', reason: `the task ran longer than its timeout of ${timeout} seconds` });
          return;
        }
        if (batch()) return;
      }
    } catch (error) {
      // The engine failed (the file is gone, a lock never came): the task reports it, if the file still can.
      try {
        finish({ type: 'sqlite_exception', reason: error instanceof Error ? error.message : String(error) });
      } catch {
        // Nothing to record it in: the next open reports the task as interrupted.
      }
    }
  }

  private applyOne(change: TimeseriesChange): void {
    switch (change.kind) {
      case 'put': {
        const { point } = change;
        checkPoint(point);
        const table = this.table(point.entity, point.aspect);
        table.put.run(
          point.id,
          point.urn,
          point.timestampMillis,
          point.value,
          point.systemMetadata ?? null,
          JSON.stringify(point.fields),
        );
        if (point.collections !== undefined) {
          table.deleteItemsOf.run(point.id);
          for (const item of itemsOf(point)) {
            table.putItem.run(
              point.id,
              item.collection,
              item.key,
              point.urn,
              point.timestampMillis,
              JSON.stringify(item.fields),
            );
          }
        }
        return;
      }
      case 'deleteRange': {
        const table = this.table(change.entity, change.aspect);
        const range = [change.urn, change.startTimeMillis ?? EARLIEST, change.endTimeMillis ?? LATEST] as const;
        if (change.runId === undefined) {
          table.deleteRange.run(...range);
          table.deleteItemsRange.run(...range);
        } else {
          // Items carry their point's run (ITEM_COMMON_FIELDS), as DataHub's exploded documents do.
          table.deleteRunRange.run(...range, change.runId);
          table.deleteItemsRunRange.run(...range, change.runId);
        }
        return;
      }
      case 'deleteEntity':
        for (const name of indicesOfEntity(this.indices, change.entity)) {
          this.tables.get(name)?.deleteUrn.run(change.urn);
          this.tables.get(name)?.deleteItemsUrn.run(change.urn);
        }
        return;
    }
  }

  private index(entity: string, aspect: string): string {
    return knownIndex(this.indices, entity, aspect, '');
  }

  private table(entity: string, aspect: string): ReturnType<typeof tableStatements> {
    const statements = this.tables.get(this.index(entity, aspect));
    if (statements === undefined) throw new Error(`No statements for the timeseries index of ${entity} ${aspect}`);
    return statements;
  }
}

/** The statements of one index's tables. */
function tableStatements(db: Database.Database, name: string) {
  const table = quoted(name);
  const items = quoted(itemsTableOf(name));
  return {
    put: db.prepare<[string, string, number, string, string | null, string]>(
      `INSERT OR REPLACE INTO ${table} (id, urn, timestampmillis, value, systemmetadata, fields)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    putItem: db.prepare<[string, string, string, string, number, string]>(
      `INSERT OR REPLACE INTO ${items} (point_id, collection, key, urn, timestampmillis, fields)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    deleteItemsOf: db.prepare<[string]>(`DELETE FROM ${items} WHERE point_id = ?`),
    deleteRange: db.prepare<[string, number, number]>(
      `DELETE FROM ${table} WHERE urn = ? AND timestampmillis BETWEEN ? AND ?`,
    ),
    deleteItemsRange: db.prepare<[string, number, number]>(
      `DELETE FROM ${items} WHERE urn = ? AND timestampmillis BETWEEN ? AND ?`,
    ),
    deleteRunRange: db.prepare<[string, number, number, string]>(
      `DELETE FROM ${table} WHERE urn = ? AND timestampmillis BETWEEN ? AND ? AND json_extract(fields, '$.runId') = ?`,
    ),
    deleteItemsRunRange: db.prepare<[string, number, number, string]>(
      `DELETE FROM ${items} WHERE urn = ? AND timestampmillis BETWEEN ? AND ? AND json_extract(fields, '$.runId') = ?`,
    ),
    deleteUrn: db.prepare<[string]>(`DELETE FROM ${table} WHERE urn = ?`),
    deleteItemsUrn: db.prepare<[string]>(`DELETE FROM ${items} WHERE urn = ?`),
    // Without WHERE: SQLite truncates the table and its indexes (frees their pages) instead of deleting row by row.
    deleteAll: db.prepare(`DELETE FROM ${table}`),
    deleteAllItems: db.prepare(`DELETE FROM ${items}`),
    count: db.prepare<[number], number>(`SELECT COUNT(*) FROM ${table} WHERE timestampmillis <= ?`).pluck(),
    countItems: db.prepare<[number], number>(`SELECT COUNT(*) FROM ${items} WHERE timestampmillis <= ?`).pluck(),
    deleteBatch: db.prepare<[number, number]>(
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE timestampmillis <= ? LIMIT ?)`,
    ),
    deleteItemsBatch: db.prepare<[number, number]>(
      `DELETE FROM ${items} WHERE rowid IN (SELECT rowid FROM ${items} WHERE timestampmillis <= ? LIMIT ?)`,
    ),
  };
}

/** A name as an SQL identifier: names come from the registry, yet a quote in one must not end the identifier. */
function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

// --- Aggregations ------------------------------------------------------------------------------------------------------

/** A value of a document (`urn`, `ts` and `fields` of the aggregation's rows) and its JSON type, as `fieldExpression`. */
function documentField(field: string): { value: Sql; type: Sql } {
  if (field === URN_FIELD) return { value: { sql: 'urn', params: [] }, type: { sql: `'text'`, params: [] } };
  if (field === TIME_FIELD) return { value: { sql: 'ts', params: [] }, type: { sql: `'integer'`, params: [] } };
  const path = `$.${JSON.stringify(field)}`;
  return {
    value: { sql: 'json_extract(fields, ?)', params: [path] },
    type: { sql: 'json_type(fields, ?)', params: [path] },
  };
}

/**
 * The aggregation's statement. `docs`: the points and items the filter keeps (an indexed condition on the urn and the
 * time first, when the filter has one); `keyed`: each with its bucket keys (`g<level>`, typed by `t<level>`), those
 * without a string bucket's field left out; one row per group with each metric (`m<position>`, a LATEST typed by
 * `mt<position>`), a LATEST being the first of its group's values by newest time, then most documents, then value.
 */
function aggregationSql(
  name: string,
  filter: Filter,
  buckets: readonly TimeseriesBucket[],
  metrics: readonly TimeseriesMetric[],
): Sql {
  const where = filterSql(filter);
  const indexed = indexedConditions(filter);
  const condition: Sql = { sql: `${indexed.sql} AND (${where.sql})`, params: [...indexed.params, ...where.params] };
  const docs: Sql = {
    sql: `SELECT urn, timestampmillis AS ts, fields FROM ${quoted(name)} WHERE ${condition.sql}
          UNION ALL
          SELECT urn, timestampmillis AS ts, fields FROM ${quoted(itemsTableOf(name))} WHERE ${condition.sql}`,
    params: [...condition.params, ...condition.params],
  };
  const keys: Sql[] = [];
  const present: string[] = [];
  buckets.forEach((bucket, level) => {
    if (bucket.kind === 'date') {
      keys.push({
        sql: `timeseries_bucket(ts, ?, ?) AS g${level}, 'integer' AS t${level}`,
        params: [bucket.unit, bucket.timeZone],
      });
      return;
    }
    const { value, type } = documentField(bucket.field);
    keys.push({
      sql: `${value.sql} AS g${level}, ${type.sql} AS t${level}`,
      params: [...value.params, ...type.params],
    });
    present.push(`t${level} IS NOT NULL AND t${level} <> 'null'`);
  });
  // A document without a string bucket's field is in no group of it.
  const keyed: Sql = {
    sql: `SELECT * FROM (SELECT urn, ts, fields${keys.map((key) => `, ${key.sql}`).join('')} FROM docs)${
      present.length === 0 ? '' : ` WHERE ${present.join(' AND ')}`
    }`,
    params: keys.flatMap((key) => key.params),
  };
  const groupColumns = buckets.flatMap((_bucket, level) => [`g${level}`, `t${level}`]);
  const groupBy = groupColumns.length === 0 ? '' : ` GROUP BY ${groupColumns.join(', ')}`;
  const aggregates: Sql[] = metrics.map((metric, position) => {
    const { value, type } = documentField(metric.field);
    switch (metric.kind) {
      case 'SUM':
        return {
          sql: `TOTAL(CASE WHEN ${type.sql} IN ('integer', 'real') THEN ${value.sql} END) AS m${position}`,
          params: [...type.params, ...value.params],
        };
      case 'CARDINALITY':
        return {
          sql: `COUNT(DISTINCT CASE WHEN ${type.sql} IS NOT NULL AND ${type.sql} <> 'null' THEN ${value.sql} END) AS m${position}`,
          params: [...type.params, ...type.params, ...value.params],
        };
      case 'LATEST':
        return { sql: `NULL AS m${position}`, params: [] };
    }
  });
  const groups: Sql = {
    sql: `SELECT ${[...groupColumns, ...aggregates.map((aggregate) => aggregate.sql)].join(', ')} FROM keyed${groupBy}`,
    params: aggregates.flatMap((aggregate) => aggregate.params),
  };
  const latest: { name: string; sql: Sql; position: number }[] = [];
  metrics.forEach((metric, position) => {
    if (metric.kind !== 'LATEST') return;
    const { value, type } = documentField(metric.field);
    const partition = groupColumns.length === 0 ? '' : `PARTITION BY ${groupColumns.join(', ')} `;
    latest.push({
      name: `latest${position}`,
      position,
      sql: {
        sql: `SELECT ${[...groupColumns, 'v', 'vt'].join(', ')},
                ROW_NUMBER() OVER (${partition}ORDER BY MAX(ts) DESC, COUNT(*) DESC, v ASC) AS r
              FROM (SELECT ${[...groupColumns, 'ts'].join(', ')}, ${value.sql} AS v, ${type.sql} AS vt FROM keyed)
              WHERE vt IS NOT NULL AND vt <> 'null'
              GROUP BY ${[...groupColumns, 'v', 'vt'].join(', ')}`,
        params: [...value.params, ...type.params],
      },
    });
  });
  const joins = latest.map(({ name: table }) => {
    const on = [`${table}.r = 1`, ...groupColumns.map((column) => `${table}.${column} IS groups.${column}`)];
    return `LEFT JOIN ${table} ON ${on.join(' AND ')}`;
  });
  const selected = [
    'groups.*',
    ...latest.flatMap(({ name: table, position }) => [`${table}.v AS m${position}`, `${table}.vt AS mt${position}`]),
  ];
  const ctes: Sql[] = [
    { sql: `docs AS (${docs.sql})`, params: docs.params },
    { sql: `keyed AS (${keyed.sql})`, params: keyed.params },
    { sql: `groups AS (${groups.sql})`, params: groups.params },
    ...latest.map(({ name: table, sql }) => ({ sql: `${table} AS (${sql.sql})`, params: sql.params })),
  ];
  return {
    sql: `WITH ${ctes.map((cte) => cte.sql).join(',\n')}
          SELECT ${selected.join(', ')} FROM groups ${joins.join(' ')}`,
    params: ctes.flatMap((cte) => cte.params),
  };
}

/**
 * Conditions on the indexed columns that a filter of one group implies, so that SQLite reads only the rows of the
 * entities and times it names (the filter itself is evaluated as well): a urn criterion of EQUAL or IN, and a
 * comparison of `timestampMillis` with one number. `1` when there is none.
 */
function indexedConditions(filter: Filter): Sql {
  const [group, ...others] = filter;
  if (group === undefined || others.length > 0) return { sql: '1', params: [] };
  const parts: Sql[] = [];
  for (const criterion of group) {
    if (criterion.negated) continue;
    if (criterion.field === URN_FIELD && (criterion.condition === 'EQUAL' || criterion.condition === 'IN')) {
      parts.push({ sql: 'urn IN (SELECT value FROM json_each(?))', params: [JSON.stringify(criterion.values)] });
      continue;
    }
    const [only, ...more] = criterion.values;
    const time = only === undefined || more.length > 0 ? undefined : valueNumber(only);
    if (criterion.field !== TIME_FIELD || time === undefined) continue;
    const condition = criterion.condition;
    const operator =
      condition === 'EQUAL' ? '=' : condition in OPERATORS ? OPERATORS[condition as keyof typeof OPERATORS] : undefined;
    if (operator !== undefined) parts.push({ sql: `timestampmillis ${operator} ?`, params: [time] });
  }
  return parts.length === 0 ? { sql: '1', params: [] } : all(parts);
}

/** A value read back from SQLite with its JSON type; undefined when there is none. */
function typedValue(value: unknown, type: unknown): string | number | boolean | undefined {
  if (value === null || value === undefined || type === null || type === 'null') return undefined;
  if (type === 'true') return true;
  if (type === 'false') return false;
  if (type === 'integer' || type === 'real') return Number(value);
  return typeof value === 'string' ? value : undefined;
}

// --- Filters -----------------------------------------------------------------------------------------------------------

/** A field's value and its JSON type (`text`, `integer`, `real`, `true`, `false`; NULL when the point lacks it). */
function fieldExpression(field: string): { value: Sql; type: Sql } {
  if (field === URN_FIELD) return { value: { sql: 'urn', params: [] }, type: { sql: `'text'`, params: [] } };
  if (field === TIME_FIELD) {
    return { value: { sql: 'timestampmillis', params: [] }, type: { sql: `'integer'`, params: [] } };
  }
  // The path is a parameter, its key a JSON string: no name can reach the SQL, and any name is a key.
  const path = `$.${JSON.stringify(field)}`;
  return {
    value: { sql: 'json_extract(fields, ?)', params: [path] },
    type: { sql: 'json_type(fields, ?)', params: [path] },
  };
}

/** OR of AND groups; `1` for no filter (and for a group without criteria, which keeps every point). */
function filterSql(filter: Filter): Sql {
  if (filter.length === 0) return { sql: '1', params: [] };
  const groups = filter.map((group) => all(group.map(criterionSql)));
  return { sql: groups.map((group) => `(${group.sql})`).join(' OR '), params: groups.flatMap((group) => group.params) };
}

function all(parts: readonly Sql[]): Sql {
  if (parts.length === 0) return { sql: '1', params: [] };
  return { sql: parts.map((part) => part.sql).join(' AND '), params: parts.flatMap((part) => part.params) };
}

function any(parts: readonly Sql[]): Sql {
  if (parts.length === 0) return { sql: '0', params: [] };
  return { sql: parts.map((part) => `(${part.sql})`).join(' OR '), params: parts.flatMap((part) => part.params) };
}

/**
 * A criterion, true or false for every point: a comparison with a field the point lacks is NULL in SQL, which would
 * fail negated too; it counts as false, so that negated it passes, as a `must_not` does on Elasticsearch.
 */
function criterionSql(criterion: Criterion): Sql {
  const matches = conditionSql(criterion);
  const sql = `coalesce((${matches.sql}), 0)`;
  return { sql: criterion.negated ? `NOT ${sql}` : sql, params: matches.params };
}

const OPERATORS = {
  GREATER_THAN: '>',
  GREATER_THAN_OR_EQUAL_TO: '>=',
  LESS_THAN: '<',
  LESS_THAN_OR_EQUAL_TO: '<=',
} as const;

function conditionSql(criterion: Criterion): Sql {
  const { value, type } = fieldExpression(criterion.field);
  const typed = (types: string, condition: Sql): Sql => ({
    sql: `${type.sql} IN (${types}) AND ${condition.sql}`,
    params: [...type.params, ...condition.params],
  });
  const text = (condition: (folded: string) => Sql): Sql =>
    typed(`'text'`, any(criterion.values.map((candidate) => condition(candidate.toLowerCase()))));
  const lowered = `timeseries_lower(${value.sql})`;
  switch (criterion.condition) {
    case 'EQUAL':
    case 'IN': {
      const numbers = criterion.values.flatMap((candidate) => {
        const number = valueNumber(candidate);
        return number === undefined ? [] : [number];
      });
      const booleans = criterion.values.filter((candidate) => candidate === 'true' || candidate === 'false');
      const among = (values: readonly unknown[]): Sql => ({
        sql: `${value.sql} IN (SELECT value FROM json_each(?))`,
        params: [...value.params, JSON.stringify(values)],
      });
      return any([
        typed(`'text'`, among(criterion.values)),
        ...(numbers.length === 0 ? [] : [typed(`'integer', 'real'`, among(numbers))]),
        ...(booleans.length === 0
          ? []
          : [
              {
                sql: `${type.sql} IN (SELECT value FROM json_each(?))`,
                params: [...type.params, JSON.stringify(booleans)],
              },
            ]),
      ]);
    }
    case 'CONTAIN':
      return text((folded) => ({ sql: `instr(${lowered}, ?) > 0`, params: [...value.params, folded] }));
    case 'START_WITH':
      return text((folded) =>
        folded === ''
          ? { sql: '1', params: [] }
          : { sql: `substr(${lowered}, 1, ?) = ?`, params: [...value.params, characters(folded), folded] },
      );
    case 'END_WITH':
      return text((folded) =>
        folded === ''
          ? { sql: '1', params: [] }
          : { sql: `substr(${lowered}, -?) = ?`, params: [...value.params, characters(folded), folded] },
      );
    case 'GREATER_THAN':
    case 'GREATER_THAN_OR_EQUAL_TO':
    case 'LESS_THAN':
    case 'LESS_THAN_OR_EQUAL_TO': {
      const operator = OPERATORS[criterion.condition];
      // Numbers against a number, text against the value as written (code-point order), as Elasticsearch compares a
      // numeric field and a keyword field.
      return any(
        criterion.values.flatMap((candidate) => {
          const number = valueNumber(candidate);
          const asText = typed(`'text'`, { sql: `${value.sql} ${operator} ?`, params: [...value.params, candidate] });
          if (number === undefined) return [asText];
          return [
            asText,
            typed(`'integer', 'real'`, { sql: `${value.sql} ${operator} ?`, params: [...value.params, number] }),
          ];
        }),
      );
    }
    case 'EXISTS':
      return { sql: `${type.sql} IS NOT NULL`, params: type.params };
    case 'IS_NULL':
      return { sql: `${type.sql} IS NULL`, params: type.params };
  }
}

/** Length in characters (code points), as SQLite's `substr` counts them. */
function characters(text: string): number {
  return Array.from(text).length;
}
