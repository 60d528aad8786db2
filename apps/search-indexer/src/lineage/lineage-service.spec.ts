import { testEntityRegistry } from '@strata/model/testing';
import { ValidationError } from '@strata/model';
import {
  passesWindow,
  type Criterion,
  type GraphEdge,
  type GraphIndex,
  type Neighbour,
  type NeighbourPage,
  type NeighbourQuery,
  type SearchIndex,
  type SearchRequest,
} from '@strata/indices';
import type { LineageLimits, LineageNode, LineageWalkResult } from './domain/lineage-walk';
import { LineageService, type LineageSearchRequest } from './lineage-service';

const registry = testEntityRegistry();

const ds = (name: string): string => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const job = (name: string): string => `urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,PROD),${name})`;
const field = (dataset: string, path: string): string => `urn:li:schemaField:(${dataset},${path})`;

/** An edge as its aspect implies it: from the entity holding the aspect. */
interface StoredEdge extends GraphEdge {
  readonly source: string;
}

/** `downstream` DownstreamOf `upstream`, as `upstreamLineage` says. */
const downstreamOf = (downstream: string, upstream: string, stamps: Partial<GraphEdge> = {}): StoredEdge => ({
  source: downstream,
  type: 'DownstreamOf',
  destination: upstream,
  ...stamps,
});

/**
 * The graph port's `neighbours`, over edges held in memory, with the port's semantics: per URN in code-point order,
 * (URN, type, other end) order, types, window, limit. Counts its calls; `onRead` runs before each.
 */
class MemoryGraph {
  calls: NeighbourQuery[] = [];
  onRead: () => void = () => undefined;

  constructor(private readonly edges: readonly StoredEdge[]) {}

  neighbours(query: NeighbourQuery): Promise<NeighbourPage> {
    this.calls.push(query);
    this.onRead();
    const found: Neighbour[] = [];
    for (const urn of [...new Set(query.urns)].sort()) {
      const own = this.edges
        .filter((edge) => (query.direction === 'OUTGOING' ? edge.source : edge.destination) === urn)
        .filter((edge) => query.types.length === 0 || query.types.includes(edge.type))
        .filter((edge) => passesWindow(edge, query.window))
        .map((edge): Neighbour => ({
          urn,
          type: edge.type,
          entity: query.direction === 'OUTGOING' ? edge.destination : edge.source,
          ...(edge.createdAt === undefined ? {} : { createdAt: edge.createdAt }),
          ...(edge.manual === true ? { manual: true } : {}),
        }))
        .sort((a, b) => (a.type + a.entity < b.type + b.entity ? -1 : 1));
      found.push(...own);
    }
    return Promise.resolve({ edges: found.slice(0, query.limit), truncated: found.length > query.limit });
  }
}

/**
 * The search index's `search` over a set of existing entities: `*` matches every one, other text the URNs containing
 * it; a `urn` criterion restricts to its values; soft-deleted ones are hidden unless a criterion names `removed`.
 */
class MemorySearch {
  readonly requests: SearchRequest[] = [];
  readonly schema = {
    entities: () => ['dataset', 'dataJob', 'chart'].map((entityType) => ({ entityType })),
  };

  constructor(
    private readonly existing: ReadonlySet<string>,
    private readonly removed: ReadonlySet<string> = new Set(),
  ) {}

  search(request: SearchRequest) {
    this.requests.push(request);
    const criteria: readonly Criterion[] = request.filter[0] ?? [];
    const urns = criteria.find((criterion) => criterion.field === 'urn')?.values ?? [];
    const showRemoved = criteria.some((criterion) => criterion.field === 'removed');
    const platform = criteria.find((criterion) => criterion.field === 'platform');
    const hits = urns
      .filter((urn) => this.existing.has(urn) && (showRemoved || !this.removed.has(urn)))
      .filter((urn) => request.input === '*' || urn.includes(request.input))
      .filter((urn) => platform === undefined || platform.values.some((value) => urn.includes(value)))
      .map((urn) => ({ urn, matchedFields: request.input === '*' ? [] : [{ name: 'urn', value: urn }] }));
    return Promise.resolve({
      total: hits.length,
      hits,
      facets: [{ field: 'platform', displayName: 'Platform', counts: { 'urn:li:dataPlatform:hive': hits.length } }],
    });
  }
}

