import { BadRequestError, ForbiddenError } from '@strata/model';
import { entityTypeOf } from '../entity-types';
import type { GraphqlContext } from '../context';
import type { ResolverMap } from '../schema';
import { browseV2, type BrowseV2Input } from './search-browse';
import {
  AUTO_COMPLETE_ENTITY_TYPES,
  entityNamesOf,
  filterGroupsOf,
  pageArgument,
  queryTextOf,
  restFilterOf,
  SEARCHABLE_ENTITY_TYPES,
  searchFlagsOf,
  sortCriteriaOf,
  type AndFilterInput,
  type FacetFilterInput,
  type SearchFlagsInput,
  type SearchSortInput,
} from './search-inputs';
import { facetsOf, resultEntity, searchResultOf, type FacetObject, type RestSearchResult } from './search-results';
import { callAction, knownEntityNames, scopeOf, type SearchScope } from './search-scope';

/**
 * DataHub's search queries — `searchAcrossEntities`, `scrollAcrossEntities`, `aggregateAcrossEntities`,
 * `autoComplete`, `autoCompleteForMultiple`, `browseV2` — answered by the search indexer's Rest.li actions, called as
 * the caller (so access is checked as on REST). Entities come back as references; their fields are resolved by the
 * entity resolvers.
 */

interface SearchAcrossEntitiesInput {
  readonly types?: readonly string[] | null;
  readonly query: string;
  readonly start?: number | null;
  readonly count?: number | null;
  readonly filters?: readonly FacetFilterInput[] | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly viewUrn?: string | null;
  readonly searchFlags?: SearchFlagsInput | null;
  readonly sortInput?: SearchSortInput | null;
}

interface ScrollAcrossEntitiesInput {
  readonly types?: readonly string[] | null;
  readonly query: string;
  readonly scrollId?: string | null;
  readonly keepAlive?: string | null;
  readonly count?: number | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly viewUrn?: string | null;
  readonly searchFlags?: SearchFlagsInput | null;
  readonly sortInput?: SearchSortInput | null;
}

interface AggregateAcrossEntitiesInput {
  readonly types?: readonly string[] | null;
  readonly query: string;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly viewUrn?: string | null;
  readonly searchFlags?: SearchFlagsInput | null;
  readonly facets?: readonly (string | null)[] | null;
}

interface AutoCompleteInput {
  readonly type?: string | null;
  readonly query: string;
  readonly field?: string | null;
  readonly limit?: number | null;
  readonly filters?: readonly FacetFilterInput[] | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
}

interface AutoCompleteMultipleInput {
  readonly types?: readonly string[] | null;
  readonly query: string;
  readonly field?: string | null;
  readonly limit?: number | null;
  readonly filters?: readonly FacetFilterInput[] | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly viewUrn?: string | null;
}

interface RestAutocompleteResult {
  readonly query: string;
  readonly suggestions: readonly string[];
  readonly entities: readonly { readonly urn: string }[];
}

/** DataHub's page size when a search names none. */
const DEFAULT_COUNT = 10;
/** DataHub's number of suggestions when an autocomplete names none. */
const DEFAULT_SUGGESTIONS = 5;

export const searchResolvers: ResolverMap = {
  Query: {
    searchAcrossEntities: (_source, args: { input: SearchAcrossEntitiesInput }, context: GraphqlContext) =>
      searchAcrossEntities(context, args.input),
    scrollAcrossEntities: (_source, args: { input: ScrollAcrossEntitiesInput }, context: GraphqlContext) =>
      scrollAcrossEntities(context, args.input),
    aggregateAcrossEntities: (_source, args: { input: AggregateAcrossEntitiesInput }, context: GraphqlContext) =>
      aggregateAcrossEntities(context, args.input),
    autoComplete: (_source, args: { input: AutoCompleteInput }, context: GraphqlContext) =>
      autoComplete(context, args.input),
    autoCompleteForMultiple: (_source, args: { input: AutoCompleteMultipleInput }, context: GraphqlContext) =>
      autoCompleteForMultiple(context, args.input),
    browseV2: (_source, args: { input: BrowseV2Input }, context: GraphqlContext) => browseV2(context, args.input),
  },
};

/** The body of the indexer's `searchAcrossEntities` for a scope. */
function searchBody(
  scope: SearchScope,
  query: string | null | undefined,
  flags: Record<string, unknown>,
  page: { readonly start: number; readonly count: number },
  sortInput?: SearchSortInput | null,
): Record<string, unknown> {
  return {
    input: queryTextOf(query),
    entities: scope.entities,
    start: page.start,
    count: page.count,
    filter: restFilterOf(scope.filter),
    sortCriteria: sortCriteriaOf(sortInput),
    searchFlags: flags,
  };
}

async function searchAcross(context: GraphqlContext, body: Record<string, unknown>): Promise<RestSearchResult> {
  return callAction<RestSearchResult>(context, {
    method: 'POST',
    resource: '/entities',
    action: 'searchAcrossEntities',
    body,
  });
}

async function searchAcrossEntities(context: GraphqlContext, input: SearchAcrossEntitiesInput) {
  const start = pageArgument(input.start, 0, 'start');
  const count = pageArgument(input.count, DEFAULT_COUNT, 'count');
  const scope = await scopeOf(context, input, SEARCHABLE_ENTITY_TYPES);
  if (scope === undefined) return { start, count, total: 0, searchResults: [], facets: [] };
  const flags = searchFlagsOf(input.searchFlags);
  const result = await searchAcross(context, searchBody(scope, input.query, flags, { start, count }, input.sortInput));
  return {
    start: result.from ?? start,
    count: result.pageSize,
    total: result.numEntities,
    searchResults: result.entities.map(searchResultOf),
    facets: facetsOf(result.metadata?.aggregations),
  };
}

