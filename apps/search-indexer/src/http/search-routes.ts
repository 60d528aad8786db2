import { z } from 'zod';
import { BadRequestError, ValidationError } from '@strata/model';
import { defineRoute, restliListParam, type Route, type RouteAccess } from '@strata/http';
import { filterSchema, MAX_PAGE_SIZE, type GraphIndex, type SearchIndex } from '@strata/indices';
import type { ChangeLogProcessor } from '@strata/change-log';

/** Searching, browsing, autocompleting: DataHub's ENTITY READ on every entity type searched (all, when none is named). */
const SEARCH_ACCESS: RouteAccess = {
  kind: 'resource',
  group: 'ENTITY',
  operations: ['READ'],
  resource: { in: 'bodyTypes', names: ['entity', 'entities'] },
  message: 'User is unauthorized to search.',
};

/** Reading an indexer's progress: DataHub's system operations privilege (checked with authentication on). */
const SYSTEM_OPERATIONS_ACCESS: RouteAccess = {
  kind: 'privilege',
  anyOf: [['MANAGE_SYSTEM_OPERATIONS']],
  message: '{actor} is not authorized for system operations.',
};

const pageNumber = (name: string) =>
  z
    .number({ error: `${name} must be an integer` })
    .int(`${name} must be an integer`)
    .min(0, `${name} must be ≥ 0`);

const pageSize = (name: string) =>
  pageNumber(name).max(MAX_PAGE_SIZE, `Result count exceeds limit of ${MAX_PAGE_SIZE}`);

const optionalFilter = filterSchema.nullish().transform((filter) => filter ?? []);

/**
 * The read model's rejections (unknown entity, malformed query text or filter) are the client's mistakes in a read:
 * 400, as DataHub answers them, rather than the 422 of a proposal that fails validation.
 */
async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

/**
 * The search indexer's reads: `search`, `browse`, `autocomplete`, `GET /relationships`, and its progress; and what the
 * operations service asks of it for a rebuild: emptying its indices, and its backlog.
 */
export function searchRoutes(
  search: SearchIndex,
  graph: GraphIndex,
  indexer: Pick<ChangeLogProcessor, 'progress' | 'backlog'>,
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
        `OR of AND groups. Soft-deleted entities are hidden unless the filter names \`removed\`. \`count\` ≤ ${MAX_PAGE_SIZE}.`,
      body: z.object({
        input: z.string(),
        entity: z.string().min(1),
        start: pageNumber('start').default(0),
        count: pageSize('count').default(10),
        filter: optionalFilter,
      }),
      handle: async ({ body }) => {
        const page = await asBadRequest(
          search.search({
            entityType: body.entity,
            input: body.input,
            filter: body.filter,
            start: body.start,
            count: body.count,
          }),
        );
        const urns = page.hits.map((hit) => hit.urn);
        return {
          body: {
            value: {
              numEntities: page.total,
              pageSize: body.count,
              from: body.start,
              entities: urns,
              metadata: {
                urns,
                matches: page.hits.map((hit) => ({ matchedFields: hit.matchedFields })),
                searchResultMetadatas: page.facets.map((facet) => ({
                  name: facet.field,
                  displayName: facet.displayName,
                  aggregations: facet.counts,
                })),
              },
            },
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
        'every match, and facets add up across types, with an `entity` facet counting matches per type.',
      body: z.object({
        input: z.string(),
        entities: z.array(z.string().min(1)).nullish(),
        start: pageNumber('start').default(0),
        count: pageSize('count').default(10),
        filter: optionalFilter,
      }),
      handle: async ({ body }) => {
        const known = search.schema.entities().map((entity) => entity.entityType);
        const types = body.entities && body.entities.length > 0 ? [...new Set(body.entities)] : known;
        const request = { input: body.input, filter: body.filter };
        // Every type's matches are counted first; then only the types whose matches overlap the page are read.
        const counted = await asBadRequest(
          Promise.all(types.map((entityType) => search.search({ entityType, ...request, start: 0, count: 0 }))),
        );
        const urns: string[] = [];
        const matches: { matchedFields: unknown }[] = [];
        let offset = 0;
        for (const [index, entityType] of types.entries()) {
          const total = counted[index]?.total ?? 0;
          const from = Math.max(body.start - offset, 0);
          const wanted = Math.min(body.start + body.count - offset, total) - from;
          offset += total;
          if (wanted <= 0) continue;
          const page = await asBadRequest(search.search({ entityType, ...request, start: from, count: wanted }));
          for (const hit of page.hits) {
            urns.push(hit.urn);
            matches.push({ matchedFields: hit.matchedFields });
          }
        }
        const facets = new Map<string, { displayName: string; counts: Map<string, number> }>();
        const byType = { displayName: 'Type', counts: new Map<string, number>() };
        counted.forEach((page, index) => {
          if (page.total > 0) byType.counts.set(types[index] ?? '', page.total);
          for (const facet of page.facets) {
            const merged = facets.get(facet.field) ?? {
              displayName: facet.displayName,
              counts: new Map<string, number>(),
            };
            for (const [value, count] of Object.entries(facet.counts)) {
              merged.counts.set(value, (merged.counts.get(value) ?? 0) + count);
            }
            facets.set(facet.field, merged);
          }
        });
        facets.set('entity', byType);
        return {
          body: {
            value: {
              numEntities: offset,
              pageSize: body.count,
              from: body.start,
              entities: urns,
              metadata: {
                urns,
                matches,
                searchResultMetadatas: [...facets].map(([name, facet]) => ({
                  name,
                  displayName: facet.displayName,
                  aggregations: Object.fromEntries(facet.counts),
                })),
              },
            },
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
      description: 'Paging covers the groups first, then the entities. Soft-deleted entities are hidden.',
      body: z.object({
        path: z.string(),
        entity: z.string().min(1),
        start: pageNumber('start').default(0),
        limit: pageSize('limit').default(10),
        filter: optionalFilter,
      }),
      handle: async ({ body }) => {
        const page = await asBadRequest(
          search.browse({
            entityType: body.entity,
            path: body.path,
            filter: body.filter,
            start: body.start,
            limit: body.limit,
          }),
        );
        return {
          body: {
            value: {
              numEntities: page.numEntities,
              pageSize: body.limit,
              from: body.start,
              entities: page.entities.map((entity) => ({ name: entity.name, urn: entity.urn })),
              metadata: { totalNumEntities: page.totalNumEntities, groups: page.groups, path: page.path },
            },
          },
        };
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
      }),
      handle: async ({ body }) => {
        const page = await asBadRequest(
          search.autocomplete({
            entityType: body.entity,
            query: body.query,
            filter: body.filter,
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
      handle: async ({ query }) => {
        const page = await asBadRequest(
          graph.relationships({
            urn: query.urn,
            direction: query.direction,
            types: query.types ?? [],
            start: query.start,
            count: query.count,
          }),
        );
        return {
          body: {
            entities: page.relationships.map((relationship) => relationship.entity),
            start: query.start,
            count: page.relationships.length,
            total: page.total,
            relationships: page.relationships.map((relationship) => ({
              type: relationship.type,
              entity: relationship.entity,
              ...(relationship.createdAt === undefined
                ? {}
                : {
                    created: {
                      time: relationship.createdAt,
                      ...(relationship.createdBy === undefined ? {} : { actor: relationship.createdBy }),
                    },
                  }),
            })),
          },
        };
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
