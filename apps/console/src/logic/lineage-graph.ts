/**
 * The lineage graph of the entity page's Lineage tab, built from the server's lineage answers: the entities shown
 * (each once, whichever answers name it), the edges between them (upstream → downstream, every one known between
 * shown entities, so every path among them is drawn), the column-level edges that fine-grained lineage gives between
 * shown datasets, the marks where a traversal was cut at a limit, what is still to be fetched, and the left-to-right
 * layout (dagre): upstream on the left, downstream on the right. Pure (unit-tested in lineage-graph.spec.ts).
 *
 * Where the answers come from (lineage-query.ts): the entity's `lineage(input: {direction, start, count})` one hop at a
 * time (a page of {@link HOP_PAGE_SIZE}; each neighbour also answers its own neighbours' URNs, up to
 * {@link ADJACENCY_COUNT} each way, which is how edges between already-shown entities are known), and
 * `searchAcrossLineage` with the degree filter for "expand all" (every path of the walk, source first).
 */
import dagre from '@dagrejs/dagre';
import { fieldPathParts } from './schema-fields';
import { displayNameOfUrn, entityTypeOfUrn, keyOfUrn, platformName, platformOfUrn, tupleParts } from './urn';

/** Neighbours asked for each time an entity is expanded one hop (more are a "show more" away). */
export const HOP_PAGE_SIZE = 20;
/** Neighbours' URNs each fetched entity answers per direction, to draw its edges to entities already shown. */
export const ADJACENCY_COUNT = 100;
/** Results per direction of one "expand all" page. */
export const REACH_PAGE_SIZE = 100;
/** Columns drawn inside one node (the list view has them all). */
export const MAX_NODE_COLUMNS = 40;

export type LineageDirection = 'UPSTREAM' | 'DOWNSTREAM';
export const DIRECTIONS: readonly LineageDirection[] = ['UPSTREAM', 'DOWNSTREAM'];

/** How far "expand all" walks: one hop, two, or as far as the server walks (its `degree` filter's `3+`). */
export type ReachHops = 1 | 2 | 'all';

/** One entry of `fineGrainedLineages` (a dataset's `upstreamLineage`, a job's `dataJobInputOutput`). */
export interface FineGrainedEntry {
  /** Schema field URNs (or dataset URNs, with `upstreamType: DATASET`). */
  readonly upstreams: readonly string[];
  readonly downstreams: readonly string[];
  readonly transform?: string;
}

/** The neighbours of an entity in one direction, as far as they were asked (`total` is the server's count). */
export interface Adjacency {
  readonly total: number;
  /** Of those answered, how many the server left out as not in the catalog (never ingested, or soft-deleted). */
  readonly filtered: number;
  readonly urns: readonly string[];
}

/** An entity as the graph shows it. */
export interface LineageEntity {
  readonly urn: string;
  /** The entity type name (`dataset`, `dataJob`). */
  readonly type: string;
  readonly name: string;
  /** A fuller name when it says more than `name` (a dataset's qualified name). */
  readonly qualifiedName?: string;
  readonly platform?: string;
  readonly upstream?: Adjacency;
  readonly downstream?: Adjacency;
  /** Its fine-grained lineage, when it was fetched with columns (empty: it has none). */
  readonly fineGrained?: readonly FineGrainedEntry[];
  /** Known by its URN only (not fetched, or reached by a path whose entity the answers did not describe). */
  readonly partial?: boolean;
}

/** One page of an entity's `lineage` in one direction. */
export interface HopAnswer {
  readonly urn: string;
  readonly direction: LineageDirection;
  readonly start: number;
  /** How many the server answered for the page (before leaving out those not in the catalog). */
  readonly count: number;
  readonly total: number;
  readonly filtered: number;
  readonly relationships: readonly { readonly type: string; readonly entity: LineageEntity }[];
}

/** One result of an "expand all" walk. */
export interface ReachResult {
  readonly entity: LineageEntity;
  readonly degree: number;
  readonly truncatedChildren: boolean;
  /** Every path from the source to it, source first, each a list of URNs (null: an entity the API does not serve). */
  readonly paths: readonly (readonly (string | null)[])[];
}

