/**
 * The search read model: one document per entity, fed by the search indexer from versioned change logs, answering
 * DataHub's `search`, `browse` and `autocomplete` actions. Derived from the primary store and rebuildable from it, so
 * it is an index, never a source of truth.
 *
 * A document keeps, per aspect, the fields that aspect contributes (`globalTags` → `tags`, `hasTags`), so that one
 * aspect's change replaces exactly its own contribution. The document's fields are the union of its aspects'
 * contributions, plus `urn`, and `removed` (false unless an aspect says true). The field catalogue — types, boosts,
 * facets, default-query and autocomplete fields — is the {@link SearchSchema} the adapter is built with.
 *
 * Semantics every adapter implements (and `describeSearchIndexContract` checks):
 * - **Query text** is parsed by {@link parseSearchQuery}: terms are ANDed; `field:value` matches that field only;
 *   `"a phrase"` matches the words in order; `pre*` matches word prefixes; `*` alone matches every document; `OR`,
 *   `AND`, `NOT`/`-` and parentheses combine. Words are compared after {@link analyze}: case and accents folded,
 *   split at punctuation and at case and letter/digit changes (`SampleHdfsDataset` is also `sample hdfs dataset`).
 * - **Filters** are OR-of-AND {@link Criterion} groups; see {@link Condition} for each condition's meaning.
 * - **Soft-deleted documents** (`removed` true) are left out of search, browse and autocomplete unless a criterion
 *   names the `removed` field.
 * - **Ranking** is relevance with the fields' boosts, ties broken by URN ascending; the page is `[start, start+count)`
 *   of that order and `total` counts every match.
 * - **Writes** are durable once {@link SearchIndex.write} resolves, and replaying a write is harmless (documents are
 *   replaced whole). A call is atomic where the engine allows (SQLite); on Elasticsearch a rejected item may leave
 *   the call's other items applied, and replaying the call converges.
 * - **Paging** may reach up to 10,000 results deep on every engine (Elasticsearch refuses further).
 */
import type { SearchSchema } from './search-schema';

export interface SearchIndex {
  /** The schema the index was built with. */
  readonly schema: SearchSchema;

  /** The stored documents of these URNs (absent ones are missing from the map). */
  documents(urns: readonly string[]): Promise<Map<string, SearchDocument>>;

  /**
   * Puts and removes documents. A put replaces the document of that URN whole; its URN's entity type must be its
   * `entityType` (else `ValidationError`, nothing written).
   */
  write(changes: readonly DocumentWrite[]): Promise<void>;

  /**
   * Removes every document, leaving the index open, empty and writable with the same layout (mappings, tables); what a
   * full rebuild from the primary store starts with. Resolves once that is durable: every later read answers as an
   * empty index (no page or count kept from before), and later writes work as on a new index. A write concurrent
   * with it may or may not survive it.
   */
  clear(): Promise<void>;

  /** Rejects with `ValidationError` for an unknown entity type, a malformed query or filter, or bad paging. */
  search(request: SearchRequest): Promise<SearchPage>;

  /** Rejects like {@link search}. */
  browse(request: BrowseRequest): Promise<BrowsePage>;

  /** Rejects like {@link search}. */
  autocomplete(request: AutocompleteRequest): Promise<AutocompletePage>;

  /** Releases the handle; calling it again does nothing. */
  close(): Promise<void>;
}

export type FieldValue = string | number | boolean;

/** The fields one aspect contributes to its entity's document: field name → values. */
export type FieldContribution = Readonly<Record<string, readonly FieldValue[]>>;

export interface SearchDocument {
  readonly urn: string;
  readonly entityType: string;
  /** Aspect name → the fields it contributes. */
  readonly aspects: Readonly<Record<string, FieldContribution>>;
  /**
   * When the entity last changed in Strata (epoch milliseconds): the stamp of the latest change log the indexer applied
   * to the document, whatever the aspect. Indexed as the DATETIME field `lastChangedAt` of every entity type
   * (`LAST_CHANGED_FIELD`); absent on documents written before Strata kept it, until their next change.
   */
  readonly lastChangedAt?: number;
}

export type DocumentWrite = { readonly put: SearchDocument } | { readonly remove: string };

