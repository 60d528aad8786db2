import type { Client, estypes } from '@elastic/elasticsearch';
import { ValidationError } from '@strata/model';

import {
  clientOf,
  deleteAllDocuments,
  ensureIndex,
  indexPrefixOf,
  type ElasticsearchConnection,
} from './elasticsearch-connection';

import {
  documentId,
  searchIndexDefinition,
  searchIndexName,
  searchSource,
  STRATA_OBJECT,
  strataPaths,
  type SuggestionRow,
} from './elasticsearch-mappings';
import {
  autocompleteRequest,
  browseEntitiesRequest,
  browseLevelsRequest,
  searchRequest,
  SUGGESTION_HIT,
} from './elasticsearch-search-query';
import { checkPaging, documentFields, MAX_PAGE_SIZE, normalizeBrowsePath, resolveFilter } from './search-documents';
import type {
  AutocompletePage,
  AutocompleteRequest,
  BrowsePage,
  BrowseRequest,
  DocumentWrite,
  FacetResult,
  SearchDocument,
  SearchIndex,
  SearchPage,
  SearchRequest,
} from './search-index';
import { matchedFields, parseSearchQuery } from './search-query';
import { LAST_CHANGED_FIELD, type EntitySearchSchema, type SearchSchema } from './search-schema';

/** Options of {@link ElasticsearchSearchIndex}. */
export type ElasticsearchSearchIndexOptions = ElasticsearchConnection & {
  readonly schema: SearchSchema;
  /**
   * Prepended to every index name with `_` (`<prefix>_datasetindex_v2`, DataHub's `INDEX_PREFIX`), lowercased.
   * Letters, digits, `.`, `_` and `-`, starting with a letter or digit. Default: none.
   */
  readonly indexPrefix?: string;
  /**
   * The `refresh` of every write. Default `wait_for`: a write resolves once searches see it, as the port promises.
   * `false` trades that for throughput (bulk re-indexing).
   */
  readonly refresh?: boolean | 'wait_for';
};

/** What the adapter reads back of a document's `_source`. */
interface StoredSource {
  readonly urn?: string;
  /** The document's `lastChangedAt` (its top-level field). */
  readonly lastChangedAt?: number;
  readonly strata?: { readonly aspects?: SearchDocument['aspects'] };
}

/** The document a stored `_source` holds. */
function storedDocument(urn: string, entityType: string, source: StoredSource | undefined): SearchDocument {
  const changed = source?.lastChangedAt;
  return {
    urn,
    entityType,
    aspects: source?.strata?.aspects ?? {},
    ...(typeof changed === 'number' && Number.isFinite(changed) ? { lastChangedAt: changed } : {}),
  };
}

interface TermsAggregate {
  readonly buckets: readonly {
    readonly key: string | number;
    readonly key_as_string?: string;
    readonly doc_count: number;
  }[];
}

const URN_ENTITY_TYPE = /^urn:li:([A-Za-z0-9_]+):/;

/**
 * The scale search index: Elasticsearch, one index per entity type laid out as `elasticsearch-mappings.ts` describes,
 * with the semantics of the port (`search-index.ts`) that the SQLite adapter also implements. Text is indexed
 * pre-analyzed by the same `analyze` the SQLite adapter uses, so both engines match the same words; only relevance
 * scores differ (BM25 per field with the schema's boosts, summed over fields). The requests are plain Query DSL of
 * Elasticsearch 8 and 9; note that the 9.x client sends `compatible-with=9` headers, which an 8.x cluster refuses.
 *
 * - A document lives in the index of its entity type and is found again by its URN: a put whose URN's entity type
 *   (`urn:li:<type>:…`) is not its `entityType` is refused with `ValidationError`, as is an unknown entity type,
 *   before anything is sent.
 * - **Writes**: one `_bulk` request, `refresh=wait_for` unless configured otherwise, so a resolved write is seen by
 *   every later search, browse and autocomplete; it is durable once acknowledged (translog). Elasticsearch has no
 *   multi-document transactions: when the cluster rejects an item the call rejects (naming the URNs) but the other
 *   items may be applied. Replaying the call, as the indexer does with a failed batch, converges, since every put
 *   replaces its document whole.
 * - **Search**: one request (query, filters, `removed` hidden, `_score` then `urn` order, facets as terms
 *   aggregations, `track_total_hits`); `matchedFields` are computed from the hits' stored contributions with the
 *   shared {@link matchedFields}. **Browse**: one request for the groups and counts, one for the entities of the page
 *   when it has any (two snapshots: a write in between may show in one and not the other). **Autocomplete**: one
 *   request over the nested suggestion rows, ordered by their smallest ranked key, then URN.
 * - **Clear**: a refresh, then one `_delete_by_query` matching every document of every entity type's index, waiting
 *   for completion and refreshed; the indices and their mappings stay.
 * - A page may not reach past the first 10000 results (`from + size`, Elasticsearch's `max_result_window`): such a
 *   request is refused with `ValidationError`, where the SQLite adapter would answer it.
 */
