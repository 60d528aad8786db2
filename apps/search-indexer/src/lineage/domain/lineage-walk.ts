import { compareCodePoints, type Neighbour, type NeighbourPage, type RelationshipDirection } from '@strata/indices';
import { entityTypeOf, type HopReads, type LineageDirection, type LineageRegistry } from './lineage-registry';

/**
 * A multi-hop lineage walk, as pure state: the caller asks {@link LineageWalk.nextRead} which edges to read, reads
 * them from the graph, hands them to {@link LineageWalk.absorb}, and repeats until there is nothing left to read; then
 * {@link LineageWalk.result} has every entity reached, with all its degrees and paths. No I/O and no clock: the
 * caller checks its time budget between reads and calls {@link LineageWalk.stop}.
 *
 * The walk is breadth-first over simple paths: hop h extends every path of h - 1 hops by every lineage edge of its
 * last entity whose other end is not on the path already. So a cycle never loops (a path never visits an entity
 * twice), a diamond gives its two paths, and an entity reachable at several distances has each of them among its
 * degrees. The source is never a result. Edges are taken in the order the graph gives them (URN, type, other end),
 * so the same graph gives the same answer, limits included.
 *
 * Bounded work, and never a silent cut: each limit that stops the walk short of what was asked is named among
 * the result's `truncation` reasons, and the entities whose edges it left unread are marked `truncatedChildren`.
 * - `HOPS`: more hops were asked than {@link LineageLimits.maxHops}; after the last hop taken, the edges of the
 *   entities reached are read once more, and those with lineage beyond are marked.
 * - `NODES`: {@link LineageLimits.maxNodes} entities were reached; edges to further ones are dropped.
 * - `PATHS`: an entity holds {@link LineageLimits.maxPathsPerNode} paths, or the walk holds
 *   {@link LineageLimits.maxPaths}; further paths to it are dropped (it is marked `pathsTruncated`) and not
 *   extended, so its descendants may lack paths, or degrees, through it. An entity's first (shortest) path is kept
 *   whatever the total, so every entity reached has one (at most `maxPaths + maxNodes` paths in all).
 * - `EDGES`: {@link LineageLimits.maxEdges} edges were read; the rest of a read is dropped.
 * - `TIME`: the caller stopped the walk ({@link LineageLimits.timeBudgetMs}).
 *
 * Memory is bounded by the limits: a path is one link to the path it extends (paths share their prefixes), and each
 * entity's edges are read once and kept for the walk, so an entity reached again by a longer path costs no read.
 */

/** The bounds of one walk. */
export interface LineageLimits {
  /** Most hops taken, whatever is asked (DataHub walks up to 1000 when not told). */
  readonly maxHops: number;
  /** Most entities reached (the source aside). */
  readonly maxNodes: number;
  /** Most paths kept per entity. */
  readonly maxPathsPerNode: number;
  /** Most paths kept in all, besides each entity's first. */
  readonly maxPaths: number;
  /** Most edges read from the graph in all. */
  readonly maxEdges: number;
  /** Longest a walk may take, in milliseconds (checked between reads by the caller). */
  readonly timeBudgetMs: number;
}

export const DEFAULT_LINEAGE_LIMITS: LineageLimits = {
  maxHops: 20,
  maxNodes: 10_000,
  maxPathsPerNode: 100,
  maxPaths: 200_000,
  maxEdges: 100_000,
  timeBudgetMs: 10_000,
};

/** Why a walk stopped short of what was asked (see {@link LineageWalk}). */
export type TruncationReason = 'HOPS' | 'NODES' | 'PATHS' | 'EDGES' | 'TIME';

const REASON_ORDER: readonly TruncationReason[] = ['HOPS', 'NODES', 'PATHS', 'EDGES', 'TIME'];

/** One read the walk needs: the edges of `urns` of the `types` named per edge direction. */
export interface HopRead {
  /** Sorted, each once; may be empty when every entity's edges are known already. */
  readonly urns: readonly string[];
  readonly types: HopReads;
  /** Most edges this read may return, over both directions. */
  readonly limit: number;
  /** A look past the last hop allowed, to tell which entities have lineage beyond it. */
  readonly probe: boolean;
}

/** An entity the walk reached. */
export interface LineageNode {
  readonly urn: string;
  readonly entityType: string;
  /** The edge the entity was first reached by (at its smallest degree): its type and stamps. */
  readonly via: Neighbour;
  /** The smallest number of hops from the source. */
  readonly degree: number;
  /** Every number of hops it was reached at, ascending. */
  readonly degrees: readonly number[];
  /** Its edges were read (false for those reached at the last hop). */
  readonly explored: boolean;
  /** A limit left some of its lineage edges unread, or the hop limit stopped the walk at it. */
  readonly truncatedChildren: boolean;
  /** Paths to it were dropped by a path limit. */
  readonly pathsTruncated: boolean;
  /** How many paths to it are kept. */
  readonly pathCount: number;
  /** The kept paths, each from the source to it, shortest first. */
  paths(): string[][];
}

