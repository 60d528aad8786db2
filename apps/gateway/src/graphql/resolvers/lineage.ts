import { BadRequestError } from '@strata/model';
import { entityTypeOf, objectTypeOf } from '../entity-types';
import type { GraphqlContext } from '../context';
import type { ResolverMap } from '../schema';
import {
  longOf,
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
import { facetsOf, lineageResultOf, type RestLineageResult } from './search-results';
import { callAction, knownEntityNames, scopeOf } from './search-scope';

/**
 * DataHub's `searchAcrossLineage` and `scrollAcrossLineage`: one implementation over the search indexer's lineage
 * actions (its multi-hop walk), called as the caller. The `degree` filter (`1`, `2`, `3+`) and every other criterion
 * go to the indexer as they are; each result carries its smallest degree, every degree, and every path from the
 * source (each path a list of entities, the source first).
 */

interface LineageFlagsInput {
  readonly startTimeMillis?: unknown;
  readonly endTimeMillis?: unknown;
  readonly entitiesExploredPerHopLimit?: number | null;
  readonly ignoreAsHops?: readonly unknown[] | null;
}

/** What both lineage queries take (`ScrollAcrossLineageInput`, `SearchAcrossLineageInput`). */
interface LineageInput {
  readonly urn?: string | null;
  readonly direction: 'UPSTREAM' | 'DOWNSTREAM';
  readonly types?: readonly string[] | null;
  readonly query?: string | null;
  readonly count?: number | null;
  readonly filters?: readonly FacetFilterInput[] | null;
  readonly orFilters?: readonly AndFilterInput[] | null;
  readonly startTimeMillis?: unknown;
  readonly endTimeMillis?: unknown;
  readonly searchFlags?: SearchFlagsInput | null;
  readonly lineageFlags?: LineageFlagsInput | null;
  readonly viewUrn?: string | null;
  readonly sortInput?: SearchSortInput | null;
  /** `searchAcrossLineage` only. */
  readonly start?: number | null;
  /** `scrollAcrossLineage` only. */
  readonly scrollId?: string | null;
  readonly keepAlive?: string | null;
}

/** DataHub's page size when a lineage query names none. */
const DEFAULT_COUNT = 10;

export const lineageResolvers: ResolverMap = {
  Query: {
    searchAcrossLineage: async (_source, args: { input: LineageInput }, context: GraphqlContext) => {
      const result = await lineageSearch(context, args.input, 'search');
      return { start: result.from ?? 0, ...common(result) };
    },
    scrollAcrossLineage: async (_source, args: { input: LineageInput }, context: GraphqlContext) => {
      const result = await lineageSearch(context, args.input, 'scroll');
      return { nextScrollId: result.scrollId ?? null, ...common(result) };
    },
  },
};

function common(result: RestLineageResult) {
  return {
    count: result.pageSize,
    total: result.numEntities,
    searchResults: result.entities.map(lineageResultOf),
    facets: facetsOf(result.metadata?.aggregations),
    isPartial: result.truncated === true,
  };
}

/**
 * The page a lineage query asks for. Types: those named, else — as DataHub — the searchable types for a scroll and
 * every served type for a search. The time window: `lineageFlags`' ends first, then the input's; an open end with a
 * start given is now (DataHub's rule). `searchFlags.groupingSpec` is accepted (results are never grouped: each
 * entity, schema fields included, is its own result); `lineageFlags.entitiesExploredPerHopLimit` is accepted (the
 * walk's own limits bound it, and `isPartial` says when they cut it). `lineageFlags.ignoreAsHops` is refused: the
 * walk cannot leave an entity out as a hop.
 */
async function lineageSearch(
  context: GraphqlContext,
  input: LineageInput,
  kind: 'search' | 'scroll',
): Promise<RestLineageResult> {
  if (input.urn === null || input.urn === undefined || input.urn.trim() === '') {
    throw new BadRequestError('A lineage query needs `urn`, the entity whose lineage is searched');
  }
  const flags = input.lineageFlags ?? {};
  if (flags.ignoreAsHops !== null && flags.ignoreAsHops !== undefined && flags.ignoreAsHops.length > 0) {
    throw new BadRequestError('lineageFlags.ignoreAsHops is not supported: every entity reached is walked through');
  }
  const count = pageArgument(input.count, DEFAULT_COUNT, 'count');
  const defaults =
    kind === 'scroll'
      ? SEARCHABLE_ENTITY_TYPES
      : knownEntityNames(context).flatMap((name) =>
          name !== 'query' && objectTypeOf(name) !== undefined ? [entityTypeOf(name)] : [],
        );
  const scope = await scopeOf(context, input, defaults);
  if (scope === undefined) return { numEntities: 0, pageSize: count, from: 0, entities: [] };

  const start =
    longOf(flags.startTimeMillis, 'lineageFlags.startTimeMillis') ?? longOf(input.startTimeMillis, 'startTimeMillis');
  const end =
    longOf(flags.endTimeMillis, 'lineageFlags.endTimeMillis') ??
    longOf(input.endTimeMillis, 'endTimeMillis') ??
    (start === undefined ? undefined : context.now());
  const searchFlags = searchFlagsOf(input.searchFlags);
  const body: Record<string, unknown> = {
    urn: input.urn,
    direction: input.direction,
    entities: scope.entities,
    input: queryTextOf(input.query),
    filter: restFilterOf(scope.filter),
    sortCriteria: sortCriteriaOf(input.sortInput),
    count,
    ...(start === undefined ? {} : { startTimeMillis: start }),
    ...(end === undefined ? {} : { endTimeMillis: end }),
    // DataHub's search across lineage highlights nothing unless asked to.
    searchFlags: kind === 'search' ? { skipHighlighting: true, ...searchFlags } : searchFlags,
  };
  if (kind === 'search') {
    body['start'] = pageArgument(input.start, 0, 'start');
  } else {
    if (input.scrollId !== null && input.scrollId !== undefined) body['scrollId'] = input.scrollId;
    if (input.keepAlive !== null && input.keepAlive !== undefined) body['keepAlive'] = input.keepAlive;
  }
  return callAction<RestLineageResult>(context, {
    method: 'POST',
    resource: '/entities',
    action: kind === 'search' ? 'searchAcrossLineage' : 'scrollAcrossLineage',
    body,
  });
}