/** One page of an "expand all" walk in one direction. */
export interface ReachAnswer {
  readonly direction: LineageDirection;
  readonly hops: ReachHops;
  readonly start: number;
  readonly total: number;
  /** Whether a server limit cut the walk. */
  readonly isPartial: boolean;
  readonly results: readonly ReachResult[];
}

/** An entity expanded in one direction, `pages` pages of {@link HOP_PAGE_SIZE} (0: not expanded). */
export interface Expansion {
  readonly urn: string;
  readonly direction: LineageDirection;
  readonly pages: number;
}

/** What the view asks the graph to show (lineage-state.ts reads it from the URL). */
export interface LineageRequest {
  readonly center: string;
  readonly expansions: readonly Expansion[];
  readonly reach?: { readonly hops: ReachHops; readonly pages: number } | undefined;
  readonly columns: boolean;
}

/** Everything fetched so far. */
export interface LineageAnswers {
  /** The centre entity: undefined until fetched, null when it does not exist. */
  readonly center?: LineageEntity | null;
  readonly hops: ReadonlyMap<string, HopAnswer>;
  readonly reaches: ReadonlyMap<string, ReachAnswer>;
  /** Fine-grained lineage fetched apart from the entity (when columns were turned on after it was shown). */
  readonly fineGrained: ReadonlyMap<string, readonly FineGrainedEntry[]>;
}

/** Something still to fetch. */
export type LineageFetch =
  | { readonly kind: 'center'; readonly urn: string }
  | { readonly kind: 'hop'; readonly urn: string; readonly direction: LineageDirection; readonly start: number }
  | { readonly kind: 'reach'; readonly direction: LineageDirection; readonly hops: ReachHops; readonly start: number }
  | { readonly kind: 'fineGrained'; readonly urn: string };

/** Where a traversal stopped while there was more. */
export interface LineageCut {
  readonly direction: LineageDirection;
  /**
   * `page`: the node's expansion answered one page of more; `reach`: "expand all" answered one page of more;
   * `hops`: the node is at the hop limit of "expand all" and has lineage beyond; `limits`: a server limit (nodes,
   * edges, paths, time) cut the walk there.
   */
  readonly kind: 'page' | 'reach' | 'hops' | 'limits';
  /** How many entities are not shown, when known. */
  readonly hidden?: number;
}

/** One direction of a node: whether it is expanded, and how many neighbours the server knows and the graph shows. */
export interface NodeSide {
  readonly expanded: boolean;
  /** Expanded, and an answer is still being fetched. */
  readonly loading: boolean;
  /** Neighbours in the catalog the server knows of, when an answer said (undefined: not known yet). */
  readonly known?: number;
  /** Neighbours drawn. */
  readonly shown: number;
  /** Neighbours the server left out as not in the catalog, as far as the answers say. */
  readonly filtered: number;
}

export interface LineageNode {
  readonly entity: LineageEntity;
  readonly isCenter: boolean;
  readonly upstream: NodeSide;
  readonly downstream: NodeSide;
  readonly cuts: readonly LineageCut[];
  /** Its columns that have column-level edges in the graph (field paths), when columns are shown. */
  readonly columns: readonly string[];
  /** Columns with edges beyond {@link MAX_NODE_COLUMNS}. */
  readonly hiddenColumns: number;
}

export interface LineageEdge {
  readonly id: string;
  /** The upstream entity. */
  readonly source: string;
  /** The downstream entity. */
  readonly target: string;
  /** The relationship types that gave it (`DownstreamOf`, `Consumes`, `Produces`), when an answer said. */
  readonly types: readonly string[];
}

/** A column-level edge: a column (or a whole dataset, when the field is absent) feeding another. */
export interface ColumnEdge {
  readonly id: string;
  readonly source: { readonly urn: string; readonly field?: string };
  readonly target: { readonly urn: string; readonly field?: string };
  readonly transforms: readonly string[];
}

export interface LineageGraph {
  readonly nodes: readonly LineageNode[];
  readonly edges: readonly LineageEdge[];
  readonly columnEdges: readonly ColumnEdge[];
  /** What the request needs that was not fetched yet: its entities shown first. */
  readonly missing: readonly LineageFetch[];
}

/** The cache key of one page of an entity's lineage. */
export function hopKey(urn: string, direction: LineageDirection, start: number): string {
  return `hop|${direction}|${start}|${urn}`;
}

