import { parseUrn, ValidationError, type EntityRegistry } from '@strata/model';
import type {
  Criterion,
  EdgeWindow,
  FacetResult,
  Filter,
  GraphIndex,
  MatchedField,
  NeighbourPage,
  RelationshipDirection,
  SearchIndex,
} from '@strata/indices';
import type { Scheduler } from '@strata/timing';
import { DEGREE_FIELD, DEGREE_VALUES, degreeBucket, lineageFilterOf } from './domain/degree-filter';
import { LineageRegistry, type LineageDirection } from './domain/lineage-registry';
import {
  DEFAULT_LINEAGE_LIMITS,
  LineageWalk,
  type LineageLimits,
  type LineageNode,
  type LineageWalkResult,
  type TruncationReason,
} from './domain/lineage-walk';

/**
 * Multi-hop lineage over the graph index, for any interface to serve (the Rest.li actions today): a walk
 * ({@link LineageService.walk}), and a search over what the walk reaches ({@link LineageService.search}).
 *
 * Never stale: every call reads the graph index afresh (no cache of walks or pages), so an edge whose write has
 * resolved — e.g. one made with `X-DataHub-Sync-Index-Update: true` — is followed by the next call. Each hop is two
 * batched reads of the graph ({@link GraphIndex.neighbours}, one per edge direction) for all the entities it
 * extends, however many they are. The work is bounded by {@link LineageLimits}; what a limit cuts is reported.
 */
export class LineageService {
  readonly limits: LineageLimits;
  private readonly lineage: LineageRegistry;

  constructor(private readonly options: LineageServiceOptions) {
    this.limits = { ...DEFAULT_LINEAGE_LIMITS, ...options.limits };
    this.lineage = LineageRegistry.of(options.registry);
  }

  /**
   * Walks lineage from `request.urn`. Rejects with `ValidationError` for a URN that does not parse, hops below 1,
   * or a window whose start is after its end.
   */
  async walk(request: LineageWalkRequest): Promise<LineageWalkResult> {
    parseUrn(request.urn);
    if (!(request.maxHops >= 1)) throw new ValidationError(`maxHops must be at least 1, got ${request.maxHops}`);
    const { start, end } = request.window ?? {};
    if (start !== undefined && end !== undefined && start > end) {
      throw new ValidationError(`startTimeMillis ${start} is after endTimeMillis ${end}`);
    }
    const walk = new LineageWalk(request.urn, request.direction, request.maxHops, this.lineage, this.limits);
    const deadline = this.options.scheduler.now() + this.limits.timeBudgetMs;
    for (let read = walk.nextRead(); read !== undefined; read = walk.nextRead()) {
      if (this.options.scheduler.now() >= deadline) {
        walk.stop('TIME');
        break;
      }
      const outgoing = await this.neighbours(read.urns, 'OUTGOING', read.types.OUTGOING, request.window, read.limit);
      const incoming = await this.neighbours(
        read.urns,
        'INCOMING',
        read.types.INCOMING,
        request.window,
        Math.max(read.limit - outgoing.edges.length, 0),
      );
      walk.absorb(read, { OUTGOING: outgoing, INCOMING: incoming });
    }
    return walk.result();
  }

  /**
   * The entities lineage reaches that the search index holds and that match the request's text, filter (with
   * DataHub's `degree` criteria) and entity types, ordered by degree then URN, the page `[start, start + count)`
   * of them. Soft-deleted entities are left out unless `includeSoftDeleted`. Rejects like {@link walk}, and with
   * `ValidationError` for a filter or query text the search index refuses or a degree value not in the facet.
   */
  async search(request: LineageSearchRequest): Promise<LineageSearchAnswer> {
    const filter = lineageFilterOf(request.filter);
    const maxHops = Math.min(request.maxHops ?? Infinity, filter.maxDegree);
    const walk = await this.walk({
      urn: request.urn,
      direction: request.direction,
      maxHops,
      ...(request.window === undefined ? {} : { window: request.window }),
    });
    const types = new Set(request.entities);
    const searchable = new Set(this.options.search.schema.entities().map((entity) => entity.entityType));
    const candidates = walk.nodes.filter(
      (node) => (types.size === 0 || types.has(node.entityType)) && searchable.has(node.entityType),
    );

    const matches = new Map<string, readonly MatchedField[]>();
    const facets = new Map<string, { displayName: string; counts: Map<string, number> }>();
    const countFacets = filter.groups.length === 1 && request.skipAggregates !== true;
    for (const group of filter.groups) {
      const byType = new Map<string, string[]>();
      for (const node of candidates) {
        if (matches.has(node.urn) || !group.degree(node.degree)) continue;
        const urns = byType.get(node.entityType) ?? [];
        urns.push(node.urn);
        byType.set(node.entityType, urns);
      }
      for (const [entityType, urns] of byType) {
        for (let first = 0; first < urns.length; first += URNS_PER_SEARCH) {
          const chunk = urns.slice(first, first + URNS_PER_SEARCH);
          const page = await this.options.search.search({
            entityType,
            input: request.input.trim() === '' ? '*' : request.input,
            filter: [[...group.criteria, ...softDeleted(request), urnCriterion(chunk)]],
            start: 0,
            count: chunk.length,
          });
          for (const hit of page.hits) matches.set(hit.urn, request.skipHighlighting === true ? [] : hit.matchedFields);
          if (countFacets) addFacets(facets, page.facets);
        }
      }
    }

    const hits = candidates.filter((node) => matches.has(node.urn));
    const degreeCounts = new Map<string, number>(DEGREE_VALUES.map((value) => [value, 0]));
    const typeCounts = new Map<string, number>();
    for (const node of hits) {
      const bucket = degreeBucket(node.degree);
      degreeCounts.set(bucket, (degreeCounts.get(bucket) ?? 0) + 1);
      typeCounts.set(node.entityType, (typeCounts.get(node.entityType) ?? 0) + 1);
    }
    const answered: FacetResult[] =
      request.skipAggregates === true
        ? []
        : [
            { field: DEGREE_FIELD, displayName: 'Degree of Dependencies', counts: Object.fromEntries(degreeCounts) },
            { field: 'entity', displayName: 'Type', counts: Object.fromEntries(typeCounts) },
            ...[...facets].map(([field, facet]) => ({
              field,
              displayName: facet.displayName,
              counts: Object.fromEntries(facet.counts),
            })),
          ];
    return {
      total: hits.length,
      hits: hits
        .slice(request.start, request.start + request.count)
        .map((node) => ({ node, matchedFields: matches.get(node.urn) ?? [] })),
      facets: answered,
      walk,
      truncation: walk.truncation,
    };
  }

