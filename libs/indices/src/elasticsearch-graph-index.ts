import type { Client, estypes } from '@elastic/elasticsearch';
import { ValidationError } from '@strata/model';

import {
  edgeDocumentId,
  edgeSource,
  graphIndexDefinition,
  graphIndexName,
  graphPaths,
  MAX_GRAPH_KEYWORD_LENGTH,
  PAIR_SEPARATOR,
  pairKey,
  pairPath,
  parsePairKey,
  type EdgeSource,
} from './elasticsearch-graph-mappings';
import {
  clientOf,
  deleteAllDocuments,
  ensureIndex,
  indexPrefixOf,
  type ElasticsearchConnection,
} from './elasticsearch-connection';
import {
  MAX_EDGE_SCROLL_COUNT,
  type EdgeKey,
  type EdgeScrollPage,
  type EdgeScrollQuery,
  type GraphChange,
  type GraphEdge,
  type GraphIndex,
  type HeldEdge,
  type Relationship,
  type RelationshipPage,
  type RelationshipQuery,
  type ScrolledEdge,
} from './graph-index';
import {
  heldAspectKey,
  NeighbourFold,
  neighbourChunks,
  neighbourQueryFault,
  type NeighbourPage,
  type NeighbourQuery,
} from './graph-index';
import {
  NEIGHBOUR_PAGE_SIZE,
  NEIGHBOUR_URNS_PER_SEARCH,
  neighbourOf,
  neighbourSearch,
} from './elasticsearch-graph-neighbours';

/** Options of {@link ElasticsearchGraphIndex}. */
export type ElasticsearchGraphIndexOptions = ElasticsearchConnection & {
  /**
   * Prepended to the index name with `_` (`<prefix>_graph_service_v1`, DataHub's `INDEX_PREFIX`), lowercased.
   * Letters, digits, `.`, `_` and `-`, starting with a letter or digit. Default: none.
   */
  readonly indexPrefix?: string;
  /**
   * The `refresh` of every bulk write. Default `wait_for`: a write resolves once queries see it, as the port promises;
   * `true` refreshes at once (more, smaller segments). `false` is not offered: a replacement finds the edges it
   * replaces with a search, which only sees refreshed documents, so an unrefreshed write would leave stale edges.
   */
  readonly refresh?: true | 'wait_for';
};

type Query = estypes.QueryDslQueryContainer;
type ReplaceEdges = Extract<GraphChange, { kind: 'replaceEdges' }>;
type ReplaceHeldEdges = Extract<GraphChange, { kind: 'replaceHeldEdges' }>;

/**
 * One contribution a write replaces, whichever call named it: a source's own aspect (`by: 'source'`, `urn` the
 * source) or the edges a holder's aspect holds (`by: 'holder'`, `urn` the holder, `aspect` its `heldAspectKey`).
 */
interface Contribution {
  readonly by: 'source' | 'holder';
  readonly urn: string;
  /** The aspect as stored (`strata.aspect`). */
  readonly aspect: string;
  readonly edges: readonly { readonly source: string; readonly edge: GraphEdge }[];
}

function contributionOf(change: ReplaceEdges | ReplaceHeldEdges): Contribution {
  if (change.kind === 'replaceEdges') {
    return {
      by: 'source',
      urn: change.source,
      aspect: change.aspect,
      edges: change.edges.map((edge) => ({ source: change.source, edge })),
    };
  }
  return {
    by: 'holder',
    urn: change.holder,
    aspect: heldAspectKey(change.aspect, change.holder),
    edges: change.edges.map(({ source, ...edge }) => ({ source, edge })),
  };
}

interface TermsAggregate {
  readonly buckets: readonly { readonly key: string; readonly doc_count: number }[];
}

/** One stored document of an aspect's contribution, as a write finds it. */
interface StoredEdge {
  readonly source: string;
  readonly aspect: string;
  readonly pair: string;
}

