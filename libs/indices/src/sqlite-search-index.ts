import { createHash } from 'node:crypto';

import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { ValidationError } from '@strata/model';

import {
  browsePathsOf,
  checkPaging,
  normalizeBrowsePath,
  documentFields,
  MAX_PAGE_SIZE,
  namesRemoved,
  resolveFilter,
  valueNumber,
  valueText,
} from './search-documents';
import {
  MAX_FACET_VALUES,
  type AutocompletePage,
  type AutocompleteRequest,
  type BrowsePage,
  type BrowseRequest,
  type Criterion,
  type DocumentWrite,
  type FacetResult,
  type FieldValue,
  type Filter,
  type SearchDocument,
  type SearchIndex,
  type SearchPage,
  type SearchRequest,
} from './search-index';
import {
  analyze,
  autocompleteKeys,
  autocompletePrefix,
  fold,
  globMatches,
  matchedFields,
  parseSearchQuery,
  type QueryNode,
} from './search-query';
import { settle } from './settle';
import { REMOVED_FIELD, type EntitySearchSchema, type SearchSchema } from './search-schema';
import {
  combinationClasses,
  ftsTotals,
  inverseDocumentFrequency,
  isPlainWord,
  scoreClasses,
  termListEntry,
  type ColumnWords,
  type Combination,
  type FtsTotals,
  type TermGroup,
  type TermListEntry,
} from './term-lists';

/** Options of {@link SqliteSearchIndex}. */
export interface SqliteSearchIndexOptions {
  /** Database file; several instances may open the same file. `':memory:'` gives an index private to this instance. */
  readonly path: string;
  readonly schema: SearchSchema;
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * How many answered search pages to keep for repeated requests (0: none). Default 256. A kept page is served only
   * while no document of its entity type has changed since — by this instance or, through the same file, another.
   */
  readonly resultCacheEntries?: number;
  /**
   * Whether a search of plain words reads its page from the ranked term lists (default true) or has FTS5 score every
   * match. The lists are kept either way; false serves comparisons and diagnosis.
   */
  readonly termLists?: boolean;
}

/** A search page kept by {@link SqliteSearchIndex}, with the generation of its entity type's documents it holds. */
interface CachedPage {
  readonly generation: number;
  readonly page: SearchPage;
}

/** Larger pages are not kept (a user pages by tens), so that a cache of a few hundred entries stays a few megabytes. */
const MAX_CACHED_HITS = 100;

/** A SQL fragment and its parameters. */
interface Sql {
  readonly sql: string;
  readonly params: unknown[];
}

/**
 * The embedded search index: one SQLite file (WAL).
 * - `documents (id, urn, entity, removed, aspects JSON)`: the documents as written, the source every other table is
 *   derived from in the same transaction.
 * - `field_values (doc, field, value, number)`: every field value, for filters and facets (indexed by field and value,
 *   and by document).
 * - `fts_<entity>`: one contentless FTS5 table per entity type, one column per text field of its {@link SearchSchema},
 *   holding the {@link analyze}d words; ranked with `bm25` weighted by the fields' boosts. One more column holds each
 *   document's filter keys (a token per field value), so that a text search with `EQUAL`/`IN`/`EXISTS` filters is one
 *   full-text query in which FTS5 intersects the document lists. Its column set is fingerprinted in `meta`; when the
 *   schema changes, the table is rebuilt from `documents` on open.
 * - `facets (id, entity, field, value, visible)`: every facet value met, numbered, with how many visible documents hold
 *   it; `document_facets (doc, facet)`: each document's facet values by number, which a facet count groups;
 *   `entity_counts (entity, visible, uncertain)`: per entity type, the number of visible documents, and of those
 *   among them the term lists cannot hold exactly. Kept on write.
 * - `browse_paths (doc, prefix, next)`: one row per (document, path prefix) with the next segment below it (NULL where
 *   a path ends), which answers a browse level with one index range.
 * - `suggestions (doc, entity, rank, key, field, value)`: the {@link autocompleteKeys} of every autocomplete field
 *   value (rank 0: the value's start; 1: a later word), scanned in key order for a prefix.
 * - `term_postings (entity, term, weight, size, urn, doc)` and `term_groups (entity, term, weight, size, visible)`:
 *   the ranked term lists (`term-lists.ts`). FTS5 scores every match (≈ 0.6 µs each), so a word matching 100,000
 *   documents costs over 100 ms however small the page; its visible documents, grouped by the two numbers `bm25`
 *   ranks them by and listed by URN within a group, give the page from the best groups instead (for several words,
 *   from the best combinations of their groups). Searches of plain words without a filter read them while every
 *   document of the entity type is {@link TermListEntry.certain}: `entity_counts` keeps how many are not. FTS5's own
 *   totals give the average size and row count the lists rank with.
 *
 * Search pages are kept for repeated requests (`resultCacheEntries`) while their entity type's documents are
 * unchanged: a user repeating or paging back through a search the lists cannot answer (a prefix, a filter) should not
 * pay its scoring each time.
 *
 * Runs with `synchronous = NORMAL` (the index is rebuilt from the primary store if a power loss drops a write); each
 * write call is one `BEGIN IMMEDIATE` transaction and each query reads one snapshot.
 */
export class SqliteSearchIndex implements SearchIndex {
  readonly schema: SearchSchema;
  private readonly db: Database.Database;
  private readonly writeTransaction;
  private readonly statements;
  private readonly ftsTables = new Map<string, FtsTable>();
  private readonly statementCache = new Map<string, Database.Statement>();
  /** Fingerprint of the derived tables' layout, kept in `meta`. */
  private layout = '';
  /** Search pages answered, by request (Solr's query result cache, in effect). */
  private readonly results: LRUCache<string, CachedPage> | undefined;
  /** Per entity type, how many of this instance's writes have changed its documents: a kept page's validity. */
  private readonly generations = new Map<string, number>();
  /** SQLite's count of other connections' commits, when the kept pages were last known valid. */
  private dataVersion: number | undefined;
  private readonly termLists: boolean;

