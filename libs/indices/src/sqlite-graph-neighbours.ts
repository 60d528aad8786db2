import type Database from 'better-sqlite3';

import type { EdgeWindow, NeighbourFold, RelationshipDirection } from './graph-index';

/**
 * The SQLite side of {@link GraphIndex.neighbours} and of the stamps it reports: the columns `updated_at`,
 * `updated_by` and `manual` of the `edges` table (added to a file that lacks them when it is opened), and the query
 * reading one chunk of URNs.
 */

/** URNs per query of {@link SqliteGraphIndex.neighbours}: one JSON array parameter, read through the direction's index. */
export const SQLITE_NEIGHBOUR_CHUNK = 500;

/** The columns the stamps of `neighbours` need, with their SQL types, in the order they are added. */
const STAMP_COLUMNS: readonly (readonly [string, string])[] = [
  ['updated_at', 'INTEGER'],
  ['updated_by', 'TEXT'],
  ['manual', 'INTEGER'],
];

/**
 * Adds the stamp columns to an `edges` table created before they existed. In one write transaction that checks
 * again, so that processes opening the same file at once add each column once. Existing rows get NULL: no update
 * stamp, not manual (what they were written without).
 */
export function addStampColumns(db: Database.Database): void {
  const missing = (): (readonly [string, string])[] => {
    const present = new Set(
      db
        .prepare<[], { name: string }>('PRAGMA table_info(edges)')
        .all()
        .map((row) => row.name),
    );
    return STAMP_COLUMNS.filter(([name]) => !present.has(name));
  };
  if (missing().length === 0) return;
  db.transaction(() => {
    for (const [name, type] of missing()) db.exec(`ALTER TABLE edges ADD COLUMN ${name} ${type}`);
  }).immediate();
}

interface NeighbourRow {
  readonly urn: string;
  readonly type: string;
  readonly entity: string;
  readonly created_at: number | null;
  readonly created_by: string | null;
  readonly updated_at: number | null;
  readonly updated_by: string | null;
  readonly manual: number | null;
}

interface NeighbourParameters {
  readonly urns: string;
  readonly typeCount: number;
  readonly types: string;
  readonly windowed: number;
  readonly start: number;
  readonly end: number;
}

/** The prepared queries of `neighbours`, one per direction. */
export class SqliteNeighbourReader {
  private readonly statements: Record<RelationshipDirection, Database.Statement<[NeighbourParameters], NeighbourRow>>;

  constructor(db: Database.Database) {
    // Parameters: the chunk's URNs as a JSON array; the number of types (0 = all) and the types as a JSON array;
    // whether a window applies (0 or 1), its start and end (open ends as the extreme safe integers).
    const windowed = (end: string, other: string): string =>
      `SELECT ${end} AS urn, type, ${other} AS entity, created_at, created_by, updated_at, updated_by, manual
       FROM edges
       WHERE ${end} IN (SELECT value FROM json_each(@urns))
         AND (@typeCount = 0 OR type IN (SELECT value FROM json_each(@types)))
         AND (@windowed = 0 OR manual = 1 OR (COALESCE(created_at, 0) = 0 AND COALESCE(updated_at, 0) = 0)
              OR created_at BETWEEN @start AND @end OR updated_at BETWEEN @start AND @end)
       ORDER BY urn, type, entity, aspect`;
    this.statements = {
      OUTGOING: db.prepare<[NeighbourParameters], NeighbourRow>(windowed('source', 'destination')),
      INCOMING: db.prepare<[NeighbourParameters], NeighbourRow>(windowed('destination', 'source')),
    };
  }

  /** Folds the edges of one chunk of URNs (in code-point order) into `fold`, until it is full. */
  read(
    direction: RelationshipDirection,
    urns: readonly string[],
    types: readonly string[],
    window: EdgeWindow | undefined,
    fold: NeighbourFold,
  ): void {
    const rows = this.statements[direction].iterate({
      urns: JSON.stringify(urns),
      typeCount: types.length,
      types: JSON.stringify(types),
      windowed: window === undefined ? 0 : 1,
      start: window?.start ?? Number.MIN_SAFE_INTEGER,
      end: window?.end ?? Number.MAX_SAFE_INTEGER,
    });
    for (const row of rows) {
      const added = fold.add({
        urn: row.urn,
        type: row.type,
        entity: row.entity,
        ...(row.created_at === null ? {} : { createdAt: row.created_at }),
        ...(row.created_by === null ? {} : { createdBy: row.created_by }),
        ...(row.updated_at === null ? {} : { updatedAt: row.updated_at }),
        ...(row.updated_by === null ? {} : { updatedBy: row.updated_by }),
        ...(row.manual === 1 ? { manual: true } : {}),
      });
      if (!added) break;
    }
  }
}