/**
 * How a criterion compares a document's values with the criterion's values; a document matches when any of its
 * values of the field matches any criterion value.
 * - `EQUAL` (and `IN`): the value equals, exactly (case-sensitive).
 * - `CONTAIN`, `START_WITH`, `END_WITH`: the value contains, starts or ends with it, ignoring case.
 * - `GREATER_THAN`, `GREATER_THAN_OR_EQUAL_TO`, `LESS_THAN`, `LESS_THAN_OR_EQUAL_TO`: numeric comparison when both
 *   sides are numbers (epoch milliseconds for dates), else string comparison by code point.
 * - `EXISTS`, `IS_NULL`: the document has / has no value for the field (criterion values ignored).
 */
export const CONDITIONS = [
  'EQUAL',
  'IN',
  'CONTAIN',
  'START_WITH',
  'END_WITH',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL_TO',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL_TO',
  'EXISTS',
  'IS_NULL',
] as const;

export type Condition = (typeof CONDITIONS)[number];

export interface Criterion {
  /** A document field of the entity (`platform`, `tags`, `removed`); a `.keyword` suffix is ignored. */
  readonly field: string;
  /** Empty (other than for EXISTS / IS_NULL): the criterion is ignored, as DataHub does. */
  readonly values: readonly string[];
  readonly condition: Condition;
  /** True inverts the criterion. */
  readonly negated: boolean;
}

/** OR of AND groups: a document matches when it matches every criterion of at least one group. Empty: no filter. */
export type Filter = readonly (readonly Criterion[])[];

export interface SearchRequest {
  readonly entityType: string;
  /** Query text in the syntax of {@link parseSearchQuery}. */
  readonly input: string;
  readonly filter: Filter;
  readonly start: number;
  readonly count: number;
}

export interface SearchPage {
  /** Matching documents before paging. */
  readonly total: number;
  readonly hits: readonly SearchHit[];
  /** One per facet field of the entity, in schema order. */
  readonly facets: readonly FacetResult[];
}

export interface SearchHit {
  readonly urn: string;
  /** The fields (and their values) that matched the query text. */
  readonly matchedFields: readonly MatchedField[];
}

export interface MatchedField {
  readonly name: string;
  readonly value: string;
}

export interface FacetResult {
  readonly field: string;
  readonly displayName: string;
  /** Value → number of matching documents with it; the {@link MAX_FACET_VALUES} most frequent, ties by value. */
  readonly counts: Readonly<Record<string, number>>;
}

/** The most values a facet reports (DataHub's `ELASTICSEARCH_QUERY_MAX_TERM_BUCKET_SIZE`). */
export const MAX_FACET_VALUES = 60;

export interface BrowseRequest {
  readonly entityType: string;
  /** Slash-delimited path; `''` and `'/'` are the root. */
  readonly path: string;
  readonly filter: Filter;
  readonly start: number;
  readonly limit: number;
}

/**
 * One level of the browse tree. `groups` are the next path segments below `path` (every one of them), with the number
 * of documents under each; `entities` are the documents with a browse path equal to `path`, by URN, paged after the
 * groups: the page `[start, start+limit)` of the sequence groups-then-entities contributes its entity part.
 */
export interface BrowsePage {
  readonly path: string;
  /** Documents with a browse path at or below `path`. */
  readonly totalNumEntities: number;
  /** Documents with a browse path equal to `path`. */
  readonly numEntities: number;
  readonly groups: readonly BrowseGroup[];
  readonly entities: readonly BrowseEntity[];
}

export interface BrowseGroup {
  readonly name: string;
  readonly count: number;
}

export interface BrowseEntity {
  readonly urn: string;
  /** The last segment of the matching browse path. */
  readonly name: string;
}

export interface AutocompleteRequest {
  readonly entityType: string;
  readonly query: string;
  /** Suggest from this field only (it must be a field of the entity). */
  readonly field?: string;
  readonly filter: Filter;
  readonly limit: number;
}

export interface AutocompletePage {
  /** One per matching document, best first: the value of its autocomplete field that matched. */
  readonly suggestions: readonly string[];
  /** The URN of each suggestion's document, in the same order. */
  readonly urns: readonly string[];
}