/** The cache key of one page of "expand all". */
export function reachKey(direction: LineageDirection, hops: ReachHops, start: number): string {
  return `reach|${direction}|${hops}|${start}`;
}

/** A stable key for a fetch (to tell what is in flight). */
export function fetchKey(fetch: LineageFetch): string {
  switch (fetch.kind) {
    case 'center':
      return `center|${fetch.urn}`;
    case 'hop':
      return hopKey(fetch.urn, fetch.direction, fetch.start);
    case 'reach':
      return reachKey(fetch.direction, fetch.hops, fetch.start);
    case 'fineGrained':
      return `fineGrained|${fetch.urn}`;
  }
}

/** An entity known by its URN only (before it is fetched, or reached by a path the search results leave out). */
export function entityFromUrn(urn: string): LineageEntity {
  const platform = platformName(platformOfUrn(urn));
  return {
    urn,
    type: entityTypeOfUrn(urn) ?? 'entity',
    name: displayNameOfUrn(urn),
    ...(platform === undefined ? {} : { platform }),
    partial: true,
  };
}

/** Whether column-level lineage can be held by an entity of this type. */
export function holdsFineGrained(type: string): boolean {
  return type === 'dataset' || type === 'dataJob';
}

/**
 * Two views of the same entity merged: the first's fields, completed by the other's. A view made from the URN alone
 * (`partial`) yields to a fetched one.
 */
function mergeEntity(known: LineageEntity, more: LineageEntity): LineageEntity {
  const [first, second] = known.partial === true && more.partial !== true ? [more, known] : [known, more];
  const merged: Record<string, unknown> = { ...second };
  for (const [key, value] of Object.entries(first)) if (value !== undefined) merged[key] = value;
  if (first.partial !== true || second.partial !== true) delete merged['partial'];
  return merged as unknown as LineageEntity;
}

/** The readable form of a field path (`[version=2.0].[type=struct].address.[type=string].zip` → `address.zip`). */
export function simpleFieldPath(fieldPath: string): string {
  const names = fieldPathParts(fieldPath).names;
  return names.length === 0 ? fieldPath : names.join('.');
}

/** The dataset and field a column-lineage URN names: a schema field's parent and path, or a whole dataset. */
export function columnEnd(urn: string): { readonly urn: string; readonly field?: string } | undefined {
  const type = entityTypeOfUrn(urn);
  if (type === 'schemaField') {
    const parts = tupleParts(keyOfUrn(urn));
    const parent = parts[0];
    if (parts.length < 2 || parent === undefined || entityTypeOfUrn(parent) === undefined) return undefined;
    return { urn: parent, field: parts.slice(1).join(',') };
  }
  return type === undefined ? undefined : { urn };
}

/**
 * The column-level edges of fine-grained lineage entries: from each upstream to each downstream of an entry. As the
 * server derives them (DataHub's rule), an entry lacking upstreams or downstreams ends the list.
 */
export function columnEdgesOf(entries: readonly FineGrainedEntry[]): ColumnEdge[] {
  const edges: ColumnEdge[] = [];
  for (const entry of entries) {
    if (entry.upstreams.length === 0 || entry.downstreams.length === 0) break;
    for (const downstream of entry.downstreams) {
      const target = columnEnd(downstream);
      if (target === undefined) continue;
      for (const upstream of entry.upstreams) {
        const source = columnEnd(upstream);
        if (source === undefined) continue;
        edges.push({
          id: columnEdgeId(source, target),
          source,
          target,
          transforms: entry.transform === undefined || entry.transform === '' ? [] : [entry.transform],
        });
      }
    }
  }
  return edges;
}

function columnEdgeId(
  source: { readonly urn: string; readonly field?: string },
  target: { readonly urn: string; readonly field?: string },
): string {
  return `col|${source.urn}|${source.field ?? ''}|${target.urn}|${target.field ?? ''}`;
}

/**
 * The graph a request shows with what was fetched, and what is still missing. Expansions apply only to entities the
 * graph shows (an expansion of an entity that is no longer reached is kept in the request but not drawn), repeatedly
 * until nothing new is reached, so a view rebuilt from a URL ends as it was left.
 */
