import { z } from 'zod';
import { defineRoute, restliListParam, type Route, type RouteAccess } from '@strata/http';
import { MAX_PAGE_SIZE, type GraphIndex, type SearchIndex } from '@strata/indices';
import type { ChangeLogProcessor } from '@strata/change-log';
import { BadRequestError, InvalidUrnError, parseUrn } from '@strata/model';
import {
  browseResultBody,
  relationshipsBody,
  responseShapeOf,
  searchResultBody,
  withExtraFields,
  type ResponseShape,
} from './response-shapes';
import {
  asBadRequest,
  optionalFilter,
  pageNumber,
  pageSize,
  SEARCH_ACCESS,
  searchFlagsSchema,
  sortCriterionSchema,
  filterWithFlags,
} from './route-inputs';
import { searchAcross } from './searcher';

/** Reading an indexer's progress: DataHub's system operations privilege (checked with authentication on). */
const SYSTEM_OPERATIONS_ACCESS: RouteAccess = {
  kind: 'privilege',
  anyOf: [['MANAGE_SYSTEM_OPERATIONS']],
  message: '{actor} is not authorized for system operations.',
};

export interface SearchRouteOptions {
  /** The shape answered to callers that neither ask for one nor are DataHub's clients (`REST_RESPONSE_SHAPES`). */
  readonly defaultShape: ResponseShape;
  /** The fields naming an entity of each type, for sorts on `_entityName` (`entityNameFields` of the registry). */
  readonly nameFields?: (entityType: string) => readonly string[];
}

/** What a search request may carry besides its text and paging: filter, sort and flags, as DataHub's actions take them. */
const searchExtras = {
  filter: optionalFilter,
  sort: sortCriterionSchema.nullish(),
  sortCriteria: z.array(sortCriterionSchema).max(10, 'at most 10 sort criteria').nullish(),
  searchFlags: searchFlagsSchema,
  fulltext: z.boolean().nullish(),
};

/** The sort a request asks for: `sortCriteria` when given, else `sort`. */
export function sortOf(body: {
  readonly sort?: z.output<typeof sortCriterionSchema> | null | undefined;
  readonly sortCriteria?: readonly z.output<typeof sortCriterionSchema>[] | null | undefined;
}): z.output<typeof sortCriterionSchema>[] {
  if (body.sortCriteria && body.sortCriteria.length > 0) return [...body.sortCriteria];
  return body.sort ? [body.sort] : [];
}

const SEARCH_FLAGS_NOTE =
  '`searchFlags`: `includeSoftDeleted`, `skipAggregates`, `maxAggValues` and `skipHighlighting` do what they say; ' +
  '`skipCache` and `fulltext` are accepted (no kept page is ever stale; the text is always full text). ' +
  '`sort`/`sortCriteria` order every match by the fields given (up to 10,000 matches), ties by URN; a sort newest ' +
  'first on a date field (`lastModifiedAt`) answers over any number, ordering the newest matches that hold the page. ' +
  '`_entityName` orders by name whatever the type (the fields each type aliases as `_entityName`).';

/** The entity types a search across entities covers: those named (each once), or every type the index knows. */
export function typesOf(search: SearchIndex, named: readonly string[] | null | undefined): string[] {
  return named && named.length > 0 ? [...new Set(named)] : search.schema.entities().map((entity) => entity.entityType);
}

/**
 * The search indexer's reads: `search`, `browse`, `autocomplete`, `GET /relationships`, and its progress; DataHub's
 * `DELETE /relationships`; and what the operations service asks of it for a rebuild: emptying its indices, and its
 * backlog.
 */