export class ElasticsearchSearchIndex implements SearchIndex {
  readonly schema: SearchSchema;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly indexPrefix: string;
  private readonly refresh: boolean | 'wait_for';
  private closed = false;

  /** Builds the handle without contacting the cluster; {@link open} also creates the indices. */
  constructor(options: ElasticsearchSearchIndexOptions) {
    const prefix = indexPrefixOf(options.indexPrefix);
    for (const entity of options.schema.entities()) {
      if (entity.field(STRATA_OBJECT) !== undefined) {
        throw new Error(`The search field ${STRATA_OBJECT} of ${entity.entityType} collides with the adapter's own`);
      }
    }
    this.schema = options.schema;
    this.indexPrefix = prefix;
    this.refresh = options.refresh ?? 'wait_for';
    const { client, owned } = clientOf(options);
    this.client = client;
    this.ownsClient = owned;
  }

  /** Opens the index: builds the handle, then {@link ensureIndices}. Closes what it built if that fails. */
  static async open(options: ElasticsearchSearchIndexOptions): Promise<ElasticsearchSearchIndex> {
    const index = new ElasticsearchSearchIndex(options);
    try {
      await index.ensureIndices();
    } catch (error) {
      await index.close();
      throw error;
    }
    return index;
  }

  /**
   * Creates the index of every entity type that has none, with the settings and mappings generated from the schema,
   * and adds the fields the schema gained to the existing ones (mappings only grow; documents indexed before get the
   * new fields when re-indexed). Idempotent, and safe when several processes open at once.
   */
  async ensureIndices(): Promise<void> {
    this.assertOpen();
    await Promise.all(
      this.schema
        .entities()
        .map((entity) => ensureIndex(this.client, this.indexName(entity.entityType), searchIndexDefinition(entity))),
    );
  }

  /** The name of an entity type's index (`<prefix>_datasetindex_v2`). */
  indexName(entityType: string): string {
    return searchIndexName(this.indexPrefix, entityType);
  }

  async documents(urns: readonly string[]): Promise<Map<string, SearchDocument>> {
    this.assertOpen();
    const located = new Map<string, EntitySearchSchema>();
    for (const urn of urns) {
      const entity = this.entityOfUrn(urn);
      // A URN of no known entity type was never stored (writes refuse it).
      if (entity !== undefined) located.set(urn, entity);
    }
    const found = new Map<string, SearchDocument>();
    if (located.size === 0) return found;
    const requested = [...located];
    const response = await this.client.mget<StoredSource>({
      docs: requested.map(([urn, entity]) => ({ _index: this.indexName(entity.entityType), _id: documentId(urn) })),
      _source_includes: [strataPaths.aspects, LAST_CHANGED_FIELD],
    });
    response.docs.forEach((doc, position) => {
      const [urn, entity] = requested[position] ?? [];
      if (urn === undefined || entity === undefined) return;
      if ('error' in doc) {
        throw new Error(`Reading the search document of ${urn} failed: ${doc.error.type}: ${doc.error.reason ?? ''}`);
      }
      if (!doc.found) return;
      found.set(urn, storedDocument(urn, entity.entityType, doc._source));
    });
    return found;
  }

  async write(changes: readonly DocumentWrite[]): Promise<void> {
    this.assertOpen();
    const operations: Record<string, unknown>[] = [];
    const urns: string[] = [];
    for (const change of changes) {
      if ('put' in change) {
        const entity = this.entity(change.put.entityType);
        const urnType = URN_ENTITY_TYPE.exec(change.put.urn)?.[1];
        if (urnType !== entity.entityType) {
          throw new ValidationError(
            `The URN ${change.put.urn} is not one of entity type ${entity.entityType}: its search document cannot be stored`,
          );
        }
        operations.push(
          { index: { _index: this.indexName(entity.entityType), _id: documentId(change.put.urn) } },
          searchSource(change.put, entity),
        );
        urns.push(change.put.urn);
      } else {
        const entity = this.entityOfUrn(change.remove);
        // Never stored (writes refuse such URNs): nothing to remove.
        if (entity === undefined) continue;
        operations.push({ delete: { _index: this.indexName(entity.entityType), _id: documentId(change.remove) } });
        urns.push(change.remove);
      }
    }
    if (operations.length === 0) return;
    const response = await this.client.bulk({ operations, refresh: this.refresh });
    if (!response.errors) return;
    const failures = response.items.flatMap((item, position) => {
      const result = item.index ?? item.delete ?? item.create ?? item.update;
      const error = result?.error;
      return error === undefined ? [] : [`${urns[position] ?? '?'} (${error.type}: ${error.reason ?? ''})`];
    });
    throw new Error(
      `Elasticsearch rejected ${failures.length} of ${urns.length} search document writes: ${failures
        .slice(0, 10)
        .join('; ')}${failures.length > 10 ? '; …' : ''}`,
    );
  }