export function buildLineageGraph(request: LineageRequest, answers: LineageAnswers): LineageGraph {
  const entities = new Map<string, LineageEntity>();
  const add = (entity: LineageEntity): boolean => {
    const known = entities.get(entity.urn);
    entities.set(entity.urn, known === undefined ? entity : mergeEntity(known, entity));
    return known === undefined;
  };
  const edges = new Map<string, { source: string; target: string; types: Set<string> }>();
  const addEdge = (source: string, target: string, type?: string) => {
    if (source === target) return;
    const id = `${source}->${target}`;
    const edge = edges.get(id) ?? { source, target, types: new Set<string>() };
    if (type !== undefined && type !== '') edge.types.add(type);
    edges.set(id, edge);
  };
  const missing: LineageFetch[] = [];
  if (answers.center === undefined) missing.push({ kind: 'center', urn: request.center });
  add(answers.center ?? entityFromUrn(request.center));

  // Apply every answer whose entity is shown, until a round reaches nothing new.
  const applied = new Set<string>();
  const reachResults: { direction: LineageDirection; hops: ReachHops; result: ReachResult }[] = [];
  const reachPages = (direction: LineageDirection) =>
    request.reach === undefined
      ? []
      : range(request.reach.pages).map((page) => ({
          key: reachKey(direction, request.reach?.hops ?? 1, page * REACH_PAGE_SIZE),
          start: page * REACH_PAGE_SIZE,
        }));
  for (let changed = true; changed;) {
    changed = false;
    for (const expansion of request.expansions) {
      if (!entities.has(expansion.urn)) continue;
      for (const page of range(expansion.pages)) {
        const key = hopKey(expansion.urn, expansion.direction, page * HOP_PAGE_SIZE);
        const answer = answers.hops.get(key);
        if (answer === undefined || applied.has(key)) continue;
        applied.add(key);
        for (const relationship of answer.relationships) {
          if (add(relationship.entity)) changed = true;
          if (expansion.direction === 'UPSTREAM') addEdge(relationship.entity.urn, expansion.urn, relationship.type);
          else addEdge(expansion.urn, relationship.entity.urn, relationship.type);
        }
      }
    }
    for (const direction of DIRECTIONS) {
      for (const { key } of reachPages(direction)) {
        const answer = answers.reaches.get(key);
        if (answer === undefined || applied.has(key)) continue;
        applied.add(key);
        changed = true;
        for (const result of answer.results) {
          add(result.entity);
          reachResults.push({ direction, hops: answer.hops, result });
          for (const path of result.paths) {
            for (const urn of path) if (urn !== null) add(entityFromUrn(urn));
            for (let index = 0; index + 1 < path.length; index += 1) {
              const near = path[index];
              const far = path[index + 1];
              // An entity the API cannot describe breaks the path: no edge is made up across it.
              if (near === null || near === undefined || far === null || far === undefined) continue;
              if (direction === 'UPSTREAM') addEdge(far, near);
              else addEdge(near, far);
            }
          }
        }
      }
    }
  }

  // What the request still needs: the expansions of shown entities first, then those of entities not reached yet — a
  // link names them, and asking them now rather than hop after hop rebuilds its view in one round (an expansion that
  // turns out unreachable is fetched for nothing and not drawn).
  const shownFirst = [...request.expansions].sort(
    (a, b) => Number(!entities.has(a.urn)) - Number(!entities.has(b.urn)),
  );
  for (const expansion of shownFirst) {
    for (const page of range(expansion.pages)) {
      const start = page * HOP_PAGE_SIZE;
      if (!answers.hops.has(hopKey(expansion.urn, expansion.direction, start))) {
        missing.push({ kind: 'hop', urn: expansion.urn, direction: expansion.direction, start });
      }
    }
  }
  for (const direction of DIRECTIONS) {
    for (const { key, start } of reachPages(direction)) {
      if (!answers.reaches.has(key) && request.reach !== undefined) {
        missing.push({ kind: 'reach', direction, hops: request.reach.hops, start });
      }
    }
  }

  // Edges each shown entity knows to other shown entities: every path among them is drawn.
  for (const entity of entities.values()) {
    for (const urn of entity.upstream?.urns ?? []) if (entities.has(urn)) addEdge(urn, entity.urn);
    for (const urn of entity.downstream?.urns ?? []) if (entities.has(urn)) addEdge(entity.urn, urn);
  }

  // Column-level edges between shown entities.
  const columnEdges = new Map<
    string,
    { source: ColumnEdge['source']; target: ColumnEdge['target']; transforms: Set<string> }
  >();
  if (request.columns) {
    for (const entity of entities.values()) {
      if (!holdsFineGrained(entity.type)) continue;
      const entries = entity.fineGrained ?? answers.fineGrained.get(entity.urn);
      if (entries === undefined) {
        missing.push({ kind: 'fineGrained', urn: entity.urn });
        continue;
      }
      for (const edge of columnEdgesOf(entries)) {
        if (!entities.has(edge.source.urn) || !entities.has(edge.target.urn)) continue;
        const known = columnEdges.get(edge.id) ?? { source: edge.source, target: edge.target, transforms: new Set() };
        edge.transforms.forEach((transform) => known.transforms.add(transform));
        columnEdges.set(edge.id, known);
      }
    }
  }

  return {
    nodes: nodesOf(request, answers, entities, edges, columnEdges, reachResults),
    edges: [...edges].map(([id, edge]) => ({ id, source: edge.source, target: edge.target, types: [...edge.types] })),
    columnEdges: [...columnEdges].map(([id, edge]) => ({
      id,
      source: edge.source,
      target: edge.target,
      transforms: [...edge.transforms],
    })),
    missing,
  };
}

