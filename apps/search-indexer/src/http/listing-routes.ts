import { z } from 'zod';
import { BadRequestError } from '@strata/model';
import { defineRoute, type Route, type RouteAccess } from '@strata/http';
import {
  BROWSE_PATHS_FIELD,
  documentFields,
  MAX_PAGE_SIZE,
  URN_FIELD,
  type Filter,
  type SearchIndex,
} from '@strata/indices';
import { responseShapeOf, searchResultBody, withExtraFields, type ResponseShape } from './response-shapes';
import {
  asBadRequest,
  optionalFilter,
  pageNumber,
  pageSize,
  SEARCH_ACCESS,
  filterWithFlags,
  searchFlagsSchema,
  sortCriterionSchema,
} from './route-inputs';
import { searchAcross } from './searcher';
import { sortOf, typesOf } from './search-routes';

/** Counting entities: DataHub's COUNTS READ (`GET_COUNTS_PRIVILEGE`) on the types counted, with authentication on. */
const COUNTS_ACCESS: RouteAccess = {
  kind: 'resource',
  group: 'COUNTS',
  operations: ['READ'],
  resource: { in: 'bodyTypes', names: ['entity', 'entities'] },
  message: 'User is unauthorized to get entity counts.',
};

export interface ListingRouteOptions {
  readonly defaultShape: ResponseShape;
  /** The fields naming an entity of each type, for sorts on `_entityName` (`entityNameFields` of the registry). */
  readonly nameFields?: (entityType: string) => readonly string[];
}

/** What `filter` and `list` take: one entity type, a filter, a sort, and a page. */
const listingBody = z.object({
  entity: z.string().min(1),
  filter: optionalFilter,
  sort: sortCriterionSchema.nullish(),
  sortCriteria: z.array(sortCriterionSchema).max(10, 'at most 10 sort criteria').nullish(),
  start: pageNumber('start').default(0),
  count: pageSize('count').default(10),
});

/** The most results one scroll page holds (DataHub's own limit for a page). */
const MAX_SCROLL_PAGE = 10_000;

/**
 * The search index's listings and counts: `filter`, `list`, `getTotalEntityCount`, `batchGetTotalEntityCount`,
 * `getBrowsePaths` and `scrollAcrossEntities` of DataHub's `/entities` resource.
 */
