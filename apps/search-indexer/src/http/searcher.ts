import { BadRequestError } from '@strata/model';
import {
  documentFields,
  MAX_PAGE_SIZE,
  URN_FIELD,
  type Criterion,
  type FacetResult,
  type FieldValue,
  type Filter,
  type SearchHit,
  type SearchIndex,
} from '@strata/indices';
import { ENTITY_NAME_FIELD } from '../domain/entity-name';
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
  /**
   * The fields that name an entity of each type, for a sort on `_entityName` (see `domain/entity-name.ts`); without
   * it, `_entityName` is read as a document field (which none has).
   */
  readonly nameFields?: (entityType: string) => readonly string[];
  /** The clock a newest-first date sort looks back from (epoch milliseconds); `Date.now` when absent. */
  readonly now?: () => number;
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
 * without the field last — then by URN, and paged. A sort newest first on a date field reads only the matches since a
 * time that still holds the page ({@link newestSince}), so that it answers over any number of matches.
 */
async function sortedHits(
  search: SearchIndex,
  request: SearchAcross,
  filter: Filter,
  totals: readonly number[],
): Promise<SearchHit[]> {
  const total = totals.reduce((sum, value) => sum + value, 0);
  const since = total > NARROW_ABOVE ? await newestSince(search, request, filter) : undefined;
  if (since !== undefined) return sortedPage(search, request, since.filter, since.totals);
  if (total > MAX_SORTED_MATCHES) {
    throw new BadRequestError(
      `A sorted search orders at most ${MAX_SORTED_MATCHES} matches and this one has ${total}: narrow it with a query or filter, or leave out the sort (results then come by relevance)`,
    );
  }
  return sortedPage(search, request, filter, totals);
}

/** Above this many matches, a newest-first sort on a date field reads only the newest ({@link newestSince}). */
export const NARROW_ABOVE = 1_000;

/** How far back {@link newestSince} looks, in turn: an hour, a day, a week, 30 days, a year, 10 and 100 years. */
const LOOK_BACK_MS = [1, 24, 24 * 7, 24 * 30, 24 * 365, 24 * 3_652, 24 * 36_525].map((hours) => hours * 3_600_000);

/**
 * The most halvings {@link newestSince} tries to bring a window under {@link NARROW_ABOVE} matches: enough to narrow
 * a year to seconds, for a catalog loaded in a burst (100,000 documents changed within minutes). Each is a count of
 * a smaller window, cheap where the date is indexed; reading a window of thousands of documents is not.
 */
const MAX_HALVINGS = 24;

/**
 * For a sort whose first criterion is a date field, newest first: the matches whose date is at or after a time chosen
 * so that they hold the whole page (at least `start + count` of them) yet are few enough to read — looking back from
 * now an hour, a day, a week… and halving the last step while the window holds more than {@link NARROW_ABOVE}
 * (keeping one within {@link MAX_SORTED_MATCHES}). Every match left out is older than every match kept, or has no date
 * (those sort last), so the page is the one the full sort gives. Each look is a count. Undefined when the sort is not
 * of that kind or no window fits; the caller then sorts every match, or refuses.
 */
async function newestSince(
  search: SearchIndex,
  request: SearchAcross,
  filter: Filter,
): Promise<{ filter: Filter; totals: number[] } | undefined> {
  const [first] = request.sort;
  if (first === undefined || first.order !== 'DESCENDING') return undefined;
  const field = first.field.replace(/\.keyword$/, '');
  const dated = new Set(
    request.types.filter((entityType) => search.schema.entity(entityType)?.field(field)?.type === 'DATETIME'),
  );
  const wanted = request.start + request.count;
  if (dated.size === 0 || wanted > MAX_SORTED_MATCHES) return undefined;
  const now = (request.now ?? Date.now)();
  // Windows only shrink within a look-back (each later one is a part of the one before), so a type with no match in a
  // window has none in the next: only the types with matches are counted again.
  let counted = dated;
  const since = async (time: number) => {
    const criterion: Criterion = {
      field,
      values: [String(Math.floor(time))],
      condition: 'GREATER_THAN_OR_EQUAL_TO',
      negated: false,
    };
    const narrowed: Filter = filter.length === 0 ? [[criterion]] : filter.map((group) => [...group, criterion]);
    const totals = await Promise.all(
      request.types.map(async (entityType) =>
        counted.has(entityType)
          ? (
              await asBadRequest(
                search.search({ entityType, input: request.input, filter: narrowed, start: 0, count: 0 }),
              )
            ).total
          : 0,
      ),
    );
    return { filter: narrowed, totals, total: totals.reduce((sum, value) => sum + value, 0) };
  };
  let newer = now;
  for (const back of LOOK_BACK_MS) {
    let older = now - back;
    let window = await since(older);
    if (window.total < wanted) {
      newer = older;
      continue;
    }
    // Enough matches: halve the window towards the newer bound while it holds too many to read quickly.
    counted = new Set(request.types.filter((entityType, index) => (window.totals[index] ?? 0) > 0));
    let fitting = window.total <= MAX_SORTED_MATCHES ? window : undefined;
    for (let halving = 0; halving < MAX_HALVINGS && window.total > NARROW_ABOVE; halving++) {
      const middle = (older + newer) / 2;
      const half = await since(middle);
      if (half.total < wanted) newer = middle;
      else {
        older = middle;
        window = half;
        if (half.total <= MAX_SORTED_MATCHES) fitting = half;
      }
    }
    return fitting;
  }
  return undefined;
}

/** Reads every match of the filter (the totals per type given), orders them by the criteria and cuts the page. */
async function sortedPage(
  search: SearchIndex,
  request: SearchAcross,
  filter: Filter,
  totals: readonly number[],
): Promise<SearchHit[]> {
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
        const field = criterion.field.replace(/\.keyword$/, '');
        if (field === ENTITY_NAME_FIELD && request.nameFields !== undefined && document !== undefined) {
          return entityNameOf(fields, request.nameFields(document.entityType));
        }
        const values = [...(fields[field] ?? [])].sort(compareValues);
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

/**
 * A document's `_entityName` sort key: the first value of the first of its type's name fields it has, lower-cased so
 * that names order as people read them (`alpha`, `Beta`, `gamma`); undefined (sorted last) when it has none.
 */
function entityNameOf(fields: Readonly<Record<string, readonly FieldValue[]>>, names: readonly string[]) {
  for (const name of names) {
    const value = fields[name]?.find((item) => String(item).trim() !== '');
    if (value !== undefined) return String(value).toLowerCase();
  }
  return undefined;
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
