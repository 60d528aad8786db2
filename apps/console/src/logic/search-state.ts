/**
 * The search page's state and its URL: the query, the facet filters, the sort, the page and whether soft-deleted
 * entities are shown all live in the query string (`/search?query=orders&filter_platform=urn:li:dataPlatform:hive&
 * sort=name&page=2&deleted=true`), so that a search is a link. This module turns the URL into that state and back, the
 * state into the variables of GraphQL's `searchAcrossEntities` (`orFilters`, `sortInput`, `searchFlags`), and the
 * query into the words highlighted in the results. Pure (unit-tested in search-state.spec.ts).
 */
import { displayNameOfUrn, entityTypeLabel, entityTypeOfGraphql, entityTypeOfUrn } from './urn';

/** Results per page. */
export const PAGE_SIZE = 20;

/** The deepest page a search reaches (the index answers at most 10,000 results deep). */
export const MAX_RESULTS_DEEP = 10_000;

/** How results are ordered: by relevance, by name (A→Z or Z→A), or most recently modified first. */
export const SORTS = ['relevance', 'name', 'name-desc', 'modified'] as const;
export type SortKey = (typeof SORTS)[number];

/** A sort's label, for the "Sort by" select. */
export const SORT_LABELS: Readonly<Record<SortKey, string>> = {
  relevance: 'Relevance',
  name: 'Name (A to Z)',
  'name-desc': 'Name (Z to A)',
  modified: 'Last modified',
};

/**
 * The index field each sort orders by: `_entityName` is the entity's name whatever its type (DataHub's sort field,
 * fed by the name fields of each type), `lastModifiedAt` the time the entity's platform last changed it.
 */
const SORT_FIELDS: Readonly<Record<Exclude<SortKey, 'relevance'>, { field: string; sortOrder: SortOrder }>> = {
  name: { field: '_entityName', sortOrder: 'ASCENDING' },
  'name-desc': { field: '_entityName', sortOrder: 'DESCENDING' },
  modified: { field: 'lastModifiedAt', sortOrder: 'DESCENDING' },
};

export type SortOrder = 'ASCENDING' | 'DESCENDING';

/** The facets the search page shows, in order, each with its heading. Other facets the server answers are not shown. */
export const FACETS: readonly { readonly field: string; readonly label: string }[] = [
  { field: '_entityType', label: 'Type' },
  { field: 'platform', label: 'Platform' },
  { field: 'origin', label: 'Environment' },
  { field: 'env', label: 'Environment (jobs)' },
  { field: 'owners', label: 'Owners' },
  { field: 'tags', label: 'Tags' },
  { field: 'glossaryTerms', label: 'Glossary terms' },
  { field: 'domains', label: 'Domain' },
  { field: 'container', label: 'Container' },
];

/**
 * How a facet value reads: an entity type's label (`DATASET` → `Dataset`), the name of the entity a URN value names
 * (`entityName`, when the server gave it), else a short name from the URN, else the value itself.
 */
export function facetValueLabel(field: string, value: string, entityName?: string): string {
  if (field === '_entityType' || field === 'entity') return entityTypeLabel(entityTypeOfGraphql(value));
  if (entityName !== undefined && entityName.trim() !== '') return entityName;
  if (entityTypeOfUrn(value) !== undefined) return displayNameOfUrn(value);
  return value;
}

/** A facet field's heading (the field itself for one the page does not know). */
export function facetLabel(field: string): string {
  return FACETS.find((facet) => facet.field === field)?.label ?? field;
}

export interface SearchState {
  /** The query text; empty means every entity. */
  readonly query: string;
  /** Facet field → the values ticked (a result has at least one of them); fields in the order first ticked. */
  readonly filters: Readonly<Record<string, readonly string[]>>;
  readonly sort: SortKey;
  /** 1-based. */
  readonly page: number;
  /** Soft-deleted entities are listed too (marked "deleted"). */
  readonly showDeleted: boolean;
}

export const EMPTY_SEARCH: SearchState = { query: '', filters: {}, sort: 'relevance', page: 1, showDeleted: false };

const FILTER_PREFIX = 'filter_';
/** A filter field name as a URL may carry it: an index field (`platform`, `_entityType`, `customProperties.x`). */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;
/** The most values one URL may filter on (per field and in all), so that a crafted link cannot make a huge request. */
const MAX_FILTER_VALUES = 50;

