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

/** The entities their platforms changed last, with the time (`lastModifiedAt` read back as an extra field). */
export const RECENT_QUERY = `query consoleRecentlyModified($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) {
    total
    searchResults { entity { ...consoleEntitySummary } extraProperties { name value } }
  }
}
${ENTITY_SUMMARY}`;

/** How many recently modified entities the home page lists. */
export const RECENT_COUNT = 8;

/**
 * The variables of {@link RECENT_QUERY}: every entity, newest modification first (those without one come last, and
 * the page leaves them out). No filter: a filtered count over a large catalog costs more than the sort.
 */
export const RECENT_VARIABLES = {
  input: {
    query: '*',
    start: 0,
    count: RECENT_COUNT,
    sortInput: { sortCriteria: [{ field: 'lastModifiedAt', sortOrder: 'DESCENDING' }] },
    searchFlags: { skipAggregates: true, skipHighlighting: true, fetchExtraFields: ['lastModifiedAt'] },
  },
};

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
