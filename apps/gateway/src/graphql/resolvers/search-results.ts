import { BadGatewayError } from '@strata/model';
import { entityTypeOf, objectTypeOf } from '../entity-types';
import { entityRef, type EntityRef } from '../schema';

/**
 * The search indexer's answers (DataHub's `current` REST shapes: `SearchResult`, `ScrollResult`,
 * `LineageSearchResult`) mapped to the GraphQL types DataHub maps them to. Pure.
 */

/** One hit of a REST search (`SearchEntity`). */
export interface RestSearchEntity {
  readonly entity: string;
  readonly matchedFields?: readonly { readonly name: string; readonly value: string }[];
  /** The values of the index fields `searchFlags.fetchExtraFields` names, each as JSON text. */
  readonly extraFields?: Readonly<Record<string, string>>;
}

/** One facet of a REST search (`AggregationMetadata`). */
export interface RestAggregation {
  readonly name: string;
  readonly displayName?: string | null;
  readonly aggregations?: Readonly<Record<string, number>>;
  readonly filterValues?: readonly { readonly value: string; readonly facetCount: number }[];
}

/** A REST search or scroll answer (`SearchResult`, `ScrollResult`). */
export interface RestSearchResult {
  readonly numEntities: number;
  readonly pageSize: number;
  readonly from?: number;
  readonly scrollId?: string;
  readonly entities: readonly RestSearchEntity[];
  readonly metadata?: { readonly aggregations?: readonly RestAggregation[] };
}

/** One hit of a REST lineage search (`LineageSearchEntity`). */
export interface RestLineageEntity extends RestSearchEntity {
  readonly paths?: readonly (readonly string[])[];
  readonly degree: number;
  readonly degrees?: readonly number[];
  readonly explored?: boolean;
  readonly truncatedChildren?: boolean;
  readonly ignoredAsHop?: boolean;
}

/** A REST lineage search or scroll answer (`LineageSearchResult`, `LineageScrollResult`). */
export interface RestLineageResult {
  readonly numEntities: number;
  readonly pageSize: number;
  readonly from?: number;
  readonly scrollId?: string;
  readonly entities: readonly RestLineageEntity[];
  readonly metadata?: { readonly aggregations?: readonly RestAggregation[] };
  /** Strata's: a limit of the walk cut it (DataHub's `isPartial`). */
  readonly truncated?: boolean;
}

/** DataHub's `SearchResult` of GraphQL. */
export interface SearchResultObject {
  readonly entity: EntityRef;
  readonly matchedFields: MatchedFieldObject[];
  readonly insights: [];
  readonly extraProperties: { readonly name: string; readonly value: string }[];
}

export interface MatchedFieldObject {
  readonly name: string;
  readonly value: string;
  readonly entity: EntityRef | null;
}

export interface FacetObject {
  readonly field: string;
  readonly displayName: string;
  readonly entity: null;
  readonly aggregations: {
    readonly value: string;
    readonly count: number;
    readonly entity: EntityRef | null;
    readonly displayName: null;
  }[];
}

/** The facets whose values are entity names, answered as `EntityType` values (DataHub's `DATASET`, not `dataset`). */
const ENTITY_TYPE_FACETS = new Set(['entity', '_entityType']);

/** The value of a REST answer: Rest.li actions answer `{value: …}`. */
export function valueOf(answer: unknown, what: string): object {
  const value = (answer as { value?: unknown } | null)?.value;
  if (typeof value !== 'object' || value === null) throw new BadGatewayError(`${what} answered no value`);
  return value;
}

/** The entity a result's URN names, served by the API; a URN of no served type is the indexer's fault, not the client's. */
export function resultEntity(urn: string): EntityRef {
  const ref = entityRef(urn);
  if (ref === undefined) throw new BadGatewayError(`The search index answered ${urn}, which is no URN`);
  return ref;
}

/** The entity a value names when it is the URN of an entity the API serves; null otherwise. */
export function servedEntity(value: string): EntityRef | null {
  const ref = entityRef(value);
  return ref !== undefined && objectTypeOf(ref.entityName) !== undefined ? ref : null;
}

/** One hit as DataHub's GraphQL `SearchResult`. */
export function searchResultOf(hit: RestSearchEntity): SearchResultObject {
  return {
    entity: resultEntity(hit.entity),
    matchedFields: matchedFieldsOf(hit.matchedFields),
    insights: [],
    extraProperties: Object.entries(hit.extraFields ?? {}).map(([name, value]) => ({ name, value })),
  };
}

/** Matched fields, each with the entity its value names when the value is a URN (as DataHub's mapper does). */
export function matchedFieldsOf(
  fields: readonly { readonly name: string; readonly value: string }[] | undefined,
): MatchedFieldObject[] {
  return (fields ?? []).map((field) => ({ name: field.name, value: field.value, entity: servedEntity(field.value) }));
}

/**
 * The facets as DataHub's GraphQL `FacetMetadata`: entity-type facets with `EntityType` values, URN values with their
 * entity, and, beside the legacy `entity` facet, the `_entityType` facet DataHub answers first.
 */
export function facetsOf(aggregations: readonly RestAggregation[] | undefined): FacetObject[] {
  const list = aggregations ?? [];
  const typeFacet = list.find((facet) => facet.name === 'entity');
  const withTypes =
    typeFacet !== undefined && !list.some((facet) => facet.name === '_entityType')
      ? [{ ...typeFacet, name: '_entityType' }, ...list]
      : list;
  return withTypes.map((facet) => {
    const entityTypes = ENTITY_TYPE_FACETS.has(facet.name);
    const values =
      facet.filterValues ??
      Object.entries(facet.aggregations ?? {}).map(([value, facetCount]) => ({ value, facetCount }));
    return {
      field: facet.name,
      displayName: facet.displayName ?? facet.name,
      entity: null,
      aggregations: values.map((item) => ({
        value: entityTypes ? entityTypeOf(item.value) : item.value,
        count: item.facetCount,
        entity: entityTypes ? null : servedEntity(item.value),
        displayName: null,
      })),
    };
  });
}

/** DataHub's `SearchAcrossLineageResult`: every path from the source, each a list of entities (null for a hop of a type the API does not serve). */
export function lineageResultOf(hit: RestLineageEntity): Record<string, unknown> {
  return {
    entity: resultEntity(hit.entity),
    matchedFields: matchedFieldsOf(hit.matchedFields),
    insights: [],
    paths: (hit.paths ?? []).map((path) => ({ path: path.map(servedEntity) })),
    degree: hit.degree,
    degrees: [...(hit.degrees ?? [hit.degree])],
    explored: hit.explored === true,
    truncatedChildren: hit.truncatedChildren === true,
    ignoredAsHop: hit.ignoredAsHop === true,
  };
}
