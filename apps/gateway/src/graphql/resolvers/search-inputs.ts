import { BadRequestError } from '@strata/model';
import { entityNameOf, objectTypeOf } from '../entity-types';

/**
 * The arguments of DataHub's search queries (`types`, `query`, `orFilters`/`filters`, `sortInput`, `searchFlags`)
 * translated into what the search indexer's REST actions take, with DataHub's defaults and null handling: a null
 * argument is an argument not given. Pure.
 */

/** DataHub's `FacetFilterInput`, as graphql-js hands it over (absent and null alike mean "not given"). */
export interface FacetFilterInput {
  readonly field: string;
  readonly value?: string | null;
  readonly values?: readonly string[] | null;
  readonly condition?: string | null;
  readonly negated?: boolean | null;
}

/** DataHub's `AndFilterInput`. */
export interface AndFilterInput {
  readonly and?: readonly FacetFilterInput[] | null;
}

/** DataHub's `SortCriterion` input. */
export interface SortCriterionInput {
  readonly field: string;
  readonly sortOrder: 'ASCENDING' | 'DESCENDING';
}

/** DataHub's `SearchSortInput`. */
export interface SearchSortInput {
  readonly sortCriteria?: readonly SortCriterionInput[] | null;
  readonly sortCriterion?: SortCriterionInput | null;
}

/** DataHub's `SearchFlags`: every field optional. */
export type SearchFlagsInput = Readonly<Record<string, unknown>>;

/** One criterion as the indexer's `filter` takes it: every key present, none null. */
export interface RestCriterion {
  readonly field: string;
  readonly values: readonly string[];
  readonly condition: string;
  readonly negated: boolean;
}

/** A filter as OR groups of AND criteria; empty means no filter. */
export type RestFilterGroups = readonly (readonly RestCriterion[])[];

/** A sort criterion as the indexer's actions take it. */
export interface RestSortCriterion {
  readonly field: string;
  readonly order: 'ASCENDING' | 'DESCENDING';
}

/** The entity types DataHub searches when a query names none (its `SEARCHABLE_ENTITY_TYPES`). */
export const SEARCHABLE_ENTITY_TYPES: readonly string[] = [
  'DATASET',
  'DASHBOARD',
  'CHART',
  'MLMODEL',
  'MLMODEL_GROUP',
  'MLFEATURE_TABLE',
  'MLFEATURE',
  'MLPRIMARY_KEY',
  'DATA_FLOW',
  'DATA_JOB',
  'GLOSSARY_TERM',
  'GLOSSARY_NODE',
  'TAG',
  'ROLE',
  'CORP_USER',
  'CORP_GROUP',
  'CONTAINER',
  'DOMAIN',
  'DATA_PRODUCT',
  'NOTEBOOK',
  'BUSINESS_ATTRIBUTE',
  'SCHEMA_FIELD',
  'APPLICATION',
  'DOCUMENT',
];

/** The entity types DataHub autocompletes over when a query names none (its `AUTO_COMPLETE_ENTITY_TYPES`). */
export const AUTO_COMPLETE_ENTITY_TYPES: readonly string[] = [
  'DATASET',
  'DASHBOARD',
  'CHART',
  'CONTAINER',
  'MLMODEL',
  'MLMODEL_GROUP',
  'MLFEATURE_TABLE',
  'DATA_FLOW',
  'DATA_JOB',
  'GLOSSARY_TERM',
  'TAG',
  'CORP_USER',
  'CORP_GROUP',
  'NOTEBOOK',
  'DATA_PRODUCT',
  'DOMAIN',
  'BUSINESS_ATTRIBUTE',
  'APPLICATION',
  'STRUCTURED_PROPERTY',
];

/** The entity types DataHub browses when a query names none (its `BROWSE_ENTITY_TYPES`). */
export const BROWSE_ENTITY_TYPES: readonly string[] = [
  'DATASET',
  'DASHBOARD',
  'CHART',
  'CONTAINER',
  'MLMODEL',
  'MLMODEL_GROUP',
  'MLFEATURE_TABLE',
  'DATA_FLOW',
  'DATA_JOB',
  'NOTEBOOK',
];

/** The filter fields that select entity types rather than a document field (DataHub's virtual `_entityType`). */
const ENTITY_TYPE_FIELDS = new Set(['_entityType', 'entity']);

/**
 * The entity names a query covers. Types named: each must be an entity the registry knows and the API serves (a
 * result of any other type could not be answered), else a 400 naming it. None named (null or empty): `defaults`
 * (`EntityType` values), keeping those the deployment has and serves.
 */
export function entityNamesOf(
  types: readonly string[] | null | undefined,
  known: readonly string[],
  defaults: readonly string[],
): string[] {
  if (types === null || types === undefined || types.length === 0) {
    return unique(
      defaults.flatMap((type) => {
        const name = entityNameOf(type, known);
        return name !== undefined && objectTypeOf(name) !== undefined ? [name] : [];
      }),
    );
  }
  return unique(
    types.map((type) => {
      const name = entityNameOf(type, known);
      if (name === undefined) throw new BadRequestError(`Entity type ${type} names no entity this catalog knows`);
      if (objectTypeOf(name) === undefined) {
        throw new BadRequestError(`Entities of type ${type} are not served by the GraphQL API`);
      }
      return name;
    }),
  );
}

