import type { RouteCall } from '@strata/http';
import type { GraphqlContext } from '../context';
import {
  combineFilterGroups,
  criterionOf,
  entityNamesOf,
  filterGroupsOf,
  intersectNames,
  type AndFilterInput,
  type FacetFilterInput,
  type RestCriterion,
} from './search-inputs';
import { valueOf } from './search-results';

/**
 * What a search covers once its arguments and view are read: the entity names and the filter. Reads go through
 * `context.call`, so the caller's access is checked as the REST interface checks it.
 */
export interface SearchScope {
  /** Never empty: a search left with no entity type answers nothing without asking the indexer. */
  readonly entities: readonly string[];
  readonly filter: readonly (readonly RestCriterion[])[];
}

export interface ScopeInput {
  readonly types?: readonly string[] | null;
  readonly filters?: readonly FacetFilterInput[] | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly viewUrn?: string | null;
}

/** The names of every entity type of the deployment's registry. */
export function knownEntityNames(context: GraphqlContext): string[] {
  return context.registry.entities().map((entity) => entity.name);
}

/**
 * The scope of a search: its types (or `defaults`) and filter, narrowed by its view when it names one — the view's
 * entity types intersected with the query's, its filter ANDed to the query's, as DataHub applies a view. A view that
 * does not exist is no view (DataHub's rule); one the caller may not read is refused (403). Undefined when no entity
 * type is left.
 */
export async function scopeOf(
  context: GraphqlContext,
  input: ScopeInput,
  defaults: readonly string[],
): Promise<SearchScope | undefined> {
  const known = knownEntityNames(context);
  const named = entityNamesOf(input.types, known, defaults);
  const filter = filterGroupsOf(input.filters, input.orFilters, known);
  const view = input.viewUrn === null || input.viewUrn === undefined ? undefined : await viewOf(context, input.viewUrn);
  const entities = view === undefined ? named : intersectNames(named, view.entityTypes);
  if (entities.length === 0) return undefined;
  return { entities, filter: view === undefined ? filter : combineFilterGroups(filter, view.filter) };
}

/** A view's definition: the entity types it keeps (empty: all) and its filter. */
export interface ViewDefinition {
  readonly entityTypes: readonly string[];
  readonly filter: readonly (readonly RestCriterion[])[];
}

interface StoredCriterion {
  readonly field?: unknown;
  readonly value?: unknown;
  readonly values?: unknown;
  readonly condition?: unknown;
  readonly negated?: unknown;
}

/** The definition of the view `urn` (its `dataHubViewInfo`), or undefined when there is no such view. */
export async function viewOf(context: GraphqlContext, urn: string): Promise<ViewDefinition | undefined> {
  const entity = await context.entities.load(urn);
  const info = entity?.aspects['dataHubViewInfo']?.value as
    { definition?: { entityTypes?: unknown; filter?: { or?: unknown; criteria?: unknown } } } | undefined;
  const definition = info?.definition;
  if (definition === undefined) return undefined;
  const known = knownEntityNames(context);
  const entityTypes = Array.isArray(definition.entityTypes)
    ? definition.entityTypes.filter((name): name is string => typeof name === 'string')
    : [];
  const stored = definition.filter;
  const listOf = (value: unknown): StoredCriterion[] =>
    Array.isArray(value)
      ? (value as unknown[]).filter((item): item is StoredCriterion => typeof item === 'object' && item !== null)
      : [];
  const groups: StoredCriterion[][] = [
    ...(Array.isArray(stored?.or) ? (stored.or as { and?: unknown }[]).map((group) => listOf(group.and)) : []),
    ...(listOf(stored?.criteria).length > 0 ? [listOf(stored?.criteria)] : []),
  ];
  return {
    entityTypes,
    filter: groups.map((group) =>
      group
        .filter((criterion) => typeof criterion.field === 'string')
        .map((criterion) => criterionOf(storedCriterion(criterion), known)),
    ),
  };
}

function storedCriterion(criterion: StoredCriterion): FacetFilterInput {
  return {
    field: criterion.field as string,
    value: typeof criterion.value === 'string' ? criterion.value : null,
    values: Array.isArray(criterion.values)
      ? criterion.values.filter((value): value is string => typeof value === 'string')
      : null,
    condition: typeof criterion.condition === 'string' ? criterion.condition : null,
    negated: criterion.negated === true,
  };
}

/** Calls a Rest.li action of the search indexer as the caller and answers its `value`. */
export async function callAction<T>(context: GraphqlContext, call: RouteCall): Promise<T> {
  const what = `${call.method} ${call.resource}?action=${call.action ?? ''}`;
  return valueOf(await context.call(call, context.request), what) as T;
}