/**
 * A page of a scroll: `nextScrollId` is null on the last page (the delete CLI pages until it is). Facets are counted
 * only when asked for (the scroll itself counts none), by a search of the same scope, unless `skipAggregates`.
 */
async function scrollAcrossEntities(context: GraphqlContext, input: ScrollAcrossEntitiesInput) {
  const count = pageArgument(input.count, DEFAULT_COUNT, 'count');
  const scope = await scopeOf(context, input, SEARCHABLE_ENTITY_TYPES);
  if (scope === undefined) return { nextScrollId: null, count, total: 0, searchResults: [], facets: [] };
  const flags = searchFlagsOf(input.searchFlags);
  const result = await callAction<RestSearchResult>(context, {
    method: 'POST',
    resource: '/entities',
    action: 'scrollAcrossEntities',
    body: {
      input: queryTextOf(input.query),
      entities: scope.entities,
      filter: restFilterOf(scope.filter),
      sortCriteria: sortCriteriaOf(input.sortInput),
      scrollId: input.scrollId ?? undefined,
      keepAlive: input.keepAlive ?? undefined,
      count,
      searchFlags: flags,
    },
  });
  const facets = async (): Promise<FacetObject[]> => {
    if (flags['skipAggregates'] === true) return [];
    const counted = await searchAcross(context, searchBody(scope, input.query, flags, { start: 0, count: 0 }));
    return facetsOf(counted.metadata?.aggregations);
  };
  return {
    nextScrollId: result.scrollId ?? null,
    count: result.pageSize,
    total: result.numEntities,
    searchResults: result.entities.map(searchResultOf),
    facets,
  };
}

/** The facets of a search (none of its results); only the facets `facets` names when it names any. */
async function aggregateAcrossEntities(context: GraphqlContext, input: AggregateAcrossEntitiesInput) {
  const scope = await scopeOf(context, input, SEARCHABLE_ENTITY_TYPES);
  if (scope === undefined) return { facets: [] };
  const result = await searchAcross(
    context,
    searchBody(scope, input.query, searchFlagsOf(input.searchFlags), { start: 0, count: 0 }),
  );
  const facets = facetsOf(result.metadata?.aggregations);
  const wanted = new Set(
    (input.facets ?? []).filter((name): name is string => typeof name === 'string').map(withoutKeyword),
  );
  return { facets: wanted.size === 0 ? facets : facets.filter((facet) => wanted.has(withoutKeyword(facet.field))) };
}

function withoutKeyword(field: string): string {
  return field.endsWith('.keyword') ? field.slice(0, -'.keyword'.length) : field;
}

function requireQuery(query: string): void {
  if (query.trim() === '') throw new BadRequestError("'query' parameter can not be null or empty");
}

async function autocompleteOf(
  context: GraphqlContext,
  entity: string,
  input: AutoCompleteInput | AutoCompleteMultipleInput,
  filter: ReturnType<typeof restFilterOf>,
): Promise<{ suggestions: string[]; entities: ReturnType<typeof resultEntity>[] }> {
  const result = await callAction<RestAutocompleteResult>(context, {
    method: 'POST',
    resource: '/entities',
    action: 'autocomplete',
    body: {
      query: input.query,
      entity,
      limit: pageArgument(input.limit, DEFAULT_SUGGESTIONS, 'limit'),
      ...(input.field === null || input.field === undefined ? {} : { field: input.field }),
      filter,
    },
  });
  return { suggestions: [...result.suggestions], entities: result.entities.map((hit) => resultEntity(hit.urn)) };
}

/** Suggestions for a prefix from one entity type (`type` is required: DataHub has no default for it). */
async function autoComplete(context: GraphqlContext, input: AutoCompleteInput) {
  requireQuery(input.query);
  if (input.type === null || input.type === undefined) {
    throw new BadRequestError('autoComplete needs `type`, the entity type to suggest from');
  }
  const [entity] = entityNamesOf([input.type], knownEntityNames(context), []);
  const filter = restFilterOf(filterGroupsOf(input.filters, input.orFilters, knownEntityNames(context)));
  const found = await autocompleteOf(context, entity ?? '', input, filter);
  return { query: input.query, ...found };
}

/**
 * Suggestions from several entity types, one entry per type that has any (DataHub leaves out the others). A type the
 * caller may not search is left out too, as DataHub leaves out a type whose autocomplete fails.
 */
async function autoCompleteForMultiple(context: GraphqlContext, input: AutoCompleteMultipleInput) {
  requireQuery(input.query);
  const scope = await scopeOf(context, input, AUTO_COMPLETE_ENTITY_TYPES);
  if (scope === undefined) return { query: input.query, suggestions: [] };
  const filter = restFilterOf(scope.filter);
  const perType = await Promise.all(
    scope.entities.map(async (entity) => {
      try {
        return { type: entityTypeOf(entity), ...(await autocompleteOf(context, entity, input, filter)) };
      } catch (error) {
        if (error instanceof ForbiddenError) return undefined;
        throw error;
      }
    }),
  );
  return {
    query: input.query,
    suggestions: perType.filter((entry) => entry !== undefined && entry.suggestions.length > 0),
  };
}