export function listingRoutes(search: SearchIndex, options: ListingRouteOptions): Route[] {
  const countOf = async (entityType: string): Promise<number> =>
    (await asBadRequest(search.search({ entityType, input: '*', filter: [], start: 0, count: 0 }))).total;
  return [
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'filter',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'The entities of one type that a filter keeps, with no query text.',
      example: {
        body: {
          entity: 'dataset',
          filter: { or: [{ and: [{ field: 'origin', values: ['PROD'], condition: 'EQUAL' }] }] },
          start: 0,
          count: 10,
        },
      },
      description:
        'A search for `*` with the filter: in URN order, or in the order `sort`/`sortCriteria` ask for. Soft-deleted ' +
        'entities are hidden unless the filter names `removed`.',
      body: listingBody,
      handle: async ({ body, context }) => {
        const outcome = await searchAcross(search, {
          types: [body.entity],
          input: '*',
          filter: body.filter,
          start: body.start,
          count: body.count,
          flags: {},
          sort: sortOf(body),
          typeFacet: false,
          ...(options.nameFields === undefined ? {} : { nameFields: options.nameFields }),
        });
        const view = { from: body.start, pageSize: body.count, numEntities: outcome.total, ...outcome };
        return { body: { value: searchResultBody(view, responseShapeOf(context, options.defaultShape)) } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'list',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'A page of the URNs of one entity type, optionally filtered: DataHub’s `ListResult`.',
      example: { body: { entity: 'dataset', start: 0, count: 10 } },
      description:
        'As `filter`, answering `{entities: [urn…], start, count, total}`: `count` is how many this page holds, `total` ' +
        'how many match.',
      body: listingBody,
      handle: async ({ body }) => {
        const outcome = await searchAcross(search, {
          types: [body.entity],
          input: '*',
          filter: body.filter,
          start: body.start,
          count: body.count,
          flags: { skipAggregates: true, skipHighlighting: true },
          sort: sortOf(body),
          typeFacet: false,
          ...(options.nameFields === undefined ? {} : { nameFields: options.nameFields }),
        });
        const entities = outcome.hits.map((hit) => hit.urn);
        return { body: { value: { entities, start: body.start, count: entities.length, total: outcome.total } } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'getTotalEntityCount',
      family: 'restli',
      access: COUNTS_ACCESS,
      summary: 'How many entities of a type are searchable (soft-deleted ones not counted).',
      example: { body: { entity: 'dataset' } },
      body: z.object({ entity: z.string().min(1) }),
      handle: async ({ body }) => ({ body: { value: await countOf(body.entity) } }),
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'batchGetTotalEntityCount',
      family: 'restli',
      access: COUNTS_ACCESS,
      summary: 'How many entities of each type are searchable: a map from entity type to count.',
      example: { body: { entities: ['dataset', 'chart'] } },
      body: z.object({ entities: z.array(z.string().min(1)).max(1000, 'at most 1000 entity types') }),
      handle: async ({ body }) => {
        const types = [...new Set(body.entities)];
        const counts = await Promise.all(types.map(countOf));
        return { body: { value: Object.fromEntries(types.map((type, index) => [type, counts[index] ?? 0])) } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'getBrowsePaths',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'body', name: 'urn' },
        message: 'User is unauthorized to get entity: {resource}',
      },
      summary: 'The browse paths of an entity, as its search document holds them.',
      example: { body: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)' } },
      description: 'An entity with no browse path (or not indexed) answers an empty list.',
      body: z.object({ urn: z.string().min(1) }),
      handle: async ({ body }) => {
        if (!/^urn:li:[A-Za-z][A-Za-z0-9]*:./.test(body.urn)) throw new BadRequestError(`Invalid urn: ${body.urn}`);
        const document = (await search.documents([body.urn])).get(body.urn);
        const paths = document === undefined ? [] : (documentFields(document)[BROWSE_PATHS_FIELD] ?? []);
        return { body: { value: paths.map(String) } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'scrollAcrossEntities',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'Page through every match of a search across entity types, with a cursor.',
      example: { body: { entities: ['dataset'], input: '*', count: 100 } },
      description:
        'Answers DataHub’s `ScrollResult`: the page, and `scrollId` when more follow (absent on the last page); pass ' +
        'it back with the same request for the next page. A cursor stays valid while the catalog changes: it ' +
        'resumes after the last URN of its page. Pages come in URN order within each entity type, types in the order ' +
        'given (a scroll enumerates; `search` ranks). `keepAlive` is accepted (no server state is kept).',
      body: z.object({
        entities: z.array(z.string().min(1)).nullish(),
        input: z.string().default('*'),
        filter: optionalFilter,
        sort: sortCriterionSchema.nullish(),
        sortCriteria: z.array(sortCriterionSchema).nullish(),
        scrollId: z.string().nullish(),
        keepAlive: z.string().nullish(),
        count: z
          .number({ error: 'count must be an integer' })
          .int('count must be an integer')
          .min(0, 'count must be ≥ 0')
          .max(MAX_SCROLL_PAGE, `Result count exceeds limit of ${MAX_SCROLL_PAGE}`)
          .default(10),
        searchFlags: searchFlagsSchema,
      }),
      handle: async ({ body, context }) => {
        const types = typesOf(search, body.entities);
        const cursor = body.scrollId ? decodeScrollId(body.scrollId, types) : { type: 0, after: undefined };
        const filter = filterWithFlags(body.filter, body.searchFlags);
        const hits: { urn: string; matchedFields: [] }[] = [];
        let next: ScrollCursor | undefined;
        let total = 0;
        for (const [index, entityType] of types.entries()) {
          total += (await asBadRequest(search.search({ entityType, input: body.input, filter, start: 0, count: 0 })))
            .total;
          if (index < cursor.type || next !== undefined) continue;
          const wanted = body.count - hits.length;
          const after = index === cursor.type ? cursor.after : undefined;
          const page = { entityType, input: body.input, filter };
          // One row more than wanted says whether more follow; a full page of the index's maximum asks separately.
          const urns = await urnsAfter(search, { ...page, after, count: Math.min(wanted + 1, MAX_PAGE_SIZE) });
          for (const urn of urns.slice(0, wanted)) hits.push({ urn, matchedFields: [] });
          const more =
            urns.length > wanted ||
            (urns.length === wanted &&
              wanted === MAX_PAGE_SIZE &&
              (await urnsAfter(search, { ...page, after: urns[wanted - 1], count: 1 })).length > 0);
          if (more) {
            const resumeFrom = index === cursor.type ? cursor.after : undefined;
            next = { type: index, after: wanted === 0 ? resumeFrom : urns[wanted - 1] };
          }
        }
        const view = {
          from: 0,
          pageSize: body.count,
          numEntities: total,
          hits: await withExtraFields(search, hits, body.searchFlags.fetchExtraFields),
          facets: [],
          scrollId: next === undefined ? undefined : encodeScrollId(next),
        };
        return { body: { value: searchResultBody(view, responseShapeOf(context, options.defaultShape)) } };
      },
    }),
  ];
}

/** Where a scroll resumes: in the `type`-th entity type searched, after this URN (from its start when undefined). */
interface ScrollCursor {
  readonly type: number;
  readonly after: string | undefined;
}

function encodeScrollId(cursor: ScrollCursor): string {
  return Buffer.from(JSON.stringify({ t: cursor.type, a: cursor.after ?? null }), 'utf8').toString('base64url');
}

function decodeScrollId(scrollId: string, types: readonly string[]): ScrollCursor {
  try {
    const parsed = JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8')) as { t?: unknown; a?: unknown };
    if (
      Number.isSafeInteger(parsed.t) &&
      (parsed.t as number) >= 0 &&
      (parsed.t as number) < Math.max(types.length, 1) &&
      (parsed.a === null || typeof parsed.a === 'string')
    ) {
      return { type: parsed.t as number, after: parsed.a ?? undefined };
    }
  } catch {
    // Falls through to the refusal below.
  }
  throw new BadRequestError(`Invalid scrollId: ${scrollId.slice(0, 100)}`);
}

/**
 * The first `count` URNs (in URN order) of one type's matches after `after`. With no query text the index answers in
 * URN order already (every score ties), so the cursor is a criterion and any depth is reached; with text, the matches
 * after the cursor are ordered by URN (at most 10,000 of them: `searchAcross` refuses more, with a hint).
 */
async function urnsAfter(
  search: SearchIndex,
  request: { entityType: string; input: string; filter: Filter; after: string | undefined; count: number },
): Promise<string[]> {
  const filter = afterUrn(request.filter, request.after);
  if (request.input.trim() === '*' || request.input.trim() === '') {
    const page = await asBadRequest(
      search.search({ entityType: request.entityType, input: '*', filter, start: 0, count: request.count }),
    );
    return page.hits.map((hit) => hit.urn).sort();
  }
  const outcome = await searchAcross(search, {
    types: [request.entityType],
    input: request.input,
    filter,
    start: 0,
    count: request.count,
    flags: { skipAggregates: true, skipHighlighting: true },
    sort: [{ field: URN_FIELD, order: 'ASCENDING' }],
    typeFacet: false,
  });
  return outcome.hits.map((hit) => hit.urn);
}

/** The filter narrowed to URNs after `after` (in every group), or as it is when there is no cursor. */
function afterUrn(filter: Filter, after: string | undefined): Filter {
  if (after === undefined) return filter;
  const criterion = { field: URN_FIELD, values: [after], condition: 'GREATER_THAN', negated: false } as const;
  return filter.length === 0 ? [[criterion]] : filter.map((group) => [...group, criterion]);
}
