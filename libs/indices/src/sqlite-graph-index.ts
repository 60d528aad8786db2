import type Database from 'better-sqlite3';
import { ValidationError } from '@strata/model';
import { closeDatabase, openDatabase } from '@strata/sqlite';

import {
  MAX_EDGE_SCROLL_COUNT,
  type EdgeScrollPage,
  type EdgeScrollQuery,
  type GraphChange,
  type GraphEdge,
  type GraphIndex,
  type HeldEdge,
  type Relationship,
  type RelationshipPage,
  type RelationshipQuery,
  type ScrolledEdge,
} from './graph-index';
import {
  heldAspectKey,
  NeighbourFold,
  neighbourChunks,
  neighbourQueryFault,
  type NeighbourPage,
  type NeighbourQuery,
} from './graph-index';
import { addStampColumns, SQLITE_NEIGHBOUR_CHUNK, SqliteNeighbourReader } from './sqlite-graph-neighbours';
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

/** The edges `removeNode` deletes in one step. */
const REMOVE_NODE_CHUNK = 1_000;

/** Deletes up to `?` (the second parameter) edges whose `column` is `?` (the first), found through that column's index. */
function chunkDelete(column: 'source' | 'destination' | 'holder'): string {
  return `DELETE FROM edges WHERE (source, aspect, type, destination) IN (
            SELECT source, aspect, type, destination FROM edges WHERE ${column} = ? LIMIT ?)`;
}

/** Options of {@link SqliteGraphIndex}. */
export interface SqliteGraphIndexOptions {
  /** Database file; several instances may open the same file. `':memory:'` gives an index private to this instance. */
  readonly path: string;
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * The embedded graph index: one SQLite file (WAL) with one table, `edges (source, aspect, type, destination,
 * created_at, created_by, updated_at, updated_by, manual, holder)` (the last four added to an older file when it is
 * opened), keyed by (source, aspect, type, destination) so that each aspect's contribution is a set.
 * Indexes on (source, type) and (destination, type) serve both directions. A held edge is a row whose `holder` is the
 * entity holding the aspect and whose `aspect` is {@link heldAspectKey}; a partial index on (holder, aspect), over
 * the rows that have a holder, finds a holder's contributions. `removeNode` is one transaction deleting by source,
 * destination and holder, each through its index, a chunk of rows a step.
 *
 * Runs with `synchronous = NORMAL`: a power loss may drop the last writes, which is acceptable because the index is
 * rebuilt from the primary store (the consumer replays the change log), unlike the store itself, which fsyncs.
 * `replaceEdges`, `removeEntity` and `apply` (the whole list) are each one `BEGIN IMMEDIATE` transaction: a query
 * sees a call's effect whole or not at all, and a call that rejects has changed nothing. The transaction runs in steps
 * that give the event loop a turn every few milliseconds (an aspect may imply 100,000 edges); writes run one after the
 * other and queries wait for the one in progress, so nothing else uses the connection meanwhile. A query reads in one
 * transaction, so its `total` and its page come from the same snapshot. `clear` is one write transaction deleting every
 * row of `edges`. `scrollEdges` reads the page's distinct (source, type, destination) keys in the order of the
 * (source, type, destination) index, from the key after the cursor, then each key's earliest stamp: a page costs its
 * own size, however deep the walk. `neighbours` reads its URNs in chunks of 500 through the same indexes, each chunk
 * after the writes in progress (the event loop gets a turn between chunks), and stops at `limit`.
 */
export class SqliteGraphIndex implements GraphIndex {
  private readonly db: Database.Database;
  private readonly statements;
  /** Writes one after the other, in steps; reads wait for the write in progress. */
  private readonly writes: SteppedWrites;
  private readonly queryTransaction;
  private readonly neighbourReader: SqliteNeighbourReader;
  private readonly scrollStatement;

