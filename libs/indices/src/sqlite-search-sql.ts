import { EVERY_DOCUMENT_KEY, filterKeysExpression, presenceKey, valueKey } from './filter-keys';
import { namesRemoved, valueNumber } from './search-documents';
import type { Criterion, Filter } from './search-index';
import { fold, type QueryNode } from './search-query';
import { LAST_CHANGED_FIELD, REMOVED_FIELD, type EntitySearchSchema } from './search-schema';
import type { FtsTable, PrepareStatement } from './sqlite-search-layout';

/**
 * The SQL of {@link SqliteSearchIndex}'s queries: a parsed query and a resolved filter as FTS5 expressions and SQL
 * conditions on the tables of `sqlite-search-layout.ts`, and the statements selecting a search's hits. Pure, but for
 * {@link fewestRowsDriver}, which counts.
 */

/** A SQL fragment and its parameters. */
export interface Sql {
  readonly sql: string;
  readonly params: unknown[];
}

/** A statement selecting the ids of a search's hits, with its parameters. */
export interface HitSet {
  readonly unranked: string;
  readonly params: unknown[];
}

/** The statements of a search's hits: {@link HitSet.unranked}, and two more in rank order. */
export interface HitsQuery extends HitSet {
  /** Ids with their scores (lower ranks first). */
  readonly ranked: string;
  readonly page: string;
}

/** One hit of a page. */
export interface PageRow {
  readonly id: number;
  readonly urn: string;
}

/** A search's hits: how many, the requested page of them, and all of them as a statement (for facets). */
export interface FoundHits {
  readonly total: number;
  readonly page: PageRow[];
  readonly hits: HitSet;
}

/**
 * Chooses the criterion of an AND group to evaluate as a set, the others being checked per row (see
 * {@link visibility}).
 */
export type DriverChoice = (group: readonly Criterion[]) => Criterion | undefined;

/** How far {@link fewestRowsDriver} counts a criterion's documents: enough to tell a selective one. */
const DRIVER_COUNT_CAP = 10_000;

/**
 * The documents of the entity matching the query and the filter, as three statements sharing their parameters:
 * `unranked` selects their ids (for counting and facets), `page` their ids and URNs in rank order, ties by URN.
 */
export function hitsQuery(
  entity: EntitySearchSchema,
  fts: FtsTable,
  query: QueryNode,
  filter: Filter,
  drives: DriverChoice = firstPositive,
): HitsQuery {
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
      const visible = visibility(filter, '+f.rowid', undefined, entity.entityType, drives);
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
  const visible = visibility(filter, 'd.id', 'd.removed', undefined, drives);
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
 * The criterion of an AND group to evaluate as a set (the others are checked per row): of several positive
 * criteria, the one matching the fewest documents, counted up to {@link DRIVER_COUNT_CAP} from the `(field, value)`
 * index — among those the index answers by a range, since counting any other condition costs as much as building
 * its set.
 */
export function fewestRowsDriver(prepared: PrepareStatement, group: readonly Criterion[]): Criterion | undefined {
  const positives = group.filter(isPositive);
  const ranged = positives.filter(isIndexRange);
  if (positives.length < 2 || ranged.length === 0) return positives[0];
  let driver: Criterion | undefined;
  let fewest = Infinity;
  for (const criterion of ranged) {
    const rows = valuesCondition(criterion);
    const { count } = prepared(
      `SELECT COUNT(*) AS count FROM (SELECT 1 FROM field_values WHERE ${rows.sql} LIMIT ${DRIVER_COUNT_CAP})`,
    ).get(...rows.params) as { count: number };
    if (count < fewest) {
      driver = criterion;
      fewest = count;
    }
  }
  return driver;
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
 * The query as one FTS5 expression, when it is one: word and phrase terms on text fields combined with AND, OR and
 * AND NOT. Undefined for `*`, wildcards, non-text fields, and negations standing alone; those take the general path.
 */
export function ftsExpression(node: QueryNode, entity: EntitySearchSchema): string | undefined {
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
export function visibility(
  filter: Filter,
  id: string,
  removedColumn: string | undefined,
  entityType?: string,
  drives: DriverChoice = firstPositive,
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
  const changed = changedAtCondition(criterion);
  if (changed !== undefined) {
    // The document's own column, by its index: a range of the newest documents costs what it holds, not every
    // document with the field (a recently-changed list over 100,000 entities narrows its window by such counts).
    if (id === 'd.id' && !criterion.negated) return changed('d.');
    const not = criterion.negated ? 'NOT ' : '';
    const rows = changed('');
    return form === 'set'
      ? { sql: `${id} ${not}IN (SELECT id FROM documents WHERE ${rows.sql})`, params: rows.params }
      : { sql: `${not}EXISTS (SELECT 1 FROM documents WHERE id = ${id} AND ${rows.sql})`, params: rows.params };
  }
  const rows = valuesCondition(criterion);
  const not = excludes(criterion) ? 'NOT ' : '';
  return form === 'set'
    ? { sql: `${id} ${not}IN (SELECT doc FROM field_values WHERE ${rows.sql})`, params: rows.params }
    : { sql: `${not}EXISTS (SELECT 1 FROM field_values WHERE doc = ${id} AND ${rows.sql})`, params: rows.params };
}

/**
 * A comparison of {@link LAST_CHANGED_FIELD} with numbers, as a condition on the `documents.changed_at` column that
 * holds it (given the column's table prefix), or undefined for any other criterion (answered by `field_values`).
 */
function changedAtCondition(criterion: Criterion): ((prefix: string) => Sql) | undefined {
  if (criterion.field !== LAST_CHANGED_FIELD) return undefined;
  const operators: Partial<Record<Criterion['condition'], string>> = {
    GREATER_THAN: '>',
    GREATER_THAN_OR_EQUAL_TO: '>=',
    LESS_THAN: '<',
    LESS_THAN_OR_EQUAL_TO: '<=',
  };
  const operator = operators[criterion.condition];
  const numbers = criterion.values.map(valueNumber);
  if (operator === undefined || numbers.length === 0 || numbers.some((number) => number === undefined))
    return undefined;
  return (prefix) => ({
    sql: `(${numbers.map(() => `${prefix}changed_at ${operator} ?`).join(' OR ')})`,
    params: numbers,
  });
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