  /** Deletes every document of every entity type's index ({@link deleteAllDocuments}); the indices stay. */
  async clear(): Promise<void> {
    this.assertOpen();
    await deleteAllDocuments(
      this.client,
      this.schema.entities().map((entity) => this.indexName(entity.entityType)),
    );
  }

  async search(request: SearchRequest): Promise<SearchPage> {
    this.assertOpen();
    const entity = this.entity(request.entityType);
    checkPaging(request.start, request.count, MAX_PAGE_SIZE, 'count');
    const query = parseSearchQuery(request.input, entity);
    const filter = resolveFilter(request.filter, entity);
    const response = await this.client.search<StoredSource, Record<string, TermsAggregate>>(
      searchRequest(this.indexName(entity.entityType), entity, query, filter, request.start, request.count),
    );
    return {
      total: totalHits(response.hits.total),
      hits: response.hits.hits.map((hit) => {
        const urn = hit._source?.urn ?? hit._id ?? '';
        const document = storedDocument(urn, entity.entityType, hit._source);
        return { urn, matchedFields: matchedFields(documentFields(document), query, entity) };
      }),
      facets: entity.facets.map((facet): FacetResult => {
        const buckets = response.aggregations?.[facet.name]?.buckets ?? [];
        return {
          field: facet.name,
          displayName: facet.displayName,
          counts: Object.fromEntries(
            buckets.map((bucket) => [bucket.key_as_string ?? String(bucket.key), bucket.doc_count]),
          ),
        };
      }),
    };
  }

  async browse(request: BrowseRequest): Promise<BrowsePage> {
    this.assertOpen();
    const entity = this.entity(request.entityType);
    checkPaging(request.start, request.limit, MAX_PAGE_SIZE, 'limit');
    const filter = resolveFilter(request.filter, entity);
    const path = normalizeBrowsePath(request.path);
    const index = this.indexName(entity.entityType);
    const levels = await this.client.search<unknown, { groups: TermsAggregate; at: { doc_count: number } }>(
      browseLevelsRequest(index, entity, filter, path),
    );
    const groups = (levels.aggregations?.groups.buckets ?? []).map((bucket) => ({
      name: String(bucket.key).slice(path.length + 1),
      count: bucket.doc_count,
    }));
    const numEntities = levels.aggregations?.at.doc_count ?? 0;
    const from = Math.max(request.start - groups.length, 0);
    const size = Math.min(Math.max(request.start + request.limit - groups.length, 0), request.limit);
    let urns: string[] = [];
    if (size > 0 && from < numEntities) {
      const entities = await this.client.search<StoredSource>(
        browseEntitiesRequest(index, entity, filter, path, from, size),
      );
      urns = entities.hits.hits.map((hit) => hit._source?.urn ?? hit._id ?? '');
    }
    const name = path.slice(path.lastIndexOf('/') + 1);
    return {
      path,
      totalNumEntities: totalHits(levels.hits.total),
      numEntities,
      groups,
      entities: urns.map((urn) => ({ urn, name })),
    };
  }

  async autocomplete(request: AutocompleteRequest): Promise<AutocompletePage> {
    this.assertOpen();
    const entity = this.entity(request.entityType);
    checkPaging(0, request.limit, MAX_PAGE_SIZE, 'limit');
    const filter = resolveFilter(request.filter, entity);
    if (request.field !== undefined && entity.field(request.field) === undefined) {
      throw new ValidationError(`Unknown field ${request.field} for entity ${entity.entityType}`);
    }
    if (request.limit === 0) return { suggestions: [], urns: [] };
    const response = await this.client.search<StoredSource>(
      autocompleteRequest(this.indexName(entity.entityType), entity, filter, request),
    );
    const suggestions: string[] = [];
    const urns: string[] = [];
    for (const hit of response.hits.hits) {
      const row = hit.inner_hits?.[SUGGESTION_HIT]?.hits.hits[0]?._source as SuggestionRow | undefined;
      if (row === undefined) continue;
      suggestions.push(row.value);
      urns.push(hit._source?.urn ?? hit._id ?? '');
    }
    return { suggestions, urns };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  // -------------------------------------------------------------------------------------------------------------------

  private assertOpen(): void {
    if (this.closed) throw new Error('ElasticsearchSearchIndex is closed');
  }

  private entity(entityType: string): EntitySearchSchema {
    const entity = this.schema.entity(entityType);
    if (entity === undefined) throw new ValidationError(`Unknown entity: ${entityType}`);
    return entity;
  }

  /** The entity whose index holds a URN's document, when its type is one of the schema's. */
  private entityOfUrn(urn: string): EntitySearchSchema | undefined {
    const type = URN_ENTITY_TYPE.exec(urn)?.[1];
    return type === undefined ? undefined : this.schema.entity(type);
  }
}

function totalHits(total: number | estypes.SearchTotalHits | undefined): number {
  if (total === undefined) return 0;
  return typeof total === 'number' ? total : total.value;
}
