import { BadRequestError } from '@strata/model';
import { RESPONSE_SHAPE_HEADER, type RequestContext } from '@strata/http';
import {
  LAST_CHANGED_FIELD,
  type BrowsePage,
  type FacetResult,
  type MatchedField,
  type SearchIndex,
} from '@strata/indices';

/**
 * The two shapes Strata answers search, browse and relationships in:
 * - `interface`: the interface document's (DataHub's 2021 records): a search's `entities` is a list of URNs, beside
 *   `metadata.{urns, matches, searchResultMetadatas}`; browse's groups inside `metadata`; relationships with a list
 *   of `entities` beside `relationships`.
 * - `current`: what DataHub's metadata service answers today and its clients parse: `entities` of `SearchEntity`
 *   (`{entity, matchedFields}`), facets in `metadata.aggregations`; browse's `groups`, `numGroups`, `numElements` at
 *   the top; relationships as `{start, count, total, relationships}`.
 */
export type ResponseShape = 'interface' | 'current';

export const RESPONSE_SHAPES: readonly ResponseShape[] = ['interface', 'current'];

/** A client's explicit choice of shape, whatever it is. */
export { RESPONSE_SHAPE_HEADER };

/**
 * The shape to answer a request in: the one it asks for (`X-Strata-Response-Shape`); else `current` for DataHub's own
 * clients, which announce themselves — the Python CLI and SDK with `X-DataHub-Py-Cli-Version` (and, from 1.x,
 * `X-DataHub-Client-Mode` and a `DataHub…` user agent), DataHub's Java Rest.li client with the `X-RestLi-Method`
 * header every Rest.li client request carries; else the server's default (`REST_RESPONSE_SHAPES`).
 */
export function responseShapeOf(context: RequestContext, serverDefault: ResponseShape): ResponseShape {
  const asked = context.header(RESPONSE_SHAPE_HEADER);
  if (asked !== undefined) {
    const shape = asked.trim().toLowerCase();
    if ((RESPONSE_SHAPES as readonly string[]).includes(shape)) return shape as ResponseShape;
    throw new BadRequestError(`X-Strata-Response-Shape must be one of ${RESPONSE_SHAPES.join(', ')}, not ${asked}`);
  }
  if (isDataHubClient(context)) return 'current';
  return serverDefault;
}

/** Whether the request comes from one of DataHub's own clients. */
export function isDataHubClient(context: RequestContext): boolean {
  if (context.header('x-datahub-py-cli-version') !== undefined) return true;
  if (context.header('x-datahub-client-mode') !== undefined) return true;
  if (context.header('x-restli-method') !== undefined) return true;
  return /^(datahub|acryl)/i.test(context.header('user-agent') ?? '');
}

/** One search hit as a shape maps it. */
export interface SearchHitView {
  readonly urn: string;
  readonly matchedFields: readonly MatchedField[];
  /** The values of the index fields `searchFlags.fetchExtraFields` named, each as JSON text. */
  readonly extraFields?: Readonly<Record<string, string>>;
}

/** What a search answers, before a shape is chosen. */
export interface SearchResultView {
  readonly from: number;
  readonly pageSize: number;
  readonly numEntities: number;
  readonly hits: readonly SearchHitView[];
  /** Absent: aggregations were skipped (`searchFlags.skipAggregates`). */
  readonly facets: readonly FacetResult[];
  /** Set by a scroll: the cursor of the next page, when there is one. */
  readonly scrollId?: string | undefined;
}

