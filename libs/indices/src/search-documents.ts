import { ValidationError } from '@strata/model';

import {
  CONDITIONS,
  type Condition,
  type Criterion,
  type FieldValue,
  type Filter,
  type SearchDocument,
} from './search-index';
import { BROWSE_PATHS_FIELD, REMOVED_FIELD, URN_FIELD, type EntitySearchSchema } from './search-schema';

/** Helpers both adapters share: a document's merged fields, browse-path normalization, request checks. Pure. */

/**
 * The fields of a document: the union of its aspects' contributions (values in aspect order, each value once per
 * field), plus `urn`, and `removed` (true when any aspect says so, else false).
 */
export function documentFields(document: SearchDocument): Record<string, FieldValue[]> {
  const fields: Record<string, FieldValue[]> = { [URN_FIELD]: [document.urn] };
  for (const contribution of Object.values(document.aspects)) {
    for (const [name, values] of Object.entries(contribution)) {
      if (name === URN_FIELD) continue;
      const list = (fields[name] ??= []);
      for (const value of values) if (!list.includes(value)) list.push(value);
    }
  }
  fields[REMOVED_FIELD] = [(fields[REMOVED_FIELD] ?? []).includes(true)];
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

/** A filter with field names resolved against the entity (`.keyword` dropped) and ignorable criteria removed. */
export function resolveFilter(filter: Filter, schema: EntitySearchSchema): Filter {
  return filter.map((group) =>
    group
      .map((criterion) => {
        const field = criterion.field.replace(/\.keyword$/, '');
        if (schema.field(field) === undefined) {
          throw new ValidationError(
            `Unknown filter field ${criterion.field} for entity ${schema.entityType}; known fields: ${schema.fields
              .map((known) => known.name)
              .join(', ')}`,
          );
        }
        if (!(CONDITIONS as readonly string[]).includes(criterion.condition)) {
          throw new ValidationError(`Unsupported condition: ${criterion.condition}`);
        }
        return { ...criterion, field };
      })
      .filter((criterion) => !needsValues(criterion.condition) || criterion.values.length > 0),
  );
}

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