/** Elasticsearch's `index.max_result_window` default: `from + size` of a page may not exceed it. */
const MAX_RESULT_WINDOW = 10_000;
/** Hits per request of {@link ElasticsearchGraphIndex.scrollEdges}, which drops the documents after an edge's first. */
export const SCROLL_PAGE_SIZE = 1_000;
/** Hits per request when reading the current edges of the aspects a write replaces (paged with `search_after`). */
export const EDGE_PAGE_SIZE = 10_000;
/** Buckets per request of the aggregation counting duplicated pairs (paged by key). */
export const DUPLICATE_PAGE_SIZE = 10_000;
/** Sources per search when reading current edges, bounding the query's boolean clauses. */
export const SOURCES_PER_SEARCH = 500;

/**
 * The scale graph index: Elasticsearch, DataHub's `graph_service_v1` index laid out as `elasticsearch-graph-mappings.ts`
 * describes (DataHub's edge document, one per (source, aspect, type, destination), Strata's fields under `strata`),
 * with the semantics of the port (`graph-index.ts`) that the SQLite adapter also implements. Plain Query DSL of
 * Elasticsearch 8 and 9.
 *
 * - **Writes.** `replaceEdges` and `replaceHeldEdges` are `apply` of one change. `apply` cuts its list into segments at
 *   each run of `removeEntity`. A segment of replacements keeps the last replacement of each (source, aspect) and of
 *   each (holder, aspect), reads the documents those contributions have now (searches filtered on `source.urn` — or,
 *   for held edges, on `lifecycleOwner` — and `strata.aspect`, paged with `search_after` on (`source.urn`,
 *   `strata.aspect`, `strata.outgoing`), unique per document, so an aspect with any number of edges is read whole),
 *   then sends ONE `_bulk`: `index` for every edge the contributions imply (an edge given twice once, the first
 *   occurrence), `delete` for every document they no longer imply, with `refresh=wait_for` (or `true`). A run of
 *   removals is one `_delete_by_query` matching the documents from those URNs without a `lifecycleOwner`, and those
 *   whose `lifecycleOwner` is one of them, with `refresh=true` and `conflicts=proceed`; `removeNode` is one such
 *   request matching `source.urn`, `destination.urn` or `lifecycleOwner`. Each step is visible to the next before it
 *   starts, so the result equals the calls one by one. An item the cluster rejects, or a removal that reports
 *   failures, rejects the call, naming the edges or URNs.
 * - **Clear** is a refresh, then one `_delete_by_query` matching every document, waiting for completion and
 *   refreshed; the index and its mappings stay.
 * - **Guarantees, and how they differ from SQLite.** Elasticsearch has no multi-document transactions: a query during
 *   a write may see part of it (some segments, part of a bulk), and a write that rejects may have applied part of its
 *   changes; nothing is rolled back. Replaying the call, as the indexer does with a failed batch, converges to the
 *   state the port promises, since every document is put whole under an id derived from what it is, and removals are
 *   idempotent. A resolved write is durable (translog) and seen by every later query. Writes of one source (or one
 *   holder) must come from one writer at a time (the indexer's partitioning by URN gives that): two concurrent
 *   replacements of the same aspect could each miss the other's documents.
 * - **Queries.** One `_search` filtered on the URN's end (`source.urn` for OUTGOING, `destination.urn` for INCOMING)
 *   and `relationshipType` when types are given, collapsed on the direction's pair keyword and sorted by (pair,
 *   `createdOn` ascending with missing last, `strata.aspect`), so that each (type, other end) comes once, with the
 *   earliest stamp, in (type, entity) code-point order, paged with `from`/`size`. Its `total` is exact: the hits
 *   (documents) less the surplus of pairs held by several documents, which a terms aggregation on the pair keyword
 *   with `min_doc_count: 2` lists in the same request (exact counts on one shard). When it lists
 *   {@link DUPLICATE_PAGE_SIZE} pairs, further requests page on by key; those come from a later snapshot.
 * - **Scrolling.** `scrollEdges` searches with the query's filters (`relationshipType`, `source.urn`,
 *   `destination.urn`, `source.entityType`, `destination.entityType`) and, after a key, a range on (`source.urn`,
 *   `strata.outgoing`), sorted by (`source.urn`, `strata.outgoing`, `createdOn` ascending with missing last,
 *   `strata.aspect`): the documents of one edge are adjacent, its earliest first, and the later ones are dropped.
 *   Requests of {@link SCROLL_PAGE_SIZE} hits follow each other, each after the last key read, until the page is full.
 * - **Neighbours.** `neighbours` is one search per chunk of 500 URNs, filtered on the direction's end, the types and
 *   the window, sorted by (end, pair, aspect) and paged with `search_after` until `limit` pairs are folded
 *   (`elasticsearch-graph-neighbours.ts`). Each request is its own snapshot.
 * - A page may not reach past the first 10000 relationships (`from + size`, Elasticsearch's `max_result_window`):
 *   such a query is refused with `ValidationError`, where the SQLite adapter would answer it. An edge whose type
 *   contains U+0000, or whose type and URN together (or aspect) exceed 8191 characters, cannot be indexed so that
 *   queries find it: a write holding one is refused with `ValidationError` before anything is sent.
 * - The index is Strata's own, created with one shard. An existing index is opened as found: with several shards, a
 *   pair whose documents sit on different shards would escape the duplicate count, and `total` count it twice.
 */