function service(
  edges: readonly StoredEdge[],
  options: { limits?: Partial<LineageLimits>; existing?: readonly string[]; removed?: readonly string[] } = {},
) {
  const graph = new MemoryGraph(edges);
  const everything = new Set(edges.flatMap((edge) => [edge.source, edge.destination]));
  const search = new MemorySearch(new Set(options.existing ?? everything), new Set(options.removed ?? []));
  // A clock the tests move by hand (a read may take time).
  const scheduler = {
    time: 1_000,
    now(): number {
      return this.time;
    },
  };
  const lineage = new LineageService({
    graph: graph as unknown as GraphIndex,
    search: search as unknown as SearchIndex,
    registry,
    scheduler,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  return { lineage, graph, search, scheduler };
}

/** What a test compares of a walk: each entity's degrees, paths and flags. */
function summary(result: LineageWalkResult) {
  return result.nodes.map((node: LineageNode) => ({
    urn: node.urn,
    degrees: node.degrees,
    paths: node.paths(),
    ...(node.truncatedChildren ? { truncatedChildren: true } : {}),
    ...(node.pathsTruncated ? { pathsTruncated: true } : {}),
  }));
}

const [a, b, c, d, e, f] = ['a', 'b', 'c', 'd', 'e', 'f'].map(ds) as [string, string, string, string, string, string];

describe('LineageService.walk', () => {
  it('given a diamond, when walked downstream, then the far corner has both paths at degree 2', async () => {
    const { lineage } = service([downstreamOf(b, a), downstreamOf(c, a), downstreamOf(d, b), downstreamOf(d, c)]);
    const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 3 });
    expect(summary(result)).toEqual([
      { urn: b, degrees: [1], paths: [[a, b]] },
      { urn: c, degrees: [1], paths: [[a, c]] },
      {
        urn: d,
        degrees: [2],
        paths: [
          [a, b, d],
          [a, c, d],
        ],
      },
    ]);
    expect(result.truncation).toEqual([]);
    expect(result.nodes.map((node) => node.explored)).toEqual([true, true, true]);
  });

  it('given a diamond, when walked upstream from the far corner, then the source of the diamond has both paths', async () => {
    const { lineage } = service([downstreamOf(b, a), downstreamOf(c, a), downstreamOf(d, b), downstreamOf(d, c)]);
    const result = await lineage.walk({ urn: d, direction: 'UPSTREAM', maxHops: 2 });
    expect(summary(result)).toEqual([
      { urn: b, degrees: [1], paths: [[d, b]] },
      { urn: c, degrees: [1], paths: [[d, c]] },
      {
        urn: a,
        degrees: [2],
        paths: [
          [d, b, a],
          [d, c, a],
        ],
      },
    ]);
  });

  it('given a cycle through the source, when walked, then it never loops and the source is no result', async () => {
    const { lineage, graph } = service([downstreamOf(b, a), downstreamOf(c, b), downstreamOf(a, c)]);
    const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: Infinity });
    expect(summary(result)).toEqual([
      { urn: b, degrees: [1], paths: [[a, b]] },
      { urn: c, degrees: [2], paths: [[a, b, c]] },
    ]);
    expect(result.truncation).toEqual([]);
    // Two hops read, then the third finds nothing new to walk: no read beyond.
    expect(graph.calls.length).toBeLessThanOrEqual(6);
  });

  it('given two entities feeding each other, when walked, then each has every simple path and both degrees', async () => {
    const { lineage } = service([downstreamOf(b, a), downstreamOf(c, a), downstreamOf(c, b), downstreamOf(b, c)]);
    const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 5 });
    expect(summary(result)).toEqual([
      {
        urn: b,
        degrees: [1, 2],
        paths: [
          [a, b],
          [a, c, b],
        ],
      },
      {
        urn: c,
        degrees: [1, 2],
        paths: [
          [a, c],
          [a, b, c],
        ],
      },
    ]);
    expect(result.nodes.map((node) => node.degree)).toEqual([1, 1]);
  });

  it('given a chain of five, when walked 5 hops, then each link has its degree; 3 hops stop at the third', async () => {
    const chain = [a, b, c, d, e, f];
    const edges = chain.slice(1).map((urn, index) => downstreamOf(urn, chain[index] ?? ''));
    const { lineage } = service(edges);
    const five = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 5 });
    expect(five.nodes.map((node) => [node.urn, node.degree])).toEqual([
      [b, 1],
      [c, 2],
      [d, 3],
      [e, 4],
      [f, 5],
    ]);
    expect(five.nodes[4]?.paths()).toEqual([chain]);
    expect(five.hops).toBe(5);

    const three = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 3 });
    expect(three.nodes.map((node) => [node.urn, node.explored, node.truncatedChildren])).toEqual([
      [b, true, false],
      [c, true, false],
      [d, false, false],
    ]);
    // Three hops were asked for and taken: nothing was cut.
    expect(three.truncation).toEqual([]);
  });

  it('given a data job between datasets, when walked both ways, then Consumes and Produces point as DataHub says', async () => {
    const etl = job('etl');
    const { lineage } = service([
      { source: etl, type: 'Consumes', destination: a },
      { source: etl, type: 'Produces', destination: b },
    ]);
    const down = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 2 });
    expect(summary(down)).toEqual([
      { urn: etl, degrees: [1], paths: [[a, etl]] },
      { urn: b, degrees: [2], paths: [[a, etl, b]] },
    ]);
    expect(down.nodes.map((node) => node.via.type)).toEqual(['Consumes', 'Produces']);
    const up = await lineage.walk({ urn: b, direction: 'UPSTREAM', maxHops: 2 });
    expect(summary(up)).toEqual([
      { urn: etl, degrees: [1], paths: [[b, etl]] },
      { urn: a, degrees: [2], paths: [[b, etl, a]] },
    ]);
    // A job's produced dataset is not its upstream.
    expect(summary(await lineage.walk({ urn: etl, direction: 'UPSTREAM', maxHops: 1 }))).toEqual([
      { urn: a, degrees: [1], paths: [[etl, a]] },
    ]);
  });

  it('given fine-grained lineage, when a dataset is walked, then its schema-field edges are no hops', async () => {
    const { lineage } = service([downstreamOf(b, a), downstreamOf(b, field(a, 'id'))]);
    expect(summary(await lineage.walk({ urn: b, direction: 'UPSTREAM', maxHops: 3 }))).toEqual([
      { urn: a, degrees: [1], paths: [[b, a]] },
    ]);
  });

  it('given schema fields feeding each other, when one is walked, then lineage follows DownstreamOf between fields', async () => {
    const [id, key] = [field(a, 'id'), field(b, 'key')];
    const { lineage } = service([downstreamOf(key, id)]);
    expect(summary(await lineage.walk({ urn: id, direction: 'DOWNSTREAM', maxHops: 1 }))).toEqual([
      { urn: key, degrees: [1], paths: [[id, key]] },
    ]);
  });

  it('given stamped edges, when walked within a window, then only edges alive in it are followed', async () => {
    const { lineage } = service([
      downstreamOf(b, a, { createdAt: 100 }),
      downstreamOf(c, a, { createdAt: 500 }),
      downstreamOf(d, a),
      downstreamOf(e, a, { createdAt: 10, manual: true }),
      downstreamOf(f, b, { createdAt: 900 }),
    ]);
    const windowed = await lineage.walk({
      urn: a,
      direction: 'DOWNSTREAM',
      maxHops: 2,
      window: { start: 50, end: 600 },
    });
    expect(windowed.nodes.map((node) => node.urn)).toEqual([b, c, d, e]);
    const late = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 2, window: { start: 800 } });
    expect(late.nodes.map((node) => node.urn)).toEqual([d, e]);
    const all = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 2 });
    expect(all.nodes.map((node) => node.urn)).toEqual([b, c, d, e, f]);
  });

  it('reads each hop in one batched call per direction, whatever the frontier holds', async () => {
    const fan = Array.from({ length: 40 }, (_, n) => ds(`fan${String(n).padStart(2, '0')}`));
    const { lineage, graph } = service([
      ...fan.map((urn) => downstreamOf(urn, a)),
      ...fan.map((urn) => downstreamOf(b, urn)),
    ]);
    const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 2 });
    expect(result.nodes).toHaveLength(41);
    expect(result.nodes[40]?.pathCount).toBe(40);
    // Datasets have downstream edges one way only (INCOMING DownstreamOf / Consumes …): one read per hop.
    expect(graph.calls.map((call) => [call.direction, call.urns.length])).toEqual([
      ['INCOMING', 1],
      ['INCOMING', 40],
    ]);
  });

  describe('limits, each reported', () => {
    it('stops at the hop limit, looking one hop further to mark what has lineage beyond', async () => {
      const chain = [a, b, c, d];
      const { lineage } = service(
        chain.slice(1).map((urn, index) => downstreamOf(urn, chain[index] ?? '')),
        {
          limits: { maxHops: 2 },
        },
      );
      const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: Infinity });
      expect(summary(result)).toEqual([
        { urn: b, degrees: [1], paths: [[a, b]] },
        { urn: c, degrees: [2], paths: [[a, b, c]], truncatedChildren: true },
      ]);
      expect(result.truncation).toEqual(['HOPS']);

      const { lineage: short } = service([downstreamOf(b, a), downstreamOf(c, b)], { limits: { maxHops: 2 } });
      const exact = await short.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: Infinity });
      expect(exact.truncation).toEqual([]);
    });

    it('stops reaching new entities at the node limit', async () => {
      const { lineage } = service([downstreamOf(b, a), downstreamOf(c, a), downstreamOf(d, a), downstreamOf(e, b)], {
        limits: { maxNodes: 2 },
      });
      const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 3 });
      expect(result.nodes.map((node) => node.urn)).toEqual([b, c]);
      expect(result.truncation).toEqual(['NODES']);
      expect(result.nodes.find((node) => node.urn === b)?.truncatedChildren).toBe(true);
    });

    it('keeps at most the path limit per entity, marking the entity', async () => {
      const { lineage } = service([downstreamOf(b, a), downstreamOf(c, a), downstreamOf(d, b), downstreamOf(d, c)], {
        limits: { maxPathsPerNode: 1 },
      });
      const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 3 });
      expect(summary(result)[2]).toEqual({ urn: d, degrees: [2], paths: [[a, b, d]], pathsTruncated: true });
      expect(result.truncation).toEqual(['PATHS']);
    });

    it('stops reading at the edge limit, marking the entities whose edges it left unread', async () => {
      const { lineage } = service(
        [downstreamOf(b, a), downstreamOf(c, a), downstreamOf(d, b), downstreamOf(e, c), downstreamOf(f, c)],
        { limits: { maxEdges: 3 } },
      );
      const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 3 });
      // The read of hop 2 stopped within b's edges (the last it answered): b's may be cut too.
      expect(summary(result)).toEqual([
        { urn: b, degrees: [1], paths: [[a, b]], truncatedChildren: true },
        { urn: c, degrees: [1], paths: [[a, c]], truncatedChildren: true },
        { urn: d, degrees: [2], paths: [[a, b, d]] },
      ]);
      expect(result.truncation).toEqual(['EDGES']);
      expect(result.edgesRead).toBe(3);
    });

    it('stops when the time budget is spent, marking the entities not yet explored', async () => {
      const chain = [a, b, c, d];
      const { lineage, graph, scheduler } = service(
        chain.slice(1).map((urn, index) => downstreamOf(urn, chain[index] ?? '')),
        { limits: { timeBudgetMs: 1_000 } },
      );
      graph.onRead = () => {
        scheduler.time += 600;
      };
      const result = await lineage.walk({ urn: a, direction: 'DOWNSTREAM', maxHops: 3 });
      expect(summary(result)).toEqual([
        { urn: b, degrees: [1], paths: [[a, b]] },
        { urn: c, degrees: [2], paths: [[a, b, c]], truncatedChildren: true },
      ]);
      expect(result.truncation).toEqual(['TIME']);
    });

    it('answers a dense graph with cycles within its limits', async () => {
      const nodes = Array.from({ length: 400 }, (_, n) => ds(`n${String(n).padStart(3, '0')}`));
      // Every entity feeds the next 25 (wrapping around): 10,000 edges, cycles everywhere.
      const edges = nodes.flatMap((urn, n) =>
        Array.from({ length: 25 }, (_, k) => downstreamOf(nodes[(n + k + 1) % nodes.length] ?? '', urn)),
      );
      const { lineage } = service(edges, { limits: { maxNodes: 300, maxPathsPerNode: 5, maxPaths: 1_000 } });
      const result = await lineage.walk({ urn: nodes[0] ?? '', direction: 'DOWNSTREAM', maxHops: Infinity });
      expect(result.nodes.length).toBeLessThanOrEqual(300);
      expect(result.truncation).toEqual(expect.arrayContaining(['NODES', 'PATHS']));
      expect(result.nodes.every((node) => node.pathCount >= 1 && node.pathCount <= 5)).toBe(true);
      for (const node of result.nodes) {
        for (const path of node.paths()) expect(new Set(path).size).toBe(path.length);
      }
    });
  });

  it('refuses a URN that does not parse, hops below 1 and a window that ends before it starts', async () => {
    const { lineage } = service([]);
    await expect(lineage.walk({ urn: 'not a urn', direction: 'UPSTREAM', maxHops: 1 })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(lineage.walk({ urn: a, direction: 'UPSTREAM', maxHops: 0 })).rejects.toThrow(
      'maxHops must be at least 1',
    );
    await expect(
      lineage.walk({ urn: a, direction: 'UPSTREAM', maxHops: 1, window: { start: 2, end: 1 } }),
    ).rejects.toThrow('startTimeMillis 2 is after endTimeMillis 1');
  });
});