export interface LineageWalkResult {
  readonly source: string;
  readonly direction: LineageDirection;
  /** Ordered by degree, then URN. */
  readonly nodes: readonly LineageNode[];
  /** Hops taken. */
  readonly hops: number;
  /** Edges read from the graph. */
  readonly edgesRead: number;
  readonly truncation: readonly TruncationReason[];
}

/** A path as a link to the path it extends; the source's has none. */
interface PathLink {
  readonly urn: string;
  readonly previous: PathLink | undefined;
}

interface NodeState {
  readonly urn: string;
  readonly entityType: string;
  readonly via: Neighbour;
  readonly degrees: number[];
  readonly paths: PathLink[];
  explored: boolean;
  truncatedChildren: boolean;
  pathsTruncated: boolean;
}

interface ReadEdge {
  readonly edge: Neighbour;
  readonly direction: RelationshipDirection;
}

export class LineageWalk {
  /** The hops to take: what was asked, within {@link LineageLimits.maxHops}. */
  readonly hopsAllowed: number;
  private readonly nodes = new Map<string, NodeState>();
  /** The edges read so far, by URN (an entry for every URN read, even with none). */
  private readonly adjacency = new Map<string, ReadEdge[]>();
  /** The paths of the last hop, by the URN they end at: what the next hop extends. */
  private frontier: Map<string, PathLink[]>;
  private hop = 0;
  private paths = 0;
  private edgesRead = 0;
  private probed = false;
  private stopped = false;
  private readonly reasons = new Set<TruncationReason>();
  /** More hops were asked than the limit allows. */
  private readonly hopsCut: boolean;

  /**
   * @param hopsAsked the hops asked for, at least 1 (`Infinity` for as many as the limits allow).
   */
  constructor(
    private readonly source: string,
    private readonly direction: LineageDirection,
    hopsAsked: number,
    private readonly registry: LineageRegistry,
    private readonly limits: LineageLimits,
  ) {
    this.hopsAllowed = Math.min(hopsAsked, limits.maxHops);
    this.hopsCut = hopsAsked > limits.maxHops;
    this.frontier = new Map([[source, [{ urn: source, previous: undefined }]]]);
  }

  /** How many more edges may be read. */
  get edgeBudget(): number {
    return Math.max(this.limits.maxEdges - this.edgesRead, 0);
  }

  /** The next read, or undefined when the walk is over. */
  nextRead(): HopRead | undefined {
    if (this.stopped || this.frontier.size === 0) return undefined;
    const probe = this.hop >= this.hopsAllowed;
    if (probe && (!this.hopsCut || this.probed)) return undefined;
    const urns = [...this.frontier.keys()].filter((urn) => !this.adjacency.has(urn)).sort(compare);
    const types = this.registry.reads(
      urns.flatMap((urn) => entityTypeOf(urn) ?? []),
      this.direction,
    );
    return { urns, types, limit: this.edgeBudget, probe };
  }

  /** Takes the edges of a read (each direction's page as the graph answered it) and walks one hop, or probes. */
  absorb(read: HopRead, pages: Readonly<Record<RelationshipDirection, NeighbourPage>>): void {
    for (const urn of read.urns) this.adjacency.set(urn, []);
    for (const direction of ['OUTGOING', 'INCOMING'] as const) {
      const page = pages[direction];
      this.edgesRead += page.edges.length;
      for (const edge of page.edges) this.adjacency.get(edge.urn)?.push({ edge, direction });
      if (page.truncated) this.cut(read, direction, page);
    }
    if (read.probe) {
      this.probed = true;
      for (const urn of this.frontier.keys()) {
        if (this.lineageOf(urn).length === 0) continue;
        this.reasons.add('HOPS');
        const node = this.nodes.get(urn);
        if (node !== undefined) node.truncatedChildren = true;
      }
      this.frontier = new Map();
      return;
    }
    this.step();
  }

