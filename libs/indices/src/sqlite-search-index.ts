import { createHash } from 'node:crypto';

import Database from 'better-sqlite3';
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

/** Options of {@link SqliteSearchIndex}. */
export interface SqliteSearchIndexOptions {
  /** Database file; several instances may open the same file. `':memory:'` gives an index private to this instance. */
  readonly path: string;
  readonly schema: SearchSchema;
  /** How long a write waits for another connection's write lock before failing, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
}

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
 *   holding the {@link analyze}d words; ranked with `bm25` weighted by the fields' boosts. Its column set is
 *   fingerprinted in `meta`; when the schema changes, the table is rebuilt from `documents` on open.
 * - `browse_paths (doc, prefix, next)`: one row per (document, path prefix) with the next segment below it (NULL where
 *   a path ends), which answers a browse level with one index range.
 * - `suggestions (doc, entity, rank, key, field, value)`: the {@link autocompleteKeys} of every autocomplete field
 *   value (rank 0: the value's start; 1: a later word), scanned in key order for a prefix.
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

  constructor(options: SqliteSearchIndexOptions) {
    this.schema = options.schema;
    const db = new Database(options.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
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
        facetValuesOf: db.prepare<[number, string], { field: string; value: string }>(
          'SELECT field, value FROM field_values WHERE doc = ? AND field IN (SELECT value FROM json_each(?))',
        ),
        countFacet: db.prepare<[string, string, string, number]>(
          `INSERT INTO facet_counts (entity, field, value, count) VALUES (?, ?, ?, ?)
           ON CONFLICT (entity, field, value) DO UPDATE SET count = count + excluded.count`,
        ),
        dropEmptyFacet: db.prepare<[string, string, string]>(
          'DELETE FROM facet_counts WHERE entity = ? AND field = ? AND value = ? AND count <= 0',
        ),
        visibleCount: db.prepare<[string], { count: number }>(
          'SELECT COUNT(*) AS count FROM documents WHERE entity = ? AND removed = 0',
        ),
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
    });
  }

  search(request: SearchRequest): Promise<SearchPage> {
    return settle(() => {
      const entity = this.entity(request.entityType);
      checkPaging(request.start, request.count, MAX_PAGE_SIZE, 'count');
      const query = parseSearchQuery(request.input, entity);
      const filter = resolveFilter(request.filter, entity);
      const fts = this.ftsTable(entity.entityType);
      return this.db
        .transaction(() => {
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
              : (this.prepared(`${hits.page} LIMIT ? OFFSET ?`).all(...hits.params, request.count, request.start) as {
                  id: number;
                  urn: string;
                }[]);
          return {
            total,
            hits: page.map(({ id, urn }) => {
              const row = this.statements.documentById.get(id);
              const fields = row === undefined ? {} : documentFields(toDocument(row));
              return { urn, matchedFields: matchedFields(fields, query, entity) };
            }),
            facets: this.facets(entity, hits, total, filter),
          };
        })
        .deferred();
    });
  }

  browse(request: BrowseRequest): Promise<BrowsePage> {
    return settle(() => {
      const entity = this.entity(request.entityType);
      checkPaging(request.start, request.limit, MAX_PAGE_SIZE, 'limit');
      const filter = resolveFilter(request.filter, entity);
      const path = normalizeBrowsePath(request.path);
      const visible = visibility(filter, 'b.doc', 'b.removed');
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
      const visible = visibility(filter, 's.doc', 's.removed');
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
      if (this.db.open) this.db.close();
    });
  }

  // -------------------------------------------------------------------------------------------------------------------

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
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(column)) {
          throw new Error(`Search field ${column} of ${entity.entityType} is not a plain identifier`);
        }
      }
      const table: FtsTable = {
        name: `fts_${entity.entityType}`,
        columns,
        weights: columns.map((column) => entity.field(column)?.boost ?? 1),
        insert: undefined,
        remove: undefined,
      };
      this.ftsTables.set(entity.entityType, table);
      return table;
    });
    this.layout = createHash('sha256')
      .update(JSON.stringify([LAYOUT_VERSION, tables.map((table) => [table.name, table.columns])]))
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
      for (const name of ['field_values', 'facet_counts', 'browse_paths', 'suggestions']) {
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
          `CREATE VIRTUAL TABLE "${table.name}" USING fts5(${table.columns.map((column) => `"${column}"`).join(', ')},
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
    const placeholders = table.columns.map(() => '?').join(', ');
    const names = table.columns.map((column) => `"${column}"`).join(', ');
    table.insert = this.prepared(`INSERT INTO "${table.name}" (rowid, ${names}) VALUES (?, ${placeholders})`);
    table.remove = this.prepared(`DELETE FROM "${table.name}" WHERE rowid = ?`);
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
    if (removed === 0) this.countFacets(entity, fields, 1);
    const fts = this.ftsTable(entity.entityType);
    fts.insert?.run(id, ...ftsColumns(fields, fts.columns));
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

  /** Adds (`delta` 1) or takes away (-1) a visible document's facet values from the entity's totals. */
  private countFacets(
    entity: EntitySearchSchema,
    fields: Readonly<Record<string, readonly FieldValue[]>>,
    delta: number,
  ): void {
    for (const facet of entity.facets) {
      for (const value of fields[facet.name] ?? []) {
        this.statements.countFacet.run(entity.entityType, facet.name, valueText(value), delta);
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
    const entity = this.schema.entity(row.entity);
    if (entity !== undefined && row.removed === 0) {
      const names = JSON.stringify(entity.facets.map((facet) => facet.name));
      for (const { field, value } of this.statements.facetValuesOf.all(row.id, names)) {
        this.statements.countFacet.run(row.entity, field, value, -1);
        // Only the totals just decremented can have reached 0: one primary-key delete each, not a scan.
        this.statements.dropEmptyFacet.run(row.entity, field, value);
      }
    }
    this.statements.deleteFieldValues.run(row.id);
    this.statements.deleteBrowsePaths.run(row.id);
    this.statements.deleteSuggestions.run(row.id);
    this.ftsTables.get(row.entity)?.remove?.run(row.id);
  }

  /**
   * The documents of the entity matching the query and the filter, as three statements sharing their parameters:
   * `unranked` selects their ids (for counting and facets), `page` their ids and URNs in rank order, ties by URN.
   */
  private hitsQuery(entity: EntitySearchSchema, fts: FtsTable, query: QueryNode, filter: Filter): HitsQuery {
    const expression = ftsExpression(query, entity);
    if (expression !== undefined) {
      // The FTS table holds only this entity's documents: visibility and the filter are conditions on its rowid.
      // `+` keeps SQLite from probing the FTS index once per filtered rowid (a full-text query each): the match runs
      // once and the conditions filter its rows.
      const visible = visibility(filter, '+f.rowid', undefined, entity.entityType);
      const where = `FROM "${fts.name}" f WHERE "${fts.name}" MATCH ? AND ${visible.sql}`;
      const score = `bm25("${fts.name}", ${fts.weights.join(', ')})`;
      return {
        unranked: `SELECT f.rowid AS id ${where}`,
        ranked: `SELECT f.rowid AS id, ${score} AS score ${where}`,
        page: `SELECT h.id AS id, d.urn AS urn
               FROM (SELECT f.rowid AS id, bm25("${fts.name}", ${fts.weights.join(', ')}) AS score ${where}) h
               JOIN documents d ON d.id = h.id ORDER BY h.score, d.urn`,
        params: [expression, ...visible.params],
      };
    }
    // Unranked (every score is 0): in URN order, which the documents index holds.
    const visible = visibility(filter, 'd.id', 'd.removed');
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
  private facets(entity: EntitySearchSchema, hits: HitsQuery, total: number, filter: Filter): FacetResult[] {
    if (entity.facets.length === 0) return [];
    const names = JSON.stringify(entity.facets.map((facet) => facet.name));
    const counts = new Map<string, Map<string, number>>();
    const add = (field: string, value: string, count: number) => {
      const values = counts.get(field) ?? new Map<string, number>();
      values.set(value, (values.get(value) ?? 0) + count);
      counts.set(field, values);
    };
    if (total > 0) {
      const visible = filter.length === 0 ? (this.statements.visibleCount.get(entity.entityType)?.count ?? 0) : 0;
      if (filter.length === 0 && total * 2 > visible && total <= visible) {
        const totals = this.prepared(
          'SELECT field, value, count FROM facet_counts WHERE entity = ? AND field IN (SELECT value FROM json_each(?))',
        ).all(entity.entityType, names) as { field: string; value: string; count: number }[];
        for (const row of totals) add(row.field, row.value, row.count);
        const missed =
          total === visible
            ? []
            : (this.prepared(
                `SELECT v.field AS field, v.value AS value, COUNT(*) AS count
           FROM documents d JOIN field_values v ON v.doc = d.id
           WHERE d.entity = ? AND d.removed = 0 AND d.id NOT IN (${hits.unranked})
             AND v.field IN (SELECT value FROM json_each(?))
           GROUP BY v.field, v.value`,
              ).all(entity.entityType, ...hits.params, names) as { field: string; value: string; count: number }[]);
        for (const row of missed) add(row.field, row.value, -row.count);
      } else {
        const rows = this.prepared(
          `SELECT v.field AS field, v.value AS value, COUNT(*) AS count
           FROM (${hits.unranked}) h CROSS JOIN field_values v ON v.doc = h.id
           WHERE +v.field IN (SELECT value FROM json_each(?))
           GROUP BY v.field, v.value`,
        ).all(...hits.params, names) as { field: string; value: string; count: number }[];
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

interface HitsQuery {
  readonly unranked: string;
  /** Ids with their scores (lower ranks first). */
  readonly ranked: string;
  readonly page: string;
  readonly params: unknown[];
}

interface FtsTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly weights: readonly number[];
  insert: Database.Statement | undefined;
  remove: Database.Statement | undefined;
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
        CREATE TABLE IF NOT EXISTS facet_counts (
          entity TEXT NOT NULL,
          field TEXT NOT NULL,
          value TEXT NOT NULL,
          count INTEGER NOT NULL,
          PRIMARY KEY (entity, field, value)
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

/** Bump when the derived tables' layout changes: files written before are rebuilt from `documents` on open. */
const LAYOUT_VERSION = 4;

function toDocument(row: DocumentRow): SearchDocument {
  return { urn: row.urn, entityType: row.entity, aspects: JSON.parse(row.aspects) as SearchDocument['aspects'] };
}

/**
 * Between two values of a field: a token no query word can equal (a private-use character, which the analyzer never
 * emits), so that a phrase cannot match across values.
 */
const VALUE_BREAK = ' \uE000 ';

function ftsColumns(fields: Readonly<Record<string, readonly FieldValue[]>>, columns: readonly string[]): string[] {
  return columns.map((column) =>
    (fields[column] ?? []).map((value) => analyze(valueText(value)).join(' ')).join(VALUE_BREAK),
  );
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
 */
function visibility(filter: Filter, id: string, removedColumn: string | undefined, entityType?: string): Sql {
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
      const anded = group.map((criterion) => criterionSql(criterion, id));
      for (const criterion of anded) params.push(...criterion.params);
      return `(${anded.map((criterion) => criterion.sql).join(' AND ')})`;
    });
    parts.push(`(${ored.join(' OR ')})`);
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}

function criterionSql(criterion: Criterion, id: string): Sql {
  const scope = (condition: string, params: unknown[]): Sql => ({
    sql: `${id} ${criterion.negated ? 'NOT IN' : 'IN'} (SELECT doc FROM field_values WHERE field = ?${condition})`,
    params: [criterion.field, ...params],
  });
  const anyOf = (make: (value: string) => Sql): Sql => {
    const parts = criterion.values.map(make);
    return scope(
      ` AND (${parts.map((part) => part.sql).join(' OR ')})`,
      parts.flatMap((part) => part.params),
    );
  };
  switch (criterion.condition) {
    case 'EQUAL':
    case 'IN':
      return scope(' AND value IN (SELECT value FROM json_each(?))', [JSON.stringify(criterion.values)]);
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
      return scope('', []);
    case 'IS_NULL': {
      const exists = scope('', []);
      return { sql: `NOT (${exists.sql})`, params: exists.params };
    }
  }
}

function comparison(operator: string, value: string): Sql {
  const number = valueNumber(value);
  return number === undefined
    ? { sql: `value ${operator} ?`, params: [value] }
    : { sql: `number ${operator} ?`, params: [number] };
}
