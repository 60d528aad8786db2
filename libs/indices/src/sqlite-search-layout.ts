import { createHash } from 'node:crypto';

import type Database from 'better-sqlite3';
import { ValidationError } from '@strata/model';

import { FILTER_KEYS_COLUMN } from './filter-keys';
import type { SearchDocument } from './search-index';
import type { SearchSchema } from './search-schema';

/**
 * Prepares the statement of a SQL text on the index's connection, or gives the one prepared before: the index keeps
 * the statements of the queries it builds per request, by SQL text (their shapes repeat).
 */
export type PrepareStatement = (sql: string) => Database.Statement;

/** A row of `documents`: a document as written. */
export interface DocumentRow {
  readonly id: number;
  readonly urn: string;
  readonly entity: string;
  readonly removed: number;
  readonly aspects: string;
  /** The document's `lastChangedAt`, or null. */
  readonly changed_at: number | null;
}

/** The columns of `documents` a {@link DocumentRow} holds, for `SELECT`. */
export const DOCUMENT_COLUMNS = 'id, urn, entity, removed, aspects, changed_at';

/** The document a `documents` row holds. */
export function toDocument(row: DocumentRow): SearchDocument {
  return {
    urn: row.urn,
    entityType: row.entity,
    aspects: JSON.parse(row.aspects) as SearchDocument['aspects'],
    ...(row.changed_at === null ? {} : { lastChangedAt: row.changed_at }),
  };
}

/** An entity type's FTS table, with the statements writing and reading it once it is open. */
export interface FtsTable {
  readonly name: string;
  readonly columns: readonly string[];
  /** The columns' weights, then the filter keys column's (0). */
  readonly weights: readonly number[];
  /** The default fields' columns, by position: those a word of the query matches, ranked by the term lists. */
  readonly ranked: ReadonlySet<number>;
  insert: Database.Statement | undefined;
  remove: Database.Statement | undefined;
  /** Reads FTS5's averages record ({@link ftsTotals}). */
  totals: Database.Statement | undefined;
}

/** Per entity type: its visible documents, and how many of them are not {@link TermListEntry.certain}. */
export interface EntityCounts {
  readonly visible: number;
  readonly uncertain: number;
}

/** What a `browse_paths` row says about its document: under the prefix, a path through it to `next`, a path ending. */
export const BrowseRowKind = { member: 0, group: 1, leaf: 2 } as const;
export type BrowseRowKind = (typeof BrowseRowKind)[keyof typeof BrowseRowKind];

/** Every table derived from `documents` (the FTS tables aside). */
const DERIVED_TABLES = `
        CREATE TABLE IF NOT EXISTS field_values (
          doc INTEGER NOT NULL,
          field TEXT NOT NULL,
          value TEXT NOT NULL,
          number REAL
        );
        CREATE INDEX IF NOT EXISTS field_values_field ON field_values (field, value, doc);
        CREATE INDEX IF NOT EXISTS field_values_doc ON field_values (doc, field, value);
        CREATE TABLE IF NOT EXISTS facets (
          id INTEGER PRIMARY KEY,
          entity TEXT NOT NULL,
          field TEXT NOT NULL,
          value TEXT NOT NULL,
          visible INTEGER NOT NULL,
          UNIQUE (entity, field, value)
        );
        CREATE TABLE IF NOT EXISTS document_facets (doc INTEGER NOT NULL, facet INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS document_facets_doc ON document_facets (doc, facet);
        CREATE TABLE IF NOT EXISTS entity_counts (
          entity TEXT PRIMARY KEY,
          visible INTEGER NOT NULL,
          uncertain INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS term_postings (
          entity TEXT NOT NULL,
          term TEXT NOT NULL,
          weight REAL NOT NULL,
          size INTEGER NOT NULL,
          urn TEXT NOT NULL,
          doc INTEGER NOT NULL,
          PRIMARY KEY (entity, term, weight, size, urn)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS term_groups (
          entity TEXT NOT NULL,
          term TEXT NOT NULL,
          weight REAL NOT NULL,
          size INTEGER NOT NULL,
          visible INTEGER NOT NULL,
          PRIMARY KEY (entity, term, weight, size)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS browse_paths (
          doc INTEGER NOT NULL,
          entity TEXT NOT NULL,
          removed INTEGER NOT NULL,
          prefix TEXT NOT NULL,
          kind INTEGER NOT NULL,
          next TEXT,
          urn TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS browse_paths_groups ON browse_paths (entity, prefix, kind, next, removed);
        CREATE INDEX IF NOT EXISTS browse_paths_entities ON browse_paths (entity, prefix, kind, removed, urn);
        CREATE INDEX IF NOT EXISTS browse_paths_doc ON browse_paths (doc);
        CREATE TABLE IF NOT EXISTS suggestions (
          doc INTEGER NOT NULL,
          entity TEXT NOT NULL,
          removed INTEGER NOT NULL,
          rank INTEGER NOT NULL,
          key TEXT NOT NULL,
          field TEXT NOT NULL,
          value TEXT NOT NULL,
          urn TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS suggestions_key ON suggestions (entity, rank, key, urn, removed, doc);
        CREATE INDEX IF NOT EXISTS suggestions_doc ON suggestions (doc);
`;

