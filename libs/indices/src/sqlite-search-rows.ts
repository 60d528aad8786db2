import type Database from 'better-sqlite3';
import { ValidationError } from '@strata/model';

import { filterKeys } from './filter-keys';
import { browsePathsOf, documentFields, valueNumber, valueText } from './search-documents';
import type { FieldValue, SearchDocument } from './search-index';
import { analyze, autocompleteKeys } from './search-query';
import { REMOVED_FIELD, type EntitySearchSchema, type SearchSchema } from './search-schema';
import {
  BrowseRowKind,
  DOCUMENT_COLUMNS,
  toDocument,
  type DocumentRow,
  type FtsTable,
  type SqliteSearchLayout,
} from './sqlite-search-layout';
import { termListEntry, type ColumnWords, type TermListEntry } from './term-lists';

/**
 * The rows a document write produces in {@link SqliteSearchIndex}: the document in `documents`, and every row derived
 * from it in the same transaction (field values, facet numbers and counts, the FTS row with its filter keys, the term
 * lists, browse rows, suggestions); and, when the document is replaced or removed, taking them out again.
 *
 * Each write is a generator that yields every {@link ROWS_PER_STEP} statements or so: the caller decides whether to run
 * it to the end at once ({@link runSteps}) or to give the event loop a turn between steps, so that one very large
 * document (100,000 owners: hundreds of thousands of rows) does not hold a process for the whole of its write.
 */
export class SqliteSearchRows {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly schema: SearchSchema,
    private readonly layout: SqliteSearchLayout,
  ) {
    this.statements = {
      documentByUrn: db.prepare<[string], DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE urn = ?`),
      upsertDocument: db.prepare<[string, string, number, string, number | null], { id: number }>(
        `INSERT INTO documents (urn, entity, removed, aspects, changed_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (urn) DO UPDATE SET entity = excluded.entity, removed = excluded.removed, aspects = excluded.aspects,
             changed_at = excluded.changed_at
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
    };
  }

  /** Stores a document, replacing the one of its URN and the rows derived from it. */
  *putDocument(document: SearchDocument): Generator<void, void, undefined> {
    const fields = documentFields(document);
    const removed = fields[REMOVED_FIELD]?.includes(true) === true;
    const existing = this.statements.documentByUrn.get(document.urn);
    if (existing !== undefined) yield* this.clearDerived(existing);
    const row = this.statements.upsertDocument.get(
      document.urn,
      document.entityType,
      removed ? 1 : 0,
      JSON.stringify(document.aspects),
      document.lastChangedAt !== undefined && Number.isFinite(document.lastChangedAt) ? document.lastChangedAt : null,
    );
    if (row === undefined) throw new Error(`Storing the search document of ${document.urn} returned no id`);
    yield* this.deriveRows(row.id, document);
  }

  /** Writes every derived row of a stored document. */
  *deriveRows(id: number, document: SearchDocument): Generator<void, void, undefined> {
    const entity = this.entity(document.entityType);
    const fields = documentFields(document);
    const removed = fields[REMOVED_FIELD]?.includes(true) === true ? 1 : 0;
    let written = 0;
    for (const [name, values] of Object.entries(fields)) {
      for (const value of values) {
        this.statements.insertFieldValue.run(id, name, valueText(value), valueNumber(value) ?? null);
        if (++written % ROWS_PER_STEP === 0) yield;
      }
    }
    for (const facet of entity.facets) {
      for (const value of fields[facet.name] ?? []) {
        if (++written % (ROWS_PER_STEP / 2) === 0) yield;
        const text = valueText(value);
        const facetId = this.statements.facetId.get(entity.entityType, facet.name, text, removed === 0 ? 1 : 0);
        if (facetId === undefined)
          throw new Error(`Numbering the ${facet.name} value of ${document.urn} returned no id`);
        this.statements.insertDocumentFacet.run(id, facetId);
      }
    }
    const fts = this.layout.ftsTable(entity.entityType);
    yield;
    const text = yield* ftsText(fields, fts);
    yield;
    fts.insert?.run(id, ...text.columns, text.filterKeys);
    yield;
    const { terms } = text;
    // Only visible documents are in the lists, so only theirs can be wrong there.
    this.statements.countDocument.run(entity.entityType, 1 - removed, removed === 0 && !terms.certain ? 1 : 0);
    if (removed === 0) {
      for (const [term, weight] of terms.weights) {
        this.statements.insertPosting.run(entity.entityType, term, weight, terms.size, document.urn, id);
        this.statements.addToGroup.run(entity.entityType, term, weight, terms.size);
        if (++written % (ROWS_PER_STEP / 2) === 0) yield;
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
        if (++written % (ROWS_PER_STEP / 4) === 0) yield;
      }
    }
  }

  /** Removes a URN's document and the rows derived from it, if it has one. */
  *removeDocument(urn: string): Generator<void, void, undefined> {
    const existing = this.statements.documentByUrn.get(urn);
    if (existing === undefined) return;
    yield* this.clearDerived(existing);
    this.statements.deleteDocument.run(existing.id);
  }

  private *clearDerived(row: DocumentRow): Generator<void, void, undefined> {
    const fts = this.layout.ftsTables.get(row.entity);
    let written = 0;
    if (fts !== undefined) {
      // What the document added to the counts and term lists, from the document as it was stored.
      const { terms } = yield* ftsText(documentFields(toDocument(row)), fts);
      yield;
      this.statements.countDocument.run(row.entity, row.removed - 1, row.removed === 0 && !terms.certain ? -1 : 0);
      if (row.removed === 0) {
        for (const facet of this.statements.facetsOf.all(row.id)) {
          this.statements.uncountFacet.run(facet);
          if (++written % ROWS_PER_STEP === 0) yield;
        }
        for (const [term, weight] of terms.weights) {
          this.statements.deletePosting.run(row.entity, term, weight, terms.size, row.urn);
          if (this.statements.dropLastOfGroup.run(row.entity, term, weight, terms.size).changes === 0) {
            this.statements.removeFromGroup.run(row.entity, term, weight, terms.size);
          }
          if (++written % (ROWS_PER_STEP / 2) === 0) yield;
        }
      }
    }
    yield;
    this.statements.deleteDocumentFacets.run(row.id);
    this.statements.deleteFieldValues.run(row.id);
    this.statements.deleteBrowsePaths.run(row.id);
    this.statements.deleteSuggestions.run(row.id);
    fts?.remove?.run(row.id);
  }

  private entity(entityType: string): EntitySearchSchema {
    const entity = this.schema.entity(entityType);
    if (entity === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);
    return entity;
  }
}

