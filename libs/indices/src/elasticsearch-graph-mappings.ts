import { createHash } from 'node:crypto';

import type { estypes } from '@elastic/elasticsearch';

import { MAX_KEYWORD_LENGTH } from './elasticsearch-mappings';
import type { GraphEdge, RelationshipDirection } from './graph-index';

/**
 * The Elasticsearch layout of the graph edges: DataHub's `graph_service_v1` index, with Strata's own fields added.
 * Pure.
 *
 * One index, `graph_service_v1` (`<prefix>_graph_service_v1` with DataHub's `INDEX_PREFIX`, lowercased), one shard (so
 * that the terms aggregation counting duplicated pairs is exact, and DataHub's default), `dynamic: strict` except
 * under `properties`, which DataHub leaves dynamic.
 *
 * DataHub keeps one document per edge. Strata keeps each aspect's contribution apart (an edge two aspects imply stays
 * until both stop implying it), so its document is one per (source, aspect, type, destination):
 * - DataHub's fields, as DataHub writes them: `source: {urn, entityType}`, `destination: {urn, entityType}`,
 *   `relationshipType`, `createdOn` (epoch milliseconds), `createdActor`, `updatedOn` and `updatedActor` when the
 *   edge has them, `properties: {source: "UI"}` on a manual edge (DataHub's mark of lineage drawn by hand), and
 *   `lifecycleOwner`, the URN of the entity holding the aspect, on a held edge (one between other entities, such as a
 *   column-level lineage edge between two `schemaField`s, which DataHub also marks with its `lifecycleOwner`).
 * - under `strata`: `aspect`, the aspect implying the edge (a held edge's `heldAspectKey`); `outgoing`, `relationshipType + "\u0000" +
 *   destination.urn`, and `incoming`, `relationshipType + "\u0000" + source.urn`: the (type, other end) pair of each
 *   direction as one keyword, which a query collapses on (one result per pair) and sorts by. `\u0000` sorts before
 *   every other character, so the keyword order (UTF-8 bytes, i.e. code points) of the pair is the order by type,
 *   then by entity, that the port promises.
 *
 * The `_id` follows DataHub's: standard Base64 of the MD5 of the UTF-8 string `source--relationshipType--destination`,
 * to which Strata appends `--aspect` (where DataHub appends `--lifecycleOwner`).
 */

/** Paths of the fields the adapter queries. */
export const graphPaths = {
  sourceUrn: 'source.urn',
  destinationUrn: 'destination.urn',
  sourceEntityType: 'source.entityType',
  destinationEntityType: 'destination.entityType',
  relationshipType: 'relationshipType',
  createdOn: 'createdOn',
  createdActor: 'createdActor',
  updatedOn: 'updatedOn',
  updatedActor: 'updatedActor',
  propertiesSource: 'properties.source',
  lifecycleOwner: 'lifecycleOwner',
  aspect: 'strata.aspect',
  outgoing: 'strata.outgoing',
  incoming: 'strata.incoming',
} as const;

/** The pair field of a direction: (type, destination) for `OUTGOING`, (type, source) for `INCOMING`. */
export function pairPath(direction: RelationshipDirection): string {
  return direction === 'OUTGOING' ? graphPaths.outgoing : graphPaths.incoming;
}

/** DataHub's edge property `source` of lineage drawn by hand in its UI. */
export const MANUAL_SOURCE = 'UI';

/** Separates the type from the URN in a pair keyword; no relationship type may contain it. */
export const PAIR_SEPARATOR = '\u0000';

/**
 * Longest keyword value indexed, in characters ({@link MAX_KEYWORD_LENGTH}: at most 32764 UTF-8 bytes, under Lucene's
 * term limit): far above the 3 × 512 bytes of the longest URN DataHub accepts. Writes refuse longer values rather than
 * store an edge no query finds.
 */
export const MAX_GRAPH_KEYWORD_LENGTH = MAX_KEYWORD_LENGTH;

const URN_ENTITY_TYPE = /^urn:li:([A-Za-z0-9_]+):/;

