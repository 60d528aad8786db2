import { z } from 'zod';
import { BadRequestError, ValidationError } from '@strata/model';
import { defineRoute, type Route, type RouteAccess } from '@strata/http';
import { filterSchema, MAX_PAGE_SIZE, type EdgeWindow, type FacetResult } from '@strata/indices';
import type { LineageNode, TruncationReason } from '../lineage/domain/lineage-walk';
import { decodeScrollId, encodeScrollId } from '../lineage/domain/scroll-cursor';
import type { LineageSearchAnswer, LineageSearchRequest, LineageService } from '../lineage/lineage-service';

/**
 * DataHub's multi-hop lineage over Rest.li: `searchAcrossLineage` and `scrollAcrossLineage` on `/entities`, and
 * `getLineage` on `/relationships`. Request → {@link LineageService} → DataHub's records (`LineageSearchResult`,
 * `LineageScrollResult`, `EntityLineageResult`), with Strata's `truncated` and `truncation` beside DataHub's fields.
 */

/** Lineage searches: DataHub's LINEAGE READ, on every entity type the body's `entities` names (all when none). */
const LINEAGE_SEARCH_ACCESS: RouteAccess = {
  kind: 'resource',
  group: 'LINEAGE',
  operations: ['READ'],
  resource: { in: 'bodyTypes', names: ['entities'] },
  message: 'User is unauthorized to search.',
};

/** `getLineage`: DataHub's LINEAGE READ on the entity of the body's `urn`. */
const LINEAGE_READ_ACCESS: RouteAccess = {
  kind: 'resource',
  group: 'LINEAGE',
  operations: ['READ'],
  resource: { in: 'body', name: 'urn' },
  message: 'User is unauthorized to get entity lineage: {resource}',
};

const integer = (name: string) => z.number({ error: `${name} must be an integer` }).int(`${name} must be an integer`);
const pageNumber = (name: string) => integer(name).min(0, `${name} must be ≥ 0`);
const pageSize = (name: string) =>
  pageNumber(name).max(MAX_PAGE_SIZE, `Result count exceeds limit of ${MAX_PAGE_SIZE}`);

const direction = z.enum(['UPSTREAM', 'DOWNSTREAM'], { error: 'direction must be UPSTREAM or DOWNSTREAM' });
const maxHops = integer('maxHops').min(1, 'maxHops must be ≥ 1');
const sortCriterion = z.looseObject({ field: z.string().min(1) });

/**
 * DataHub's `SearchFlags`: every field accepted; `includeSoftDeleted`, `skipAggregates`, `skipHighlighting` and
 * `maxAggValues` are honoured, `skipCache` trivially (Strata keeps no lineage cache), the rest change nothing (see
 * the lineage documentation).
 */
const searchFlags = z
  .looseObject({
    includeSoftDeleted: z.boolean().nullish(),
    skipAggregates: z.boolean().nullish(),
    skipHighlighting: z.boolean().nullish(),
    skipCache: z.boolean().nullish(),
    maxAggValues: integer('maxAggValues').min(0, 'maxAggValues must be ≥ 0').nullish(),
  })
  .nullish()
  .transform((flags) => flags ?? {});

/** What both lineage searches take; `sort` and `sortCriteria` are accepted and not applied (degree order). */
const lineageQuery = {
  urn: z.string().min(1),
  direction,
  entities: z.array(z.string().min(1)).nullish(),
  input: z.string().nullish(),
  maxHops: maxHops.nullish(),
  filter: filterSchema.nullish().transform((filter) => filter ?? []),
  sort: sortCriterion.nullish(),
  sortCriteria: z.array(sortCriterion).nullish(),
  startTimeMillis: integer('startTimeMillis').nullish(),
  endTimeMillis: integer('endTimeMillis').nullish(),
  searchFlags,
};

const searchBody = z.object({
  ...lineageQuery,
  start: pageNumber('start').default(0),
  count: pageSize('count').default(10),
});

const scrollBody = z.object({
  ...lineageQuery,
  scrollId: z.string().nullish(),
  keepAlive: z.string().nullish(),
  count: pageSize('count').default(10),
});

const getLineageBody = z.object({
  urn: z.string().min(1),
  direction,
  start: pageNumber('start').nullish(),
  count: pageSize('count').nullish(),
  maxHops: maxHops.nullish(),
  // Strata's own: the edge window of the lineage searches, for GraphQL's `lineage(input: {startTimeMillis, …})`.
  startTimeMillis: integer('startTimeMillis').nullish(),
  endTimeMillis: integer('endTimeMillis').nullish(),
});