/** The state a search URL's query string says; anything malformed is ignored (a bad page is page 1). */
export function parseSearchState(params: URLSearchParams): SearchState {
  const filters: Record<string, string[]> = {};
  let values = 0;
  for (const [key, value] of params) {
    if (!key.startsWith(FILTER_PREFIX)) continue;
    const field = key.slice(FILTER_PREFIX.length);
    if (!FIELD_NAME.test(field) || value === '' || values >= MAX_FILTER_VALUES) continue;
    const list = (filters[field] ??= []);
    if (list.includes(value)) continue;
    list.push(value);
    values += 1;
  }
  const sort = params.get('sort');
  const page = Number(params.get('page') ?? '1');
  return {
    query: (params.get('query') ?? '').trim(),
    filters,
    sort: SORTS.find((key) => key === sort) ?? 'relevance',
    page: Number.isSafeInteger(page) && page >= 1 ? Math.min(page, lastPage(MAX_RESULTS_DEEP)) : 1,
    showDeleted: params.get('deleted') === 'true',
  };
}

/** The query string of a state, in a canonical order, leaving out what is default (so equal searches are equal links). */
export function searchParamsOf(state: SearchState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.query !== '') params.set('query', state.query);
  for (const [field, values] of Object.entries(state.filters)) {
    for (const value of values) params.append(`${FILTER_PREFIX}${field}`, value);
  }
  if (state.sort !== 'relevance') params.set('sort', state.sort);
  if (state.page > 1) params.set('page', String(state.page));
  if (state.showDeleted) params.set('deleted', 'true');
  return params;
}

/** The console URL of a search. */
export function searchHref(state: Partial<SearchState>): string {
  const params = searchParamsOf({ ...EMPTY_SEARCH, ...state }).toString();
  return params === '' ? '/search' : `/search?${params}`;
}

/** The URL of every entity with one facet value (what the home page's counts link to). */
export function facetHref(field: string, value: string): string {
  return searchHref({ filters: { [field]: [value] } });
}

/** The state with a facet value ticked (`on`) or unticked; back to page 1, since the results change. */
export function withFilter(state: SearchState, field: string, value: string, on: boolean): SearchState {
  const current = state.filters[field] ?? [];
  const next = on
    ? current.includes(value)
      ? current
      : [...current, value]
    : current.filter((item) => item !== value);
  const filters: Record<string, readonly string[]> = {};
  for (const [name, values] of Object.entries(state.filters)) {
    if (name !== field) filters[name] = values;
    else if (next.length > 0) filters[name] = next;
  }
  if (!(field in state.filters) && next.length > 0) filters[field] = next;
  return { ...state, filters, page: 1 };
}

/** The state without any filter. */
export function withoutFilters(state: SearchState): SearchState {
  return { ...state, filters: {}, page: 1 };
}

export function withSort(state: SearchState, sort: SortKey): SearchState {
  return { ...state, sort, page: 1 };
}

export function withShowDeleted(state: SearchState, showDeleted: boolean): SearchState {
  return { ...state, showDeleted, page: 1 };
}

export function withPage(state: SearchState, page: number): SearchState {
  return { ...state, page: Math.max(1, Math.floor(page)) };
}

/** Every ticked filter, one chip each, in order. */
export function filterChips(state: SearchState): { readonly field: string; readonly value: string }[] {
  return Object.entries(state.filters).flatMap(([field, values]) => values.map((value) => ({ field, value })));
}

/** The number of the last page of `total` results (at least 1), within the deepest the index pages. */
export function lastPage(total: number): number {
  return Math.max(1, Math.ceil(Math.min(total, MAX_RESULTS_DEEP) / PAGE_SIZE));
}

/** GraphQL's `FacetFilterInput`. */
export interface FacetFilterInput {
  readonly field: string;
  readonly values: readonly string[];
  readonly condition: 'EQUAL';
  readonly negated: boolean;
}

/** GraphQL's `AndFilterInput`. */
export interface AndFilterInput {
  readonly and: readonly FacetFilterInput[];
}

/**
 * The `orFilters` of the ticked facets: one AND group with a criterion per field, each matching any of its values
 * (values of one facet are alternatives, facets narrow one another); none when nothing is ticked.
 */
export function orFiltersOf(filters: Readonly<Record<string, readonly string[]>>): AndFilterInput[] {
  const and = Object.entries(filters)
    .filter(([, values]) => values.length > 0)
    .map(([field, values]) => ({ field, values: [...values], condition: 'EQUAL' as const, negated: false }));
  return and.length === 0 ? [] : [{ and }];
}

/** GraphQL's `SearchSortInput` of a sort; none for relevance (the server's default order). */
export function sortInputOf(
  sort: SortKey,
): { readonly sortCriteria: readonly { readonly field: string; readonly sortOrder: SortOrder }[] } | undefined {
  if (sort === 'relevance') return undefined;
  return { sortCriteria: [SORT_FIELDS[sort]] };
}

