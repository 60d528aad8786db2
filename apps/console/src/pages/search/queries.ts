/**
 * The GraphQL documents of the home, search and browse pages: one request per view (two where the second depends on
 * the first), each asking only what the view shows. queries.spec.ts validates every one against the served schema.
 */
import { ENTITY_NAME, ENTITY_SUMMARY } from './entity-summary';

const FACETS = 'facets { field displayName aggregations { value count entity { ...consoleEntityName } } }';

/** A page of results across entity types, with the facets of every match. */
export const SEARCH_QUERY = `query consoleSearch($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) {
    start count total
    searchResults { entity { ...consoleEntitySummary } matchedFields { name value } }
    ${FACETS}
  }
}
${ENTITY_SUMMARY}
${ENTITY_NAME}`;

/** How many entities of each type and of each platform the catalog holds (no result read). */
export const HOME_COUNTS_QUERY = `query consoleHomeCounts {
  aggregateAcrossEntities(input: { query: "*", facets: ["_entityType", "platform"] }) { ${FACETS} }
}
${ENTITY_NAME}`;

/**
 * The entities changed last in Strata, with the time: `lastChangedAt`, which the search indexer stamps on every
 * document from the latest change it applied (any aspect, any entity type), read back as an extra field.
 */
export const RECENT_QUERY = `query consoleRecentlyChanged($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) {
    total
    searchResults { entity { ...consoleEntitySummary } extraProperties { name value } }
  }
}
${ENTITY_SUMMARY}`;

/** The document field holding when an entity last changed in Strata (epoch milliseconds). */
export const LAST_CHANGED_FIELD = 'lastChangedAt';

/** How many recently changed entities the home page lists. */
export const RECENT_COUNT = 10;

/** The entity type the recent list leaves out: columns, which one schema write changes by the dozen. */
export const COLUMN_TYPE = 'SCHEMA_FIELD';

/**
 * The entity types the recent list covers: those the catalog holds (the `_entityType` facet's values, which the home
 * page counts anyway) but columns — a dataset's schema write changes each of its columns, which would fill the list.
 * Undefined when the types are not known (the count failed): the list then asks every type and drops columns itself.
 */
export function recentTypesOf(typeValues: readonly string[] | undefined): string[] | undefined {
  return typeValues?.filter((value) => value !== COLUMN_TYPE);
}

/**
 * The variables of {@link RECENT_QUERY}: the types given (every type when undefined), the latest change first;
 * entities without a change time (written before Strata kept it, and not changed since) come last and the page leaves
 * them out. Types rather than a filter on `_entityType`: the server answers this sort over any number of matches by
 * counting and reading only the newest of each type searched, while a filter would be checked on every document.
 */
export function recentVariablesOf(types: readonly string[] | undefined) {
  return {
    input: {
      query: '*',
      ...(types === undefined ? {} : { types: [...types] }),
      start: 0,
      count: RECENT_COUNT,
      sortInput: { sortCriteria: [{ field: LAST_CHANGED_FIELD, sortOrder: 'DESCENDING' }] },
      searchFlags: { skipAggregates: true, skipHighlighting: true, fetchExtraFields: [LAST_CHANGED_FIELD] },
    },
  };
}

/** The platforms, with how many entities each holds: the top of the browse tree. */
export const BROWSE_PLATFORMS_QUERY = `query consoleBrowsePlatforms {
  aggregateAcrossEntities(input: { query: "*", facets: ["platform"] }) { ${FACETS} }
}
${ENTITY_NAME}`;

/**
 * One level of a platform's browse tree: the groups below the path (every one, up to the number asked, so that the
 * entities at the level itself can be told from those below), and the names of the path's entities for the trail.
 */
export const BROWSE_LEVEL_QUERY = `query consoleBrowseLevel($input: BrowseV2Input!, $pathUrns: [String!]!) {
  browseV2(input: $input) {
    total
    groups { name count hasSubGroups entity { ...consoleEntityName } }
    metadata { totalNumEntities }
  }
  entities(urns: $pathUrns) { ...consoleEntityName }
}
${ENTITY_NAME}`;

/** A page of the entities at one browse level (a search filtered on the level's path). */
export const BROWSE_ENTITIES_QUERY = `query consoleBrowseEntities($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) {
    start count total
    searchResults { entity { ...consoleEntitySummary } }
  }
}
${ENTITY_SUMMARY}`;

/** A facet as the pages read it. */
export interface FacetAnswer {
  readonly field: string;
  readonly displayName: string | null;
  readonly aggregations: readonly {
    readonly value: string;
    readonly count: number;
    readonly entity: unknown;
  }[];
}

export interface SearchAnswer {
  readonly searchAcrossEntities: {
    readonly start: number;
    readonly count: number;
    readonly total: number;
    readonly searchResults: readonly {
      readonly entity: unknown;
      readonly matchedFields: readonly { readonly name: string; readonly value: string }[];
    }[];
    readonly facets: readonly FacetAnswer[] | null;
  } | null;
}

export interface AggregateAnswer {
  readonly aggregateAcrossEntities: { readonly facets: readonly FacetAnswer[] | null } | null;
}

export interface RecentAnswer {
  readonly searchAcrossEntities: {
    readonly total: number;
    readonly searchResults: readonly {
      readonly entity: unknown;
      readonly extraProperties: readonly { readonly name: string; readonly value: string }[] | null;
    }[];
  } | null;
}

export interface BrowseLevelAnswer {
  readonly browseV2: {
    readonly total: number;
    readonly groups: readonly {
      readonly name: string;
      readonly count: number;
      readonly hasSubGroups: boolean;
      readonly entity: unknown;
    }[];
    readonly metadata: { readonly totalNumEntities: number };
  } | null;
  readonly entities: readonly unknown[] | null;
}

export interface BrowseEntitiesAnswer {
  readonly searchAcrossEntities: {
    readonly start: number;
    readonly count: number;
    readonly total: number;
    readonly searchResults: readonly { readonly entity: unknown }[];
  } | null;
}