const WINDOW_DESCRIPTION =
  '`startTimeMillis`/`endTimeMillis` keep the edges created or updated within them (edges of no known time, and ' +
  'lineage drawn in the UI, always); either end may be left open.';

/** The lineage routes, served by the search indexer. */
export function lineageRoutes(lineage: LineageService): Route[] {
  const limits = lineage.limits;
  const limitsText =
    `A walk takes at most ${limits.maxHops} hops, reaches at most ${limits.maxNodes} entities, keeps at most ` +
    `${limits.maxPathsPerNode} paths per entity and ${limits.maxPaths} in all, reads at most ${limits.maxEdges} ` +
    `edges and runs at most ${limits.timeBudgetMs} ms; a limit that cuts it is named in \`truncation\` ` +
    '(`truncated: true`), and the entities it left unexplored are marked `truncatedChildren`.';
  return [
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'searchAcrossLineage',
      family: 'restli',
      access: LINEAGE_SEARCH_ACCESS,
      summary: 'Search the entities upstream or downstream of one, over any number of hops, with every path to each.',
      example: {
        body: {
          urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)',
          direction: 'DOWNSTREAM',
          input: '*',
          maxHops: 3,
          filter: { or: [{ and: [{ field: 'degree', values: ['1', '2'], condition: 'EQUAL' }] }] },
          start: 0,
          count: 10,
        },
      },
      description:
        'Answers the entities lineage reaches (edges whose annotations say `isLineage`, in the direction they ' +
        'point) that exist in the search index and match `input`, `filter` and `entities`, ordered by degree then ' +
        'URN. Each has its smallest `degree`, every degree it is reached at (`degrees`) and every path from the ' +
        "source (`paths`). `filter` may hold DataHub's `degree` criteria (`1`, `2`, `3+`). `maxHops` defaults to " +
        `as many as allowed. ${WINDOW_DESCRIPTION} ${limitsText}`,
      body: searchBody,
      handle: async ({ body }) => {
        const answer = await asBadRequest(lineage.search(searchRequest(body, body.start, body.count)));
        return {
          body: {
            value: {
              entities: answer.hits.map(lineageSearchEntity),
              metadata: metadataOf(answer, body.searchFlags.maxAggValues ?? undefined),
              from: body.start,
              pageSize: body.count,
              numEntities: answer.total,
              ...truncationOf(answer.truncation),
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'scrollAcrossLineage',
      family: 'restli',
      access: LINEAGE_SEARCH_ACCESS,
      summary: 'As searchAcrossLineage, page after page: each answer carries the scrollId of the next page.',
      example: {
        body: {
          urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)',
          direction: 'UPSTREAM',
          input: '*',
          keepAlive: '5m',
          count: 100,
        },
      },
      description:
        'Pages through what searchAcrossLineage answers. `scrollId` is absent on the last page. Strata keeps ' +
        'nothing between calls (`keepAlive` is accepted and not needed): each page walks the graph afresh, so ' +
        'it is never stale, and a write between two pages may shift what the next page holds. A `scrollId` given ' +
        `with another query is refused. ${WINDOW_DESCRIPTION}`,
      body: scrollBody,
      handle: async ({ body }) => {
        const query = scrollQueryOf(body);
        const offset =
          body.scrollId === undefined || body.scrollId === null || body.scrollId === ''
            ? 0
            : asBadRequestNow(() => decodeScrollId(body.scrollId ?? '', query));
        const answer = await asBadRequest(lineage.search(searchRequest(body, offset, body.count)));
        const next = offset + body.count;
        return {
          body: {
            value: {
              entities: answer.hits.map(lineageSearchEntity),
              metadata: metadataOf(answer, body.searchFlags.maxAggValues ?? undefined),
              ...(next < answer.total ? { scrollId: encodeScrollId(next, query) } : {}),
              pageSize: body.count,
              numEntities: answer.total,
              ...truncationOf(answer.truncation),
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/relationships',
      action: 'getLineage',
      family: 'restli',
      access: LINEAGE_READ_ACCESS,
      summary: 'The lineage of an entity in one direction, as the graph holds it, over up to maxHops hops.',
      example: {
        body: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)', direction: 'UPSTREAM', maxHops: 2 },
      },
      description:
        'Every entity lineage reaches within `maxHops` (default 1), whether or not the catalog holds it, ordered by ' +
        'degree then URN, the page `[start, start + count)` (defaults 0 and 100). Each relationship has the type ' +
        'and stamps of the edge that first reached it, its degrees and every path from the source. ' +
        `${WINDOW_DESCRIPTION} ${limitsText}`,
      body: getLineageBody,
      handle: async ({ body }) => {
        const start = body.start ?? 0;
        const count = body.count ?? 100;
        const window = windowOf(body);
        const walk = await asBadRequest(
          lineage.walk({
            urn: body.urn,
            direction: body.direction,
            maxHops: body.maxHops ?? 1,
            ...(window === undefined ? {} : { window }),
          }),
        );
        const page = walk.nodes.slice(start, start + count);
        return {
          body: {
            value: {
              start,
              count: page.length,
              total: walk.nodes.length,
              filtered: 0,
              relationships: page.map(lineageRelationship),
              ...truncationOf(walk.truncation),
            },
          },
        };
      },
    }),
  ];
}

type SearchBody = z.output<typeof searchBody> | z.output<typeof scrollBody>;

function windowOf(body: {
  readonly startTimeMillis?: number | null | undefined;
  readonly endTimeMillis?: number | null | undefined;
}): EdgeWindow | undefined {
  const start = body.startTimeMillis ?? undefined;
  const end = body.endTimeMillis ?? undefined;
  if (start === undefined && end === undefined) return undefined;
  return { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
}

function searchRequest(body: SearchBody, start: number, count: number): LineageSearchRequest {
  const window = windowOf(body);
  return {
    urn: body.urn,
    direction: body.direction,
    ...(body.maxHops === undefined || body.maxHops === null ? {} : { maxHops: body.maxHops }),
    ...(window === undefined ? {} : { window }),
    entities: body.entities ?? [],
    input: body.input ?? '*',
    filter: body.filter,
    start,
    count,
    includeSoftDeleted: body.searchFlags.includeSoftDeleted === true,
    skipAggregates: body.searchFlags.skipAggregates === true,
    skipHighlighting: body.searchFlags.skipHighlighting === true,
  };
}

/** What a scroll's pages must share: everything that decides the ordered matches. */
function scrollQueryOf(body: z.output<typeof scrollBody>): unknown[] {
  return [
    body.urn,
    body.direction,
    [...(body.entities ?? [])].sort(),
    body.input ?? '*',
    body.filter,
    body.maxHops ?? null,
    body.startTimeMillis ?? null,
    body.endTimeMillis ?? null,
    body.searchFlags.includeSoftDeleted === true,
  ];
}

/** DataHub's `LineageSearchEntity`, with Strata's `pathsTruncated`. */
function lineageSearchEntity(hit: LineageSearchAnswer['hits'][number]): Record<string, unknown> {
  const { node } = hit;
  return {
    entity: node.urn,
    matchedFields: hit.matchedFields,
    paths: node.paths(),
    degree: node.degree,
    degrees: node.degrees,
    explored: node.explored,
    truncatedChildren: node.truncatedChildren,
    ignoredAsHop: false,
    pathsTruncated: node.pathsTruncated,
  };
}

/** DataHub's `LineageRelationship`, with Strata's `pathsTruncated`. */
function lineageRelationship(node: LineageNode): Record<string, unknown> {
  const via = node.via;
  return {
    type: via.type,
    entity: node.urn,
    paths: node.paths(),
    degree: node.degree,
    degrees: node.degrees,
    ...(via.createdAt === undefined ? {} : { createdOn: via.createdAt }),
    ...(via.createdBy === undefined ? {} : { createdActor: via.createdBy }),
    ...(via.updatedAt === undefined ? {} : { updatedOn: via.updatedAt }),
    ...(via.updatedBy === undefined ? {} : { updatedActor: via.updatedBy }),
    isManual: via.manual === true,
    explored: node.explored,
    truncatedChildren: node.truncatedChildren,
    ignoredAsHop: false,
    pathsTruncated: node.pathsTruncated,
  };
}

/** DataHub's `SearchResultMetadata`: the facets as `aggregations` (with their `filterValues`), no suggestions. */
function metadataOf(answer: LineageSearchAnswer, maxAggValues: number | undefined): Record<string, unknown> {
  return {
    aggregations: answer.facets.map((facet: FacetResult) => {
      const entries = Object.entries(facet.counts);
      const kept = maxAggValues === undefined || facet.field === 'degree' ? entries : entries.slice(0, maxAggValues);
      return {
        name: facet.field,
        displayName: facet.displayName,
        aggregations: Object.fromEntries(kept),
        filterValues: kept.map(([value, facetCount]) => ({ value, facetCount })),
      };
    }),
    suggestions: [],
  };
}

/** Strata's report of the limits that cut the walk, beside DataHub's fields. */
function truncationOf(reasons: readonly TruncationReason[]): { truncated: boolean; truncation: TruncationReason[] } {
  return { truncated: reasons.length > 0, truncation: [...reasons] };
}

/** The lineage service's rejections are the client's mistakes in a read: 400, as DataHub answers them. */
async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

function asBadRequestNow<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}