export function searchRoutes(
  search: SearchIndex,
  graph: GraphIndex,
  indexer: Pick<ChangeLogProcessor, 'progress' | 'backlog'>,
  options: SearchRouteOptions,
): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'search',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'Full-text and structured search over the latest aspects of one entity type.',
      example: {
        body: {
          input: 'orders',
          entity: 'dataset',
          start: 0,
          count: 10,
          filter: { or: [{ and: [{ field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL' }] }] },
        },
      },
      description:
        'Terms are ANDed; `field:value`, quoted phrases, `prefix*`, `*`, OR, NOT and parentheses work; `filter` is an ' +
        'OR of AND groups (a criterion on a field the entity lacks matches nothing, negated everything). Soft-deleted ' +
        `entities are hidden unless the filter names \`removed\`. \`count\` ≤ ${MAX_PAGE_SIZE}. ${SEARCH_FLAGS_NOTE}`,
      body: z.object({
        input: z.string(),
        entity: z.string().min(1),
        start: pageNumber('start').default(0),
        count: pageSize('count').default(10),
        ...searchExtras,
      }),
      handle: async ({ body, context }) => {
        const shape = responseShapeOf(context, options.defaultShape);
        const outcome = await searchAcross(search, {
          types: [body.entity],
          input: body.input,
          filter: body.filter,
          start: body.start,
          count: body.count,
          flags: body.searchFlags,
          sort: sortOf(body),
          typeFacet: false,
          ...(options.nameFields === undefined ? {} : { nameFields: options.nameFields }),
        });
        return {
          body: {
            value: searchResultBody(
              {
                from: body.start,
                pageSize: body.count,
                numEntities: outcome.total,
                hits: outcome.hits,
                facets: outcome.facets,
              },
              shape,
            ),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'searchAcrossEntities',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'Search over several entity types at once, or every type.',
      example: { body: { input: 'orders', entities: ['dataset', 'chart'], start: 0, count: 10 } },
      description:
        'As `search`, over the types `entities` names (every type when absent or empty). Results come grouped by type, ' +
        "in the order given (the registry's when absent), each group ranked as `search` ranks it; `numEntities` counts " +
        'every match, and facets add up across types, with an `entity` facet counting matches per type. A filter ' +
        'field some types lack matches nothing of those types.',
      body: z.object({
        input: z.string(),
        entities: z.array(z.string().min(1)).nullish(),
        start: pageNumber('start').default(0),
        count: pageSize('count').default(10),
        ...searchExtras,
      }),
      handle: async ({ body, context }) => {
        const shape = responseShapeOf(context, options.defaultShape);
        const outcome = await searchAcross(search, {
          types: typesOf(search, body.entities),
          input: body.input,
          filter: body.filter,
          start: body.start,
          count: body.count,
          flags: body.searchFlags,
          sort: sortOf(body),
          typeFacet: true,
          ...(options.nameFields === undefined ? {} : { nameFields: options.nameFields }),
        });
        return {
          body: {
            value: searchResultBody(
              {
                from: body.start,
                pageSize: body.count,
                numEntities: outcome.total,
                hits: await withExtraFields(search, outcome.hits, body.searchFlags.fetchExtraFields),
                facets: outcome.facets,
              },
              shape,
            ),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'browse',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'One level of the browse tree: the groups below a path, with counts, and the entities at it.',
      example: { body: { path: '/prod/hive', entity: 'dataset', start: 0, limit: 10 } },
      description:
        'Paging covers the groups first, then the entities. Soft-deleted entities are hidden unless ' +
        '`searchFlags.includeSoftDeleted`.',
      body: z.object({
        path: z.string(),
        entity: z.string().min(1),
        start: pageNumber('start').default(0),
        limit: pageSize('limit').default(10),
        filter: optionalFilter,
        searchFlags: searchFlagsSchema,
      }),
      handle: async ({ body, context }) => {
        const shape = responseShapeOf(context, options.defaultShape);
        const page = await asBadRequest(
          search.browse({
            entityType: body.entity,
            path: body.path,
            filter: filterWithFlags(body.filter, body.searchFlags),
            start: body.start,
            limit: body.limit,
          }),
        );
        return { body: { value: browseResultBody(page, { from: body.start, pageSize: body.limit }, shape) } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'autocomplete',
      family: 'restli',
      access: SEARCH_ACCESS,
      summary: 'Suggestions for a prefix, from the autocomplete fields of one entity type.',
      example: { body: { query: 'ord', entity: 'dataset', limit: 10 } },
      description: '`start` is accepted and ignored, as DataHub does. Soft-deleted entities are hidden.',
      body: z.object({
        query: z.string(),
        entity: z.string().min(1),
        limit: pageSize('limit').default(10),
        field: z.string().min(1).optional(),
        start: z.number().optional(),
        filter: optionalFilter,
        searchFlags: searchFlagsSchema,
      }),
      handle: async ({ body }) => {
        const page = await asBadRequest(
          search.autocomplete({
            entityType: body.entity,
            query: body.query,
            filter: filterWithFlags(body.filter, body.searchFlags),
            limit: body.limit,
            ...(body.field === undefined ? {} : { field: body.field }),
          }),
        );
        return {
          body: {
            value: {
              query: body.query,
              suggestions: page.suggestions,
              entities: page.urns.map((urn) => ({ urn })),
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/relationships',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'LINEAGE',
        operations: ['READ'],
        resource: { in: 'query', name: 'urn' },
        message: 'User is unauthorized to get entity lineage: {resource}',
      },
      summary: 'The relationships of an entity in one direction, optionally of some types only.',
      example: { query: { urn: 'urn:li:corpuser:datahub', direction: 'INCOMING', types: 'List(OwnedBy)' } },
      description:
        'OUTGOING: edges from the entity (e.g. its owners); INCOMING: edges to it (e.g. what a user owns). `types` is a ' +
        'list (`List(a,b)` or repeated); absent, every type.',
      query: z.object({
        urn: z.string().min(1),
        direction: z.enum(['INCOMING', 'OUTGOING'], { error: 'direction must be INCOMING or OUTGOING' }),
        types: restliListParam().optional(),
        start: z.coerce.number().pipe(pageNumber('start')).default(0),
        count: z.coerce.number().pipe(pageSize('count')).default(100),
      }),
      handle: async ({ query, context }) => {
        const shape = responseShapeOf(context, options.defaultShape);
        const page = await asBadRequest(
          graph.relationships({
            urn: query.urn,
            direction: query.direction,
            types: query.types ?? [],
            start: query.start,
            count: query.count,
          }),
        );
        return { body: relationshipsBody({ start: query.start, ...page }, shape) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      resource: '/relationships',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'LINEAGE',
        operations: ['DELETE'],
        resource: { in: 'query', name: 'urn' },
        message: 'User is unauthorized to delete entity: {resource}',
      },
      summary: 'Removes every relationship of an entity from the graph: the edges from it, to it, and those it holds.',
      example: { query: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)' } },
      description:
        "DataHub's `Relationships.delete` (its graph service's `removeNode`); answers 200 with an empty body. The " +
        'aspects stay as they are: the graph is derived from them, so writing an aspect that implies a removed edge ' +
        'again, or restoring the indices, brings the edge back.',
      query: z.object({ urn: z.string().min(1) }),
      handle: async ({ query }) => {
        try {
          parseUrn(query.urn);
        } catch (error) {
          if (error instanceof InvalidUrnError) throw new BadRequestError(`Invalid urn: ${error.message}`);
          throw error;
        }
        await graph.removeNode(query.urn);
        return {};
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/relationships/v1/',
      family: 'openapi',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'query', name: 'urn' },
        message: '{actor} is unauthorized to get relationships.',
      },
      summary: 'The entities related to one, in one direction, by some relationship types (DataHub’s OpenAPI v1).',
      example: { query: { urn: 'urn:li:corpuser:datahub', direction: 'INCOMING', relationshipTypes: 'OwnedBy' } },
      description:
        'Answers `{start, count, total, entities: [{urn, relationshipType}]}`: `count` is how many this page holds. ' +
        '`relationshipTypes` is repeated or comma-separated; `count` defaults to 200.',
      query: z.object({
        urn: z.string().min(1),
        relationshipTypes: z.preprocess(
          (value) =>
            (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((item: unknown) =>
              typeof item === 'string'
                ? item
                    .split(',')
                    .map((part) => part.trim())
                    .filter((part) => part !== '')
                : [item],
            ),
          z.array(z.string().min(1)).min(1, 'relationshipTypes must name at least one relationship type'),
        ),
        direction: z.enum(['INCOMING', 'OUTGOING'], { error: 'direction must be INCOMING or OUTGOING' }),
        start: z.coerce.number().pipe(pageNumber('start')).default(0),
        count: z.coerce.number().pipe(pageSize('count')).default(200),
      }),
      handle: async ({ query }) => {
        const page = await asBadRequest(
          graph.relationships({
            urn: query.urn,
            direction: query.direction,
            types: query.relationshipTypes,
            start: query.start,
            count: query.count,
          }),
        );
        const entities = page.relationships.map((relationship) => ({
          urn: relationship.entity,
          relationshipType: relationship.type,
        }));
        return { body: { start: query.start, count: entities.length, total: page.total, entities } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/search-index/clear',
      family: 'restli',
      access: { kind: 'internal' },
      summary: 'Remove every search document and relationship edge (a full rebuild replays them).',
      handle: async () => {
        await search.clear();
        await graph.clear();
        return { body: { cleared: true } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/search-index/backlog',
      family: 'restli',
      access: { kind: 'internal' },
      summary:
        'The versioned change logs the search indexer has yet to apply: per input partition, the end of the log, its position and the difference; and in all.',
      handle: async () => ({ body: await indexer.backlog() }),
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/operations/indices/progress',
      family: 'openapi',
      access: SYSTEM_OPERATIONS_ACCESS,
      summary:
        "The search indexer's progress, as a whole and per hook (search, graph): per input partition, the last change log handled and how far behind the log it is now (0 when nothing is pending); its backlog (per partition: the end of the log, its position, the change logs pending; and in all); counts of change logs applied and skipped; recent lag percentiles.",
      handle: async () => ({ body: await indexer.progress() }),
    }),
  ];
}
