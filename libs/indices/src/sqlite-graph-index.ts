import type Database from 'better-sqlite3';
import { ValidationError } from '@strata/model';
import { closeDatabase, openDatabase } from '@strata/sqlite';

import type {
  GraphChange,
  GraphEdge,
  GraphIndex,
  Relationship,
  RelationshipPage,
  RelationshipQuery,
} from './graph-index';
import { SteppedWrites } from './stepped-writes';

/** The table of edges and its indexes. */
const GRAPH_SCHEMA = `
  CREATE TABLE IF NOT EXISTS edges (
    source TEXT NOT NULL,
    aspect TEXT NOT NULL,
    type TEXT NOT NULL,
    destination TEXT NOT NULL,
    created_at INTEGER,
    created_by TEXT,
    PRIMARY KEY (source, aspect, type, destination)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS edges_source_type ON edges (source, type, destination);
  CREATE INDEX IF NOT EXISTS edges_destination_type ON edges (destination, type, source);
`;

/** Options of {@link SqliteGraphIndex}. */
export interface SqliteGraphIndexOptions {
  /** Database file; several instances may open the same file. `':memory:'` gives an index private to this instance. */
  readonly path: string;
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * The embedded graph index: one SQLite file (WAL) with one table, `edges (source, aspect, type, destination,
 * created_at, created_by)`, keyed by (source, aspect, type, destination) so that each aspect's contribution is a set.
 * Indexes on (source, type) and (destination, type) serve both directions.
 *
 * Runs with `synchronous = NORMAL`: a power loss may drop the last writes, which is acceptable because the index is
 * rebuilt from the primary store (the consumer replays the change log), unlike the store itself, which fsyncs.
 * `replaceEdges`, `removeEntity` and `apply` (the whole list) are each one `BEGIN IMMEDIATE` transaction: a query
 * sees a call's effect whole or not at all, and a call that rejects has changed nothing. The transaction runs in steps
 * that give the event loop a turn every few milliseconds (an aspect may imply 100,000 edges); writes run one after the
 * other and queries wait for the one in progress, so nothing else uses the connection meanwhile. A query reads in one
 * transaction, so its `total` and its page come from the same snapshot. `clear` is one write transaction deleting every
 * row of `edges`.
 */
export class SqliteGraphIndex implements GraphIndex {
  private readonly db: Database.Database;
  private readonly statements;
  /** Writes one after the other, in steps; reads wait for the write in progress. */
  private readonly writes: SteppedWrites;
  private readonly queryTransaction;