/** DataHub's graph index name: `graph_service_v1`, or `<prefix>_graph_service_v1`, lowercased. */
export function graphIndexName(prefix: string): string {
  return `${prefix === '' ? '' : `${prefix}_`}graph_service_v1`.toLowerCase();
}

/** The `_id` of the document of one aspect's edge: Base64(MD5(`source--type--destination--aspect`)). */
export function edgeDocumentId(source: string, aspect: string, type: string, destination: string): string {
  return createHash('md5').update(`${source}--${type}--${destination}--${aspect}`, 'utf8').digest('base64');
}

/** The keyword of a (type, other end) pair. */
export function pairKey(type: string, urn: string): string {
  return `${type}${PAIR_SEPARATOR}${urn}`;
}

/** The (type, other end) of a pair keyword. */
export function parsePairKey(key: string): { type: string; urn: string } {
  const separator = key.indexOf(PAIR_SEPARATOR);
  return { type: key.slice(0, separator), urn: key.slice(separator + 1) };
}

/**
 * The `_source` of the document of one edge `aspect` of `source` implies; for a held edge, `aspect` is its
 * `heldAspectKey` and `holder` the entity holding the aspect.
 */
export function edgeSource(source: string, aspect: string, edge: GraphEdge, holder?: string): EdgeSource {
  return {
    source: entityOf(source),
    destination: entityOf(edge.destination),
    relationshipType: edge.type,
    ...(edge.createdAt === undefined ? {} : { createdOn: edge.createdAt }),
    ...(edge.createdBy === undefined ? {} : { createdActor: edge.createdBy }),
    ...(edge.updatedAt === undefined ? {} : { updatedOn: edge.updatedAt }),
    ...(edge.updatedBy === undefined ? {} : { updatedActor: edge.updatedBy }),
    ...(edge.manual === true ? { properties: { source: MANUAL_SOURCE } } : {}),
    ...(holder === undefined ? {} : { lifecycleOwner: holder }),
    strata: {
      aspect,
      outgoing: pairKey(edge.type, edge.destination),
      incoming: pairKey(edge.type, source),
    },
  };
}

/** A stored edge document (see the layout above). */
export interface EdgeSource {
  readonly source: { readonly urn: string; readonly entityType?: string };
  readonly destination: { readonly urn: string; readonly entityType?: string };
  readonly relationshipType: string;
  readonly createdOn?: number;
  readonly createdActor?: string;
  readonly updatedOn?: number;
  readonly updatedActor?: string;
  readonly properties?: { readonly source?: string };
  readonly lifecycleOwner?: string;
  readonly strata: { readonly aspect: string; readonly outgoing: string; readonly incoming: string };
}

/** DataHub's `{urn, entityType}`; a URN of no recognizable entity type (not `urn:li:<type>:…`) has none. */
function entityOf(urn: string): { urn: string; entityType?: string } {
  const entityType = URN_ENTITY_TYPE.exec(urn)?.[1];
  return entityType === undefined ? { urn } : { urn, entityType };
}

export interface GraphIndexDefinition {
  readonly settings: estypes.IndicesIndexSettings;
  readonly mappings: estypes.MappingTypeMapping & { properties: Record<string, estypes.MappingProperty> };
}

/** Settings and mappings of the graph index. */
export function graphIndexDefinition(): GraphIndexDefinition {
  const keyword: estypes.MappingProperty = { type: 'keyword', ignore_above: MAX_GRAPH_KEYWORD_LENGTH };
  const entity: estypes.MappingProperty = { properties: { urn: keyword, entityType: { type: 'keyword' } } };
  return {
    settings: { number_of_shards: 1 },
    mappings: {
      dynamic: 'strict',
      properties: {
        source: entity,
        destination: entity,
        relationshipType: keyword,
        createdOn: { type: 'long' },
        createdActor: keyword,
        updatedOn: { type: 'long' },
        updatedActor: keyword,
        // DataHub's edge properties: dynamic, `source` (e.g. `UI`) the one it maps.
        properties: { type: 'object', dynamic: true, properties: { source: { type: 'keyword' } } },
        lifecycleOwner: keyword,
        strata: { properties: { aspect: keyword, outgoing: keyword, incoming: keyword } },
      },
    },
  };
}
