/**
 * The relationship graph read model: the edges the aspects of entities imply (`Ownership` → `OwnedBy`, `GlobalTags` →
 * `TaggedWith`, …), answering DataHub's `GET /relationships`. It is derived from the primary store by the graph hook of
 * the change-log consumer and can always be rebuilt from there, so it is an index, never a source of truth.
 *
 * An edge goes from a source entity (the one holding the aspect) to a destination URN and has a type, the relationship
 * name. The index keeps, for every (source, aspect), the set of edges that aspect currently implies.
 *
 * Some aspects also imply edges between other entities: a dataset's `fineGrainedLineages` make each downstream
 * `schemaField` `DownstreamOf` each upstream one (DataHub writes these outside the annotations, with the dataset as the
 * edges' `lifecycleOwner`). Those are **held edges**: the entity holding the aspect is their *holder*, each edge has a
 * source of its own, and the index keeps, for every (holder, aspect), the set of edges that aspect currently implies
 * ({@link GraphIndex.replaceHeldEdges}), stored apart from the contributions of the sources' own aspects (under the
 * aspect key {@link heldAspectKey}). A query sees a held edge as an edge from its source like any other. Keeping them
 * by holder, not by source, is what lets one write replace them whole: the fields a lineage no longer lists lose their
 * edges although the write names only the fields it lists now, whether or not the index saw the previous value (a
 * rebuild replays the latest values only), and two holders naming the same field never replace each other's edges.
 *
 * Invariants every adapter guarantees (and `describeGraphIndexContract` checks):
 * - **Replace, not append.** {@link GraphIndex.replaceEdges} makes the given edges the whole contribution of that
 *   (source, aspect): edges it implied before and no longer does are gone. Replaying the same call is therefore
 *   idempotent, and an empty list removes the aspect's contribution (aspect deleted). Within one call a (type,
 *   destination) pair given twice is stored once, with the first occurrence's `createdAt`/`createdBy`.
 * - **Edges are distinct per (type, other end).** When several aspects of one source imply the same edge, queries
 *   report it once, and it stays until every one of those aspects stops implying it. The row then carries the earliest
 *   `createdAt` among them (with its `createdBy`); an edge with a `createdAt` wins over one without.
 * - **Entity removal takes the entity's own edges.** {@link GraphIndex.removeEntity} drops every edge the entity's
 *   aspects implied: those from it, and those it holds (its aspects are gone). Edges pointing to it stay, and so do
 *   held edges from it that another entity holds: the aspects of other entities still name it, until their references
 *   are cleaned (`deleteReferences`, which finds them through these very edges) — a rebuild from the primary store
 *   would bring them back anyway.
 * - **Node removal takes everything touching the URN.** {@link GraphIndex.removeNode} (DataHub's `removeNode`, behind
 *   `DELETE /relationships`) drops every edge from the URN, to it, and held by it, whichever aspect implied them. The
 *   aspects are untouched: a later write of an aspect implying an edge, or a rebuild, brings it back.
 * - **Stable paging.** {@link GraphIndex.relationships} orders matches by (type, entity) ascending, comparing strings
 *   by Unicode code point (UTF-8 byte order: SQLite's BINARY collation, Elasticsearch's keyword sort); `total` counts
 *   all matches before paging, and pages cut from that order never overlap or skip.
 * - **Scrolling by key.** {@link GraphIndex.scrollEdges} walks the whole graph in (source, type, destination) order,
 *   by code point, each page starting after the key the previous one ended at: any number of edges can be walked,
 *   and an edge present for the whole walk is seen exactly once, whatever is written meanwhile.
 * - **Durable once resolved.** A write that resolved is seen by every later query, also through another handle opened
 *   on the same data afterwards.
 * - **Batches are the calls in order.** {@link GraphIndex.apply} ends in the state the same `replaceEdges`,
 *   `replaceHeldEdges` and `removeEntity` calls, made one after the other, would leave; replaying a list that failed or was cut short
 *   converges to that state. How much of a list a concurrent query may see half-done is the adapter's to state.
 */