  constructor(options: SqliteGraphIndexOptions) {
    const db = openDatabase(options.path, {
      synchronous: 'NORMAL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      schema: GRAPH_SCHEMA,
    });
    this.db = db;
    this.writes = new SteppedWrites(db);

    // Parameters of both directions' queries: urn, number of types (0 = all), types as a JSON array.
    const typeFilter = '(? = 0 OR type IN (SELECT value FROM json_each(?)))';
    // One row per (type, other end); among several aspects implying it, the earliest created_at (then the aspect name,
    // so the choice is deterministic) supplies created_at and created_by.
    const page = (end: string, other: string): string =>
      `SELECT type, ${other} AS entity, created_at, created_by FROM (
         SELECT type, ${other}, created_at, created_by,
           ROW_NUMBER() OVER (PARTITION BY type, ${other} ORDER BY created_at IS NULL, created_at, aspect) AS rank
         FROM edges WHERE ${end} = ? AND ${typeFilter}
       ) WHERE rank = 1 ORDER BY type, entity LIMIT ? OFFSET ?`;
    const total = (end: string, other: string): string =>
      `SELECT COUNT(*) AS total FROM (SELECT 1 FROM edges WHERE ${end} = ? AND ${typeFilter} GROUP BY type, ${other})`;
    this.statements = {
      deleteAspect: db.prepare<[string, string]>('DELETE FROM edges WHERE source = ? AND aspect = ?'),
      // A (type, destination) given twice in one call: the first occurrence stays.
      insertEdge: db.prepare<[string, string, string, string, number | null, string | null]>(
        `INSERT OR IGNORE INTO edges (source, aspect, type, destination, created_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      deleteEntity: db.prepare<[string]>('DELETE FROM edges WHERE source = ?'),
      // Without WHERE: SQLite truncates the table and its indexes (frees their pages) instead of deleting row by row.
      deleteAll: db.prepare('DELETE FROM edges'),
      OUTGOING: {
        page: db.prepare<[string, number, string, number, number], RelationshipRow>(page('source', 'destination')),
        total: db.prepare<[string, number, string], { total: number }>(total('source', 'destination')),
      },
      INCOMING: {
        page: db.prepare<[string, number, string, number, number], RelationshipRow>(page('destination', 'source')),
        total: db.prepare<[string, number, string], { total: number }>(total('destination', 'source')),
      },
    };

    this.queryTransaction = db.transaction((query: RelationshipQuery): RelationshipPage => {
      const statements = this.statements[query.direction];
      const types = JSON.stringify(query.types);
      const { total } = statements.total.get(query.urn, query.types.length, types) ?? { total: 0 };
      const rows =
        query.count === 0 ? [] : statements.page.all(query.urn, query.types.length, types, query.count, query.start);
      return { total, relationships: rows.map(toRelationship) };
    });
  }

  replaceEdges(source: string, aspect: string, edges: readonly GraphEdge[]): Promise<void> {
    return this.apply([{ kind: 'replaceEdges', source, aspect, edges }]);
  }

  removeEntity(urn: string): Promise<void> {
    return this.apply([{ kind: 'removeEntity', urn }]);
  }

  apply(changes: readonly GraphChange[]): Promise<void> {
    if (changes.length === 0) return this.afterWrites(() => undefined);
    return this.writes.write(() => this.steps(changes));
  }

  /** Deletes every edge, in one write transaction after the writes queued before it (a step of its own). */
  clear(): Promise<void> {
    return this.writes.write(() => this.clearSteps());
  }

  private *clearSteps(): Generator<void, void, undefined> {
    this.statements.deleteAll.run();
    yield;
  }

  /** The statements of a list of changes, in steps of a few hundred edges (see {@link SteppedWrites}). */
  private *steps(changes: readonly GraphChange[]): Generator<void, void, undefined> {
    let written = 0;
    for (const change of changes) {
      if (change.kind === 'removeEntity') {
        this.statements.deleteEntity.run(change.urn);
        continue;
      }
      this.statements.deleteAspect.run(change.source, change.aspect);
      for (const edge of change.edges) {
        this.statements.insertEdge.run(
          change.source,
          change.aspect,
          edge.type,
          edge.destination,
          edge.createdAt ?? null,
          edge.createdBy ?? null,
        );
        if (++written % EDGES_PER_STEP === 0) yield;
      }
    }
  }

  /** Runs a read once the writes in progress have committed. */
  private afterWrites<T>(read: () => T): Promise<T> {
    return this.writes.afterWrites(read);
  }

  relationships(query: RelationshipQuery): Promise<RelationshipPage> {
    return this.afterWrites(() => {
      // Checked although typed: the value comes from a query string, and an unknown one must not reach `statements`.
      const direction: string = query.direction;
      if (direction !== 'INCOMING' && direction !== 'OUTGOING') {
        throw new ValidationError(`Invalid relationship direction ${direction}`);
      }
      if (!isNonNegativeInteger(query.start)) throw new ValidationError(`Invalid start ${query.start}`);
      if (!isNonNegativeInteger(query.count)) throw new ValidationError(`Invalid count ${query.count}`);
      return this.queryTransaction.deferred(query);
    });
  }

  close(): Promise<void> {
    return this.afterWrites(() => {
      closeDatabase(this.db);
    });
  }
}

interface RelationshipRow {
  readonly type: string;
  readonly entity: string;
  readonly created_at: number | null;
  readonly created_by: string | null;
}

function toRelationship(row: RelationshipRow): Relationship {
  return {
    type: row.type,
    entity: row.entity,
    ...(row.created_at === null ? {} : { createdAt: row.created_at }),
    ...(row.created_by === null ? {} : { createdBy: row.created_by }),
  };
}

/** How many edges a write step inserts. */
const EDGES_PER_STEP = 500;

function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}