/** About how many statements a write step runs before it yields (a few milliseconds' worth). */
export const ROWS_PER_STEP = 1_000;

/** Runs a write's steps to the end, without giving the event loop a turn. */
export function runSteps(steps: Generator<void, void, undefined>): void {
  for (let step = steps.next(); step.done !== true; step = steps.next()) {
    // each step's statements ran as it was taken
  }
}

/**
 * Between two values of a field: a token no query word can equal (a private-use character, which the analyzer never
 * emits), so that a phrase cannot match across values.
 */
const VALUE_BREAK = ' \uE000 ';

/**
 * A document's FTS row: its text columns, its filter keys column, and what it adds to the term lists. A generator, so
 * that analyzing the values of a very large document can give the event loop turns (see {@link ROWS_PER_STEP}).
 */
function* ftsText(
  fields: Readonly<Record<string, readonly FieldValue[]>>,
  fts: FtsTable,
): Generator<void, { columns: string[]; filterKeys: string; terms: TermListEntry }, undefined> {
  const words: ColumnWords[] = [];
  let analyzed = 0;
  for (const column of fts.columns) {
    const values: string[][] = [];
    for (const value of fields[column] ?? []) {
      values.push(analyze(valueText(value)));
      if (++analyzed % ROWS_PER_STEP === 0) yield;
    }
    words.push(values);
  }
  const keys = yield* filterKeys(fields, ROWS_PER_STEP);
  yield;
  const columns = words.map((values) => values.map((value) => value.join(' ')).join(VALUE_BREAK));
  yield;
  const terms = termListEntry(words, fts.weights, fts.ranked, keys.length);
  yield;
  return { columns, filterKeys: keys.join(' '), terms };
}