export interface GraphIndex {
  /**
   * Replaces the edges `aspect` of entity `source` implies with `edges` (all of them: an empty list removes the
   * aspect's edges). Atomic where the engine allows it: on SQLite a query sees either the old set or the new one;
   * Elasticsearch writes it as one bulk request, of which a query may see part (see its adapter).
   */
  replaceEdges(source: string, aspect: string, edges: readonly GraphEdge[]): Promise<void>;

  /**
   * Replaces the edges `aspect` of entity `holder` implies between other entities (each {@link HeldEdge} with its own
   * source) with `edges`: all of them, whatever their sources (an empty list removes the aspect's held edges).
   * Within one call an edge (source, type, destination) given twice is stored once, the first occurrence kept.
   * Atomic as {@link replaceEdges} is.
   */
  replaceHeldEdges(holder: string, aspect: string, edges: readonly HeldEdge[]): Promise<void>;

  /**
   * Removes the edges the aspects of `urn` implied (a hard-deleted entity): every edge whose source is `urn` and that
   * no other entity holds, and every edge `urn` holds. Edges to it stay. Idempotent.
   */
  removeEntity(urn: string): Promise<void>;

  /**
   * Removes every edge touching `urn`: from it, to it (whoever's aspects implied them) and held by it. DataHub's
   * `GraphService.removeNode`. Idempotent; a URN the index has never seen changes nothing. On SQLite one transaction;
   * on Elasticsearch one delete-by-query, refreshed.
   */
  removeNode(urn: string): Promise<void>;

  /**
   * Applies the changes in order: the result equals calling {@link replaceEdges} / {@link replaceHeldEdges} /
   * {@link removeEntity} for each, in
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

  /**
   * A page of the edges of the whole graph that match `query`, one per distinct (source, type, destination) — with
   * the earliest `createdAt` among the aspects implying it, as {@link relationships} reports it — in (source, type,
   * destination) code-point order, starting after `query.after`. Rejects with `ValidationError` when `count` is not
   * an integer from 1 to {@link MAX_EDGE_SCROLL_COUNT}.
   */
  scrollEdges(query: EdgeScrollQuery): Promise<EdgeScrollPage>;

  /**
   * The edges of many URNs at once, in one direction, of some types: what one hop of a lineage walk reads. One
   * {@link Neighbour} per distinct (URN, type, other end), merged over the aspects implying it as `relationships`
   * merges them (the earliest `createdAt` with its `createdBy`), plus the latest `updatedAt` with its `updatedBy`,
   * and `manual` when any of them is manual. Ordered by (URN, type, other end), comparing strings by code point; the
   * first `limit` of them, with `truncated` telling whether more matched. With a `window`, only the contributions
   * that pass {@link passesWindow} count.
   *
   * URNs are read in chunks (a few hundred per query): each chunk is read at one point in time, but a write landing
   * between two chunks may be seen by the later ones only. Rejects with `ValidationError` when `limit` is not a
   * non-negative integer, the direction is unknown, or the window's bounds are not integers with start ≤ end.
   * Unknown URNs have no edges; a URN given twice is read once.
   */
  neighbours(query: NeighbourQuery): Promise<NeighbourPage>;

  /** Releases the handle; calling it again does nothing. */
  close(): Promise<void>;
}

/** The most edges one {@link GraphIndex.scrollEdges} page holds. */
export const MAX_EDGE_SCROLL_COUNT = 10_000;

/**
 * Which edges {@link GraphIndex.scrollEdges} walks. Each list keeps, when it is not empty, the edges matching any of
 * its values; the lists combine with AND. Entity types are those the URNs name (`urn:li:<type>:…`).
 */
export interface EdgeScrollQuery {
  readonly types: readonly string[];
  readonly sourceTypes: readonly string[];
  readonly destinationTypes: readonly string[];
  readonly sourceUrns: readonly string[];
  readonly destinationUrns: readonly string[];
  /** The key of the last edge of the previous page (exclusive); absent: from the first edge. */
  readonly after?: EdgeKey;
  readonly count: number;
}

/** Where an edge sits in the scrolling order. */
export interface EdgeKey {
  readonly source: string;
  readonly type: string;
  readonly destination: string;
}

/** One edge as {@link GraphIndex.scrollEdges} reports it. */
export interface ScrolledEdge extends EdgeKey {
  readonly createdAt?: number;
  readonly createdBy?: string;
}