export class ElasticsearchGraphIndex implements GraphIndex {
  /** The index holding the edges (`<prefix>_graph_service_v1`). */
  readonly indexName: string;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly refresh: true | 'wait_for';
  private closed = false;

  /** Builds the handle without contacting the cluster; {@link open} also creates the index. */
  constructor(options: ElasticsearchGraphIndexOptions) {
    this.indexName = graphIndexName(indexPrefixOf(options.indexPrefix));
    this.refresh = options.refresh ?? 'wait_for';
    const { client, owned } = clientOf(options);
    this.client = client;
    this.ownsClient = owned;
  }

  /** Opens the index: builds the handle, then {@link ensureIndex}. Closes what it built if that fails. */
  static async open(options: ElasticsearchGraphIndexOptions): Promise<ElasticsearchGraphIndex> {
    const index = new ElasticsearchGraphIndex(options);
    try {
      await index.ensureIndex();
    } catch (error) {
      await index.close();
      throw error;
    }
    return index;
  }

  /**
   * Creates the index when it has none, with its settings and mappings, else adds the mappings to the existing one
   * (they only grow). Idempotent, and safe when several processes open at once.
   */
  async ensureIndex(): Promise<void> {
    this.assertOpen();
    await ensureIndex(this.client, this.indexName, graphIndexDefinition());
  }

  replaceEdges(source: string, aspect: string, edges: readonly GraphEdge[]): Promise<void> {
    return this.apply([{ kind: 'replaceEdges', source, aspect, edges }]);
  }

  replaceHeldEdges(holder: string, aspect: string, edges: readonly HeldEdge[]): Promise<void> {
    return this.apply([{ kind: 'replaceHeldEdges', holder, aspect, edges }]);
  }

  removeEntity(urn: string): Promise<void> {
    return this.apply([{ kind: 'removeEntity', urn }]);
  }

  /** One delete-by-query of every document from, to or held by `urn`, refreshed. */
  async removeNode(urn: string): Promise<void> {
    this.assertOpen();
    await this.deleteEdges([urn], {
      bool: {
        should: [
          { term: { [graphPaths.sourceUrn]: urn } },
          { term: { [graphPaths.destinationUrn]: urn } },
          { term: { [graphPaths.lifecycleOwner]: urn } },
        ],
        minimum_should_match: 1,
      },
    });
  }

  async apply(changes: readonly GraphChange[]): Promise<void> {
    this.assertOpen();
    const steps = changes.map((change): { readonly removed?: string; readonly replaced?: Contribution } =>
      change.kind === 'removeEntity' ? { removed: change.urn } : { replaced: contributionOf(change) },
    );
    for (const step of steps) if (step.replaced !== undefined) checkContribution(step.replaced);
    let replacements: Contribution[] = [];
    let removals: string[] = [];
    for (const step of steps) {
      if (step.removed !== undefined) {
        await this.replaceAspects(replacements);
        replacements = [];
        removals.push(step.removed);
      } else if (step.replaced !== undefined) {
        await this.removeEntities(removals);
        removals = [];
        replacements.push(step.replaced);
      }
    }
    await this.replaceAspects(replacements);
    await this.removeEntities(removals);
  }

