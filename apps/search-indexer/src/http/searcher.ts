import { BadRequestError } from '@strata/model';
import {
  documentFields,
  MAX_PAGE_SIZE,
  URN_FIELD,
  type FacetResult,
  type FieldValue,
  type Filter,
  type SearchHit,
  type SearchIndex,
} from '@strata/indices';
import { asBadRequest, facetsWithFlags, filterWithFlags, hitsWithFlags, type SearchFlags } from './route-inputs';

/** A sort criterion as DataHub's `SortCriterion` gives it. */
export interface SortCriterion {
  readonly field: string;
  readonly order: 'ASCENDING' | 'DESCENDING';
}

export interface SearchAcross {
  /** Entity types, in the order their results come. */
  readonly types: readonly string[];
  readonly input: string;
  readonly filter: Filter;
  readonly start: number;
  readonly count: number;
  readonly flags: SearchFlags;
  /** Empty: by relevance, ties by URN. */
  readonly sort: readonly SortCriterion[];
  /** Adds an `entity` facet counting matches per type (what a search across entities answers). */
  readonly typeFacet: boolean;
}

export interface SearchOutcome {
  readonly total: number;
  readonly hits: readonly SearchHit[];
  /** Facets added up across the types, and the `entity` facet when asked for. */
  readonly facets: readonly FacetResult[];
}

/** The most matches a sorted search orders (each is read to compare it): a sort over more is refused, with a hint. */
export const MAX_SORTED_MATCHES = MAX_PAGE_SIZE;

/**
 * Search over one or several entity types — what `search`, `searchAcrossEntities`, `filter`, `list` and the scrolls
 * share. Results come grouped by type in the order given, each type's ranked by relevance (ties by URN), or, with a
 * sort, all of them in the sort's order (ties by URN).
 */
export async function searchAcross(search: SearchIndex, request: SearchAcross): Promise<SearchOutcome> {
  const filter = filterWithFlags(request.filter, request.flags);
  const base = { input: request.input, filter };
  const only = request.types.length === 1 ? request.types[0] : undefined;
  if (only !== undefined && request.sort.length === 0) {
    // One type, by relevance: one read answers the page, the total and the facets (a count first would read twice).
    const page = await asBadRequest(
      search.search({ entityType: only, ...base, start: request.start, count: request.count }),
    );
    return {
      total: page.total,
      hits: hitsWithFlags(page.hits, request.flags),
      facets: facetsWithFlags(mergedFacets(request.types, [page], request.typeFacet), request.flags),
    };
  }
  // Every type's matches are counted first; then only the types whose matches overlap the page are read.
  const counted = await asBadRequest(
    Promise.all(request.types.map((entityType) => search.search({ entityType, ...base, start: 0, count: 0 }))),
  );
  const total = counted.reduce((sum, page) => sum + page.total, 0);
  const hits =
    request.sort.length > 0
      ? await sortedHits(
          search,
          request,
          filter,
          counted.map((page) => page.total),
        )
      : await rankedHits(
          search,
          request,
          filter,
          counted.map((page) => page.total),
        );
  return {
    total,
    hits: hitsWithFlags(hits, request.flags),
    facets: facetsWithFlags(mergedFacets(request.types, counted, request.typeFacet), request.flags),
  };
}

async function rankedHits(
  search: SearchIndex,
  request: SearchAcross,
  filter: Filter,
  totals: readonly number[],
): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  let offset = 0;
  for (const [index, entityType] of request.types.entries()) {
    const total = totals[index] ?? 0;
    const from = Math.max(request.start - offset, 0);
    const wanted = Math.min(request.start + request.count - offset, total) - from;
    offset += total;
    if (wanted <= 0) continue;
    const page = await asBadRequest(
      search.search({ entityType, input: request.input, filter, start: from, count: wanted }),
    );
    hits.push(...page.hits);
  }
  return hits;
}