export interface EdgeScrollPage {
  /** At most `count` edges, in order. */
  readonly edges: readonly ScrolledEdge[];
  /** Whether edges matching the query follow the last one of this page. */
  readonly hasMore: boolean;
}

/**
 * One change of {@link GraphIndex.apply}: a {@link GraphIndex.replaceEdges}, {@link GraphIndex.replaceHeldEdges} or
 * {@link GraphIndex.removeEntity} call.
 */
export type GraphChange =
  | {
      readonly kind: 'replaceEdges';
      readonly source: string;
      readonly aspect: string;
      readonly edges: readonly GraphEdge[];
    }
  | {
      readonly kind: 'replaceHeldEdges';
      readonly holder: string;
      readonly aspect: string;
      readonly edges: readonly HeldEdge[];
    }
  | { readonly kind: 'removeEntity'; readonly urn: string };

/** An edge an aspect implies between other entities than the one holding it: from `source` to `destination`. */
export interface HeldEdge extends GraphEdge {
  /** URN of the edge's source (a downstream `schemaField`, say), not the holder's. */
  readonly source: string;
}

/**
 * The aspect key under which the adapters store the edges `aspect` of `holder` holds: `<aspect>@<holder>`. An aspect
 * name is an identifier (no `@`), so the key never collides with the contribution of a source's own aspect, and each
 * holder's edges from one source are kept apart from another holder's.
 */
export function heldAspectKey(aspect: string, holder: string): string {
  return `${aspect}@${holder}`;
}

/** One edge an aspect implies, from the entity holding the aspect. */
export interface GraphEdge {
  /** Relationship name, e.g. `OwnedBy`. */
  readonly type: string;
  /** URN of the other end. */
  readonly destination: string;
  /**
   * When the relationship was created, epoch milliseconds: the edge's own stamp where its aspect holds one (DataHub's
   * `createdOn`, e.g. an upstream's `created`), else the audit stamp of the change that wrote the aspect.
   */
  readonly createdAt?: number;
  /** Actor URN that created it. */
  readonly createdBy?: string;
  /** When the relationship was last updated, as its aspect says (DataHub's `updatedOn`), epoch milliseconds. */
  readonly updatedAt?: number;
  /** Actor URN that last updated it. */
  readonly updatedBy?: string;
  /** Drawn by hand (DataHub's edge property `source: UI`): a lineage time window never hides it. */
  readonly manual?: boolean;
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

export interface NeighbourQuery {
  /** The URNs whose edges are read; duplicates are read once. */
  readonly urns: readonly string[];
  /** `OUTGOING`: the edges whose source is one of `urns`; `INCOMING`: those whose destination is. */
  readonly direction: RelationshipDirection;
  /** Relationship names to keep; empty keeps every type. */
  readonly types: readonly string[];
  /** Keep only what passes this window ({@link passesWindow}); absent, every edge. */
  readonly window?: EdgeWindow;
  /** Most edges to answer; 0 answers none, with `truncated` telling whether any matched. */
  readonly limit: number;
}

/**
 * A time window of lineage, both ends inclusive, either end open (absent). An edge passes it when its `createdAt` or
 * its `updatedAt` falls in it, when it has neither (absent or 0: edges of no known time are always shown), or when it
 * is `manual` (DataHub's lineage time filter, with open ends allowed).
 */
export interface EdgeWindow {
  readonly start?: number;
  readonly end?: number;
}

export interface Neighbour {
  /** The URN of the query this edge touches. */
  readonly urn: string;
  readonly type: string;
  /** The other end: the destination for `OUTGOING`, the source for `INCOMING`. */
  readonly entity: string;
  readonly createdAt?: number;
  readonly createdBy?: string;
  readonly updatedAt?: number;
  readonly updatedBy?: string;
  readonly manual?: boolean;
}

export interface NeighbourPage {
  readonly edges: Neighbour[];
  /** More edges matched than `limit`. */
  readonly truncated: boolean;
}

/** Whether one stored contribution of an edge passes a window (see {@link EdgeWindow}). */
export function passesWindow(
  edge: Pick<GraphEdge, 'createdAt' | 'updatedAt' | 'manual'>,
  window: EdgeWindow | undefined,
): boolean {
  if (window === undefined || edge.manual === true) return true;
  if ((edge.createdAt ?? 0) === 0 && (edge.updatedAt ?? 0) === 0) return true;
  const within = (time: number | undefined): boolean =>
    time !== undefined &&
    (window.start === undefined || time >= window.start) &&
    (window.end === undefined || time <= window.end);
  return within(edge.createdAt) || within(edge.updatedAt);
}

/** What {@link GraphIndex.neighbours} refuses in a query, as the `ValidationError`'s message; undefined when none. */
export function neighbourQueryFault(query: NeighbourQuery): string | undefined {
  // Checked although typed: the values come from requests.
  const direction: string = query.direction;
  if (direction !== 'INCOMING' && direction !== 'OUTGOING') return `Invalid relationship direction ${direction}`;
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) return `Invalid limit ${query.limit}`;
  const { start, end } = query.window ?? {};
  if (start !== undefined && !Number.isSafeInteger(start)) return `Invalid window start ${start}`;
  if (end !== undefined && !Number.isSafeInteger(end)) return `Invalid window end ${end}`;
  if (start !== undefined && end !== undefined && start > end) {
    return `Invalid window: start ${start} is after end ${end}`;
  }
  return undefined;
}