function nodesOf(
  request: LineageRequest,
  answers: LineageAnswers,
  entities: ReadonlyMap<string, LineageEntity>,
  edges: ReadonlyMap<string, { source: string; target: string }>,
  columnEdges: ReadonlyMap<string, { source: ColumnEdge['source']; target: ColumnEdge['target'] }>,
  reachResults: readonly { direction: LineageDirection; hops: ReachHops; result: ReachResult }[],
): LineageNode[] {
  const neighbours = new Map<string, { UPSTREAM: Set<string>; DOWNSTREAM: Set<string> }>();
  const neighboursOf = (urn: string) => {
    const known = neighbours.get(urn) ?? { UPSTREAM: new Set<string>(), DOWNSTREAM: new Set<string>() };
    neighbours.set(urn, known);
    return known;
  };
  for (const edge of edges.values()) {
    neighboursOf(edge.target).UPSTREAM.add(edge.source);
    neighboursOf(edge.source).DOWNSTREAM.add(edge.target);
  }
  const columns = new Map<string, string[]>();
  const addColumn = (end: ColumnEdge['source']) => {
    if (end.field === undefined) return;
    const list = columns.get(end.urn) ?? [];
    if (!list.includes(end.field)) list.push(end.field);
    columns.set(end.urn, list);
  };
  for (const edge of columnEdges.values()) {
    addColumn(edge.source);
    addColumn(edge.target);
  }
  const expansionOf = (urn: string, direction: LineageDirection) =>
    request.expansions.find((expansion) => expansion.urn === urn && expansion.direction === direction);

  return [...entities.values()].map((entity) => {
    const cuts: LineageCut[] = [];
    const side = (direction: LineageDirection): NodeSide => {
      const shown = neighboursOf(entity.urn)[direction].size;
      const expansion = expansionOf(entity.urn, direction);
      const pages = range(expansion?.pages ?? 0).map((page) =>
        answers.hops.get(hopKey(entity.urn, direction, page * HOP_PAGE_SIZE)),
      );
      const fetched = pages.filter((page): page is HopAnswer => page !== undefined);
      const adjacency = direction === 'UPSTREAM' ? entity.upstream : entity.downstream;
      const last = fetched[fetched.length - 1];
      const filtered = Math.max(
        adjacency?.filtered ?? 0,
        fetched.reduce((sum, page) => sum + page.filtered, 0),
      );
      const total = last?.total ?? adjacency?.total;
      if (last !== undefined && fetched.length === pages.length && last.start + last.count < last.total) {
        cuts.push({ direction, kind: 'page', hidden: last.total - (last.start + last.count) });
      }
      return {
        expanded: pages.length > 0,
        loading: fetched.length < pages.length,
        ...(total === undefined ? {} : { known: Math.max(total - filtered, shown) }),
        shown,
        filtered,
      };
    };
    const upstream = side('UPSTREAM');
    const downstream = side('DOWNSTREAM');
    for (const { direction, hops, result } of reachResults) {
      if (result.entity.urn !== entity.urn) continue;
      const beyond = direction === 'UPSTREAM' ? upstream : downstream;
      if (result.truncatedChildren) cuts.push({ direction, kind: 'limits' });
      else if (hops !== 'all' && result.degree >= hops && !beyond.expanded && (beyond.known ?? 0) > beyond.shown) {
        cuts.push({ direction, kind: 'hops', hidden: (beyond.known ?? 0) - beyond.shown });
      }
    }
    const isCenter = entity.urn === request.center;
    if (isCenter && request.reach !== undefined) {
      for (const direction of DIRECTIONS) {
        const pages = range(request.reach.pages).map((page) =>
          answers.reaches.get(reachKey(direction, request.reach?.hops ?? 1, page * REACH_PAGE_SIZE)),
        );
        const last = pages[pages.length - 1];
        if (last === undefined) continue;
        if (pages.some((page) => page?.isPartial === true)) cuts.push({ direction, kind: 'limits' });
        const reached = last.start + last.results.length;
        if (reached < last.total) cuts.push({ direction, kind: 'reach', hidden: last.total - reached });
      }
    }
    const own = columns.get(entity.urn) ?? [];
    return {
      entity,
      isCenter,
      upstream,
      downstream,
      cuts: dedupeCuts(cuts),
      columns: own.slice(0, MAX_NODE_COLUMNS),
      hiddenColumns: Math.max(0, own.length - MAX_NODE_COLUMNS),
    };
  });
}

