import type Database from 'better-sqlite3';
import { ValidationError } from '@strata/model';
import { closeDatabase, openDatabase } from '@strata/sqlite';

import { checkPaging, documentFields, MAX_PAGE_SIZE, normalizeBrowsePath, resolveFilter } from './search-documents';
import type {
  AutocompletePage,
  AutocompleteRequest,
  BrowsePage,
  BrowseRequest,
  Criterion,
  DocumentWrite,
  Filter,
  SearchDocument,
  SearchIndex,
  SearchPage,
  SearchRequest,
} from './search-index';
import { SearchPageCache } from './search-page-cache';
import { autocompletePrefix, fold, globMatches, matchedFields, parseSearchQuery, type QueryNode } from './search-query';
import type { EntitySearchSchema, SearchSchema } from './search-schema';
import { SqliteSearchFacets } from './sqlite-search-facets';
import {
  BrowseRowKind,
  DOCUMENT_COLUMNS,
  SqliteSearchLayout,
  toDocument,
  type DocumentRow,
  type FtsTable,
} from './sqlite-search-layout';
import { runSteps, SqliteSearchRows } from './sqlite-search-rows';
import { SteppedWrites } from './stepped-writes';
import { fewestRowsDriver, hitsQuery, visibility, type FoundHits, type PageRow } from './sqlite-search-sql';
import { TermListReader } from './term-list-reader';

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
 * The parts, each beside this file: `sqlite-search-layout.ts` creates the tables and rebuilds the derived ones;
 * `sqlite-search-rows.ts` writes a document's rows; `sqlite-search-sql.ts` turns queries and filters into SQL;
 * `term-list-reader.ts` reads pages from the term lists; `sqlite-search-facets.ts` counts facets;
 * `search-page-cache.ts` keeps answered pages. This class opens the connection and runs each request in one
 * transaction.
 *
 * Runs with `synchronous = NORMAL` (the index is rebuilt from the primary store if a power loss drops a write); each
 * write call is one `BEGIN IMMEDIATE` transaction and each query reads one snapshot. A write runs in steps that give the
 * event loop a turn every few milliseconds, so that one very large document does not stall its process; writes run one
 * after the other and queries wait for the write in progress, so none sees half of one.
 */
export class SqliteSearchIndex implements SearchIndex {
  readonly schema: SearchSchema;
  private readonly db: Database.Database;
  /** Writes one after the other, in steps; reads wait for the write in progress. */
  private readonly writes: SteppedWrites;
  private readonly statements;
  private readonly statementCache = new Map<string, Database.Statement>();
  private readonly layout: SqliteSearchLayout;
  private readonly rows: SqliteSearchRows;
  /** Reads search pages from the ranked term lists; none when the `termLists` option turns them off. */
  private readonly termLists: TermListReader | undefined;
  private readonly facets: SqliteSearchFacets;
  /** Search pages answered, by request. */
  private readonly pages: SearchPageCache;