/** Entity names both lists allow; an empty list allows every name (DataHub's rule for a view's entity types). */
export function intersectNames(names: readonly string[], allowed: readonly string[]): string[] {
  if (allowed.length === 0) return [...names];
  const kept = new Set(allowed);
  return names.filter((name) => kept.has(name));
}

/** The query text: DataHub searches everything (`*`) for a blank query. */
export function queryTextOf(query: string | null | undefined): string {
  return query === null || query === undefined || query.trim() === '' ? '*' : query;
}

/**
 * The filter of `orFilters`, or of the deprecated `filters` (one AND group) when `orFilters` is empty — DataHub reads
 * `filters` only then. Each criterion is normalised as DataHub reads it: `values`, else the deprecated singular
 * `value` (what `datahub delete --env` sends), else none; `condition` EQUAL and `negated` false when not given.
 * Criteria on `_entityType` (or the facet name `entity`) select entity types: they become criteria on the URN's
 * entity-type prefix, so that they hold per OR group as DataHub applies them.
 */
export function filterGroupsOf(
  filters: readonly FacetFilterInput[] | null | undefined,
  orFilters: readonly AndFilterInput[] | null | undefined,
  known: readonly string[],
): RestCriterion[][] {
  if (orFilters !== null && orFilters !== undefined && orFilters.length > 0) {
    return orFilters.map((group) => (group.and ?? []).map((criterion) => criterionOf(criterion, known)));
  }
  if (filters !== null && filters !== undefined && filters.length > 0) {
    return [filters.map((criterion) => criterionOf(criterion, known))];
  }
  return [];
}

/** One criterion, normalised (see {@link filterGroupsOf}). */
export function criterionOf(input: FacetFilterInput, known: readonly string[]): RestCriterion {
  const values =
    input.values !== null && input.values !== undefined
      ? [...input.values]
      : input.value !== null && input.value !== undefined
        ? [input.value]
        : [];
  const negated = input.negated === true;
  if (ENTITY_TYPE_FIELDS.has(input.field)) {
    const prefixes = values.map((value) => `urn:li:${entityNameOf(value, known) ?? value}:`);
    return { field: 'urn', values: prefixes, condition: 'START_WITH', negated };
  }
  return { field: input.field, values, condition: input.condition ?? 'EQUAL', negated };
}

/** Both filters at once (AND), as DataHub joins a view's filter to a query's: every pair of their OR groups. */
export function combineFilterGroups(left: RestFilterGroups, right: RestFilterGroups): RestCriterion[][] {
  if (left.length === 0) return right.map((group) => [...group]);
  if (right.length === 0) return left.map((group) => [...group]);
  return left.flatMap((one) => right.map((other) => [...one, ...other]));
}

/** Every group of the filter with `criterion` added (a filter without groups becomes that one criterion). */
export function withCriterion(groups: RestFilterGroups, criterion: RestCriterion): RestCriterion[][] {
  return groups.length === 0 ? [[criterion]] : groups.map((group) => [...group, criterion]);
}

/** The filter as the indexer's body takes it; undefined for no filter. */
export function restFilterOf(groups: RestFilterGroups): { or: { and: RestCriterion[] }[] } | undefined {
  return groups.length === 0 ? undefined : { or: groups.map((group) => ({ and: [...group] })) };
}

/** The sort: `sortCriteria` when given, else the deprecated `sortCriterion`, else none (by relevance). */
export function sortCriteriaOf(sortInput: SearchSortInput | null | undefined): RestSortCriterion[] {
  if (sortInput === null || sortInput === undefined) return [];
  const criteria =
    sortInput.sortCriteria ??
    (sortInput.sortCriterion === null || sortInput.sortCriterion === undefined ? [] : [sortInput.sortCriterion]);
  return criteria.map((criterion) => ({ field: criterion.field, order: criterion.sortOrder }));
}

/** The flags that were given (null ones dropped: the indexer reads an absent flag as its default). */
export function searchFlagsOf(flags: SearchFlagsInput | null | undefined): Record<string, unknown> {
  if (flags === null || flags === undefined) return {};
  return Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== null && value !== undefined));
}

/**
 * A `Long` argument as a number: graphql-js leaves the scalar's value as the client sent it, a number or a string of
 * digits; anything else is a 400 naming the argument.
 */
export function longOf(value: unknown, name: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,16}$/.test(value.trim())) return Number(value.trim());
  throw new BadRequestError(`${name} must be an integer number of milliseconds, got ${JSON.stringify(value)}`);
}

/** A paging argument: its default when not given; a 400 for a negative or fractional one. */
export function pageArgument(value: number | null | undefined, fallback: number, name: string): number {
  if (value === null || value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new BadRequestError(`${name} must be an integer ≥ 0`);
  return value;
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