/** Every table {@link DERIVED_TABLES} creates. */
const DERIVED_TABLE_NAMES = [
  'field_values',
  'facets',
  'document_facets',
  'entity_counts',
  'term_postings',
  'term_groups',
  'browse_paths',
  'suggestions',
];

/** Derived tables of earlier layouts, dropped with the others when the layout changes. */
const EARLIER_TABLE_NAMES = ['facet_counts'];

/**
 * Bump when the derived tables' layout changes, or the analyzer's words: files written before are rebuilt from
 * `documents` on open. (A document's term list rows are found again by analyzing the document as stored.)
 */
const LAYOUT_VERSION = 8;

/**
 * The tables of {@link SqliteSearchIndex} (described there) on one connection: creates them, plans the FTS tables
 * from the schema, and drops and rebuilds every table derived from `documents` when their layout changed.
 */
export class SqliteSearchLayout {
  private readonly tables = new Map<string, FtsTable>();
  /** Fingerprint of the derived tables' layout, kept in `meta`. */
  private layout = '';
  /** Whether {@link openDerived} must fill the derived tables from `documents`. */
  private readonly rebuild: boolean;

  /** Creates the tables that are missing, and drops the derived ones if their layout changed (see {@link prepareLayout}). */
  constructor(
    private readonly db: Database.Database,
    private readonly schema: SearchSchema,
  ) {
    db.exec(`
        CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS documents (
          id INTEGER PRIMARY KEY,
          urn TEXT NOT NULL UNIQUE,
          entity TEXT NOT NULL,
          removed INTEGER NOT NULL,
          aspects TEXT NOT NULL,
          changed_at INTEGER
        );
        CREATE INDEX IF NOT EXISTS documents_entity ON documents (entity, removed, urn);
      `);
    // Files written before documents kept their change time gain the column (null: not known until the next change).
    const columns = db.prepare<[], { name: string }>('PRAGMA table_info(documents)').all();
    if (!columns.some((column) => column.name === 'changed_at')) {
      db.exec('ALTER TABLE documents ADD COLUMN changed_at INTEGER');
    }
    // The newest documents of a type, by a range of this index (sqlite-search-sql.ts, changedAtCondition).
    db.exec('CREATE INDEX IF NOT EXISTS documents_changed ON documents (entity, removed, changed_at)');
    db.exec('CREATE TEMP TABLE IF NOT EXISTS search_hits (id INTEGER PRIMARY KEY, score REAL NOT NULL)');
    this.rebuild = this.prepareLayout();
    db.exec(DERIVED_TABLES);
  }

  /** Per entity type, its FTS table. */
  get ftsTables(): ReadonlyMap<string, FtsTable> {
    return this.tables;
  }

  /** The FTS table of an entity type of the schema. */
  ftsTable(entityType: string): FtsTable {
    const table = this.tables.get(entityType);
    if (table === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);
    return table;
  }