  constructor(options: SqliteSearchIndexOptions) {
    this.schema = options.schema;
    this.pages = new SearchPageCache(options.resultCacheEntries ?? 256, () => this.statements.dataVersion.get());
    const db = openDatabase(options.path, { synchronous: 'NORMAL', busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    try {
      // Reads map the file instead of copying pages through SQLite's 2 MB page cache, which a search touching
      // thousands of documents' rows (URNs to order ties by, FTS5 doclists) outgrows: at 100,000 datasets, a filtered
      // search took half the time. SQLite caps the mapping at 2 GB; beyond, it reads as before.
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      db.function('strata_fold', { deterministic: true }, (value: unknown) => fold(String(value)));
      db.function('strata_glob', { deterministic: true }, (pattern: unknown, value: unknown) =>
        globMatches(String(pattern), String(value)) ? 1 : 0,
      );
      this.db = db;
      this.writes = new SteppedWrites(db);
      this.layout = new SqliteSearchLayout(db, this.schema);
      this.rows = new SqliteSearchRows(db, this.schema, this.layout);
      this.statements = {
        documentByUrn: db.prepare<[string], DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE urn = ?`),
        documentById: db.prepare<[number], DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = ?`),
        dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      };
      this.termLists = (options.termLists ?? true) ? new TermListReader(db, this.prepared) : undefined;
      this.facets = new SqliteSearchFacets(db, this.prepared);
      this.layout.openDerived(this.prepared, (id, document) => {
        runSteps(this.rows.deriveRows(id, document));
      });
    } catch (error) {
      closeDatabase(db);
      throw error;
    }
  }

  documents(urns: readonly string[]): Promise<Map<string, SearchDocument>> {
    return this.afterWrites(() => {
      const found = new Map<string, SearchDocument>();
      for (const urn of urns) {
        const row = this.statements.documentByUrn.get(urn);
        if (row !== undefined) found.set(urn, toDocument(row));
      }
      return found;
    });
  }

  write(changes: readonly DocumentWrite[]): Promise<void> {
    for (const change of changes) {
      if (!('put' in change)) continue;
      const { urn, entityType } = change.put;
      if (this.schema.entity(entityType) === undefined) {
        return Promise.reject(new ValidationError(`Unknown entity: ${entityType}`));
      }
      if (!urn.startsWith(`urn:li:${entityType}:`)) {
        return Promise.reject(new ValidationError(`The document of ${urn} is not of entity type ${entityType}`));
      }
    }
    return this.writes
      .write(() => this.writeSteps(changes))
      .then(() => {
        this.pages.written(changes);
      });
  }

  /**
   * Empties `documents` and every derived table in one write transaction, a table per step ({@link
   * SqliteSearchLayout.clear}); then forgets the kept pages. Other connections to the file see the commit in
   * `data_version` and forget theirs. The prepared statements stay valid: no table is dropped or created.
   */
  clear(): Promise<void> {
    return this.writes
      .write(() => this.layout.clear())
      .then(() => {
        this.pages.cleared();
      });
  }

  /** The statements of a write, in steps (see {@link SteppedWrites}). */
  private *writeSteps(changes: readonly DocumentWrite[]): Generator<void, void, undefined> {
    for (const change of changes) {
      yield* 'put' in change ? this.rows.putDocument(change.put) : this.rows.removeDocument(change.remove);
    }
  }

  /** Runs a read once the writes in progress have committed (see {@link SteppedWrites}). */
  private afterWrites<T>(read: () => T): Promise<T> {
    return this.writes.afterWrites(read);
  }

  search(request: SearchRequest): Promise<SearchPage> {
    return this.afterWrites(() => {
      const entity = this.entity(request.entityType);
      checkPaging(request.start, request.count, MAX_PAGE_SIZE, 'count');
      const query = parseSearchQuery(request.input, entity);
      const filter = resolveFilter(request.filter, entity);
      const fts = this.layout.ftsTable(entity.entityType);
      const key = JSON.stringify([entity.entityType, request.input, filter, request.start, request.count]);
      const generation = this.pages.generation(entity.entityType);
      const kept = this.pages.get(key, generation);
      if (kept !== undefined) return kept;
      const page = this.db
        .transaction(() => {
          const found =
            this.termLists?.hits(entity, fts, query, filter, request) ??
            this.queryHits(entity, fts, query, filter, request);
          return {
            total: found.total,
            hits: found.page.map(({ id, urn }) => {
              const row = this.statements.documentById.get(id);
              const fields = row === undefined ? {} : documentFields(toDocument(row));
              return { urn, matchedFields: matchedFields(fields, query, entity) };
            }),
            facets: this.facets.count(entity, found.hits, found.total, filter),
          };
        })
        .deferred();
      this.pages.keep(key, generation, page);
      return page;
    });
  }

  browse(request: BrowseRequest): Promise<BrowsePage> {
    return this.afterWrites(() => {
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
    return this.afterWrites(() => {
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
    return this.afterWrites(() => {
      this.pages.clear();
      closeDatabase(this.db);
    });
  }

  // -------------------------------------------------------------------------------------------------------------------

  /** Prepared statements of the queries built per request, by SQL text (their shapes repeat). */
  private readonly prepared = (sql: string): Database.Statement => {
    let statement = this.statementCache.get(sql);
    if (statement === undefined) {
      if (this.statementCache.size >= 500) this.statementCache.clear();
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  };

  private entity(entityType: string): EntitySearchSchema {
    const entity = this.schema.entity(entityType);
    if (entity === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);
    return entity;
  }

  /** The hits of any search, from FTS5 (ranked by `bm25`) or, for queries FTS5 cannot answer, unranked by URN. */
  private queryHits(
    entity: EntitySearchSchema,
    fts: FtsTable,
    query: QueryNode,
    filter: Filter,
    request: SearchRequest,
  ): FoundHits {
    let hits = hitsQuery(entity, fts, query, filter, this.driverOf);
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

  /** The criterion of an AND group to evaluate as a set: {@link fewestRowsDriver}, on this connection. */
  private readonly driverOf = (group: readonly Criterion[]): Criterion | undefined =>
    fewestRowsDriver(this.prepared, group);
}

/** How much of the file reads may map (SQLite's default build allows up to 2 GB). */
const MMAP_BYTES = 2 ** 31;