  /** Deletes every edge document of the index ({@link deleteAllDocuments}); the index stays. */
  async clear(): Promise<void> {
    this.assertOpen();
    await deleteAllDocuments(this.client, [this.indexName]);
  }

  async relationships(query: RelationshipQuery): Promise<RelationshipPage> {
    this.assertOpen();
    // Checked although typed: the value comes from a query string.
    const direction: string = query.direction;
    if (direction !== 'INCOMING' && direction !== 'OUTGOING') {
      throw new ValidationError(`Invalid relationship direction ${direction}`);
    }
    if (!isNonNegativeInteger(query.start)) throw new ValidationError(`Invalid start ${query.start}`);
    if (!isNonNegativeInteger(query.count)) throw new ValidationError(`Invalid count ${query.count}`);
    const page = query.count === 0 ? undefined : resultWindow(query.start, query.count);
    const pair = pairPath(query.direction);
    const other = query.direction === 'OUTGOING' ? 'destination' : 'source';
    const filter: Query[] = [
      { term: { [query.direction === 'OUTGOING' ? graphPaths.sourceUrn : graphPaths.destinationUrn]: query.urn } },
      ...(query.types.length === 0 ? [] : [{ terms: { [graphPaths.relationshipType]: [...query.types] } }]),
    ];
    const response = await this.client.search<Partial<EdgeSource>, { duplicates: TermsAggregate }>({
      index: this.indexName,
      query: { bool: { filter } },
      ...(page === undefined
        ? { size: 0 }
        : {
            collapse: { field: pair },
            sort: [
              { [pair]: { order: 'asc' } },
              { [graphPaths.createdOn]: { order: 'asc', missing: '_last' } },
              { [graphPaths.aspect]: { order: 'asc' } },
            ],
            ...page,
            _source: [graphPaths.relationshipType, `${other}.urn`, graphPaths.createdOn, graphPaths.createdActor],
          }),
      track_total_hits: true,
      aggs: { duplicates: duplicatePairs(pair) },
    });
    const surplus = await this.surplus(filter, pair, response.aggregations?.duplicates.buckets ?? []);
    return {
      total: totalHits(response.hits.total) - surplus,
      relationships: response.hits.hits.map((hit) => toRelationship(hit._source ?? {}, other)),
    };
  }

  async scrollEdges(query: EdgeScrollQuery): Promise<EdgeScrollPage> {
    this.assertOpen();
    if (!Number.isSafeInteger(query.count) || query.count < 1 || query.count > MAX_EDGE_SCROLL_COUNT) {
      throw new ValidationError(`Invalid count ${query.count}: from 1 to ${MAX_EDGE_SCROLL_COUNT}`);
    }
    const filter: Query[] = [];
    const anyOf = (path: string, values: readonly string[]) => {
      if (values.length > 0) filter.push({ terms: { [path]: [...values] } });
    };
    anyOf(graphPaths.relationshipType, query.types);
    anyOf(graphPaths.sourceUrn, query.sourceUrns);
    anyOf(graphPaths.destinationUrn, query.destinationUrns);
    anyOf(graphPaths.sourceEntityType, query.sourceTypes);
    anyOf(graphPaths.destinationEntityType, query.destinationTypes);
    const edges: ScrolledEdge[] = [];
    let after: EdgeKey | undefined = query.after;
    for (;;) {
      const response = await this.client.search<Partial<EdgeSource>>({
        index: this.indexName,
        query: { bool: { filter: after === undefined ? filter : [...filter, afterKey(after)] } },
        sort: [
          { [graphPaths.sourceUrn]: { order: 'asc' } },
          { [graphPaths.outgoing]: { order: 'asc' } },
          { [graphPaths.createdOn]: { order: 'asc', missing: '_last' } },
          { [graphPaths.aspect]: { order: 'asc' } },
        ],
        size: SCROLL_PAGE_SIZE,
        track_total_hits: false,
        _source: [
          graphPaths.sourceUrn,
          graphPaths.destinationUrn,
          graphPaths.relationshipType,
          graphPaths.createdOn,
          graphPaths.createdActor,
        ],
      });
      const hits = response.hits.hits;
      for (const hit of hits) {
        const edge = toScrolledEdge(hit._source ?? {});
        const last = edges[edges.length - 1];
        // Documents of the same edge are adjacent, the earliest first; one stopped at a page boundary is past `after`.
        if (last !== undefined && sameKey(last, edge)) continue;
        if (after !== undefined && sameKey(after, edge)) continue;
        edges.push(edge);
        if (edges.length > query.count) return { edges: edges.slice(0, query.count), hasMore: true };
      }
      const lastHit = edges[edges.length - 1];
      if (hits.length < SCROLL_PAGE_SIZE || lastHit === undefined) return { edges, hasMore: false };
      after = lastHit;
    }
  }