  /**
   * Plans the FTS tables from the schema and decides whether the derived tables must be rebuilt: when the layout or
   * any entity's text columns changed since the file was written (a new schema, a new Strata), or an FTS table is
   * missing. If so, drops them all; {@link openDerived} then recreates them from `documents`.
   */
  private prepareLayout(): boolean {
    const tables = this.schema.entities().map((entity) => {
      const columns = entity.fields.filter((field) => field.text).map((field) => field.name);
      for (const column of columns) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(column) || column === FILTER_KEYS_COLUMN) {
          throw new Error(`Search field ${column} of ${entity.entityType} is not a plain identifier or is reserved`);
        }
      }
      const table: FtsTable = {
        name: `fts_${entity.entityType}`,
        columns,
        // The filter keys weigh nothing: a filter narrows the hits without ranking them.
        weights: [...columns.map((column) => entity.field(column)?.boost ?? 1), 0],
        ranked: new Set(entity.defaultFields.map((field) => columns.indexOf(field.name)).filter((at) => at >= 0)),
        insert: undefined,
        remove: undefined,
        totals: undefined,
      };
      this.tables.set(entity.entityType, table);
      return table;
    });
    this.layout = createHash('sha256')
      .update(
        JSON.stringify([
          LAYOUT_VERSION,
          // The term lists hold the weights and which columns are ranked.
          tables.map((table) => [table.name, table.columns, table.weights, [...table.ranked]]),
        ]),
      )
      .digest('hex');
    const known = this.db.prepare<[], { value: string }>("SELECT value FROM meta WHERE name = 'layout'").get()?.value;
    const exists = (name: string) =>
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    if (known === this.layout && tables.every((table) => exists(table.name))) return false;
    const virtualTables = this.db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND name LIKE 'fts\\_%' ESCAPE '\\'",
      )
      .all();
    this.db.transaction(() => {
      for (const { name } of virtualTables) this.db.exec(`DROP TABLE "${name.replace(/"/g, '""')}"`);
      for (const name of [...DERIVED_TABLE_NAMES, ...EARLIER_TABLE_NAMES]) {
        this.db.exec(`DROP TABLE IF EXISTS ${name}`);
      }
    })();
    return true;
  }

  /**
   * Creates the FTS tables and fills every derived table from `documents` when {@link prepareLayout} said so, each
   * document's rows written by `deriveRows`; prepares the FTS tables' statements.
   */
  openDerived(prepared: PrepareStatement, deriveRows: (id: number, document: SearchDocument) => void): void {
    const tables = [...this.tables.values()];
    if (!this.rebuild) {
      for (const table of tables) this.prepareFts(table, prepared);
      return;
    }
    this.db.transaction(() => {
      for (const table of tables) {
        this.db.exec(
          `CREATE VIRTUAL TABLE "${table.name}" USING fts5(${[...table.columns, FILTER_KEYS_COLUMN].map((column) => `"${column}"`).join(', ')},
           content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
        );
        this.prepareFts(table, prepared);
      }
      const rows = this.db.prepare<[], DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents`).all();
      for (const row of rows) {
        if (this.schema.entity(row.entity) !== undefined) deriveRows(row.id, toDocument(row));
      }
      this.db
        .prepare<[string, string]>(
          'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        )
        .run('layout', this.layout);
    })();
  }

  /**
   * Empties `documents` and every table derived from it, one table per step of the caller's write transaction (see
   * `SteppedWrites`), leaving them as a new file holds them. An FTS table is emptied with FTS5's `delete-all`, which
   * also resets the totals `bm25` ranks with (a `DELETE` would leave them counting every row the contentless-delete
   * table ever held, so that a cleared index would rank otherwise than a new one). `meta` stays: the layout is
   * unchanged. `DELETE` without `WHERE` truncates a table (frees its pages) instead of deleting row by row.
   */
  *clear(): Generator<void, void, undefined> {
    for (const table of this.tables.values()) {
      this.db.prepare(`INSERT INTO "${table.name}" ("${table.name}") VALUES ('delete-all')`).run();
      yield;
    }
    for (const name of ['documents', ...DERIVED_TABLE_NAMES]) {
      this.db.prepare(`DELETE FROM ${name}`).run();
      yield;
    }
    this.db.prepare('DELETE FROM temp.search_hits').run();
  }

  private prepareFts(table: FtsTable, prepared: PrepareStatement): void {
    const columns = [...table.columns, FILTER_KEYS_COLUMN];
    const placeholders = columns.map(() => '?').join(', ');
    const names = columns.map((column) => `"${column}"`).join(', ');
    table.insert = prepared(`INSERT INTO "${table.name}" (rowid, ${names}) VALUES (?, ${placeholders})`);
    table.remove = prepared(`DELETE FROM "${table.name}" WHERE rowid = ?`);
    table.totals = prepared(`SELECT block FROM "${table.name}_data" WHERE id = 1`);
  }
}