  private async neighbours(
    urns: readonly string[],
    direction: RelationshipDirection,
    types: readonly string[],
    window: EdgeWindow | undefined,
    limit: number,
  ): Promise<NeighbourPage> {
    // Nothing to read: no entity, or no lineage that way from these types (an empty list would read every type).
    if (urns.length === 0 || types.length === 0) return { edges: [], truncated: false };
    return this.options.graph.neighbours({
      urns,
      direction,
      types,
      limit,
      ...(window === undefined ? {} : { window }),
    });
  }
}

export interface LineageServiceOptions {
  readonly graph: GraphIndex;
  readonly search: SearchIndex;
  readonly registry: EntityRegistry;
  /** The clock the time budget is measured with. */
  readonly scheduler: Pick<Scheduler, 'now'>;
  /** Departures from {@link DEFAULT_LINEAGE_LIMITS}. */
  readonly limits?: Partial<LineageLimits>;
}

export interface LineageWalkRequest {
  readonly urn: string;
  readonly direction: LineageDirection;
  /** At least 1; `Infinity` for as many as the limits allow. */
  readonly maxHops: number;
  /** Only edges alive in this window are followed (see `EdgeWindow` of `@strata/indices`). */
  readonly window?: EdgeWindow;
}

export interface LineageSearchRequest {
  readonly urn: string;
  readonly direction: LineageDirection;
  /** Absent: as many as the limits allow (DataHub's 1000). */
  readonly maxHops?: number;
  readonly window?: EdgeWindow;
  /** Entity types to answer; empty answers every type. */
  readonly entities: readonly string[];
  /** Query text for the search index; empty or `*` matches every entity. */
  readonly input: string;
  readonly filter: Filter;
  readonly start: number;
  readonly count: number;
  readonly includeSoftDeleted?: boolean;
  readonly skipAggregates?: boolean;
  readonly skipHighlighting?: boolean;
}

export interface LineageSearchHit {
  readonly node: LineageNode;
  readonly matchedFields: readonly MatchedField[];
}

export interface LineageSearchAnswer {
  /** Every match, before paging. */
  readonly total: number;
  readonly hits: readonly LineageSearchHit[];
  /**
   * The degree facet (every value, in DataHub's order), entity types, then the search index's facets summed over its
   * queries (only for a filter of one group; with several, an entity could count in two).
   */
  readonly facets: readonly FacetResult[];
  readonly walk: LineageWalkResult;
  readonly truncation: readonly TruncationReason[];
}

/**
 * URNs per search-index query: the URN criterion counts against the search index's limit of values per filter (400),
 * leaving room for the request's own criteria.
 */
export const URNS_PER_SEARCH = 250;

function urnCriterion(urns: readonly string[]): Criterion {
  return { field: 'urn', values: urns, condition: 'EQUAL', negated: false };
}

/** A criterion every document meets and that names `removed`, so that soft-deleted documents are not hidden. */
function softDeleted(request: LineageSearchRequest): Criterion[] {
  return request.includeSoftDeleted === true
    ? [{ field: 'removed', values: [], condition: 'EXISTS', negated: false }]
    : [];
}

function addFacets(
  facets: Map<string, { displayName: string; counts: Map<string, number> }>,
  found: readonly FacetResult[],
): void {
  for (const facet of found) {
    const merged = facets.get(facet.field) ?? { displayName: facet.displayName, counts: new Map<string, number>() };
    for (const [value, count] of Object.entries(facet.counts)) {
      merged.counts.set(value, (merged.counts.get(value) ?? 0) + count);
    }
    facets.set(facet.field, merged);
  }
}
