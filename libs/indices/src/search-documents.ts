import { ValidationError } from '@strata/model';

import {
  CONDITIONS,
  type Condition,
  type Criterion,
  type FieldValue,
  type Filter,
  type SearchDocument,
} from './search-index';
import {
  BROWSE_PATHS_FIELD,
  LAST_CHANGED_FIELD,
  REMOVED_FIELD,
  URN_FIELD,
  type EntitySearchSchema,
} from './search-schema';

/** Helpers both adapters share: a document's merged fields, browse-path normalization, request checks. Pure. */

/**
 * The fields of a document: the union of its aspects' contributions (values in aspect order, each value once per
 * field), plus `urn`, `removed` (true when any aspect says so, else false), and `lastChangedAt` (the document's own
 * time, when it has one; never an aspect's).
 */
export function documentFields(document: SearchDocument): Record<string, FieldValue[]> {
  // A Set per field keeps the merge linear: a field may hold many values (an entity with 100,000 owners), and looking
  // each up in the list built so far made a document's write quadratic in them. Sets keep insertion order and
  // compare as `includes` did (1 and '1' differ).
  const merged = new Map<string, Set<FieldValue>>();
  for (const contribution of Object.values(document.aspects)) {
    for (const [name, values] of Object.entries(contribution)) {
      if (name === URN_FIELD || name === LAST_CHANGED_FIELD) continue;
      let seen = merged.get(name);
      if (seen === undefined) merged.set(name, (seen = new Set()));
      for (const value of values) seen.add(value);
    }
  }
  const fields: Record<string, FieldValue[]> = { [URN_FIELD]: [document.urn] };
  for (const [name, values] of merged) fields[name] = [...values];
  fields[REMOVED_FIELD] = [merged.get(REMOVED_FIELD)?.has(true) === true];
  if (document.lastChangedAt !== undefined && Number.isFinite(document.lastChangedAt)) {
    fields[LAST_CHANGED_FIELD] = [document.lastChangedAt];
  }
  return fields;
}

/** A document's browse paths, normalized (see {@link normalizeBrowsePath}), each once, root paths left out. */
export function browsePathsOf(fields: Readonly<Record<string, readonly FieldValue[]>>): string[] {
  const paths = new Set<string>();
  for (const value of fields[BROWSE_PATHS_FIELD] ?? []) {
    if (typeof value !== 'string') continue;
    const path = normalizeBrowsePath(value);
    if (path !== '') paths.add(path);
  }
  return [...paths];
}

/** `a/b/` → `/a/b`; `''`, `'/'` → `''` (the root). Empty segments (`//`) are dropped. */
export function normalizeBrowsePath(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}

/** The text form of a field value, as filters compare and facets report it. */
export function valueText(value: FieldValue): string {
  return typeof value === 'string' ? value : String(value);
}

/** The number a value stands for, when it is one (numbers, numeric strings), for range conditions. */
export function valueNumber(value: FieldValue): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/**
 * The most criteria one filter may hold, all its groups together. Checked with {@link MAX_FILTER_VALUES} before either
 * engine sees the filter, so that both refuse the same request with a `ValidationError`: a criterion is a clause of
 * an Elasticsearch query (1024 leaf clauses by default, shared with the text's `MAX_QUERY_TERMS`) and a condition of
 * a SQLite expression (1000 levels deep at most). DataHub's clients send a few, one per facet chosen.
 */
export const MAX_FILTER_CRITERIA = 100;

/**
 * The most values the criteria of one filter may hold together: a `CONTAIN`, `START_WITH`, `END_WITH` or range
 * criterion is one Elasticsearch clause per value (an `EQUAL`/`IN` set counts the same, to keep the rule simple).
 * With {@link MAX_FILTER_CRITERIA} and the text's terms, a search stays under Elasticsearch's 1024 clauses.
 */
export const MAX_FILTER_VALUES = 400;

/**
 * A filter with field names resolved against the entity (`.keyword` dropped) and ignorable criteria removed. Throws
 * `ValidationError` for an unknown condition, or a filter over {@link MAX_FILTER_CRITERIA} criteria or
 * {@link MAX_FILTER_VALUES} values.
 *
 * A criterion on a field the entity does not have is decided here, as Elasticsearch decides a query on a field an
 * index lacks (DataHub's behaviour, which its CLI's `--platform`/`--env` filters across entity types rely on): no
 * document has a value for it, so it holds only when negated (or as `IS_NULL`). A group with a criterion that cannot
 * hold is dropped; a criterion that always holds is left out of its group. When every group is dropped the filter
 * matches nothing: it becomes {@link MATCH_NOTHING}.
 */
export function resolveFilter(filter: Filter, schema: EntitySearchSchema): Filter {
  const criteria = filter.reduce((sum, group) => sum + group.length, 0);
  if (criteria > MAX_FILTER_CRITERIA) {
    throw new ValidationError(
      `The filter holds ${criteria} criteria, over the limit of ${MAX_FILTER_CRITERIA} (all groups together)`,
    );
  }
  const values = filter.reduce((sum, group) => group.reduce((inner, { values }) => inner + values.length, sum), 0);
  if (values > MAX_FILTER_VALUES) {
    throw new ValidationError(
      `The filter's criteria hold ${values} values, over the limit of ${MAX_FILTER_VALUES} (all criteria together)`,
    );
  }
  const groups: Criterion[][] = [];
  for (const group of filter) {
    const resolved: Criterion[] = [];
    let holds = true;
    for (const criterion of group) {
      if (!(CONDITIONS as readonly string[]).includes(criterion.condition)) {
        throw new ValidationError(`Unsupported condition: ${criterion.condition}`);
      }
      if (needsValues(criterion.condition) && criterion.values.length === 0) continue;
      const field = criterion.field.replace(/\.keyword$/, '');
      if (schema.field(field) !== undefined) resolved.push({ ...criterion, field });
      // No document has the field: only "has no value" holds, and its negation of every other condition.
      else if (criterion.negated === (criterion.condition !== 'IS_NULL')) continue;
      else holds = false;
    }
    if (holds) groups.push(resolved);
  }
  return groups.length === 0 && filter.length > 0 ? MATCH_NOTHING : groups;
}

/** A filter no document matches: every document has a URN. */
export const MATCH_NOTHING: Filter = Object.freeze([
  Object.freeze([{ field: URN_FIELD, values: [], condition: 'IS_NULL', negated: false } as const]),
]);

function needsValues(condition: Condition): boolean {
  return condition !== 'EXISTS' && condition !== 'IS_NULL';
}

/** True when a criterion of the filter names `removed`: soft-deleted documents are then not hidden. */
export function namesRemoved(filter: Filter): boolean {
  return filter.some((group) => group.some((criterion: Criterion) => criterion.field === REMOVED_FIELD));
}

/** Checks paging: non-negative integers, at most `max` per page. */
export function checkPaging(start: number, count: number, max: number, countName: string): void {
  if (!Number.isSafeInteger(start) || start < 0) throw new ValidationError(`Invalid start ${start}: must be ≥ 0`);
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new ValidationError(`Invalid ${countName} ${count}: must be ≥ 0`);
  }
  if (count > max) throw new ValidationError(`Result count exceeds limit of ${max}`);
}

/** The most results one search, browse or autocomplete page may ask for. */
export const MAX_PAGE_SIZE = 10_000;