/**
 * A sorted page: every match is read (at most {@link MAX_SORTED_MATCHES}), ordered by the criteria — a document's
 * smallest value of the field ascending, its largest descending; numbers as numbers, text by code point; documents
 * without the field last — then by URN, and paged.
 */
async function sortedHits(
  search: SearchIndex,
  request: SearchAcross,
  filter: Filter,
  totals: readonly number[],
): Promise<SearchHit[]> {
  const total = totals.reduce((sum, value) => sum + value, 0);
  if (total > MAX_SORTED_MATCHES) {
    throw new BadRequestError(
      `A sorted search orders at most ${MAX_SORTED_MATCHES} matches and this one has ${total}: narrow it with a query or filter, or leave out the sort (results then come by relevance)`,
    );
  }
  const all: SearchHit[] = [];
  for (const [index, entityType] of request.types.entries()) {
    const count = totals[index] ?? 0;
    if (count === 0) continue;
    const page = await asBadRequest(search.search({ entityType, input: request.input, filter, start: 0, count }));
    all.push(...page.hits);
  }
  const documents = await search.documents(all.map((hit) => hit.urn));
  const keys = new Map<string, readonly (FieldValue | undefined)[]>();
  for (const hit of all) {
    const document = documents.get(hit.urn);
    const fields = document === undefined ? {} : documentFields(document);
    keys.set(
      hit.urn,
      request.sort.map((criterion) => {
        if (criterion.field === URN_FIELD) return hit.urn;
        const values = [...(fields[criterion.field.replace(/\.keyword$/, '')] ?? [])].sort(compareValues);
        return criterion.order === 'ASCENDING' ? values[0] : values[values.length - 1];
      }),
    );
  }
  all.sort((a, b) => {
    const left = keys.get(a.urn) ?? [];
    const right = keys.get(b.urn) ?? [];
    for (const [index, criterion] of request.sort.entries()) {
      const x = left[index];
      const y = right[index];
      if (x === undefined || y === undefined) {
        if (x !== y) return x === undefined ? 1 : -1;
        continue;
      }
      const order = compareValues(x, y);
      if (order !== 0) return criterion.order === 'ASCENDING' ? order : -order;
    }
    return a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0;
  });
  return all.slice(request.start, request.start + request.count);
}

function compareValues(a: FieldValue, b: FieldValue): number {
  const x = typeof a === 'boolean' ? String(a) : a;
  const y = typeof b === 'boolean' ? String(b) : b;
  const nx = typeof x === 'number' ? x : Number(x);
  const ny = typeof y === 'number' ? y : Number(y);
  if (x !== '' && y !== '' && Number.isFinite(nx) && Number.isFinite(ny)) return nx - ny;
  const sx = String(x);
  const sy = String(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

/** Facets added up across types, and (`typeFacet`) an `entity` facet counting matches per type. */
function mergedFacets(
  types: readonly string[],
  counted: readonly { total: number; facets: readonly FacetResult[] }[],
  typeFacet: boolean,
): FacetResult[] {
  if (types.length === 1 && !typeFacet) return [...(counted[0]?.facets ?? [])];
  const facets = new Map<string, { displayName: string; counts: Map<string, number> }>();
  const byType = new Map<string, number>();
  counted.forEach((page, index) => {
    if (page.total > 0) byType.set(types[index] ?? '', page.total);
    for (const facet of page.facets) {
      const merged = facets.get(facet.field) ?? { displayName: facet.displayName, counts: new Map<string, number>() };
      for (const [value, count] of Object.entries(facet.counts)) {
        merged.counts.set(value, (merged.counts.get(value) ?? 0) + count);
      }
      facets.set(facet.field, merged);
    }
  });
  const merged = [...facets].map(([field, facet]) => ({
    field,
    displayName: facet.displayName,
    counts: Object.fromEntries(facet.counts),
  }));
  return typeFacet ? [...merged, { field: 'entity', displayName: 'Type', counts: Object.fromEntries(byType) }] : merged;
}
