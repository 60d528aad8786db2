/**
 * The relationship graph read model: the edges the aspects of entities imply (`Ownership` → `OwnedBy`, `GlobalTags` →
 * `TaggedWith`, …), answering DataHub's `GET /relationships`. It is derived from the primary store by the graph hook of
 * the change-log consumer and can always be rebuilt from there, so it is an index, never a source of truth.
 *
 * An edge goes from a source entity (the one holding the aspect) to a destination URN and has a type, the relationship
 * name. The index keeps, for every (source, aspect), the set of edges that aspect currently implies.
 *
 * Invariants every adapter guarantees (and `describeGraphIndexContract` checks):
 * - **Replace, not append.** {@link GraphIndex.replaceEdges} makes the given edges the whole contribution of that
 *   (source, aspect): edges it implied before and no longer does are gone. Replaying the same call is therefore
 *   idempotent, and an empty list removes the aspect's contribution (aspect deleted). Within one call a (type,
 *   destination) pair given twice is stored once, with the first occurrence's `createdAt`/`createdBy`.
 * - **Edges are distinct per (type, other end).** When several aspects of one source imply the same edge, queries
 *   report it once, and it stays until every one of those aspects stops implying it. The row then carries the earliest
 *   `createdAt` among them (with its `createdBy`); an edge with a `createdAt` wins over one without.
 * - **Entity removal takes the entity's own edges.** {@link GraphIndex.removeEntity} drops every edge from the
 *   entity (its aspects are gone). Edges pointing to it stay: the aspects of other entities still name it, until
 *   their references are cleaned (`deleteReferences`, which finds them through these very edges) — a rebuild from
 *   the primary store would bring them back anyway.
 * - **Stable paging.** {@link GraphIndex.relationships} orders matches by (type, entity) ascending, comparing strings
 *   by Unicode code point (UTF-8 byte order: SQLite's BINARY collation, Elasticsearch's keyword sort); `total` counts
 *   all matches before paging, and pages cut from that order never overlap or skip.
 * - **Durable once resolved.** A write that resolved is seen by every later query, also through another handle opened
 *   on the same data afterwards.
 * - **Batches are the calls in order.** {@link GraphIndex.apply} ends in the state the same `replaceEdges` and
 *   `removeEntity` calls, made one after the other, would leave; replaying a list that failed or was cut short
 *   converges to that state. How much of a list a concurrent query may see half-done is the adapter's to state.
 */
export interface GraphIndex {
  /**
   * Replaces the edges `aspect` of entity `source` implies with `edges` (all of them: an empty list removes the
   * aspect's edges). Atomic where the engine allows it: on SQLite a query sees either the old set or the new one;
   * Elasticsearch writes it as one bulk request, of which a query may see part (see its adapter).
   */
  replaceEdges(source: string, aspect: string, edges: readonly GraphEdge[]): Promise<void>;

  /** Removes every edge whose source is `urn` (a hard-deleted entity); edges to it stay. Idempotent. */
  removeEntity(urn: string): Promise<void>;

  /**
   * Applies the changes in order: the result equals calling {@link replaceEdges} / {@link removeEntity} for each, in
   * order (an edge to or from a URN removed earlier in the list stays when a later change adds it; an aspect replaced
   * twice keeps the second list). What the graph hook of the indexer calls with one log batch's changes; an empty list
   * does nothing.
   *
   * Guarantees: when it resolves, every change is durable and seen by later queries. When it rejects, any prefix of
   * the effect may have been applied, so the caller replays the whole list, which converges to the same final state
   * (every change is a replacement or a removal: idempotent). Atomicity depends on the engine:
   * - SQLite: one transaction for the whole list; a query sees the state before it or after it, never in between,
   *   and a rejected call has changed nothing.
   * - Elasticsearch: not atomic across documents. The list is cut into segments at each `removeEntity`; a query during
   *   the call may see the state after some segments, or part of one, and a rejected call may leave such a state until
   *   it is replayed.
   */
  apply(changes: readonly GraphChange[]): Promise<void>;

  /**
   * Removes every edge, leaving the index open, empty and writable with the same layout (mappings, tables); what a full
   * rebuild from the primary store starts with. Resolves once that is durable: every later query answers as an empty
   * index, and later writes work as on a new index. A write concurrent with it may or may not survive it.
   */
  clear(): Promise<void>;

  /**
   * The relationships of `query.urn` in one direction, one per distinct (type, other end), ordered by (type, entity),
   * the page `[start, start + count)` of them. Rejects with `ValidationError` (from `@strata/model`) when `start`
   * or `count` is not a non-negative integer or the direction is unknown. An unknown URN has `total` 0.
   */
  relationships(query: RelationshipQuery): Promise<RelationshipPage>;

  /** Releases the handle; calling it again does nothing. */
  close(): Promise<void>;
}

/** One change of {@link GraphIndex.apply}: a {@link GraphIndex.replaceEdges} or {@link GraphIndex.removeEntity} call. */
export type GraphChange =
  | {
      readonly kind: 'replaceEdges';
      readonly source: string;
      readonly aspect: string;
      readonly edges: readonly GraphEdge[];
    }
  | { readonly kind: 'removeEntity'; readonly urn: string };

/** One edge an aspect implies, from the entity holding the aspect. */
export interface GraphEdge {
  /** Relationship name, e.g. `OwnedBy`. */
  readonly type: string;
  /** URN of the other end. */
  readonly destination: string;
  /** When the relationship was created (the aspect's audit stamp), epoch milliseconds. */
  readonly createdAt?: number;
  /** Actor URN that created it. */
  readonly createdBy?: string;
}

/**
 * `OUTGOING`: `urn` is the edge source (the entity holding the aspect), e.g. the owners of a dataset.
 * `INCOMING`: `urn` is the destination, e.g. the entities owned by a user.
 */
export type RelationshipDirection = 'INCOMING' | 'OUTGOING';

export interface RelationshipQuery {
  readonly urn: string;
  readonly direction: RelationshipDirection;
  /** Relationship names to keep; empty keeps every type. */
  readonly types: readonly string[];
  /** Index of the first match to return (0-based). */
  readonly start: number;
  /** How many matches to return at most; 0 returns only `total`. */
  readonly count: number;
}

export interface RelationshipPage {
  /** Number of matches before paging. */
  readonly total: number;
  readonly relationships: Relationship[];
}

export interface Relationship {
  readonly type: string;
  /** The other end: the destination for `OUTGOING`, the source for `INCOMING`. */
  readonly entity: string;
  readonly createdAt?: number;
  readonly createdBy?: string;
}
