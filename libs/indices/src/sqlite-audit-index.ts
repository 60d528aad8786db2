import type Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '@strata/sqlite';
import { TimeSlice } from '@strata/timing';

import { AUDIT_TOTAL_LIMIT, type AuditEvent, type AuditIndex, type AuditPage, type AuditQuery } from './audit-index';

/**
 * The table of events, clustered in the search's order: one b-tree serves the order of a search, the expiry by time
 * and the identity of an event (its id determines its time, type and actor, so the key holds one row per id).
 */
const AUDIT_SCHEMA = `
  CREATE TABLE IF NOT EXISTS audit_events (
    timestamp INTEGER NOT NULL,
    type TEXT NOT NULL,
    actor TEXT NOT NULL,
    id TEXT NOT NULL,
    entity_type TEXT,
    aspect TEXT,
    document TEXT NOT NULL,
    PRIMARY KEY (timestamp DESC, type, actor, id)
  ) WITHOUT ROWID;
`;

/** Rows removed per transaction by {@link SqliteAuditIndex.expire}, so that a large expiry never holds the file long. */
const EXPIRY_CHUNK = 5_000;

export interface SqliteAuditIndexOptions {
  /** Database file; `':memory:'` gives an index private to this instance. */
  readonly path: string;
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * The embedded audit index: one SQLite file (WAL) with one table, `audit_events`, a row per event holding its
 * document and the columns searches filter and sort on, clustered in the search order `(timestamp DESC, type, actor,
 * id)` (one b-tree: recording an event writes one row, nothing else). Runs with `synchronous = NORMAL`, as the
 * embedded log it records from: a recorded event survives the crash of any process; a power loss may take the last
 * ones, and the log's last records with them. A search reads its page and its count in one transaction (one
 * snapshot). Expiry deletes the oldest events in chunks of about {@link EXPIRY_CHUNK}, giving the event loop a turn
 * between them.
 */
export class SqliteAuditIndex implements AuditIndex {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly recordAll;
  private readonly searchTransaction;

  constructor(options: SqliteAuditIndexOptions) {
    const db = openDatabase(options.path, {
      synchronous: 'NORMAL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      schema: AUDIT_SCHEMA,
    });
    this.db = db;
    // Parameters: start, end, then for each list its length and its values as a JSON array.
    const list = (column: string) => `(? = 0 OR ${column} IN (SELECT value FROM json_each(?)))`;
    const matching = `timestamp >= ? AND timestamp < ? AND ${list('type')} AND ${list('entity_type')} AND ${list(
      'aspect',
    )} AND ${list('actor')}`;
    // Strictly after the cursor in (timestamp DESC, type, actor, id); its first parameter is 0 without a cursor.
    const afterCursor = `(? = 0 OR timestamp < ? OR (timestamp = ? AND (type > ? OR (type = ? AND (actor > ? OR
      (actor = ? AND id > ?))))))`;
    this.statements = {
      upsert: db.prepare<[string, number, string, string, string | null, string | null, string]>(
        `INSERT OR REPLACE INTO audit_events (id, timestamp, type, actor, entity_type, aspect, document)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      page: db
        .prepare(
          `SELECT document FROM audit_events WHERE ${matching} AND ${afterCursor}
           ORDER BY timestamp DESC, type, actor, id LIMIT ?`,
        )
        .pluck(),
      count: db
        .prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM audit_events WHERE ${matching} LIMIT ${AUDIT_TOTAL_LIMIT})`)
        .pluck(),
      expireChunk: db.prepare<[number, number]>(
        // The oldest events up to a time that leaves about a chunk of them (all of that time's, ties included).
        `DELETE FROM audit_events WHERE timestamp < ? AND timestamp <= (SELECT MAX(timestamp) FROM
           (SELECT timestamp FROM audit_events WHERE timestamp < ? ORDER BY timestamp LIMIT ${EXPIRY_CHUNK}))`,
      ),
    };
    this.recordAll = db.transaction((events: readonly AuditEvent[]) => {
      for (const event of events) {
        this.statements.upsert.run(
          event.id,
          event.timestamp,
          event.type,
          event.actorUrn,
          event.entityType ?? null,
          event.aspectName ?? null,
          JSON.stringify(event),
        );
      }
    });
    this.searchTransaction = db.transaction((query: AuditQuery): AuditPage => {
      const filters = [
        query.startTime,
        query.endTime,
        ...[query.eventTypes, query.entityTypes, query.aspectTypes, query.actorUrns].flatMap((values) => [
          values.length,
          JSON.stringify(values),
        ]),
      ];
      const after = query.after;
      const cursor =
        after === undefined
          ? [0, 0, 0, '', '', '', '', '']
          : [1, after[0], after[0], after[1], after[1], after[2], after[2], after[3]];
      const documents = this.statements.page.all(...filters, ...cursor, query.size) as string[];
      const total = this.statements.count.get(...filters) as number;
      return { events: documents.map((document) => JSON.parse(document) as AuditEvent), total };
    });
  }

  record(events: readonly AuditEvent[]): Promise<void> {
    if (events.length > 0) this.recordAll(events);
    return Promise.resolve();
  }

  search(query: AuditQuery): Promise<AuditPage> {
    return Promise.resolve(this.searchTransaction.deferred(query));
  }

  async expire(before: number): Promise<number> {
    const slice = new TimeSlice();
    let removed = 0;
    for (;;) {
      const { changes } = this.statements.expireChunk.run(before, before);
      removed += changes;
      if (changes < EXPIRY_CHUNK) return removed;
      await slice.pause();
    }
  }

  close(): Promise<void> {
    closeDatabase(this.db);
    return Promise.resolve();
  }
}