/** DataHub's `SearchResult` (or `ScrollResult`, with `scrollId`) in the chosen shape. */
export function searchResultBody(result: SearchResultView, shape: ResponseShape): Record<string, unknown> {
  const paging = { numEntities: result.numEntities, pageSize: result.pageSize, from: result.from };
  const scroll = result.scrollId === undefined ? {} : { scrollId: result.scrollId };
  if (shape === 'current') {
    return {
      ...paging,
      ...scroll,
      entities: result.hits.map((hit) => ({
        entity: hit.urn,
        matchedFields: hit.matchedFields,
        ...(hit.extraFields === undefined ? {} : { extraFields: hit.extraFields }),
      })),
      metadata: {
        aggregations: result.facets.map((facet) => ({
          name: facet.field,
          displayName: facet.displayName,
          aggregations: facet.counts,
          filterValues: Object.entries(facet.counts).map(([value, facetCount]) => ({ value, facetCount })),
        })),
        suggestions: [],
      },
    };
  }
  const urns = result.hits.map((hit) => hit.urn);
  return {
    ...paging,
    ...scroll,
    entities: urns,
    metadata: {
      urns,
      matches: result.hits.map((hit) => ({ matchedFields: hit.matchedFields })),
      searchResultMetadatas: result.facets.map((facet) => ({
        name: facet.field,
        displayName: facet.displayName,
        aggregations: facet.counts,
      })),
    },
  };
}

/**
 * The hits with the values of the index fields `names` (DataHub Cloud's `fetchExtraFields`), read from their stored
 * documents: each field's distinct values, over every aspect contributing it, as JSON text (one value as itself,
 * several as a list); `lastChangedAt` is the document's own. A field a document lacks is left out; no names, the hits
 * as they are.
 */
export async function withExtraFields<Hit extends SearchHitView>(
  search: Pick<SearchIndex, 'documents'>,
  hits: readonly Hit[],
  names: readonly string[] | null | undefined,
): Promise<readonly Hit[]> {
  if (names === null || names === undefined || names.length === 0 || hits.length === 0) return hits;
  const documents = await search.documents(hits.map((hit) => hit.urn));
  return hits.map((hit) => {
    const document = documents.get(hit.urn);
    const extraFields: Record<string, string> = {};
    for (const name of names) {
      // A value several aspects contribute (the platform of the key and of dataPlatformInstance) counts once.
      // The document's own change time is no aspect's.
      const values =
        name === LAST_CHANGED_FIELD
          ? document?.lastChangedAt === undefined
            ? []
            : [toJson(document.lastChangedAt)]
          : [...new Set(Object.values(document?.aspects ?? {}).flatMap((fields) => (fields[name] ?? []).map(toJson)))];
      if (values.length > 0) extraFields[name] = values.length === 1 ? (values[0] ?? '') : `[${values.join(',')}]`;
    }
    return { ...hit, extraFields };
  });
}

const toJson = (value: unknown): string => JSON.stringify(value);

/** DataHub's `BrowseResult` in the chosen shape. */
export function browseResultBody(
  page: BrowsePage,
  paging: { readonly from: number; readonly pageSize: number },
  shape: ResponseShape,
): Record<string, unknown> {
  if (shape === 'current') {
    return {
      entities: page.entities.map((entity) => ({ name: entity.urn, urn: entity.urn })),
      groups: page.groups,
      metadata: { path: page.path, totalNumEntities: page.totalNumEntities },
      from: paging.from,
      pageSize: paging.pageSize,
      numEntities: page.numEntities,
      numGroups: page.groups.length,
      numElements: page.groups.length + page.numEntities,
    };
  }
  return {
    numEntities: page.numEntities,
    pageSize: paging.pageSize,
    from: paging.from,
    entities: page.entities.map((entity) => ({ name: entity.name, urn: entity.urn })),
    metadata: { totalNumEntities: page.totalNumEntities, groups: page.groups, path: page.path },
  };
}

/** One relationship as read from the graph. */
export interface RelationshipView {
  readonly type: string;
  readonly entity: string;
  readonly createdAt?: number | undefined;
  readonly createdBy?: string | undefined;
}

/** DataHub's `EntityRelationships` in the chosen shape (the interface document's adds the URNs as `entities`). */
export function relationshipsBody(
  page: { readonly start: number; readonly total: number; readonly relationships: readonly RelationshipView[] },
  shape: ResponseShape,
): Record<string, unknown> {
  const relationships = page.relationships.map((relationship) => ({
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
  }));
  const current = { start: page.start, count: relationships.length, total: page.total, relationships };
  return shape === 'current'
    ? current
    : { entities: page.relationships.map((relationship) => relationship.entity), ...current };
}