  constructor(options: SqliteGraphIndexOptions) {
    const db = openDatabase(options.path, {
      synchronous: 'NORMAL',
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
      schema: GRAPH_SCHEMA,
    });
    this.db = db;
    this.writes = new SteppedWrites(db);
    try {
      addStampColumns(db);
      addHolderColumn(db);
    } catch (error) {
      closeDatabase(db);
      throw error;
    }
    this.neighbourReader = new SqliteNeighbourReader(db);

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
      deleteHeld: db.prepare<[string, string]>('DELETE FROM edges WHERE holder = ? AND aspect = ?'),
      // A (type, destination) given twice in one call: the first occurrence stays.
      insertEdge: db.prepare<
        [
          string,
          string,
          string,
          string,
          number | null,
          string | null,
          number | null,
          string | null,
          number | null,
          string | null,
        ]
      >(
        `INSERT OR IGNORE INTO edges
           (source, aspect, type, destination, created_at, created_by, updated_at, updated_by, manual, holder)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // An entity's own edges: those from it that no other entity holds, and those it holds.
      deleteEntity: db.prepare<[string]>('DELETE FROM edges WHERE source = ? AND holder IS NULL'),
      deleteHeldBy: db.prepare<[string]>('DELETE FROM edges WHERE holder = ?'),
      // A node's edges, a chunk at a time (a tag on every dataset has as many): each through its index.
      deleteChunk: {
        source: db.prepare<[string, number]>(chunkDelete('source')),
        destination: db.prepare<[string, number]>(chunkDelete('destination')),
        holder: db.prepare<[string, number]>(chunkDelete('holder')),
      },
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

    // Each list parameter is its length (0 = no filter) and the list as a JSON array; entity types as URN prefixes.
    const listFilter = (column: string): string => `(? = 0 OR ${column} IN (SELECT value FROM json_each(?)))`;
    const prefixFilter = (column: string): string =>
      `(? = 0 OR EXISTS (SELECT 1 FROM json_each(?) WHERE substr(${column}, 1, length(value)) = value))`;
    const earliest = (column: string): string =>
      `(SELECT ${column} FROM edges AS stamp WHERE stamp.source = page.source AND stamp.type = page.type
          AND stamp.destination = page.destination ORDER BY created_at IS NULL, created_at, aspect LIMIT 1)`;
    this.scrollStatement = db.prepare<ScrollParameters, ScrolledRow>(
      `SELECT source, type, destination, ${earliest('created_at')} AS created_at, ${earliest('created_by')} AS created_by
       FROM (
         SELECT source, type, destination FROM edges
         WHERE (source, type, destination) > (?, ?, ?)
           AND ${listFilter('type')} AND ${listFilter('source')} AND ${listFilter('destination')}
           AND ${prefixFilter('source')} AND ${prefixFilter('destination')}
         GROUP BY source, type, destination ORDER BY source, type, destination LIMIT ?
       ) AS page ORDER BY source, type, destination`,
    );

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

  replaceHeldEdges(holder: string, aspect: string, edges: readonly HeldEdge[]): Promise<void> {
    return this.apply([{ kind: 'replaceHeldEdges', holder, aspect, edges }]);
  }

  removeEntity(urn: string): Promise<void> {
    return this.apply([{ kind: 'removeEntity', urn }]);
  }

  /**
   * Every edge from, to or held by `urn`, in one write transaction, deleted {@link REMOVE_NODE_CHUNK} rows a step: a
   * node with millions of edges gives the event loop a turn between chunks, as a large `replaceEdges` does.
   */
  removeNode(urn: string): Promise<void> {
    return this.writes.write(() => this.removeNodeSteps(urn));
  }

  private *removeNodeSteps(urn: string): Generator<void, void, undefined> {
    for (const statement of Object.values(this.statements.deleteChunk)) {
      while (statement.run(urn, REMOVE_NODE_CHUNK).changes === REMOVE_NODE_CHUNK) yield;
      yield;
    }
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
        this.statements.deleteHeldBy.run(change.urn);
        continue;
      }
      if (change.kind === 'replaceEdges') {
        this.statements.deleteAspect.run(change.source, change.aspect);
        for (const edge of change.edges) {
          this.insert(change.source, change.aspect, edge, null);
          if (++written % EDGES_PER_STEP === 0) yield;
        }
        continue;
      }
      const aspect = heldAspectKey(change.aspect, change.holder);
      this.statements.deleteHeld.run(change.holder, aspect);
      for (const edge of change.edges) {
        this.insert(edge.source, aspect, edge, change.holder);
        if (++written % EDGES_PER_STEP === 0) yield;
      }
    }
  }

  private insert(source: string, aspect: string, edge: GraphEdge, holder: string | null): void {
    this.statements.insertEdge.run(
      source,
      aspect,
      edge.type,
      edge.destination,
      edge.createdAt ?? null,
      edge.createdBy ?? null,
      edge.updatedAt ?? null,
      edge.updatedBy ?? null,
      edge.manual === true ? 1 : null,
      holder,
    );
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

  scrollEdges(query: EdgeScrollQuery): Promise<EdgeScrollPage> {
    return this.afterWrites(() => {
      if (!Number.isSafeInteger(query.count) || query.count < 1 || query.count > MAX_EDGE_SCROLL_COUNT) {
        throw new ValidationError(`Invalid count ${query.count}: from 1 to ${MAX_EDGE_SCROLL_COUNT}`);
      }
      const list = (values: readonly string[]): [number, string] => [values.length, JSON.stringify(values)];
      const prefixes = (types: readonly string[]) => types.map((type) => `urn:li:${type}:`);
      // The empty key sorts before every edge: a source is never empty.
      const after = query.after ?? { source: '', type: '', destination: '' };
      const rows = this.scrollStatement.all(
        after.source,
        after.type,
        after.destination,
        ...list(query.types),
        ...list(query.sourceUrns),
        ...list(query.destinationUrns),
        ...list(prefixes(query.sourceTypes)),
        ...list(prefixes(query.destinationTypes)),
        query.count + 1,
      );
      return { edges: rows.slice(0, query.count).map(toScrolledEdge), hasMore: rows.length > query.count };
    });
  }

  /** One read per chunk of {@link SQLITE_NEIGHBOUR_CHUNK} URNs, each after the writes in progress, until `limit`. */
  async neighbours(query: NeighbourQuery): Promise<NeighbourPage> {
    const fault = neighbourQueryFault(query);
    if (fault !== undefined) throw new ValidationError(fault);
    const fold = new NeighbourFold(query.limit);
    for (const chunk of neighbourChunks(query.urns, SQLITE_NEIGHBOUR_CHUNK)) {
      await this.afterWrites(() => {
        this.neighbourReader.read(query.direction, chunk, query.types, query.window, fold);
      });
      if (fold.full) break;
    }
    return fold.page();
  }

  close(): Promise<void> {
    return this.afterWrites(() => {
      closeDatabase(this.db);
    });
  }
}

type ScrollParameters = [
  string,
  string,
  string,
  number,
  string,
  number,
  string,
  number,
  string,
  number,
  string,
  number,
  string,
  number,
];

interface ScrolledRow {
  readonly source: string;
  readonly type: string;
  readonly destination: string;
  readonly created_at: number | null;
  readonly created_by: string | null;
}

function toScrolledEdge(row: ScrolledRow): ScrolledEdge {
  return {
    source: row.source,
    type: row.type,
    destination: row.destination,
    ...(row.created_at === null ? {} : { createdAt: row.created_at }),
    ...(row.created_by === null ? {} : { createdBy: row.created_by }),
  };
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

/**
 * Adds the `holder` column (null on the rows there are: none was held) and the partial index finding a holder's rows
 * to an `edges` table created before held edges existed, in one write transaction that checks again, so that
 * processes opening the same file at once add them once.
 */
function addHolderColumn(db: Database.Database): void {
  const missing = (): { column: boolean; index: boolean } => ({
    column: !db
      .prepare<[], { name: string }>('PRAGMA table_info(edges)')
      .all()
      .some((row) => row.name === 'holder'),
    index: db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'edges_holder'").get() === undefined,
  });
  const before = missing();
  if (!before.column && !before.index) return;
  db.transaction(() => {
    if (missing().column) db.exec('ALTER TABLE edges ADD COLUMN holder TEXT');
    db.exec('CREATE INDEX IF NOT EXISTS edges_holder ON edges (holder, aspect) WHERE holder IS NOT NULL');
  }).immediate();
}

/** How many edges a write step inserts. */
const EDGES_PER_STEP = 500;

function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}