  /** Ends the walk early: the entities whose edges are still to read are marked. */
  stop(reason: TruncationReason): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.frontier.size === 0 || (this.hop >= this.hopsAllowed && !this.hopsCut)) return;
    this.reasons.add(reason);
    for (const urn of this.frontier.keys()) {
      const node = this.nodes.get(urn);
      if (node !== undefined) node.truncatedChildren = true;
    }
  }

  result(): LineageWalkResult {
    const nodes = [...this.nodes.values()]
      .map((node): LineageNode => {
        const degrees = [...node.degrees].sort((a, b) => a - b);
        const kept = node.paths;
        return {
          urn: node.urn,
          entityType: node.entityType,
          via: node.via,
          degree: degrees[0] ?? 0,
          degrees,
          explored: node.explored,
          truncatedChildren: node.truncatedChildren,
          pathsTruncated: node.pathsTruncated,
          pathCount: kept.length,
          paths: () => kept.map(pathUrns),
        };
      })
      .sort((a, b) => a.degree - b.degree || compare(a.urn, b.urn));
    return {
      source: this.source,
      direction: this.direction,
      nodes,
      hops: this.hop,
      edgesRead: this.edgesRead,
      truncation: REASON_ORDER.filter((reason) => this.reasons.has(reason)),
    };
  }

  // -------------------------------------------------------------------------------------------------------------------

  /** A read's page was cut at `limit`: the URNs from the last one answered on may lack edges. */
  private cut(read: HopRead, direction: RelationshipDirection, page: NeighbourPage): void {
    this.reasons.add('EDGES');
    const last = page.edges[page.edges.length - 1]?.urn;
    const types = new Set(read.types[direction]);
    for (const urn of read.urns) {
      if (last !== undefined && compare(urn, last) < 0) continue;
      const entityType = entityTypeOf(urn);
      const reads = entityType === undefined ? [] : this.registry.hops(entityType, this.direction);
      if (!reads.some((hop) => hop.direction === direction && types.has(hop.type))) continue;
      const node = this.nodes.get(urn);
      if (node !== undefined) node.truncatedChildren = true;
    }
  }

  /** The lineage edges of an entity among those read: the hops the registry allows, self-edges and the source aside. */
  private lineageOf(urn: string): Neighbour[] {
    const entityType = entityTypeOf(urn);
    if (entityType === undefined) return [];
    return (this.adjacency.get(urn) ?? []).flatMap(({ edge, direction }) => {
      const other = edge.entity;
      const otherType = entityTypeOf(other);
      if (other === urn || other === this.source || otherType === undefined) return [];
      return this.registry.isHop(entityType, this.direction, { type: edge.type, direction, otherType }) ? [edge] : [];
    });
  }

  /** One hop: every path of the frontier extended by every lineage edge of its end. */
  private step(): void {
    const hop = this.hop + 1;
    const next = new Map<string, PathLink[]>();
    for (const urn of [...this.frontier.keys()].sort(compare)) {
      const from = this.nodes.get(urn);
      if (from !== undefined) from.explored = true;
      const paths = this.frontier.get(urn) ?? [];
      for (const edge of this.lineageOf(urn)) {
        const to = edge.entity;
        for (const path of paths) {
          if (onPath(path, to)) continue;
          let node = this.nodes.get(to);
          if (node === undefined) {
            if (this.nodes.size >= this.limits.maxNodes) {
              this.reasons.add('NODES');
              if (from !== undefined) from.truncatedChildren = true;
              break;
            }
            node = {
              urn: to,
              entityType: entityTypeOf(to) ?? '',
              via: edge,
              degrees: [],
              paths: [],
              explored: false,
              truncatedChildren: false,
              pathsTruncated: false,
            };
            this.nodes.set(to, node);
          }
          if (!node.degrees.includes(hop)) node.degrees.push(hop);
          // An entity's first path is always kept, so that every entity reached has one.
          const full =
            node.paths.length >= this.limits.maxPathsPerNode ||
            (this.paths >= this.limits.maxPaths && node.paths.length > 0);
          if (full) {
            this.reasons.add('PATHS');
            node.pathsTruncated = true;
            continue;
          }
          const link = { urn: to, previous: path };
          node.paths.push(link);
          this.paths += 1;
          const ending = next.get(to);
          if (ending === undefined) next.set(to, [link]);
          else ending.push(link);
        }
      }
    }
    this.hop = hop;
    this.frontier = next;
  }
}

function onPath(path: PathLink, urn: string): boolean {
  for (let link: PathLink | undefined = path; link !== undefined; link = link.previous) {
    if (link.urn === urn) return true;
  }
  return false;
}

function pathUrns(path: PathLink): string[] {
  const urns: string[] = [];
  for (let link: PathLink | undefined = path; link !== undefined; link = link.previous) urns.push(link.urn);
  return urns.reverse();
}

/** Code-point order, as the graph orders URNs. */
export const compare = compareCodePoints;