  /** See `elasticsearch-graph-neighbours.ts`: one search per chunk of URNs, paged with `search_after`, up to `limit`. */
  async neighbours(query: NeighbourQuery): Promise<NeighbourPage> {
    this.assertOpen();
    const fault = neighbourQueryFault(query);
    if (fault !== undefined) throw new ValidationError(fault);
    const fold = new NeighbourFold(query.limit);
    // One hit more than the limit tells whether more follow; the documents of one edge may take a few more.
    const size = Math.min(NEIGHBOUR_PAGE_SIZE, query.limit + 1);
    for (const chunk of neighbourChunks(query.urns, NEIGHBOUR_URNS_PER_SEARCH)) {
      let after: estypes.SortResults | undefined;
      for (;;) {
        const response = await this.client.search<Partial<EdgeSource>>({
          index: this.indexName,
          ...neighbourSearch(query, chunk, size, after),
        });
        const hits = response.hits.hits;
        for (const hit of hits) if (!fold.add(neighbourOf(hit._source ?? {}, query.direction))) break;
        if (fold.full) return fold.page();
        after = hits[hits.length - 1]?.sort;
        if (hits.length < size || after === undefined) break;
      }
    }
    return fold.page();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  // -------------------------------------------------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw new Error('ElasticsearchGraphIndex is closed');
  }

  /** One segment of replacements: the current documents of the contributions read, then one bulk request. */
  private async replaceAspects(replacements: readonly Contribution[]): Promise<void> {
    if (replacements.length === 0) return;
    // The last replacement of a contribution is all of it (no removal in between, by construction).
    const latest = new Map<string, Contribution>();
    for (const change of replacements) latest.set(JSON.stringify([change.by, change.urn, change.aspect]), change);
    const stored = await this.storedEdges([...latest.values()]);

    const operations: object[] = [];
    const labels: string[] = [];
    const kept = new Set<string>();
    for (const { by, urn, aspect, edges } of latest.values()) {
      for (const { source, edge } of edges) {
        const id = edgeDocumentId(source, aspect, edge.type, edge.destination);
        // An edge given twice: the first occurrence stays.
        if (kept.has(id)) continue;
        kept.add(id);
        operations.push(
          { index: { _index: this.indexName, _id: id } },
          edgeSource(source, aspect, edge, by === 'holder' ? urn : undefined),
        );
        labels.push(edgeLabel(source, aspect, edge.type, edge.destination));
      }
    }
    for (const [id, edge] of stored) {
      if (kept.has(id)) continue;
      const { type, urn } = parsePairKey(edge.pair);
      operations.push({ delete: { _index: this.indexName, _id: id } });
      labels.push(edgeLabel(edge.source, edge.aspect, type, urn));
    }
    if (operations.length === 0) return;

    const response = await this.client.bulk({ operations, refresh: this.refresh });
    if (!response.errors) return;
    const failures = response.items.flatMap((item, position) => {
      const error = (item.index ?? item.delete ?? item.create ?? item.update)?.error;
      return error === undefined ? [] : [`${labels[position] ?? '?'} (${error.type}: ${error.reason ?? ''})`];
    });
    throw new Error(
      `Elasticsearch rejected ${failures.length} of ${labels.length} graph edge writes: ${failures
        .slice(0, 10)
        .join('; ')}${failures.length > 10 ? '; …' : ''}`,
    );
  }

