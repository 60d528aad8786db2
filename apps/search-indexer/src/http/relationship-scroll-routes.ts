import { z } from 'zod';
import { BadRequestError, ValidationError } from '@strata/model';
import { booleanParam, defineRoute, type Route } from '@strata/http';
import { MAX_EDGE_SCROLL_COUNT, type EdgeKey, type GraphIndex, type ScrolledEdge } from '@strata/indices';

/**
 * A list query parameter as DataHub's clients send one: repeated (`sourceUrns=a&sourceUrns=b`), or comma-separated
 * (`sourceTypes=dataset,chart`). Commas inside parentheses stay: `urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)` is
 * one value.
 */
const listParam = z.preprocess(
  (value) => {
    const values: unknown[] = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
    return values.flatMap((item) => (typeof item === 'string' ? splitTopLevel(item) : [item]));
  },
  z.array(z.string().min(1, 'must not be empty')),
);

function splitTopLevel(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      items.push(text.slice(start, index));
      start = index + 1;
    }
  }
  items.push(text.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

const count = z.coerce
  .number({ error: 'count must be an integer' })
  .int('count must be an integer')
  .min(1, 'count must be ≥ 1')
  .max(MAX_EDGE_SCROLL_COUNT, `count must be ≤ ${MAX_EDGE_SCROLL_COUNT}`);

/**
 * The scroll id of a relationship scroll: the key of the page's last edge, as base64url JSON. Opaque to clients; a
 * scroll id that is not one is a 400.
 */
export function relationshipScrollId(key: EdgeKey): string {
  return Buffer.from(JSON.stringify([key.source, key.type, key.destination]), 'utf8').toString('base64url');
}

function keyOfScrollId(scrollId: string): EdgeKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 3 && parsed.every((part) => typeof part === 'string')) {
    const [source, type, destination] = parsed as [string, string, string];
    return { source, type, destination };
  }
  throw new BadRequestError(`Invalid scrollId ${JSON.stringify(scrollId.slice(0, 100))}: not one this server issued`);
}

/** DataHub's `{urn, entityType}` of one end of an edge (the type read from the URN). */
function nodeOf(urn: string): { urn: string; entityType: string } {
  return { urn, entityType: /^urn:li:([^:]+):/.exec(urn)?.[1] ?? '' };
}

function relationshipOf(edge: ScrolledEdge): Record<string, unknown> {
  return { relationshipType: edge.type, source: nodeOf(edge.source), destination: nodeOf(edge.destination) };
}

/**
 * `GET /openapi/v3/relationship/scroll`: DataHub's scroll over the relationship graph, as `DataHubGraph.
 * scroll_relationships` calls it — every edge matching the filters, page after page, in (source, type, destination)
 * order; `scrollId` is null on the last page.
 */
export function relationshipScrollRoutes(graph: GraphIndex): Route[] {
  return [
    defineRoute({
      method: 'GET',
      resource: '/openapi/v3/relationship/scroll',
      family: 'openapi',
      access: {
        kind: 'resource',
        group: 'RELATIONSHIP',
        operations: ['READ'],
        resource: { in: 'query', name: 'sourceUrns', list: true },
        message: '{actor} is unauthorized to READ RELATIONSHIP',
      },
      summary: 'Scroll the relationship graph: every edge matching the filters, page after page.',
      description:
        'Each filter (`relationshipTypes`, `sourceTypes`, `destinationTypes`, `sourceUrns`, `destinationUrns`; repeated or ' +
        'comma-separated) keeps the edges matching any of its values, and filters combine with AND; none keeps every ' +
        'edge. Answers `{results: [{relationshipType, source: {urn, entityType}, destination: {urn, entityType}}], ' +
        'scrollId}`: pass `scrollId` back for the next page; it is null on the last one. An edge several aspects imply ' +
        `comes once. \`count\` defaults to 10, at most ${MAX_EDGE_SCROLL_COUNT}. \`includeSoftDelete\` and \`pitKeepAlive\` ` +
        'are accepted and have no effect (the graph keeps the edges of soft-deleted entities, and a scroll id stays ' +
        'valid for ever); `sliceId`/`sliceMax` (parallel slices) are refused.',
      example: { query: { relationshipTypes: 'DownstreamOf', sourceTypes: 'dataset', count: '10' } },
      query: z.object({
        relationshipTypes: listParam.optional(),
        sourceTypes: listParam.optional(),
        destinationTypes: listParam.optional(),
        sourceUrns: listParam.optional(),
        destinationUrns: listParam.optional(),
        count: count.default(10),
        scrollId: z.string().min(1, 'scrollId must not be empty').optional(),
        includeSoftDelete: booleanParam().optional(),
        pitKeepAlive: z.string().optional(),
        sliceId: z.string().optional(),
        sliceMax: z.string().optional(),
      }),
      handle: async ({ query }) => {
        if (query.sliceId !== undefined || query.sliceMax !== undefined) {
          throw new BadRequestError('Sliced scrolling (sliceId, sliceMax) is not supported: scroll in one slice');
        }
        const after = query.scrollId === undefined ? undefined : keyOfScrollId(query.scrollId);
        let page;
        try {
          page = await graph.scrollEdges({
            types: query.relationshipTypes ?? [],
            sourceTypes: query.sourceTypes ?? [],
            destinationTypes: query.destinationTypes ?? [],
            sourceUrns: query.sourceUrns ?? [],
            destinationUrns: query.destinationUrns ?? [],
            count: query.count,
            ...(after === undefined ? {} : { after }),
          });
        } catch (error) {
          if (error instanceof ValidationError) throw new BadRequestError(error.message, { cause: error });
          throw error;
        }
        const last = page.edges[page.edges.length - 1];
        return {
          body: {
            results: page.edges.map(relationshipOf),
            scrollId: page.hasMore && last !== undefined ? relationshipScrollId(last) : null,
          },
        };
      },
    }),
  ];
}