describe('LineageService.search', () => {
  const etl = job('etl');
  const edges = [
    downstreamOf(b, a),
    downstreamOf(c, b),
    downstreamOf(d, c),
    { source: etl, type: 'Consumes', destination: a },
  ];
  const request = (extra: Partial<LineageSearchRequest> = {}): LineageSearchRequest => ({
    urn: a,
    direction: 'DOWNSTREAM',
    entities: [],
    input: '*',
    filter: [],
    start: 0,
    count: 10,
    ...extra,
  });
  const urns = (answer: { hits: readonly { node: LineageNode }[] }): string[] => answer.hits.map((hit) => hit.node.urn);

  it('answers what lineage reaches and the catalog holds, by degree, with degree and type facets', async () => {
    const { lineage } = service(edges, { existing: [b, c, etl] });
    const answer = await lineage.search(request());
    expect(urns(answer)).toEqual([etl, b, c]);
    expect(answer.total).toBe(3);
    expect(answer.facets.slice(0, 2)).toEqual([
      { field: 'degree', displayName: 'Degree of Dependencies', counts: { '1': 2, '2': 1, '3+': 0 } },
      { field: 'entity', displayName: 'Type', counts: { dataJob: 1, dataset: 2 } },
    ]);
    expect(answer.facets[2]).toEqual({
      field: 'platform',
      displayName: 'Platform',
      counts: { 'urn:li:dataPlatform:hive': 3 },
    });
  });

  it('applies the degree criteria itself, and walks no further than they can match', async () => {
    const { lineage, graph } = service(edges);
    const second = await lineage.search(
      request({ filter: [[{ field: 'degree', values: ['2'], condition: 'EQUAL', negated: false }]] }),
    );
    expect(urns(second)).toEqual([c]);
    expect(graph.calls.every((call) => call.urns.every((urn) => urn !== c))).toBe(true);
    const far = await lineage.search(
      request({ filter: [[{ field: 'degree', values: ['3+'], condition: 'EQUAL', negated: false }]] }),
    );
    expect(urns(far)).toEqual([d]);
    await expect(
      lineage.search(request({ filter: [[{ field: 'degree', values: ['4'], condition: 'EQUAL', negated: false }]] })),
    ).rejects.toThrow('4 is not a valid filter value for degree filters');
  });

  it('honours every OR group of the filter, each with its own degree and search criteria', async () => {
    const { lineage } = service(edges);
    const answer = await lineage.search(
      request({
        filter: [
          [{ field: 'degree', values: ['1'], condition: 'EQUAL', negated: false }],
          [
            { field: 'degree', values: ['3+'], condition: 'EQUAL', negated: false },
            { field: 'platform', values: ['hive'], condition: 'EQUAL', negated: false },
          ],
        ],
      }),
    );
    expect(urns(answer)).toEqual([etl, b, d]);
  });

  it('narrows to entity types and query text, and pages in degree order', async () => {
    const { lineage, search } = service(edges);
    expect(urns(await lineage.search(request({ entities: ['dataset'] })))).toEqual([b, c, d]);
    const texted = await lineage.search(request({ input: ',c,' }));
    expect(urns(texted)).toEqual([c]);
    expect(texted.hits[0]?.matchedFields).toEqual([{ name: 'urn', value: c }]);
    const page = await lineage.search(request({ start: 1, count: 2 }));
    expect([urns(page), page.total]).toEqual([[b, c], 4]);
    expect(search.requests.every((sent) => sent.count <= 250)).toBe(true);
  });

  it('leaves soft-deleted entities out unless asked, and walks through them either way', async () => {
    const { lineage } = service(edges, { removed: [b] });
    expect(urns(await lineage.search(request()))).toEqual([etl, c, d]);
    expect(urns(await lineage.search(request({ includeSoftDeleted: true })))).toEqual([etl, b, c, d]);
  });

  it('reports the walk’s truncation', async () => {
    const { lineage } = service(edges, { limits: { maxHops: 1 } });
    const answer = await lineage.search(request());
    expect(answer.truncation).toEqual(['HOPS']);
    expect(answer.hits.find((hit) => hit.node.urn === b)?.node.truncatedChildren).toBe(true);
  });
});