  /** The documents the contributions of `replacements` have now, by `_id`. */
  private async storedEdges(replacements: readonly Contribution[]): Promise<Map<string, StoredEdge>> {
    // The aspects of each source, then of each holder: one clause each, on the field saying whose they are.
    const aspectsByOwner = new Map<string, { path: string; urn: string; aspects: Set<string> }>();
    for (const { by, urn, aspect } of replacements) {
      const key = JSON.stringify([by, urn]);
      const path = by === 'source' ? graphPaths.sourceUrn : graphPaths.lifecycleOwner;
      const owner = aspectsByOwner.get(key) ?? { path, urn, aspects: new Set<string>() };
      owner.aspects.add(aspect);
      aspectsByOwner.set(key, owner);
    }
    const owners = [...aspectsByOwner.values()];
    const stored = new Map<string, StoredEdge>();
    for (let first = 0; first < owners.length; first += SOURCES_PER_SEARCH) {
      const query: Query = {
        bool: {
          should: owners.slice(first, first + SOURCES_PER_SEARCH).map(({ path, urn, aspects }) => ({
            bool: { filter: [{ term: { [path]: urn } }, { terms: { [graphPaths.aspect]: [...aspects] } }] },
          })),
          minimum_should_match: 1,
        },
      };
      let after: estypes.SortResults | undefined;
      for (;;) {
        const response = await this.client.search({
          index: this.indexName,
          query,
          sort: [
            { [graphPaths.sourceUrn]: { order: 'asc' } },
            { [graphPaths.aspect]: { order: 'asc' } },
            { [graphPaths.outgoing]: { order: 'asc' } },
          ],
          size: EDGE_PAGE_SIZE,
          _source: false,
          track_total_hits: false,
          ...(after === undefined ? {} : { search_after: after }),
        });
        const hits = response.hits.hits;
        for (const hit of hits) {
          const [source, aspect, pair] = (hit.sort ?? []).map(String);
          if (hit._id === undefined || source === undefined || aspect === undefined || pair === undefined) continue;
          stored.set(hit._id, { source, aspect, pair });
        }
        after = hits[hits.length - 1]?.sort;
        if (hits.length < EDGE_PAGE_SIZE || after === undefined) break;
      }
    }
    return stored;
  }

  /**
   * One run of removals: the edges the URNs' aspects implied — those from one of them that nobody holds, and those
   * one of them holds.
   */
  private async removeEntities(urns: readonly string[]): Promise<void> {
    if (urns.length === 0) return;
    await this.deleteEdges(urns, {
      bool: {
        should: [
          {
            bool: {
              filter: [{ terms: { [graphPaths.sourceUrn]: [...urns] } }],
              must_not: [{ exists: { field: graphPaths.lifecycleOwner } }],
            },
          },
          { terms: { [graphPaths.lifecycleOwner]: [...urns] } },
        ],
        minimum_should_match: 1,
      },
    });
  }

  /** Deletes the documents `query` matches, refreshed; rejects naming `urns` when the removal reports failures. */
  private async deleteEdges(urns: readonly string[], query: Query): Promise<void> {
    const response = await this.client.deleteByQuery({
      index: this.indexName,
      refresh: true,
      conflicts: 'proceed',
      query,
    });
    const failures = response.failures ?? [];
    if (failures.length === 0 && response.timed_out !== true) return;
    const reasons = failures
      .slice(0, 10)
      .map((failure) => `${failure.cause.type}: ${failure.cause.reason ?? ''}`)
      .join('; ');
    throw new Error(
      `Removing the edges of ${urns.join(', ')} failed: ${
        failures.length === 0 ? 'timed out' : `${failures.length} failures (${reasons})`
      }`,
    );
  }

  /**
   * The documents beyond the first of each pair held by several: the surplus of hits over distinct pairs. `first`
   * holds the first page of duplicated pairs (by key); a full page is followed by the next, keys after its last.
   */
  private async surplus(filter: readonly Query[], pair: string, first: TermsAggregate['buckets']): Promise<number> {
    let buckets = first;
    let surplus = 0;
    for (;;) {
      for (const bucket of buckets) surplus += bucket.doc_count - 1;
      const last = buckets[buckets.length - 1];
      if (buckets.length < DUPLICATE_PAGE_SIZE || last === undefined) return surplus;
      const next = await this.client.search<unknown, { duplicates: TermsAggregate }>({
        index: this.indexName,
        query: { bool: { filter: [...filter, { range: { [pair]: { gt: last.key } } }] } },
        size: 0,
        track_total_hits: false,
        aggs: { duplicates: duplicatePairs(pair) },
      });
      buckets = next.aggregations?.duplicates.buckets ?? [];
    }
  }
}

