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
        CREATE TABLE IF NOT EXISTS field_values (
          doc INTEGER NOT NULL,
          field TEXT NOT NULL,
          value TEXT NOT NULL,
          number REAL
        );
        CREATE INDEX IF NOT EXISTS field_values_field ON field_values (field, value, doc);
        CREATE INDEX IF NOT EXISTS field_values_doc ON field_values (doc, field, value);
        CREATE TABLE IF NOT EXISTS browse_paths (doc INTEGER NOT NULL, prefix TEXT NOT NULL, next TEXT);
        CREATE INDEX IF NOT EXISTS browse_paths_prefix ON browse_paths (prefix, next, doc);
        CREATE INDEX IF NOT EXISTS browse_paths_doc ON browse_paths (doc);
        CREATE TABLE IF NOT EXISTS suggestions (
          doc INTEGER NOT NULL,
          entity TEXT NOT NULL,
          rank INTEGER NOT NULL,
          key TEXT NOT NULL,
          field TEXT NOT NULL,
          value TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS suggestions_key ON suggestions (entity, rank, key, doc);
        CREATE INDEX IF NOT EXISTS suggestions_doc ON suggestions (doc);
      `);
      this.db = db;
      this.statements = {
        documentByUrn: db.prepare<[string], DocumentRow>(
          'SELECT id, urn, entity, aspects FROM documents WHERE urn = ?',
        ),
        documentById: db.prepare<[number], DocumentRow>('SELECT id, urn, entity, aspects FROM documents WHERE id = ?'),
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
        insertBrowsePath: db.prepare<[number, string, string | null]>(
          'INSERT INTO browse_paths (doc, prefix, next) VALUES (?, ?, ?)',
        ),
        deleteSuggestions: db.prepare<[number]>('DELETE FROM suggestions WHERE doc = ?'),
        insertSuggestion: db.prepare<[number, string, number, string, string, string]>(
          'INSERT INTO suggestions (doc, entity, rank, key, field, value) VALUES (?, ?, ?, ?, ?, ?)',
        ),
        readMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE name = ?'),
        writeMeta: db.prepare<[string, string]>(
          'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        ),
      };
      for (const entity of this.schema.entities()) this.ftsTables.set(entity.entityType, this.openFts(entity));
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
        if ('put' in change && this.schema.entity(change.put.entityType) === undefined) {
          throw new ValidationError(`Unknown entity: ${change.put.entityType}`);
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
          const hits = this.hitsQuery(entity, fts, query, filter);
          const total = (
            this.prepared(`SELECT COUNT(*) AS total FROM (${hits.sql})`).get(...hits.params) as {
              total: number;
            }
          ).total;
          const page =
            request.count === 0
              ? []
              : (this.prepared(`SELECT id, urn FROM (${hits.sql}) ORDER BY score, urn LIMIT ? OFFSET ?`).all(
                  ...hits.params,
                  request.count,
                  request.start,
                ) as { id: number; urn: string }[]);
          const facets = this.facets(entity, hits, total);
          return {
            total,
            hits: page.map(({ id, urn }) => {
              const row = this.statements.documentById.get(id);
              const fields = row === undefined ? {} : documentFields(toDocument(row));
              return { urn, matchedFields: matchedFields(fields, query, entity) };
            }),
            facets,
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
      const visible = this.visibility(entity, filter);
      return this.db
        .transaction(() => {
          const scope = `FROM browse_paths b JOIN documents d ON d.id = b.doc WHERE b.prefix = ? AND ${visible.sql}`;
          const params = [path, ...visible.params];
          const groups = this.prepared(
            `SELECT next AS name, COUNT(DISTINCT b.doc) AS count ${scope} AND b.next IS NOT NULL
               GROUP BY next ORDER BY count DESC, name LIMIT ${MAX_PAGE_SIZE}`,
          ).all(...params) as { name: string; count: number }[];
          const { total } = this.prepared(`SELECT COUNT(DISTINCT b.doc) AS total ${scope}`).get(...params) as {
            total: number;
          };
          const { numEntities } = this.prepared(
            `SELECT COUNT(DISTINCT b.doc) AS numEntities ${scope} AND b.next IS NULL`,
          ).get(...params) as { numEntities: number };
          const from = Math.max(request.start - groups.length, 0);
          const size = Math.min(Math.max(request.start + request.limit - groups.length, 0), request.limit);
          const entities =
            size === 0
              ? []
              : (this.prepared(
                  `SELECT DISTINCT d.urn AS urn ${scope} AND b.next IS NULL ORDER BY d.urn LIMIT ? OFFSET ?`,
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
      const visible = this.visibility(entity, filter);
      const fieldClause = request.field === undefined ? '' : 'AND s.field = ?';
      const statement = this.prepared(
        `SELECT s.doc AS doc, d.urn AS urn, s.value AS value
         FROM suggestions s JOIN documents d ON d.id = s.doc
         WHERE s.entity = ? AND s.rank = ? AND s.key >= ? AND s.key < ? ${fieldClause} AND ${visible.sql}
         ORDER BY s.key, d.urn`,
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

  /** Creates (or, when its columns changed, rebuilds from `documents`) the entity's FTS5 table. */
  private openFts(entity: EntitySearchSchema): FtsTable {
    const columns = entity.fields.filter((field) => field.text).map((field) => field.name);
    for (const column of columns) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(column)) {
        throw new Error(`Search field ${column} of ${entity.entityType} is not a plain identifier`);
      }
    }
    const name = `fts_${entity.entityType}`;
    const fingerprint = createHash('sha256').update(JSON.stringify(columns)).digest('hex');
    const table: FtsTable = {
      name,
      columns,
      weights: columns.map((column) => entity.field(column)?.boost ?? 1),
      insert: undefined,
      remove: undefined,
    };
    const known = this.statements.readMeta.get(`fts:${entity.entityType}`)?.value;
    const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);
    if (known !== fingerprint || exists === undefined) {
      this.db.transaction(() => {
        this.db.exec(`DROP TABLE IF EXISTS "${name}"`);
        this.db.exec(
          `CREATE VIRTUAL TABLE "${name}" USING fts5(${columns.map((column) => `"${column}"`).join(', ')},
           content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
        );
        this.prepareFts(table);
        const rows = this.db
          .prepare<[string], DocumentRow>('SELECT id, urn, entity, aspects FROM documents WHERE entity = ?')
          .iterate(entity.entityType);
        for (const row of rows) table.insert?.run(row.id, ...ftsColumns(documentFields(toDocument(row)), columns));
        this.statements.writeMeta.run(`fts:${entity.entityType}`, fingerprint);
      })();
    } else {
      this.prepareFts(table);
    }
    return table;
  }

  private prepareFts(table: FtsTable): void {
    const placeholders = table.columns.map(() => '?').join(', ');
    const names = table.columns.map((column) => `"${column}"`).join(', ');
    table.insert = this.prepared(`INSERT INTO "${table.name}" (rowid, ${names}) VALUES (?, ${placeholders})`);
    table.remove = this.prepared(`DELETE FROM "${table.name}" WHERE rowid = ?`);
  }

  private putDocument(document: SearchDocument): void {
    const entity = this.entity(document.entityType);
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
    const id = row.id;
    for (const [name, values] of Object.entries(fields)) {
      for (const value of values) {
        this.statements.insertFieldValue.run(id, name, valueText(value), valueNumber(value) ?? null);
      }
    }
    const fts = this.ftsTable(entity.entityType);
    fts.insert?.run(id, ...ftsColumns(fields, fts.columns));
    for (const path of browsePathsOf(fields)) {
      const segments = path.split('/').slice(1);
      for (let depth = 0; depth < segments.length; depth += 1) {
        const prefix = depth === 0 ? '' : `/${segments.slice(0, depth).join('/')}`;
        this.statements.insertBrowsePath.run(id, prefix, segments[depth] as string);
      }
      this.statements.insertBrowsePath.run(id, path, null);
    }
    for (const field of entity.autocompleteFields) {
      for (const value of fields[field.name] ?? []) {
        const text = valueText(value);
        autocompleteKeys(text).forEach((key, index) => {
          this.statements.insertSuggestion.run(id, entity.entityType, index === 0 ? 0 : 1, key, field.name, text);
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
    this.statements.deleteFieldValues.run(row.id);
    this.statements.deleteBrowsePaths.run(row.id);
    this.statements.deleteSuggestions.run(row.id);
    this.ftsTables.get(row.entity)?.remove?.run(row.id);
  }

  /** The visibility condition on `d`: the entity, soft-deleted documents hidden unless named, and the filter. */
  private visibility(entity: EntitySearchSchema, filter: Filter): Sql {
    const parts = ['d.entity = ?'];
    const params: unknown[] = [entity.entityType];
    if (!namesRemoved(filter)) parts.push('d.removed = 0');
    const groups = filter.filter((group) => group.length > 0);
    if (groups.length > 0 && groups.length === filter.length) {
      const ored = groups.map((group) => {
        const anded = group.map((criterion) => criterionSql(criterion));
        for (const criterion of anded) params.push(...criterion.params);
        return `(${anded.map((criterion) => criterion.sql).join(' AND ')})`;
      });
      parts.push(`(${ored.join(' OR ')})`);
    }
    // A group left empty (all its criteria ignorable) matches everything, so the filter as a whole does too.
    return { sql: parts.join(' AND '), params };
  }

  /** `SELECT id, urn, score` of every document matching the query and the filter. */
  private hitsQuery(entity: EntitySearchSchema, fts: FtsTable, query: QueryNode, filter: Filter): Sql {
    const visible = this.visibility(entity, filter);
    const expression = ftsExpression(query, entity);
    if (expression !== undefined) {
      const weights = fts.weights.join(', ');
      return {
        sql: `SELECT d.id AS id, d.urn AS urn, bm25("${fts.name}", ${weights}) AS score
              FROM "${fts.name}" f JOIN documents d ON d.id = f.rowid
              WHERE "${fts.name}" MATCH ? AND ${visible.sql}`,
        params: [expression, ...visible.params],
      };
    }
    const condition = conditionSql(query, entity, fts);
    return {
      sql: `SELECT d.id AS id, d.urn AS urn, 0 AS score FROM documents d WHERE ${visible.sql} AND ${condition.sql}`,
      params: [...visible.params, ...condition.params],
    };
  }

  private facets(entity: EntitySearchSchema, hits: Sql, total: number): FacetResult[] {
    if (entity.facets.length === 0) return [];
    const counts = new Map<string, { value: string; count: number }[]>();
    if (total > 0) {
      const names = entity.facets.map((facet) => facet.name);
      const rows = this.prepared(
        `SELECT v.field AS field, v.value AS value, COUNT(*) AS count
           FROM (${hits.sql}) h JOIN field_values v ON v.doc = h.id
           WHERE v.field IN (SELECT value FROM json_each(?))
           GROUP BY v.field, v.value`,
      ).all(...hits.params, JSON.stringify(names)) as { field: string; value: string; count: number }[];
      for (const row of rows) {
        const list = counts.get(row.field) ?? [];
        list.push({ value: row.value, count: row.count });
        counts.set(row.field, list);
      }
    }
    return entity.facets.map((facet) => {
      const values = (counts.get(facet.name) ?? [])
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .slice(0, MAX_FACET_VALUES);
      return {
        field: facet.name,
        displayName: facet.displayName,
        counts: Object.fromEntries(values.map(({ value, count }) => [value, count])),
      };
    });
  }
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
  readonly aspects: string;
}

function toDocument(row: DocumentRow): SearchDocument {
  return { urn: row.urn, entityType: row.entity, aspects: JSON.parse(row.aspects) as SearchDocument['aspects'] };
}

function ftsColumns(fields: Readonly<Record<string, readonly FieldValue[]>>, columns: readonly string[]): string[] {
  return columns.map((column) =>
    (fields[column] ?? []).map((value) => analyze(valueText(value)).join(' ')).join(' \n '),
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

function criterionSql(criterion: Criterion): Sql {
  const scope = (condition: string, params: unknown[]): Sql => ({
    sql: `d.id ${criterion.negated ? 'NOT IN' : 'IN'} (SELECT doc FROM field_values WHERE field = ?${condition})`,
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

/** Runs synchronous database work as a promise, so that a failure rejects instead of throwing at the caller. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => {
    resolve(work());
  });
}