/** The variables of `searchAcrossEntities` for a state: one page of results and the facets. */
export function searchInputOf(state: SearchState): Record<string, unknown> {
  const sortInput = sortInputOf(state.sort);
  const orFilters = orFiltersOf(state.filters);
  return {
    query: state.query === '' ? '*' : state.query,
    start: (state.page - 1) * PAGE_SIZE,
    count: PAGE_SIZE,
    ...(orFilters.length === 0 ? {} : { orFilters }),
    ...(sortInput === undefined ? {} : { sortInput }),
    ...(state.showDeleted ? { searchFlags: { includeSoftDeleted: true } } : {}),
  };
}

/** Words of the query syntax that are not searched for: operators, and field names before a colon. */
const OPERATORS = new Set(['AND', 'OR', 'NOT', 'TO']);

/**
 * The words of a query to highlight in results: each searched word once, lower-cased, without quotes, operators,
 * `field:` prefixes, wildcards or a leading `-` (an excluded word is not highlighted); none for `*` alone.
 */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const raw of query.match(/-?"[^"]*"|\S+/g) ?? []) {
    if (raw.startsWith('-')) continue;
    const phrase = raw.startsWith('"');
    const withoutField = phrase ? raw : raw.replace(/^[A-Za-z_][A-Za-z0-9_.]*:/, '');
    const words = phrase ? [withoutField.replace(/"/g, '')] : [withoutField];
    for (const word of words) {
      if (!phrase && OPERATORS.has(word)) continue;
      const cleaned = word
        .replace(/[()*?"\\]/g, '')
        .trim()
        .toLowerCase();
      if (cleaned.length === 0 || terms.includes(cleaned)) continue;
      terms.push(cleaned);
    }
  }
  // Longer terms first, so that a term containing another is marked whole.
  return terms.sort((a, b) => b.length - a.length);
}

/** A run of text, marked when it is a query term. */
export interface TextSegment {
  readonly text: string;
  readonly mark: boolean;
}

/**
 * A text cut into runs where the query terms occur (case-insensitively) and runs where they do not, for the page to
 * wrap the former in `<mark>`: plain strings, never HTML, so nothing in the text is interpreted.
 */
export function highlightSegments(text: string, terms: readonly string[]): TextSegment[] {
  if (text === '') return [];
  const wanted = terms.filter((term) => term !== '');
  if (wanted.length === 0) return [{ text, mark: false }];
  const pattern = new RegExp(wanted.map(escapeRegExp).join('|'), 'gi');
  const segments: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index;
    if (match[0] === '') continue;
    if (at > last) segments.push({ text: text.slice(last, at), mark: false });
    segments.push({ text: match[0], mark: true });
    last = at + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), mark: false });
  return segments;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A description as one short line of plain text: Markdown's markup (links, emphasis, headings, code fences, images,
 * tables) reduced to its words, whitespace collapsed, cut at a word boundary near `max` characters with an ellipsis.
 */
export function plainSummary(markdown: string | null | undefined, max = 240): string {
  if (markdown === null || markdown === undefined) return '';
  const text = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/^\s*\|?(\s*:?-{3,}:?\s*\|?)+\s*$/gm, '')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|~~)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_](\S(?:[^*_\n]*?\S)?)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`+/g, '')
    .replace(/\|/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The readable name of a matched field (`fieldPaths` → `Column`), for "matched in" notes. */
export function matchedFieldLabel(name: string): string {
  const known: Record<string, string> = {
    urn: 'URN',
    id: 'Identifier',
    name: 'Name',
    qualifiedName: 'Qualified name',
    title: 'Title',
    description: 'Description',
    editedDescription: 'Description',
    editedName: 'Name',
    fieldPaths: 'Column',
    fieldDescriptions: 'Column description',
    editedFieldDescriptions: 'Column description',
    fieldLabels: 'Column label',
    fieldTags: 'Column tag',
    editedFieldTags: 'Column tag',
    fieldGlossaryTerms: 'Column term',
    editedFieldGlossaryTerms: 'Column term',
    customProperties: 'Property',
    tags: 'Tag',
    glossaryTerms: 'Glossary term',
    owners: 'Owner',
    platform: 'Platform',
    container: 'Container',
    domains: 'Domain',
    tool: 'Tool',
    jobId: 'Job id',
    username: 'Username',
    displayName: 'Display name',
    fullName: 'Full name',
    email: 'Email',
    definition: 'Definition',
  };
  return known[name] ?? name;
}
