import { relationshipFields, type EntityRegistry } from '@strata/model';
import type { RelationshipDirection } from '@strata/indices';

/**
 * Which edges are lineage, and which way they point, for every entity type: DataHub's lineage registry, derived from
 * the `Relationship` annotations marked `isLineage`. Pure.
 *
 * An annotation of entity type S naming relationship R to type D is one lineage edge kind. With `isUpstream` (the
 * default), the destination is upstream of the source: `A DownstreamOf B` makes B an upstream of A, so S's upstream
 * hops read R OUTGOING towards D and D's downstream hops read R INCOMING from S. Without it (`Produces`), the other
 * way round: S's downstream hops read R OUTGOING towards D, D's upstream hops read R INCOMING from S.
 *
 * Schema fields are DataHub's one exception: their lineage is `DownstreamOf` between schema fields, whatever the
 * annotations say (upstream: OUTGOING to `schemaField`, downstream: INCOMING from `schemaField`).
 */

/** DataHub's `LineageDirection`. */
export type LineageDirection = 'UPSTREAM' | 'DOWNSTREAM';

export const LINEAGE_DIRECTIONS: readonly LineageDirection[] = ['UPSTREAM', 'DOWNSTREAM'];

/** One kind of edge a hop may follow from an entity type: DataHub's `EdgeInfo`. */
export interface LineageHop {
  /** Relationship name (`DownstreamOf`). */
  readonly type: string;
  /** How the edge is read from the entity: `OUTGOING` when the entity is its source. */
  readonly direction: RelationshipDirection;
  /** The entity type at the other end. */
  readonly otherType: string;
}

/** The relationship names one hop reads, per edge direction. */
export interface HopReads {
  readonly OUTGOING: readonly string[];
  readonly INCOMING: readonly string[];
}

const SCHEMA_FIELD = 'schemafield';

export class LineageRegistry {
  /** Entity type (lower case) → direction → hops. */
  private readonly hopsByType: ReadonlyMap<string, Readonly<Record<LineageDirection, readonly LineageHop[]>>>;
  /** Entity type (lower case) → direction → "type\0edgeDirection\0otherType" of every hop, for membership checks. */
  private readonly keysByType: ReadonlyMap<string, Readonly<Record<LineageDirection, ReadonlySet<string>>>>;

  private constructor(hops: Map<string, Record<LineageDirection, LineageHop[]>>) {
    this.hopsByType = hops;
    this.keysByType = new Map(
      [...hops].map(([type, byDirection]) => [
        type,
        {
          UPSTREAM: new Set(byDirection.UPSTREAM.map(hopKey)),
          DOWNSTREAM: new Set(byDirection.DOWNSTREAM.map(hopKey)),
        },
      ]),
    );
  }

  /** The lineage registry of an entity registry. */
  static of(registry: EntityRegistry): LineageRegistry {
    const hops = new Map<string, Record<LineageDirection, LineageHop[]>>();
    const seen = new Set<string>();
    const add = (entityType: string, direction: LineageDirection, hop: LineageHop): void => {
      const key = `${entityType.toLowerCase()}\u0000${direction}\u0000${hopKey(hop)}`;
      if (seen.has(key)) return;
      seen.add(key);
      const byDirection = hops.get(entityType.toLowerCase()) ?? { UPSTREAM: [], DOWNSTREAM: [] };
      byDirection[direction].push(hop);
      hops.set(entityType.toLowerCase(), byDirection);
    };
    for (const entity of registry.entities()) {
      for (const spec of relationshipFields(entity)) {
        if (!spec.isLineage) continue;
        for (const destination of spec.entityTypes) {
          const [sourceSide, destinationSide]: [LineageDirection, LineageDirection] = spec.isUpstream
            ? ['UPSTREAM', 'DOWNSTREAM']
            : ['DOWNSTREAM', 'UPSTREAM'];
          add(entity.name, sourceSide, { type: spec.name, direction: 'OUTGOING', otherType: destination });
          add(destination, destinationSide, { type: spec.name, direction: 'INCOMING', otherType: entity.name });
        }
      }
    }
    hops.set(SCHEMA_FIELD, {
      UPSTREAM: [{ type: 'DownstreamOf', direction: 'OUTGOING', otherType: 'schemaField' }],
      DOWNSTREAM: [{ type: 'DownstreamOf', direction: 'INCOMING', otherType: 'schemaField' }],
    });
    return new LineageRegistry(hops);
  }

  /** The hops lineage in `direction` follows from an entity of `entityType` (none for a type without lineage). */
  hops(entityType: string, direction: LineageDirection): readonly LineageHop[] {
    return this.hopsByType.get(entityType.toLowerCase())?.[direction] ?? [];
  }

  /** Whether an edge read from an entity of `entityType` is a hop of lineage in `direction`. */
  isHop(entityType: string, direction: LineageDirection, edge: LineageHop): boolean {
    return this.keysByType.get(entityType.toLowerCase())?.[direction].has(hopKey(edge)) === true;
  }

  /** The relationship names to read, per edge direction, to take one hop from entities of these types. */
  reads(entityTypes: Iterable<string>, direction: LineageDirection): HopReads {
    const outgoing = new Set<string>();
    const incoming = new Set<string>();
    for (const entityType of entityTypes) {
      for (const hop of this.hops(entityType, direction))
        (hop.direction === 'OUTGOING' ? outgoing : incoming).add(hop.type);
    }
    return { OUTGOING: [...outgoing].sort(), INCOMING: [...incoming].sort() };
  }
}

function hopKey(hop: LineageHop): string {
  return `${hop.type}\u0000${hop.direction}\u0000${hop.otherType.toLowerCase()}`;
}

const URN_ENTITY_TYPE = /^urn:li:([^:]+):/;

/** The entity type a URN names (`urn:li:<type>:…`), or undefined when it names none. */
export function entityTypeOf(urn: string): string | undefined {
  return URN_ENTITY_TYPE.exec(urn)?.[1];
}
