import type { estypes } from '@elastic/elasticsearch';

import { graphPaths, MANUAL_SOURCE, pairPath, type EdgeSource } from './elasticsearch-graph-mappings';
import type { EdgeWindow, Neighbour, NeighbourQuery, RelationshipDirection } from './graph-index';

/**
 * The Elasticsearch side of {@link GraphIndex.neighbours}, pure: the search reading the edges of one chunk of URNs,
 * and how a hit becomes a {@link Neighbour}.
 *
 * One search per chunk of {@link NEIGHBOUR_URNS_PER_SEARCH} URNs (in code-point order), filtered on the direction's
 * end (`source.urn` for OUTGOING, `destination.urn` for INCOMING), on `relationshipType` when types are given, and on
 * the window when there is one; sorted by (that end, the direction's pair keyword, `strata.aspect`), which is the
 * port's (URN, type, other end) order with the documents of one edge adjacent, and unique per document, so pages
 * follow each other with `search_after`. The window is DataHub's lineage time filter: `createdOn` or `updatedOn` in
 * range, or both missing or 0, or `properties.source` `UI`.
 */

/** URNs per search: a `terms` clause of this many values, far below Elasticsearch's 65536. */
export const NEIGHBOUR_URNS_PER_SEARCH = 500;
/** Most hits per request (Elasticsearch's default `max_result_window`). */
export const NEIGHBOUR_PAGE_SIZE = 10_000;

type Query = estypes.QueryDslQueryContainer;

/** The search request (without the index) of one page of a chunk's edges. */
export function neighbourSearch(
  query: Pick<NeighbourQuery, 'direction' | 'types' | 'window'>,
  urns: readonly string[],
  size: number,
  after: estypes.SortResults | undefined,
): estypes.SearchRequest {
  const end = endPath(query.direction);
  const filter: Query[] = [
    { terms: { [end]: [...urns] } },
    ...(query.types.length === 0 ? [] : [{ terms: { [graphPaths.relationshipType]: [...query.types] } }]),
    ...(query.window === undefined ? [] : [windowQuery(query.window)]),
  ];
  return {
    query: { bool: { filter } },
    sort: [
      { [end]: { order: 'asc' } },
      { [pairPath(query.direction)]: { order: 'asc' } },
      { [graphPaths.aspect]: { order: 'asc' } },
    ],
    size,
    _source: [
      graphPaths.relationshipType,
      graphPaths.sourceUrn,
      graphPaths.destinationUrn,
      graphPaths.createdOn,
      graphPaths.createdActor,
      graphPaths.updatedOn,
      graphPaths.updatedActor,
      graphPaths.propertiesSource,
    ],
    track_total_hits: false,
    ...(after === undefined ? {} : { search_after: after }),
  };
}

/** A hit of {@link neighbourSearch} as the port reports it. */
export function neighbourOf(source: Partial<EdgeSource>, direction: RelationshipDirection): Neighbour {
  const [end, other] =
    direction === 'OUTGOING' ? [source.source, source.destination] : [source.destination, source.source];
  return {
    urn: end?.urn ?? '',
    type: source.relationshipType ?? '',
    entity: other?.urn ?? '',
    ...(typeof source.createdOn === 'number' ? { createdAt: source.createdOn } : {}),
    ...(typeof source.createdActor === 'string' ? { createdBy: source.createdActor } : {}),
    ...(typeof source.updatedOn === 'number' ? { updatedAt: source.updatedOn } : {}),
    ...(typeof source.updatedActor === 'string' ? { updatedBy: source.updatedActor } : {}),
    ...(source.properties?.source === MANUAL_SOURCE ? { manual: true } : {}),
  };
}

function endPath(direction: RelationshipDirection): string {
  return direction === 'OUTGOING' ? graphPaths.sourceUrn : graphPaths.destinationUrn;
}

/** DataHub's lineage time filter, with either end of the window open. */
function windowQuery(window: EdgeWindow): Query {
  const range = {
    ...(window.start === undefined ? {} : { gte: window.start }),
    ...(window.end === undefined ? {} : { lte: window.end }),
  };
  const missingOrZero = (field: string): Query => ({
    bool: {
      should: [{ bool: { must_not: [{ exists: { field } }] } }, { term: { [field]: 0 } }],
      minimum_should_match: 1,
    },
  });
  return {
    bool: {
      should: [
        { range: { [graphPaths.createdOn]: range } },
        { range: { [graphPaths.updatedOn]: range } },
        { bool: { filter: [missingOrZero(graphPaths.createdOn), missingOrZero(graphPaths.updatedOn)] } },
        { term: { [graphPaths.propertiesSource]: MANUAL_SOURCE } },
      ],
      minimum_should_match: 1,
    },
  };
}