/**
 * The pairs held by two documents or more, by key. One shard: the counts are exact, and `shard_min_doc_count` keeps
 * single pairs out of the shard's candidates, so a page of fewer than {@link DUPLICATE_PAGE_SIZE} buckets is all of
 * them (`sum_other_doc_count` cannot tell: it also counts the single pairs' documents).
 */
function duplicatePairs(pair: string): estypes.AggregationsAggregationContainer {
  return {
    terms: {
      field: pair,
      min_doc_count: 2,
      shard_min_doc_count: 2,
      size: DUPLICATE_PAGE_SIZE,
      order: { _key: 'asc' },
    },
  };
}

/** Refuses, before anything is sent, what the index could not store so that queries find it. */
function checkContribution(change: Contribution): void {
  for (const { source, edge } of change.edges) {
    if (edge.type.includes(PAIR_SEPARATOR)) {
      throw new ValidationError(`Invalid relationship type ${JSON.stringify(edge.type)}: it contains U+0000`);
    }
    // A held edge's aspect key holds the holder's URN: its length bounds `lifecycleOwner`'s too.
    const longest = Math.max(
      pairKey(edge.type, edge.destination).length,
      pairKey(edge.type, source).length,
      change.aspect.length,
    );
    if (longest > MAX_GRAPH_KEYWORD_LENGTH) {
      throw new ValidationError(
        `The edge ${edgeLabel(source, change.aspect, edge.type, edge.destination).slice(0, 300)} is too long to` +
          ` index (more than ${MAX_GRAPH_KEYWORD_LENGTH} characters)`,
      );
    }
  }
}

function edgeLabel(source: string, aspect: string, type: string, destination: string): string {
  return `${source} -${type}-> ${destination} (${aspect})`;
}

function toRelationship(source: Partial<EdgeSource>, other: 'source' | 'destination'): Relationship {
  return {
    type: source.relationshipType ?? '',
    entity: source[other]?.urn ?? '',
    ...(typeof source.createdOn === 'number' ? { createdAt: source.createdOn } : {}),
    ...(typeof source.createdActor === 'string' ? { createdBy: source.createdActor } : {}),
  };
}

/** The documents of the edges after `key` in scrolling order: a later source, or the same one and a later pair. */
function afterKey(key: EdgeKey): Query {
  return {
    bool: {
      should: [
        { range: { [graphPaths.sourceUrn]: { gt: key.source } } },
        {
          bool: {
            filter: [
              { term: { [graphPaths.sourceUrn]: key.source } },
              { range: { [graphPaths.outgoing]: { gt: pairKey(key.type, key.destination) } } },
            ],
          },
        },
      ],
      minimum_should_match: 1,
    },
  };
}

function sameKey(left: EdgeKey, right: EdgeKey): boolean {
  return left.source === right.source && left.type === right.type && left.destination === right.destination;
}

function toScrolledEdge(source: Partial<EdgeSource>): ScrolledEdge {
  return {
    source: source.source?.urn ?? '',
    type: source.relationshipType ?? '',
    destination: source.destination?.urn ?? '',
    ...(typeof source.createdOn === 'number' ? { createdAt: source.createdOn } : {}),
    ...(typeof source.createdActor === 'string' ? { createdBy: source.createdActor } : {}),
  };
}

/** `from`/`size` of a page, refused when it reaches past what Elasticsearch pages to. */
function resultWindow(from: number, size: number): { from: number; size: number } {
  if (from + size > MAX_RESULT_WINDOW) {
    throw new ValidationError(
      `Relationships beyond the first ${MAX_RESULT_WINDOW} cannot be paged to (start ${from} + count ${size})`,
    );
  }
  return { from, size };
}

function isNonNegativeInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

function totalHits(total: number | estypes.SearchTotalHits | undefined): number {
  if (total === undefined) return 0;
  return typeof total === 'number' ? total : total.value;
}