function dedupeCuts(cuts: readonly LineageCut[]): LineageCut[] {
  const seen = new Set<string>();
  return cuts.filter((cut) => {
    const key = `${cut.direction}|${cut.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function range(count: number): number[] {
  return Array.from({ length: Math.max(0, count) }, (_, index) => index);
}

// ----- Layout -----

/** A node's width on the canvas (CSS `lineage.css` draws it at this size). */
export const NODE_WIDTH = 264;
/** The heights of a node's parts, as drawn by `lineage.css`. */
export const NODE_HEAD_HEIGHT = 72;
export const NODE_CUT_HEIGHT = 32;
export const NODE_COLUMN_HEIGHT = 24;

/** The height of a node on the canvas: its head, its cut marks, and its columns when they are shown. */
export function nodeHeight(node: LineageNode, columns: boolean): number {
  const columnRows = columns ? node.columns.length + (node.hiddenColumns > 0 ? 1 : 0) : 0;
  return (
    NODE_HEAD_HEIGHT + node.cuts.length * NODE_CUT_HEIGHT + columnRows * NODE_COLUMN_HEIGHT + (columnRows > 0 ? 8 : 0)
  );
}

export interface LayoutInput {
  readonly nodes: readonly { readonly id: string; readonly width: number; readonly height: number }[];
  /** Upstream → downstream. */
  readonly edges: readonly { readonly source: string; readonly target: string }[];
}

/** What dagre lays out: every node with its size, every entity-level edge. */
export function layoutInput(graph: LineageGraph, columns: boolean): LayoutInput {
  return {
    nodes: graph.nodes.map((node) => ({ id: node.entity.urn, width: NODE_WIDTH, height: nodeHeight(node, columns) })),
    edges: graph.edges.map((edge) => ({ source: edge.source, target: edge.target })),
  };
}

/**
 * Positions (top-left corners) from a left-to-right dagre layout: each edge points right, so upstream entities sit
 * left of the ones they feed and the centre sits between its upstream and its downstream. Cycles are laid out too
 * (dagre reverses an edge of each to rank them).
 */
export function layoutLineage(input: LayoutInput): Map<string, { x: number; y: number }> {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 28, ranksep: 110, marginx: 16, marginy: 16 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of input.nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  for (const edge of input.edges) {
    if (graph.hasNode(edge.source) && graph.hasNode(edge.target)) graph.setEdge(edge.source, edge.target);
  }
  dagre.layout(graph);
  const positions = new Map<string, { x: number; y: number }>();
  for (const node of input.nodes) {
    const placed = graph.node(node.id) as { x: number; y: number; width: number; height: number } | undefined;
    if (placed === undefined) continue;
    positions.set(node.id, { x: placed.x - node.width / 2, y: placed.y - node.height / 2 });
  }
  return positions;
}