  constructor(options: SqliteSearchIndexOptions) {
    this.schema = options.schema;
    this.termLists = options.termLists ?? true;
    const cacheEntries = options.resultCacheEntries ?? 256;
    if (!Number.isSafeInteger(cacheEntries) || cacheEntries < 0) {
      throw new Error(`resultCacheEntries must be a non-negative integer, not ${cacheEntries}`);
    }
    this.results = cacheEntries === 0 ? undefined : new LRUCache({ max: cacheEntries });
    const db = new Database(options.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      // Reads map the file instead of copying pages through SQLite's 2 MB page cache, which a search touching
      // thousands of documents' rows (URNs to order ties by, FTS5 doclists) outgrows: at 100,000 datasets, a filtered
      // search took half the time. SQLite caps the mapping at 2 GB; beyond, it reads as before.
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      db.function('strata_fold', { deterministic: true }, (value: unknown) => fold(String(value)));
      db.function('strata_glob', { deterministic: true }, (pattern: unknown, value: unknown) =>
        globMatches(String(pattern), String(value)) ? 1 : 0,
      );
      db.exec(`
        CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS documents (
          id INTEGER PRIMARY KEY,
          urn TEXT NOT NULL UNIQUE,
          entity TEXT NOT NULL,
          removed INTEGER NOT NULL,
          aspects TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS documents_entity ON documents (entity, removed, urn);
      `);
      this.db = db;
      db.exec('CREATE TEMP TABLE IF NOT EXISTS search_hits (id INTEGER PRIMARY KEY, score REAL NOT NULL)');
      const rebuild = this.prepareLayout();
      db.exec(DERIVED_TABLES);
      this.statements = {
        documentByUrn: db.prepare<[string], DocumentRow>(
          'SELECT id, urn, entity, removed, aspects FROM documents WHERE urn = ?',
        ),
        documentById: db.prepare<[number], DocumentRow>(
          'SELECT id, urn, entity, removed, aspects FROM documents WHERE id = ?',
        ),
        upsertDocument: db.prepare<[string, string, number, string], { id: number }>(
          `INSERT INTO documents (urn, entity, removed, aspects) VALUES (?, ?, ?, ?)
           ON CONFLICT (urn) DO UPDATE SET entity = excluded.entity, removed = excluded.removed, aspects = excluded.aspects
           RETURNING id`,
        ),
        deleteDocument: db.prepare<[number]>('DELETE FROM documents WHERE id = ?'),
        deleteFieldValues: db.prepare<[number]>('DELETE FROM field_values WHERE doc = ?'),
        insertFieldValue: db.prepare<[number, string, string, number | null]>(
          'INSERT INTO field_values (doc, field, value, number) VALUES (?, ?, ?, ?)',
        ),
        deleteBrowsePaths: db.prepare<[number]>('DELETE FROM browse_paths WHERE doc = ?'),
        insertBrowsePath: db.prepare<[number, string, number, string, number, string | null, string]>(
          'INSERT INTO browse_paths (doc, entity, removed, prefix, kind, next, urn) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ),
        deleteSuggestions: db.prepare<[number]>('DELETE FROM suggestions WHERE doc = ?'),
        insertSuggestion: db.prepare<[number, string, number, number, string, string, string, string]>(
          'INSERT INTO suggestions (doc, entity, removed, rank, key, field, value, urn) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ),
        facetsOf: db.prepare<[number], number>('SELECT facet FROM document_facets WHERE doc = ?').pluck(),
        deleteDocumentFacets: db.prepare<[number]>('DELETE FROM document_facets WHERE doc = ?'),
        insertDocumentFacet: db.prepare<[number, number]>('INSERT INTO document_facets (doc, facet) VALUES (?, ?)'),
        uncountFacet: db.prepare<[number]>('UPDATE facets SET visible = visible - 1 WHERE id = ?'),
        facetId: db
          .prepare<[string, string, string, number], number>(
            `INSERT INTO facets (entity, field, value, visible) VALUES (?, ?, ?, ?)
           ON CONFLICT (entity, field, value) DO UPDATE SET visible = visible + excluded.visible
           RETURNING id`,
          )
          .pluck(),
        entityCounts: db.prepare<[string], EntityCounts>(
          'SELECT visible, uncertain FROM entity_counts WHERE entity = ?',
        ),
        countDocument: db.prepare<[string, number, number]>(
          `INSERT INTO entity_counts (entity, visible, uncertain) VALUES (?, ?, ?)
           ON CONFLICT (entity) DO UPDATE SET visible = visible + excluded.visible,
             uncertain = uncertain + excluded.uncertain`,
        ),
        insertPosting: db.prepare<[string, string, number, number, string, number]>(
          'INSERT INTO term_postings (entity, term, weight, size, urn, doc) VALUES (?, ?, ?, ?, ?, ?)',
        ),
        deletePosting: db.prepare<[string, string, number, number, string]>(
          'DELETE FROM term_postings WHERE entity = ? AND term = ? AND weight = ? AND size = ? AND urn = ?',
        ),
        addToGroup: db.prepare<[string, string, number, number]>(
          `INSERT INTO term_groups (entity, term, weight, size, visible) VALUES (?, ?, ?, ?, 1)
           ON CONFLICT (entity, term, weight, size) DO UPDATE SET visible = visible + 1`,
        ),
        dropLastOfGroup: db.prepare<[string, string, number, number]>(
          'DELETE FROM term_groups WHERE entity = ? AND term = ? AND weight = ? AND size = ? AND visible = 1',
        ),
        removeFromGroup: db.prepare<[string, string, number, number]>(
          'UPDATE term_groups SET visible = visible - 1 WHERE entity = ? AND term = ? AND weight = ? AND size = ?',
        ),
        termGroups: db.prepare<[string, string], TermGroup>(
          'SELECT weight, size, visible FROM term_groups WHERE entity = ? AND term = ?',
        ),
        groupPage: db.prepare<[string, string, number, number, number, number], PageRow>(
          `SELECT doc AS id, urn FROM term_postings WHERE entity = ? AND term = ? AND weight = ? AND size = ?
           ORDER BY urn LIMIT ? OFFSET ?`,
        ),
        classPage: db.prepare<[string, string, string, number, number], PageRow>(
          `SELECT doc AS id, urn FROM term_postings
           WHERE entity = ? AND term = ? AND (weight, size) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))
           ORDER BY urn LIMIT ? OFFSET ?`,
        ),
        dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
        readMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE name = ?'),
        writeMeta: db.prepare<[string, string]>(
          'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        ),
      };
      this.openDerived(rebuild);
    } catch (error) {
      db.close();
      throw error;
    }
    this.writeTransaction = db.transaction((changes: readonly DocumentWrite[]): void => {
      for (const change of changes) {
        if ('put' in change) this.putDocument(change.put);
        else this.removeDocument(change.remove);
      }
    });
  }

  documents(urns: readonly string[]): Promise<Map<string, SearchDocument>> {
    return settle(() => {
      const found = new Map<string, SearchDocument>();
      for (const urn of urns) {
        const row = this.statements.documentByUrn.get(urn);
        if (row !== undefined) found.set(urn, toDocument(row));
      }
      return found;
    });
  }

  write(changes: readonly DocumentWrite[]): Promise<void> {
    return settle(() => {
      for (const change of changes) {
        if (!('put' in change)) continue;
        const { urn, entityType } = change.put;
        if (this.schema.entity(entityType) === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);
        if (!urn.startsWith(`urn:li:${entityType}:`)) {
          throw new ValidationError(`The document of ${urn} is not of entity type ${entityType}`);
        }
      }
      this.writeTransaction.immediate(changes);
      for (const change of changes) {
        const entityType = 'put' in change ? change.put.entityType : /^urn:li:([^:]+):/.exec(change.remove)?.[1];
        if (entityType === undefined) this.results?.clear();
        else this.generations.set(entityType, (this.generations.get(entityType) ?? 0) + 1);
      }
    });
  }

  search(request: SearchRequest): Promise<SearchPage> {
    return settle(() => {
      const entity = this.entity(request.entityType);
      checkPaging(request.start, request.count, MAX_PAGE_SIZE, 'count');
      const query = parseSearchQuery(request.input, entity);
      const filter = resolveFilter(request.filter, entity);
      const fts = this.ftsTable(entity.entityType);
      const key = JSON.stringify([entity.entityType, request.input, filter, request.start, request.count]);
      const generation = this.keptPagesGeneration(entity.entityType);
      const kept = this.results?.get(key);
      if (kept?.generation === generation) return kept.page;
      const page = this.db
        .transaction(() => {
          const found =
            this.termListHits(entity, fts, query, filter, request) ??
            this.queryHits(entity, fts, query, filter, request);
          return {
            total: found.total,
            hits: found.page.map(({ id, urn }) => {
              const row = this.statements.documentById.get(id);
              const fields = row === undefined ? {} : documentFields(toDocument(row));
              return { urn, matchedFields: matchedFields(fields, query, entity) };
            }),
            facets: this.facets(entity, found.hits, found.total, filter),
          };
        })
        .deferred();
      if (page.hits.length <= MAX_CACHED_HITS) this.results?.set(key, { generation, page });
      return page;
    });
  }

  browse(request: BrowseRequest): Promise<BrowsePage> {
    return settle(() => {
      const entity = this.entity(request.entityType);
      checkPaging(request.start, request.limit, MAX_PAGE_SIZE, 'limit');
      const filter = resolveFilter(request.filter, entity);
      const path = normalizeBrowsePath(request.path);
      const visible = visibility(filter, 'b.doc', 'b.removed', undefined, this.driverOf);
      return this.db
        .transaction(() => {
          const scope = `FROM browse_paths b WHERE b.entity = ? AND b.prefix = ? AND ${visible.sql}`;
          const params = [entity.entityType, path, ...visible.params];
          // Rows are unique per (document, prefix, kind, next): plain counts count documents.
          const groups = this.prepared(
            `SELECT next AS name, COUNT(*) AS count ${scope} AND b.kind = ${BrowseRowKind.group}
             GROUP BY next ORDER BY count DESC, name LIMIT ${MAX_PAGE_SIZE}`,
          ).all(...params) as { name: string; count: number }[];
          const { total } = this.prepared(`SELECT COUNT(*) AS total ${scope} AND b.kind = ${BrowseRowKind.member}`).get(
            ...params,
          ) as { total: number };
          const { numEntities } = this.prepared(
            `SELECT COUNT(*) AS numEntities ${scope} AND b.kind = ${BrowseRowKind.leaf}`,
          ).get(...params) as { numEntities: number };
          const from = Math.max(request.start - groups.length, 0);
          const size = Math.min(Math.max(request.start + request.limit - groups.length, 0), request.limit);
          const entities =
            size === 0
              ? []
              : (this.prepared(
                  `SELECT b.urn AS urn ${scope} AND b.kind = ${BrowseRowKind.leaf} ORDER BY b.urn LIMIT ? OFFSET ?`,
                ).all(...params, size, from) as { urn: string }[]);
          const name = path.slice(path.lastIndexOf('/') + 1);
          return {
            path,
            totalNumEntities: total,
            numEntities,
            groups,
            entities: entities.map(({ urn }) => ({ urn, name })),
          };
        })
        .deferred();
    });
  }

  autocomplete(request: AutocompleteRequest): Promise<AutocompletePage> {
    return settle(() => {
      const entity = this.entity(request.entityType);
      checkPaging(0, request.limit, MAX_PAGE_SIZE, 'limit');
      const filter = resolveFilter(request.filter, entity);
      if (request.field !== undefined && entity.field(request.field) === undefined) {
        throw new ValidationError(`Unknown field ${request.field} for entity ${entity.entityType}`);
      }
      const prefix = autocompletePrefix(request.query);
      const visible = visibility(filter, 's.doc', 's.removed', undefined, this.driverOf);
      const fieldClause = request.field === undefined ? '' : 'AND s.field = ?';
      // Scanned in index order (key, then URN), so the first `limit` distinct documents end the scan.
      const statement = this.prepared(
        `SELECT s.doc AS doc, s.urn AS urn, s.value AS value FROM suggestions s
         WHERE s.entity = ? AND s.rank = ? AND s.key >= ? AND s.key < ? ${fieldClause} AND ${visible.sql}
         ORDER BY s.key, s.urn`,
      );
      return this.db
        .transaction(() => {
          const suggestions: string[] = [];
          const urns: string[] = [];
          const seen = new Set<number>();
          for (const rank of [0, 1]) {
            if (suggestions.length >= request.limit) break;
            const params = [
              entity.entityType,
              rank,
              prefix,
              `${prefix}\u{10FFFF}`,
              ...(request.field === undefined ? [] : [request.field]),
              ...visible.params,
            ];
            for (const row of statement.iterate(...params) as Iterable<{ doc: number; urn: string; value: string }>) {
              if (seen.has(row.doc)) continue;
              seen.add(row.doc);
              suggestions.push(row.value);
              urns.push(row.urn);
              if (suggestions.length >= request.limit) break;
            }
          }
          return { suggestions, urns };
        })
        .deferred();
    });
  }

  close(): Promise<void> {
    return settle(() => {
      this.results?.clear();
      if (this.db.open) this.db.close();
    });
  }

  // -------------------------------------------------------------------------------------------------------------------

  /**
   * The generation of the entity type's documents a kept page must hold to be served. Forgets every kept page when
   * another connection has committed since they were kept: its writes are not counted in {@link generations}. Read
   * before the search's snapshot is taken, so that a page's content is never older than the generation it is kept
   * under.
   */
  private keptPagesGeneration(entityType: string): number {
    if (this.results !== undefined) {
      const version = this.statements.dataVersion.get();
      if (version !== this.dataVersion) {
        this.results.clear();
        this.dataVersion = version;
      }
    }
    return this.generations.get(entityType) ?? 0;
  }

  /** Prepared statements of the queries built per request, by SQL text (their shapes repeat). */
  private prepared(sql: string): Database.Statement {
    let statement = this.statementCache.get(sql);
    if (statement === undefined) {
      if (this.statementCache.size >= 500) this.statementCache.clear();
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  }

  private entity(entityType: string): EntitySearchSchema {
    const entity = this.schema.entity(entityType);
    if (entity === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);
    return entity;
  }

  private ftsTable(entityType: string): FtsTable {
    const table = this.ftsTables.get(entityType);
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
      this.ftsTables.set(entity.entityType, table);
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
      for (const name of DERIVED_TABLE_NAMES) {
        this.db.exec(`DROP TABLE IF EXISTS ${name}`);
      }
    })();
    return true;
  }

  /** Creates the FTS tables and fills every derived table from `documents` when {@link prepareLayout} said so. */
  private openDerived(rebuild: boolean): void {
    const tables = [...this.ftsTables.values()];
    if (!rebuild) {
      for (const table of tables) this.prepareFts(table);
      return;
    }
    this.db.transaction(() => {
      for (const table of tables) {
        this.db.exec(
          `CREATE VIRTUAL TABLE "${table.name}" USING fts5(${[...table.columns, FILTER_KEYS_COLUMN].map((column) => `"${column}"`).join(', ')},
           content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
        );
        this.prepareFts(table);
      }
      const rows = this.db.prepare<[], DocumentRow>('SELECT id, urn, entity, removed, aspects FROM documents').all();
      for (const row of rows) {
        if (this.schema.entity(row.entity) !== undefined) this.deriveRows(row.id, toDocument(row));
      }
      this.statements.writeMeta.run('layout', this.layout);
    })();
  }

  private prepareFts(table: FtsTable): void {
    const columns = [...table.columns, FILTER_KEYS_COLUMN];
    const placeholders = columns.map(() => '?').join(', ');
    const names = columns.map((column) => `"${column}"`).join(', ');
    table.insert = this.prepared(`INSERT INTO "${table.name}" (rowid, ${names}) VALUES (?, ${placeholders})`);
    table.remove = this.prepared(`DELETE FROM "${table.name}" WHERE rowid = ?`);
    table.totals = this.prepared(`SELECT block FROM "${table.name}_data" WHERE id = 1`);
  }

  private putDocument(document: SearchDocument): void {
    const fields = documentFields(document);
    const removed = fields[REMOVED_FIELD]?.includes(true) === true;
    const existing = this.statements.documentByUrn.get(document.urn);
    if (existing !== undefined) this.clearDerived(existing);
    const row = this.statements.upsertDocument.get(
      document.urn,
      document.entityType,
      removed ? 1 : 0,
      JSON.stringify(document.aspects),
    );
    if (row === undefined) throw new Error(`Storing the search document of ${document.urn} returned no id`);
    this.deriveRows(row.id, document);
  }

  /** Writes every derived row of a stored document. */
  private deriveRows(id: number, document: SearchDocument): void {
    const entity = this.entity(document.entityType);
    const fields = documentFields(document);
    const removed = fields[REMOVED_FIELD]?.includes(true) === true ? 1 : 0;
    for (const [name, values] of Object.entries(fields)) {
      for (const value of values) {
        this.statements.insertFieldValue.run(id, name, valueText(value), valueNumber(value) ?? null);
      }
    }
    for (const facet of entity.facets) {
      for (const value of fields[facet.name] ?? []) {
        const text = valueText(value);
        const facetId = this.statements.facetId.get(entity.entityType, facet.name, text, removed === 0 ? 1 : 0);
        if (facetId === undefined)
          throw new Error(`Numbering the ${facet.name} value of ${document.urn} returned no id`);
        this.statements.insertDocumentFacet.run(id, facetId);
      }
    }
    const fts = this.ftsTable(entity.entityType);
    const text = ftsText(fields, fts);
    fts.insert?.run(id, ...text.columns, text.filterKeys);
    const { terms } = text;
    // Only visible documents are in the lists, so only theirs can be wrong there.
    this.statements.countDocument.run(entity.entityType, 1 - removed, removed === 0 && !terms.certain ? 1 : 0);
    if (removed === 0) {
      for (const [term, weight] of terms.weights) {
        this.statements.insertPosting.run(entity.entityType, term, weight, terms.size, document.urn, id);
        this.statements.addToGroup.run(entity.entityType, term, weight, terms.size);
      }
    }
    // Each (prefix, kind, next) once per document, so that plain counts count documents.
    const rows = new Map<string, [string, BrowseRowKind, string | null]>();
    for (const path of browsePathsOf(fields)) {
      const segments = path.split('/').slice(1);
      for (let depth = 0; depth <= segments.length; depth += 1) {
        const prefix = depth === 0 ? '' : `/${segments.slice(0, depth).join('/')}`;
        const next = segments[depth];
        rows.set(`${prefix}\u0000member`, [prefix, BrowseRowKind.member, null]);
        if (next === undefined) rows.set(`${prefix}\u0000leaf`, [prefix, BrowseRowKind.leaf, null]);
        else rows.set(`${prefix}\u0000group\u0000${next}`, [prefix, BrowseRowKind.group, next]);
      }
    }
    for (const [prefix, kind, next] of rows.values()) {
      this.statements.insertBrowsePath.run(id, entity.entityType, removed, prefix, kind, next, document.urn);
    }
    for (const field of entity.autocompleteFields) {
      for (const value of fields[field.name] ?? []) {
        const text = valueText(value);
        autocompleteKeys(text).forEach((key, index) => {
          this.statements.insertSuggestion.run(
            id,
            entity.entityType,
            removed,
            index === 0 ? 0 : 1,
            key,
            field.name,
            text,
            document.urn,
          );
        });
      }
    }
  }

  private removeDocument(urn: string): void {
    const existing = this.statements.documentByUrn.get(urn);
    if (existing === undefined) return;
    this.clearDerived(existing);
    this.statements.deleteDocument.run(existing.id);
  }

  private clearDerived(row: DocumentRow): void {
    const fts = this.ftsTables.get(row.entity);
    if (fts !== undefined) {
      // What the document added to the counts and term lists, from the document as it was stored.
      const { terms } = ftsText(documentFields(toDocument(row)), fts);
      this.statements.countDocument.run(row.entity, row.removed - 1, row.removed === 0 && !terms.certain ? -1 : 0);
      if (row.removed === 0) {
        for (const facet of this.statements.facetsOf.all(row.id)) this.statements.uncountFacet.run(facet);
        for (const [term, weight] of terms.weights) {
          this.statements.deletePosting.run(row.entity, term, weight, terms.size, row.urn);
          if (this.statements.dropLastOfGroup.run(row.entity, term, weight, terms.size).changes === 0) {
            this.statements.removeFromGroup.run(row.entity, term, weight, terms.size);
          }
        }
      }
    }
    this.statements.deleteDocumentFacets.run(row.id);
    this.statements.deleteFieldValues.run(row.id);
    this.statements.deleteBrowsePaths.run(row.id);
    this.statements.deleteSuggestions.run(row.id);
    fts?.remove?.run(row.id);
  }

  /**
   * A search of plain words (one, or several ANDed) without a filter, answered from the ranked term lists. Undefined
   * when the search is of another kind; when a visible document of the entity type has words FTS5 may count
   * otherwise than the lists (not {@link TermListEntry.certain}); or, for several words, when FTS5 ranks the matches as fast (few of them) or the
   * lists' combinations would cost more.
   */
  private termListHits(
    entity: EntitySearchSchema,
    fts: FtsTable,
    query: QueryNode,
    filter: Filter,
    request: SearchRequest,
  ): FoundHits | undefined {
    const words = plainWords(query);
    if (!this.termLists || filter.length > 0 || words === undefined || entity.defaultFields.length === 0) {
      return undefined;
    }
    if ((this.statements.entityCounts.get(entity.entityType)?.uncertain ?? 0) > 0) return undefined;
    const record = fts.totals?.get() as { block: Uint8Array } | undefined;
    const totals = record === undefined ? undefined : ftsTotals(record.block);
    if (totals === undefined) return undefined;
    const distinct = [...new Set(words)];
    const [word] = distinct;
    if (distinct.length === 1 && word !== undefined) return this.wordHits(entity, word, totals, request);
    return this.wordsHits(entity, fts, query, words, distinct, totals, request);
  }

  /** One word: its groups of visible documents in rank order, the page read from the groups it spans. */
  private wordHits(entity: EntitySearchSchema, word: string, totals: FtsTotals, request: SearchRequest): FoundHits {
    const hits = {
      unranked: 'SELECT doc AS id FROM term_postings WHERE entity = ? AND term = ?',
      params: [entity.entityType, word],
    };
    const classes = scoreClasses(this.statements.termGroups.all(entity.entityType, word), totals.averageSize);
    const total = classes.reduce((sum, { visible }) => sum + visible, 0);
    const page: PageRow[] = [];
    let skip = request.start;
    for (const { groups, visible } of classes) {
      const wanted = request.count - page.length;
      if (wanted <= 0) break;
      if (skip >= visible) {
        skip -= visible;
        continue;
      }
      const [only] = groups;
      const rows =
        groups.length === 1 && only !== undefined
          ? this.statements.groupPage.all(entity.entityType, word, only.weight, only.size, wanted, skip)
          : this.statements.classPage.all(
              entity.entityType,
              word,
              JSON.stringify(groups.map((group) => [group.weight, group.size])),
              wanted,
              skip,
            );
      page.push(...rows);
      skip = 0;
    }
    return { total, page, hits };
  }

  /**
   * Several words, ANDed: FTS5 counts the matches (and lists them for facets); the page is read from the
   * combinations of the words' groups in rank order, each walked along its smallest group in URN order and checked
   * against the others' lists, until the page is full. Undefined (FTS5 ranks) when the matches are few, or when the
   * walk passes {@link WALK_BUDGET} documents without filling the page.
   */
  private wordsHits(
    entity: EntitySearchSchema,
    fts: FtsTable,
    query: QueryNode,
    words: readonly string[],
    distinct: readonly string[],
    totals: FtsTotals,
    request: SearchRequest,
  ): FoundHits | undefined {
    const hits = this.hitsQuery(entity, fts, query, []);
    const { total } = this.prepared(`SELECT COUNT(*) AS total FROM (${hits.unranked})`).get(...hits.params) as {
      total: number;
    };
    if (total <= FTS_RANKED_HITS) return undefined;
    const groups = distinct.map((word) => this.statements.termGroups.all(entity.entityType, word));
    // FTS5 counts the documents holding a word, for its idf, over every row: the lists' visible ones, and the removed
    // (few; FTS5 intersects their key's short list with the word's).
    const removedKey = filterKeysExpression(valueKey(REMOVED_FIELD, 'true'));
    const idfs = distinct.map((word, at) => {
      const phrase = ftsExpression({ kind: 'words', words: [word], prefix: false }, entity);
      const { removed } = this.prepared(
        `SELECT COUNT(*) AS removed FROM "${fts.name}" WHERE "${fts.name}" MATCH ?`,
      ).get(`(${phrase}) AND (${removedKey})`) as { removed: number };
      const visible = (groups[at] ?? []).reduce((sum, group) => sum + group.visible, 0);
      return inverseDocumentFrequency(totals.rows, visible + removed);
    });
    const classes = combinationClasses(
      groups,
      words.map((word) => distinct.indexOf(word)),
      idfs,
      totals.averageSize,
      MAX_COMBINATIONS,
    );
    if (classes === undefined) return undefined;
    const wanted = request.count === 0 ? 0 : Math.min(request.start + request.count, total);
    const found: PageRow[] = [];
    const budget = { left: WALK_BUDGET };
    for (const combinations of classes) {
      if (found.length >= wanted) break;
      const members: PageRow[] = [];
      for (const combination of combinations) {
        const rows = this.combinationRows(entity.entityType, distinct, combination, wanted - found.length, budget);
        if (rows === undefined) return undefined;
        members.push(...rows);
      }
      // Documents scoring the same are listed by URN, in SQLite's order (UTF-8 bytes).
      if (combinations.length > 1) members.sort((a, b) => Buffer.compare(Buffer.from(a.urn), Buffer.from(b.urn)));
      found.push(...members.slice(0, wanted - found.length));
    }
    return { total, page: found.slice(request.start), hits };
  }

  /**
   * Up to `wanted` documents of one combination, in URN order: its smallest group walked in chunks, each document
   * checked against the other words' groups. Undefined when the walk would pass the budget.
   */
  private combinationRows(
    entityType: string,
    words: readonly string[],
    combination: Combination,
    wanted: number,
    budget: { left: number },
  ): PageRow[] | undefined {
    const driver = combination.reduce((smallest, group) => (group.visible < smallest.visible ? group : smallest));
    const driverWord = words[combination.indexOf(driver)];
    const checked = combination.flatMap((group, at) => (group === driver ? [] : [{ group, word: words[at] }]));
    const statement = this.prepared(
      `SELECT p.doc AS id, p.urn AS urn,
              ${checked
                .map(
                  () => `EXISTS (SELECT 1 FROM term_postings WHERE entity = p.entity AND term = ? AND weight = ?
                           AND size = p.size AND urn = p.urn)`,
                )
                .join(' AND ')} AS held
       FROM term_postings p
       WHERE p.entity = ? AND p.term = ? AND p.weight = ? AND p.size = ? AND p.urn > ?
       ORDER BY p.urn LIMIT ?`,
    );
    const rows: PageRow[] = [];
    let after = '';
    let chunk = Math.max(wanted, 16);
    for (;;) {
      if (budget.left <= 0) return undefined;
      const size = Math.min(chunk, budget.left);
      const walked = statement.all(
        ...checked.flatMap(({ group, word }) => [word, group.weight]),
        entityType,
        driverWord,
        driver.weight,
        driver.size,
        after,
        size,
      ) as (PageRow & { held: number })[];
      budget.left -= walked.length;
      for (const { id, urn, held } of walked) {
        if (held === 1) rows.push({ id, urn });
        if (rows.length >= wanted) return rows;
      }
      const last = walked[walked.length - 1];
      if (walked.length < size || last === undefined) return rows;
      after = last.urn;
      chunk = Math.min(chunk * 4, 4096);
    }
  }

  /** The hits of any search, from FTS5 (ranked by `bm25`) or, for queries FTS5 cannot answer, unranked by URN. */
  private queryHits(
    entity: EntitySearchSchema,
    fts: FtsTable,
    query: QueryNode,
    filter: Filter,
    request: SearchRequest,
  ): FoundHits {
    let hits = this.hitsQuery(entity, fts, query, filter);
    if (filter.length > 0) {
      // A filtered search evaluates its filter's id sets once, into this connection's temporary table, and
      // counts, pages and facets from there (each statement would otherwise build them again).
      this.prepared('DELETE FROM temp.search_hits').run();
      this.prepared(`INSERT INTO temp.search_hits (id, score) ${hits.ranked}`).run(...hits.params);
      hits = {
        unranked: 'SELECT id FROM temp.search_hits',
        ranked: 'SELECT id, score FROM temp.search_hits',
        // CROSS JOIN: the hits drive (the temporary table has no statistics to tell the planner so).
        page: `SELECT h.id AS id, d.urn AS urn FROM temp.search_hits h CROSS JOIN documents d ON d.id = h.id
               ORDER BY h.score, d.urn`,
        params: [],
      };
    }
    const { total } = this.prepared(`SELECT COUNT(*) AS total FROM (${hits.unranked})`).get(...hits.params) as {
      total: number;
    };
    const page =
      request.count === 0 || total === 0
        ? []
        : (this.prepared(`${hits.page} LIMIT ? OFFSET ?`).all(
            ...hits.params,
            request.count,
            request.start,
          ) as PageRow[]);
    return { total, page, hits };
  }

  /**
   * The criterion of an AND group to evaluate as a set (the others are checked per row): of several positive
   * criteria, the one matching the fewest documents, counted up to {@link DRIVER_COUNT_CAP} from the `(field, value)`
   * index — among those the index answers by a range, since counting any other condition costs as much as building
   * its set.
   */
  private readonly driverOf = (group: readonly Criterion[]): Criterion | undefined => {
    const positives = group.filter(isPositive);
    const ranged = positives.filter(isIndexRange);
    if (positives.length < 2 || ranged.length === 0) return positives[0];
    let driver: Criterion | undefined;
    let fewest = Infinity;
    for (const criterion of ranged) {
      const rows = valuesCondition(criterion);
      const { count } = this.prepared(
        `SELECT COUNT(*) AS count FROM (SELECT 1 FROM field_values WHERE ${rows.sql} LIMIT ${DRIVER_COUNT_CAP})`,
      ).get(...rows.params) as { count: number };
      if (count < fewest) {
        driver = criterion;
        fewest = count;
      }
    }
    return driver;
  };

  /**
   * The documents of the entity matching the query and the filter, as three statements sharing their parameters:
   * `unranked` selects their ids (for counting and facets), `page` their ids and URNs in rank order, ties by URN.
   */
  private hitsQuery(entity: EntitySearchSchema, fts: FtsTable, query: QueryNode, filter: Filter): HitsQuery {
    const expression = ftsExpression(query, entity);
    if (expression !== undefined) {
      const everything = filter.length === 0 || filter.some((group) => group.length === 0);
      const keyed = everything ? undefined : keyedFilter(filter);
      let where: string;
      let params: unknown[];
      if (everything || keyed !== undefined) {
        // The whole search is one full-text expression: FTS5 intersects the filter keys' document lists with the
        // text's, skipping through them, and scores only what is left.
        const hidden = namesRemoved(filter) ? undefined : filterKeysExpression(valueKey(REMOVED_FIELD, 'true'));
        const matched = keyed === undefined ? `(${expression})` : `((${expression}) AND (${keyed}))`;
        where = `FROM "${fts.name}" f WHERE "${fts.name}" MATCH ?`;
        params = [hidden === undefined ? matched : `${matched} NOT ${hidden}`];
      } else {
        // The FTS table holds only this entity's documents: visibility and the filter are conditions on its rowid.
        // `+` keeps SQLite from probing the FTS index once per filtered rowid (a full-text query each): the match runs
        // once and the conditions filter its rows.
        const visible = visibility(filter, '+f.rowid', undefined, entity.entityType, this.driverOf);
        where = `FROM "${fts.name}" f WHERE "${fts.name}" MATCH ? AND ${visible.sql}`;
        params = [expression, ...visible.params];
      }
      const score = `bm25("${fts.name}", ${fts.weights.join(', ')})`;
      return {
        unranked: `SELECT f.rowid AS id ${where}`,
        ranked: `SELECT f.rowid AS id, ${score} AS score ${where}`,
        page: `SELECT h.id AS id, d.urn AS urn FROM (SELECT f.rowid AS id, ${score} AS score ${where}) h
               JOIN documents d ON d.id = h.id ORDER BY h.score, d.urn`,
        params,
      };
    }
    // Unranked (every score is 0): in URN order, which the documents index holds.
    const visible = visibility(filter, 'd.id', 'd.removed', undefined, this.driverOf);
    const condition = conditionSql(query, entity, fts);
    const where = `FROM documents d WHERE d.entity = ? AND ${visible.sql} AND ${condition.sql}`;
    return {
      unranked: `SELECT d.id AS id ${where}`,
      ranked: `SELECT d.id AS id, 0 AS score ${where}`,
      page: `SELECT d.id AS id, d.urn AS urn ${where} ORDER BY d.urn`,
      params: [entity.entityType, ...visible.params, ...condition.params],
    };
  }

  /**
   * The facets of the hits. Without a filter, when the hits are most of the entity's visible documents, the counts
   * are the entity's totals (kept in `facet_counts`) less those of the few visible documents that are not hits; else
   * they are counted over the hits. Both are exact.
   */
  private facets(entity: EntitySearchSchema, hits: HitSet, total: number, filter: Filter): FacetResult[] {
    if (entity.facets.length === 0) return [];
    const names = JSON.stringify(entity.facets.map((facet) => facet.name));
    const counts = new Map<string, Map<string, number>>();
    const add = (field: string, value: string, count: number) => {
      const values = counts.get(field) ?? new Map<string, number>();
      values.set(value, (values.get(value) ?? 0) + count);
      counts.set(field, values);
    };
    if (total > 0) {
      const visible = filter.length === 0 ? (this.statements.entityCounts.get(entity.entityType)?.visible ?? 0) : 0;
      if (filter.length === 0 && total * 2 > visible && total <= visible) {
        const totals = this.prepared(
          `SELECT field, value, visible AS count FROM facets
           WHERE entity = ? AND field IN (SELECT value FROM json_each(?)) AND visible > 0`,
        ).all(entity.entityType, names) as { field: string; value: string; count: number }[];
        for (const row of totals) add(row.field, row.value, row.count);
        const missed =
          total === visible
            ? []
            : (this.prepared(
                `SELECT k.field AS field, k.value AS value, c.count AS count
                 FROM (SELECT f.facet AS facet, COUNT(*) AS count
                       FROM documents d CROSS JOIN document_facets f ON f.doc = d.id
                       WHERE d.entity = ? AND d.removed = 0 AND d.id NOT IN (${hits.unranked})
                       GROUP BY f.facet) c
                 CROSS JOIN facets k ON k.id = c.facet`,
              ).all(entity.entityType, ...hits.params) as { field: string; value: string; count: number }[]);
        for (const row of missed) add(row.field, row.value, -row.count);
      } else {
        // Grouped by facet id first: integers group far faster than (field, value) texts.
        const rows = this.prepared(
          `SELECT k.field AS field, k.value AS value, c.count AS count
           FROM (SELECT f.facet AS facet, COUNT(*) AS count
                 FROM (${hits.unranked}) h CROSS JOIN document_facets f ON f.doc = h.id
                 GROUP BY f.facet) c
           CROSS JOIN facets k ON k.id = c.facet`,
        ).all(...hits.params) as { field: string; value: string; count: number }[];
        for (const row of rows) add(row.field, row.value, row.count);
      }
    }
    return entity.facets.map((facet) => {
      const values = [...(counts.get(facet.name) ?? new Map<string, number>())]
        .filter(([, count]) => count > 0)
        .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, MAX_FACET_VALUES);
      return { field: facet.name, displayName: facet.displayName, counts: Object.fromEntries(values) };
    });
  }
}

/** A statement selecting the ids of a search's hits, with its parameters. */
interface HitSet {
  readonly unranked: string;
  readonly params: unknown[];
}

interface HitsQuery extends HitSet {
  /** Ids with their scores (lower ranks first). */
  readonly ranked: string;
  readonly page: string;
}

interface PageRow {
  readonly id: number;
  readonly urn: string;
}

/** A search's hits: how many, the requested page of them, and all of them as a statement (for facets). */
interface FoundHits {
  readonly total: number;
  readonly page: PageRow[];
  readonly hits: HitSet;
}

/** Per entity type: its visible documents, and how many of them are not {@link TermListEntry.certain}. */
interface EntityCounts {
  readonly visible: number;
  readonly uncertain: number;
}

interface FtsTable {
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

interface DocumentRow {
  readonly id: number;
  readonly urn: string;
  readonly entity: string;
  readonly removed: number;
  readonly aspects: string;
}

/** What a `browse_paths` row says about its document: under the prefix, a path through it to `next`, a path ending. */
const BrowseRowKind = { member: 0, group: 1, leaf: 2 } as const;
type BrowseRowKind = (typeof BrowseRowKind)[keyof typeof BrowseRowKind];

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

/** How much of the file reads may map (SQLite's default build allows up to 2 GB). */
const MMAP_BYTES = 2 ** 31;

/** Up to this many matches, FTS5 ranks a search of several words faster than the term lists' combinations. */
const FTS_RANKED_HITS = 1_000;

/** Beyond this many combinations of groups, the term lists give a search of several words to FTS5. */
const MAX_COMBINATIONS = 1_000;

/**
 * How many documents the combinations' walks of one search may read before giving it to FTS5 (combinations whose
 * words seldom meet cost a walk and find little).
 */
const WALK_BUDGET = 20_000;

/** How far {@link SqliteSearchIndex.driverOf} counts a criterion's documents: enough to tell a selective one. */
const DRIVER_COUNT_CAP = 10_000;

const DERIVED_TABLE_NAMES = [
  'field_values',
  'facets',
  'document_facets',
  'entity_counts',
  'term_postings',
  'term_groups',
  'browse_paths',
  'suggestions',
  // Of earlier layouts.
  'facet_counts',
];

/**
 * Bump when the derived tables' layout changes, or the analyzer's words: files written before are rebuilt from
 * `documents` on open. (A document's term list rows are found again by analyzing the document as stored.)
 */
const LAYOUT_VERSION = 8;

function toDocument(row: DocumentRow): SearchDocument {
  return { urn: row.urn, entityType: row.entity, aspects: JSON.parse(row.aspects) as SearchDocument['aspects'] };
}

/**
 * Between two values of a field: a token no query word can equal (a private-use character, which the analyzer never
 * emits), so that a phrase cannot match across values.
 */
const VALUE_BREAK = ' \uE000 ';

/** A document's FTS row: its text columns, its filter keys column, and what it adds to the term lists. */
function ftsText(
  fields: Readonly<Record<string, readonly FieldValue[]>>,
  fts: FtsTable,
): { columns: string[]; filterKeys: string; terms: TermListEntry } {
  const words: ColumnWords[] = fts.columns.map((column) =>
    (fields[column] ?? []).map((value) => analyze(valueText(value))),
  );
  const keys = filterKeys(fields);
  return {
    columns: words.map((values) => values.map((value) => value.join(' ')).join(VALUE_BREAK)),
    filterKeys: keys.join(' '),
    terms: termListEntry(words, fts.weights, fts.ranked, keys.length),
  };
}

/**
 * The FTS column of filter keys: one token per field value (`v<field hex>x<value hex>`), one per field present
 * (`p<field hex>`), and {@link EVERY_DOCUMENT_KEY}. Hexadecimal keeps each key one token, exact (no case folding or
 * splitting by the tokenizer can touch it) and unable to equal a word of the text columns' queries.
 */
const FILTER_KEYS_COLUMN = 'strata_filter_keys';

/** In every document's filter keys: the positive side of a filter group made only of exclusions. */
const EVERY_DOCUMENT_KEY = 'all';

/** Values longer than this get no filter key; a criterion naming one is evaluated on `field_values` instead. */
const MAX_KEYED_VALUE_LENGTH = 256;

function hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

function valueKey(field: string, value: string): string | undefined {
  return value.length > MAX_KEYED_VALUE_LENGTH ? undefined : `v${hex(field)}x${hex(value)}`;
}

function presenceKey(field: string): string {
  return `p${hex(field)}`;
}

function filterKeys(fields: Readonly<Record<string, readonly FieldValue[]>>): string[] {
  const keys = new Set<string>([EVERY_DOCUMENT_KEY]);
  for (const [field, values] of Object.entries(fields)) {
    if (values.length > 0) keys.add(presenceKey(field));
    for (const value of values) {
      const key = valueKey(field, valueText(value));
      if (key !== undefined) keys.add(key);
    }
  }
  return [...keys];
}

function filterKeysExpression(key: string | undefined): string | undefined {
  return key === undefined ? undefined : `{${FILTER_KEYS_COLUMN}} : "${key}"`;
}

/**
 * The filter as an FTS5 expression on the filter keys, when every criterion is an `EQUAL`/`IN` on values short enough
 * to be keyed, an `EXISTS` or an `IS_NULL`; else undefined (the filter takes the `field_values` path).
 */
function keyedFilter(filter: Filter): string | undefined {
  const groups: string[] = [];
  for (const group of filter) {
    const required: string[] = [];
    const excluded: string[] = [];
    for (const criterion of group) {
      let keys: (string | undefined)[];
      switch (criterion.condition) {
        case 'EQUAL':
        case 'IN':
          keys = criterion.values.map((value) => filterKeysExpression(valueKey(criterion.field, value)));
          break;
        case 'EXISTS':
        case 'IS_NULL':
          keys = [filterKeysExpression(presenceKey(criterion.field))];
          break;
        default:
          return undefined;
      }
      if (keys.length === 0 || keys.some((key) => key === undefined)) return undefined;
      (excludes(criterion) ? excluded : required).push(`(${keys.join(' OR ')})`);
    }
    const positive = required.length > 0 ? required.join(' AND ') : filterKeysExpression(EVERY_DOCUMENT_KEY);
    groups.push(excluded.length > 0 ? `((${positive}) NOT (${excluded.join(' OR ')}))` : `(${positive})`);
  }
  return groups.join(' OR ');
}

/**
 * The words of a query the term lists answer: one plain word of the default fields, or several ANDed (in query
 * order, repeats kept: FTS5 scores each). Undefined for any other query.
 */
function plainWords(query: QueryNode): string[] | undefined {
  const wordOf = (node: QueryNode): string | undefined =>
    node.kind === 'words' && node.field === undefined && !node.prefix && node.words.length === 1
      ? node.words.find(isPlainWord)
      : undefined;
  const nodes = query.kind === 'and' ? query.nodes : [query];
  const words = nodes.map(wordOf);
  return words.every((word): word is string => word !== undefined) ? words : undefined;
}

/**
 * The query as one FTS5 expression, when it is one: word and phrase terms on text fields combined with AND, OR and
 * AND NOT. Undefined for `*`, wildcards, non-text fields, and negations standing alone; those take the general path.
 */
function ftsExpression(node: QueryNode, entity: EntitySearchSchema): string | undefined {
  switch (node.kind) {
    case 'words': {
      const columns = node.field === undefined ? entity.defaultFields.map((field) => field.name) : [node.field];
      if (node.field !== undefined && entity.field(node.field)?.text !== true) return undefined;
      if (columns.length === 0) return undefined;
      return `{${columns.join(' ')}} : "${node.words.join(' ')}"${node.prefix ? ' *' : ''}`;
    }
    case 'and': {
      const positives: string[] = [];
      const negatives: string[] = [];
      for (const child of node.nodes) {
        const expression = ftsExpression(child.kind === 'not' ? child.node : child, entity);
        if (expression === undefined) return undefined;
        (child.kind === 'not' ? negatives : positives).push(`(${expression})`);
      }
      if (positives.length === 0) return undefined;
      const positive = positives.join(' AND ');
      return negatives.length === 0 ? positive : `(${positive}) NOT (${negatives.join(' OR ')})`;
    }
    case 'or': {
      const parts: string[] = [];
      for (const child of node.nodes) {
        if (child.kind === 'not') return undefined;
        const expression = ftsExpression(child, entity);
        if (expression === undefined) return undefined;
        parts.push(`(${expression})`);
      }
      return parts.join(' OR ');
    }
    default:
      return undefined;
  }
}

/** The query as a SQL condition on `d` (the general path: unranked). */
function conditionSql(node: QueryNode, entity: EntitySearchSchema, fts: FtsTable): Sql {
  switch (node.kind) {
    case 'all':
      return { sql: '1', params: [] };
    case 'words': {
      const expression = ftsExpression(node, entity);
      if (expression !== undefined) {
        return { sql: `d.id IN (SELECT rowid FROM "${fts.name}" WHERE "${fts.name}" MATCH ?)`, params: [expression] };
      }
      // A field that is not text (a browse path, say): compare its values word by word.
      const pattern = `*${node.words.join('*')}*`;
      return valuesGlob(node.field === undefined ? [] : [node.field], pattern);
    }
    case 'wildcard': {
      const fields = node.field === undefined ? entity.defaultFields.map((field) => field.name) : [node.field];
      return valuesGlob(fields, node.pattern);
    }
    case 'not': {
      const inner = conditionSql(node.node, entity, fts);
      return { sql: `NOT (${inner.sql})`, params: inner.params };
    }
    default: {
      const parts = node.nodes.map((child) => conditionSql(child, entity, fts));
      return {
        sql: `(${parts.map((part) => part.sql).join(node.kind === 'and' ? ' AND ' : ' OR ')})`,
        params: parts.flatMap((part) => part.params),
      };
    }
  }
}

function valuesGlob(fields: readonly string[], pattern: string): Sql {
  return {
    sql: `d.id IN (SELECT doc FROM field_values WHERE field IN (SELECT value FROM json_each(?)) AND strata_glob(?, value))`,
    params: [JSON.stringify(fields), pattern],
  };
}

/**
 * What a query may see, as a condition on a document id column: soft-deleted documents hidden unless a criterion names
 * `removed` — by a `removed` column when the table has one, else (`entityType` given) by excluding the entity's removed
 * documents — and the filter's OR of AND groups. A group whose criteria were all ignorable matches everything.
 *
 * In each group, the criterion `drives` chooses is written as a set (`id IN (…)`, built once) and the others as
 * per-row checks on the rows it lets through (`EXISTS`, by the document index of `field_values`): a group costs its
 * most selective criterion's set, not every criterion's.
 */
function visibility(
  filter: Filter,
  id: string,
  removedColumn: string | undefined,
  entityType?: string,
  drives: (group: readonly Criterion[]) => Criterion | undefined = firstPositive,
): Sql {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (!namesRemoved(filter)) {
    if (removedColumn !== undefined) parts.push(`${removedColumn} = 0`);
    else {
      parts.push(`${id} NOT IN (SELECT id FROM documents WHERE entity = ? AND removed = 1)`);
      params.push(entityType);
    }
  }
  if (filter.length > 0 && filter.every((group) => group.length > 0)) {
    const ored = filter.map((group) => {
      const driver = drives(group);
      // The driver first: SQLite checks a row's conditions in the order written.
      const ordered = driver === undefined ? group : [driver, ...group.filter((criterion) => criterion !== driver)];
      const anded = ordered.map((criterion) =>
        criterionSql(criterion, id, driver === undefined || criterion === driver ? 'set' : 'check'),
      );
      for (const criterion of anded) params.push(...criterion.params);
      return `(${anded.map((criterion) => criterion.sql).join(' AND ')})`;
    });
    parts.push(`(${ored.join(' OR ')})`);
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}

/**
 * Whether a criterion matches the documents *without* the `field_values` rows of {@link valuesCondition} (a negated
 * criterion, or `IS_NULL`) rather than those with them.
 */
function excludes(criterion: Criterion): boolean {
  return criterion.negated !== (criterion.condition === 'IS_NULL');
}

/** Criteria a document matches by having a value: the only ones that can bound a group's rows by themselves. */
function isPositive(criterion: Criterion): boolean {
  return !excludes(criterion);
}

function firstPositive(group: readonly Criterion[]): Criterion | undefined {
  return group.find(isPositive);
}

/** Conditions answered by a range of the `(field, value)` index, so that counting their documents is cheap. */
function isIndexRange(criterion: Criterion): boolean {
  return ['EQUAL', 'IN', 'EXISTS', 'IS_NULL'].includes(criterion.condition);
}

/**
 * One criterion as SQL on a document id: as a `set` (`id IN (SELECT doc …)`, evaluated once) or as a per-row `check`
 * (`EXISTS (… WHERE doc = id …)`); when it {@link excludes}, as `NOT IN` / `NOT EXISTS`.
 */
function criterionSql(criterion: Criterion, id: string, form: 'set' | 'check'): Sql {
  const rows = valuesCondition(criterion);
  const not = excludes(criterion) ? 'NOT ' : '';
  return form === 'set'
    ? { sql: `${id} ${not}IN (SELECT doc FROM field_values WHERE ${rows.sql})`, params: rows.params }
    : { sql: `${not}EXISTS (SELECT 1 FROM field_values WHERE doc = ${id} AND ${rows.sql})`, params: rows.params };
}

/** The `field_values` rows a criterion is about, as a condition on them (whether it wants them or their absence aside). */
function valuesCondition(criterion: Criterion): Sql {
  const anyOf = (make: (value: string) => Sql): Sql => {
    const parts = criterion.values.map(make);
    return {
      sql: `field = ? AND (${parts.map((part) => part.sql).join(' OR ')})`,
      params: [criterion.field, ...parts.flatMap((part) => part.params)],
    };
  };
  switch (criterion.condition) {
    case 'EQUAL':
    case 'IN':
      return {
        sql: 'field = ? AND value IN (SELECT value FROM json_each(?))',
        params: [criterion.field, JSON.stringify(criterion.values)],
      };
    case 'CONTAIN':
      return anyOf((value) => ({ sql: 'instr(strata_fold(value), ?) > 0', params: [fold(value)] }));
    case 'START_WITH':
      return anyOf((value) => ({
        sql: 'substr(strata_fold(value), 1, ?) = ?',
        params: [fold(value).length, fold(value)],
      }));
    case 'END_WITH':
      return anyOf((value) => ({
        sql: 'substr(strata_fold(value), -?) = ?',
        params: [fold(value).length, fold(value)],
      }));
    case 'GREATER_THAN':
      return anyOf((value) => comparison('>', value));
    case 'GREATER_THAN_OR_EQUAL_TO':
      return anyOf((value) => comparison('>=', value));
    case 'LESS_THAN':
      return anyOf((value) => comparison('<', value));
    case 'LESS_THAN_OR_EQUAL_TO':
      return anyOf((value) => comparison('<=', value));
    case 'EXISTS':
    case 'IS_NULL':
      return { sql: 'field = ?', params: [criterion.field] };
  }
}

function comparison(operator: string, value: string): Sql {
  const number = valueNumber(value);
  return number === undefined
    ? { sql: `value ${operator} ?`, params: [value] }
    : { sql: `number ${operator} ?`, params: [number] };
}