/**
 * Folds an edge's stored contributions, given one after the other in (URN, type, other end) order (for one pair, in
 * aspect order), into one {@link Neighbour} each, as {@link GraphIndex.neighbours} promises: the earliest `createdAt`
 * (the first of equals; one without counts as latest) with its `createdBy`, the latest `updatedAt` with its
 * `updatedBy`, and `manual` when any is. Stops taking pairs once it holds `limit` and sees another: then `full`, and
 * the page is `truncated`.
 */
export class NeighbourFold {
  private readonly edges: Neighbour[] = [];
  private current: Neighbour | undefined;
  private over = false;

  constructor(private readonly limit: number) {}

  /** Whether a pair beyond `limit` has been seen: nothing more needs reading. */
  get full(): boolean {
    return this.over;
  }

  /** Takes the next contribution; false once the fold is full. */
  add(row: Neighbour): boolean {
    if (this.over) return false;
    const current = this.current;
    if (
      current !== undefined &&
      current.urn === row.urn &&
      current.type === row.type &&
      current.entity === row.entity
    ) {
      this.current = mergeContributions(current, row);
      return true;
    }
    if (current !== undefined) this.edges.push(current);
    this.current = undefined;
    if (this.edges.length >= this.limit) {
      this.over = true;
      return false;
    }
    this.current = row;
    return true;
  }

  /** The folded page. */
  page(): NeighbourPage {
    if (this.current !== undefined) this.edges.push(this.current);
    this.current = undefined;
    return { edges: this.edges, truncated: this.over };
  }
}

function mergeContributions(kept: Neighbour, next: Neighbour): Neighbour {
  const earlier =
    next.createdAt !== undefined && (kept.createdAt === undefined || next.createdAt < kept.createdAt) ? next : kept;
  const later =
    next.updatedAt !== undefined && (kept.updatedAt === undefined || next.updatedAt > kept.updatedAt) ? next : kept;
  return {
    urn: kept.urn,
    type: kept.type,
    entity: kept.entity,
    ...(earlier.createdAt === undefined ? {} : { createdAt: earlier.createdAt }),
    ...(earlier.createdBy === undefined ? {} : { createdBy: earlier.createdBy }),
    ...(later.updatedAt === undefined ? {} : { updatedAt: later.updatedAt }),
    ...(later.updatedBy === undefined ? {} : { updatedBy: later.updatedBy }),
    ...(kept.manual === true || next.manual === true ? { manual: true } : {}),
  };
}

/** Code-point order of strings (the graph's order): UTF-16 order with surrogates above U+E000–U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left !== right) return codePointRank(left) - codePointRank(right);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/** The URNs of a neighbour query, each once, in code-point order, cut into chunks of `size`. */
export function neighbourChunks(urns: readonly string[], size: number): string[][] {
  const sorted = [...new Set(urns)].sort(compareCodePoints);
  const chunks: string[][] = [];
  for (let first = 0; first < sorted.length; first += size) chunks.push(sorted.slice(first, first + size));
  return chunks;
}
