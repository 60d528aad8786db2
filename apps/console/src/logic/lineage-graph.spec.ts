import {
  buildLineageGraph,
  columnEdgesOf,
  columnEnd,
  entityFromUrn,
  hopKey,
  HOP_PAGE_SIZE,
  layoutInput,
  layoutLineage,
  MAX_NODE_COLUMNS,
  NODE_COLUMN_HEIGHT,
  NODE_CUT_HEIGHT,
  NODE_HEAD_HEIGHT,
  NODE_WIDTH,
  reachKey,
  simpleFieldPath,
  type Expansion,
  type FineGrainedEntry,
  type HopAnswer,
  type LineageAnswers,
  type LineageEntity,
  type LineageGraph,
  type LineageRequest,
  type ReachAnswer,
} from './lineage-graph';

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const field = (dataset: string, path: string) => `urn:li:schemaField:(${dataset},${path})`;
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load)';

const CENTER = ds('center');
const A = ds('a');
const B = ds('b');
const C = ds('c');
const D = ds('d');

function entity(urn: string, more: Partial<LineageEntity> = {}): LineageEntity {
  return {
    urn,
    type: urn.startsWith('urn:li:dataJob') ? 'dataJob' : 'dataset',
    name: `${urn.split(',')[1] ?? urn}!`,
    ...more,
  };
}

function hop(
  urn: string,
  direction: 'UPSTREAM' | 'DOWNSTREAM',
  neighbours: readonly LineageEntity[],
  page: { start?: number; total?: number; filtered?: number } = {},
): HopAnswer {
  return {
    urn,
    direction,
    start: page.start ?? 0,
    count: neighbours.length,
    total: page.total ?? neighbours.length,
    filtered: page.filtered ?? 0,
    relationships: neighbours.map((neighbour) => ({ type: 'DownstreamOf', entity: neighbour })),
  };
}

function answersOf(
  hops: readonly HopAnswer[],
  more: { center?: LineageEntity | null; reaches?: ReachAnswer[]; fineGrained?: [string, FineGrainedEntry[]][] } = {},
): LineageAnswers {
  return {
    center: more.center === undefined ? entity(CENTER) : more.center,
    hops: new Map(hops.map((answer) => [hopKey(answer.urn, answer.direction, answer.start), answer])),
    reaches: new Map(
      (more.reaches ?? []).map((answer) => [reachKey(answer.direction, answer.hops, answer.start), answer]),
    ),
    fineGrained: new Map(more.fineGrained ?? []),
  };
}

function request(expansions: readonly Expansion[], more: Partial<LineageRequest> = {}): LineageRequest {
  return {
    center: CENTER,
    expansions: [
      { urn: CENTER, direction: 'UPSTREAM', pages: 1 },
      { urn: CENTER, direction: 'DOWNSTREAM', pages: 1 },
      ...expansions,
    ],
    columns: false,
    ...more,
  };
}

function edgesOf(graph: LineageGraph): string[] {
  const short = (urn: string) => urn.split(',')[1] ?? urn;
  return graph.edges.map((edge) => `${short(edge.source)}->${short(edge.target)}`).sort();
}

function node(graph: LineageGraph, urn: string) {
  const found = graph.nodes.find((candidate) => candidate.entity.urn === urn);
  if (found === undefined) throw new Error(`no node ${urn}`);
  return found;
}

describe('buildLineageGraph', () => {
  it('starts from the centre one hop each way, and says what it still needs', () => {
    const empty = buildLineageGraph(request([]), {
      hops: new Map(),
      reaches: new Map(),
      fineGrained: new Map(),
    });
    expect(empty.nodes.map((item) => item.entity)).toEqual([entityFromUrn(CENTER)]);
    expect(empty.nodes[0]?.isCenter).toBe(true);
    expect(empty.nodes[0]?.upstream).toMatchObject({ expanded: true, loading: true });
    expect(empty.missing).toEqual([
      { kind: 'center', urn: CENTER },
      { kind: 'hop', urn: CENTER, direction: 'UPSTREAM', start: 0 },
      { kind: 'hop', urn: CENTER, direction: 'DOWNSTREAM', start: 0 },
    ]);

    const graph = buildLineageGraph(
      request([]),
      answersOf([hop(CENTER, 'UPSTREAM', [entity(A), entity(B)]), hop(CENTER, 'DOWNSTREAM', [entity(C)])]),
    );
    expect(graph.missing).toEqual([]);
    expect(graph.nodes.map((item) => item.entity.urn)).toEqual([CENTER, A, B, C]);
    expect(edgesOf(graph)).toEqual(['a->center', 'b->center', 'center->c']);
    expect(graph.edges.find((edge) => edge.source === A)?.types).toEqual(['DownstreamOf']);
    expect(node(graph, CENTER).upstream).toEqual({ expanded: true, loading: false, known: 2, shown: 2, filtered: 0 });
  });

  it('merges an expansion into the graph: an entity already shown is not added again, its edge is drawn', () => {
    const graph = buildLineageGraph(
      request([{ urn: A, direction: 'UPSTREAM', pages: 1 }]),
      answersOf([
        hop(CENTER, 'UPSTREAM', [entity(A), entity(B)]),
        hop(CENTER, 'DOWNSTREAM', []),
        hop(A, 'UPSTREAM', [entity(B), entity(D)]),
      ]),
    );
    expect(graph.nodes.map((item) => item.entity.urn)).toEqual([CENTER, A, B, D]);
    expect(edgesOf(graph)).toEqual(['a->center', 'b->a', 'b->center', 'd->a']);
  });

  it('draws the edges that fetched entities know between entities shown, so every path among them appears', () => {
    const b = entity(B, {
      upstream: { total: 1, filtered: 0, urns: [A] },
      downstream: { total: 2, filtered: 0, urns: [CENTER, C] },
    });
    const graph = buildLineageGraph(
      request([]),
      answersOf([hop(CENTER, 'UPSTREAM', [entity(A), b]), hop(CENTER, 'DOWNSTREAM', [entity(C)])]),
    );
    // a -> b (b's upstream) and b -> c (b's downstream, a path that does not pass through the centre).
    expect(edgesOf(graph)).toEqual(['a->b', 'a->center', 'b->c', 'b->center', 'center->c']);
    expect(node(graph, B).upstream).toMatchObject({ known: 1, shown: 1, expanded: false });
  });

  it('applies expansions in any order, once the entity they expand is shown (a view rebuilt from a link)', () => {
    const expansions: Expansion[] = [
      { urn: D, direction: 'UPSTREAM', pages: 1 },
      { urn: A, direction: 'UPSTREAM', pages: 1 },
    ];
    const answers = answersOf([
      hop(CENTER, 'UPSTREAM', [entity(A)]),
      hop(CENTER, 'DOWNSTREAM', []),
      hop(A, 'UPSTREAM', [entity(D)]),
      hop(D, 'UPSTREAM', [entity(B)]),
    ]);
    const graph = buildLineageGraph(request(expansions), answers);
    expect(edgesOf(graph)).toEqual(['a->center', 'b->d', 'd->a']);
    expect(graph.missing).toEqual([]);

    // Before A's answer, D is not shown: its expansion is asked all the same (after those of shown entities), so a
    // link's view is rebuilt in one round; it is drawn once D is reached.
    const partial = buildLineageGraph(
      request(expansions),
      answersOf([hop(CENTER, 'UPSTREAM', [entity(A)]), hop(CENTER, 'DOWNSTREAM', []), hop(D, 'UPSTREAM', [entity(B)])]),
    );
    expect(partial.missing).toEqual([{ kind: 'hop', urn: A, direction: 'UPSTREAM', start: 0 }]);
    expect(partial.nodes.map((item) => item.entity.urn)).toEqual([CENTER, A]);
    const none = buildLineageGraph(request(expansions), answersOf([]));
    expect(none.missing.map((fetch) => (fetch.kind === 'hop' ? fetch.urn : fetch.kind))).toEqual([
      CENTER,
      CENTER,
      D,
      A,
    ]);
  });

  it('drops what only a collapsed expansion reached', () => {
    const answers = answersOf([
      hop(CENTER, 'UPSTREAM', [entity(A)]),
      hop(CENTER, 'DOWNSTREAM', []),
      hop(A, 'UPSTREAM', [entity(D)]),
    ]);
    const collapsed = buildLineageGraph(request([{ urn: A, direction: 'UPSTREAM', pages: 0 }]), answers);
    expect(collapsed.nodes.map((item) => item.entity.urn)).toEqual([CENTER, A]);
    expect(node(collapsed, A).upstream.expanded).toBe(false);
  });

  it('draws cycles (each edge once, no self-loop)', () => {
    const graph = buildLineageGraph(
      request([
        { urn: A, direction: 'DOWNSTREAM', pages: 1 },
        { urn: B, direction: 'DOWNSTREAM', pages: 1 },
      ]),
      answersOf([
        hop(CENTER, 'UPSTREAM', []),
        hop(CENTER, 'DOWNSTREAM', [entity(A)]),
        hop(A, 'DOWNSTREAM', [entity(B), entity(A)]),
        hop(B, 'DOWNSTREAM', [entity(A), entity(CENTER)]),
      ]),
    );
    expect(graph.nodes).toHaveLength(3);
    expect(edgesOf(graph)).toEqual(['a->b', 'b->a', 'b->center', 'center->a']);
    const positions = layoutLineage(layoutInput(graph, false));
    expect([...positions.keys()].sort()).toEqual([A, B, CENTER].sort());
  });

  it('marks a page that left neighbours out, and shows the next page when asked', () => {
    const first = Array.from({ length: HOP_PAGE_SIZE }, (_, index) => entity(ds(`up${index}`)));
    const second = [entity(ds('up20')), entity(ds('up21'))];
    const one = buildLineageGraph(
      request([]),
      answersOf([hop(CENTER, 'UPSTREAM', first, { total: 23, filtered: 1 }), hop(CENTER, 'DOWNSTREAM', [])]),
    );
    expect(node(one, CENTER).cuts).toEqual([{ direction: 'UPSTREAM', kind: 'page', hidden: 3 }]);
    expect(node(one, CENTER).upstream).toEqual({ expanded: true, loading: false, known: 22, shown: 20, filtered: 1 });

    const expansions: Expansion[] = [{ urn: CENTER, direction: 'UPSTREAM', pages: 2 }];
    const twoRequest: LineageRequest = { center: CENTER, expansions, columns: false };
    const loading = buildLineageGraph(twoRequest, answersOf([hop(CENTER, 'UPSTREAM', first, { total: 23 })]));
    expect(loading.missing).toEqual([{ kind: 'hop', urn: CENTER, direction: 'UPSTREAM', start: HOP_PAGE_SIZE }]);
    expect(node(loading, CENTER).cuts).toEqual([]);
    expect(node(loading, CENTER).upstream.loading).toBe(true);

    const two = buildLineageGraph(
      twoRequest,
      answersOf([
        hop(CENTER, 'UPSTREAM', first, { total: 23 }),
        hop(CENTER, 'UPSTREAM', second, { start: HOP_PAGE_SIZE, total: 23, filtered: 1 }),
      ]),
    );
    expect(two.nodes).toHaveLength(23);
    expect(node(two, CENTER).cuts).toEqual([{ direction: 'UPSTREAM', kind: 'page', hidden: 1 }]);
  });

  describe('"expand all"', () => {
    const reach = (direction: 'UPSTREAM' | 'DOWNSTREAM', answer: Partial<ReachAnswer>): ReachAnswer => ({
      direction,
      hops: 2,
      start: 0,
      total: answer.results?.length ?? 0,
      isPartial: false,
      results: [],
      ...answer,
    });

    it('draws every path of the walk, each entity once', () => {
      const graph = buildLineageGraph(
        request([], { reach: { hops: 2, pages: 1 } }),
        answersOf([hop(CENTER, 'UPSTREAM', [entity(A)]), hop(CENTER, 'DOWNSTREAM', [])], {
          reaches: [
            reach('UPSTREAM', {
              results: [
                { entity: entity(A), degree: 1, truncatedChildren: false, paths: [[CENTER, A]] },
                { entity: entity(B), degree: 1, truncatedChildren: false, paths: [[CENTER, B]] },
                {
                  entity: entity(D),
                  degree: 2,
                  truncatedChildren: false,
                  paths: [
                    [CENTER, A, D],
                    [CENTER, B, D],
                  ],
                },
              ],
            }),
            reach('DOWNSTREAM', {
              results: [{ entity: entity(C), degree: 2, truncatedChildren: false, paths: [[CENTER, JOB, C]] }],
            }),
          ],
        }),
      );
      expect(graph.edges.map((edge) => `${edge.source}>${edge.target}`).sort()).toEqual(
        [`${A}>${CENTER}`, `${B}>${CENTER}`, `${CENTER}>${JOB}`, `${D}>${A}`, `${D}>${B}`, `${JOB}>${C}`].sort(),
      );
      // The job was reached by a path only: it is shown from its URN.
      expect(node(graph, JOB).entity).toMatchObject({
        type: 'dataJob',
        name: 'load',
        platform: 'airflow',
        partial: true,
      });
      // A fetched entity is not replaced by a path's URN-only one.
      expect(node(graph, A).entity.name).toBe('a!');
      expect(graph.missing).toEqual([]);
    });

    it('never makes up an edge across an entity the API could not describe', () => {
      const graph = buildLineageGraph(
        request([], { reach: { hops: 'all', pages: 1 } }),
        answersOf([hop(CENTER, 'UPSTREAM', []), hop(CENTER, 'DOWNSTREAM', [])], {
          reaches: [
            {
              ...reach('UPSTREAM', {
                results: [{ entity: entity(D), degree: 2, truncatedChildren: false, paths: [[CENTER, null, D]] }],
              }),
              hops: 'all',
            },
          ],
        }),
      );
      expect(graph.edges).toEqual([]);
      expect(graph.nodes.map((item) => item.entity.urn)).toEqual([CENTER, D]);
    });

    it('marks where the walk was cut: more results, a server limit, children left unread, the hop limit', () => {
      const d = entity(D, { upstream: { total: 3, filtered: 0, urns: [ds('x'), ds('y'), ds('z')] } });
      const graph = buildLineageGraph(
        request([], { reach: { hops: 2, pages: 1 } }),
        answersOf([hop(CENTER, 'UPSTREAM', [entity(A)]), hop(CENTER, 'DOWNSTREAM', [])], {
          reaches: [
            reach('UPSTREAM', {
              total: 250,
              isPartial: true,
              results: [
                { entity: entity(A), degree: 1, truncatedChildren: true, paths: [[CENTER, A]] },
                { entity: d, degree: 2, truncatedChildren: false, paths: [[CENTER, A, D]] },
              ],
            }),
            reach('DOWNSTREAM', { results: [] }),
          ],
        }),
      );
      expect(node(graph, CENTER).cuts).toEqual([
        { direction: 'UPSTREAM', kind: 'limits' },
        { direction: 'UPSTREAM', kind: 'reach', hidden: 248 },
      ]);
      expect(node(graph, A).cuts).toEqual([{ direction: 'UPSTREAM', kind: 'limits' }]);
      expect(node(graph, D).cuts).toEqual([{ direction: 'UPSTREAM', kind: 'hops', hidden: 3 }]);

      // Expanding the entity at the hop limit lifts its mark.
      const expanded = buildLineageGraph(
        request([{ urn: D, direction: 'UPSTREAM', pages: 1 }], { reach: { hops: 2, pages: 1 } }),
        answersOf(
          [
            hop(CENTER, 'UPSTREAM', [entity(A)]),
            hop(CENTER, 'DOWNSTREAM', []),
            hop(D, 'UPSTREAM', [entity(ds('x'))], { total: 3 }),
          ],
          {
            reaches: [
              reach('UPSTREAM', {
                results: [{ entity: d, degree: 2, truncatedChildren: false, paths: [[CENTER, A, D]] }],
              }),
              reach('DOWNSTREAM', {}),
            ],
          },
        ),
      );
      expect(node(expanded, D).cuts).toEqual([{ direction: 'UPSTREAM', kind: 'page', hidden: 2 }]);
    });

    it('asks the pages of the walk it lacks', () => {
      const graph = buildLineageGraph(
        request([], { reach: { hops: 'all', pages: 2 } }),
        answersOf([hop(CENTER, 'UPSTREAM', []), hop(CENTER, 'DOWNSTREAM', [])]),
      );
      expect(graph.missing).toEqual([
        { kind: 'reach', direction: 'UPSTREAM', hops: 'all', start: 0 },
        { kind: 'reach', direction: 'UPSTREAM', hops: 'all', start: 100 },
        { kind: 'reach', direction: 'DOWNSTREAM', hops: 'all', start: 0 },
        { kind: 'reach', direction: 'DOWNSTREAM', hops: 'all', start: 100 },
      ]);
    });
  });

  describe('column-level edges', () => {
    const centerLineage: FineGrainedEntry[] = [
      { upstreams: [field(A, 'id')], downstreams: [field(CENTER, 'id')], transform: 'IDENTITY' },
      { upstreams: [field(A, 'x'), field(B, 'y')], downstreams: [field(CENTER, 'xy')], transform: 'JOIN' },
      { upstreams: [field(D, 'gone')], downstreams: [field(CENTER, 'id')] },
    ];

    it('draws the edges of fine-grained lineage between shown datasets, and their columns inside the nodes', () => {
      const graph = buildLineageGraph(
        request([], { columns: true }),
        answersOf(
          [
            hop(CENTER, 'UPSTREAM', [entity(A, { fineGrained: [] }), entity(B, { fineGrained: [] })]),
            hop(CENTER, 'DOWNSTREAM', [
              entity(JOB, { fineGrained: [{ upstreams: [field(CENTER, 'id')], downstreams: [field(C, 'key')] }] }),
              entity(C, { fineGrained: [] }),
            ]),
          ],
          { center: entity(CENTER, { fineGrained: centerLineage }) },
        ),
      );
      expect(graph.missing).toEqual([]);
      expect(
        graph.columnEdges.map((edge) => `${edge.source.field}>${edge.target.field}:${edge.transforms.join('|')}`),
      ).toEqual(['id>id:IDENTITY', 'x>xy:JOIN', 'y>xy:JOIN', 'id>key:']);
      expect(node(graph, CENTER).columns).toEqual(['id', 'xy']);
      expect(node(graph, A).columns).toEqual(['id', 'x']);
      expect(node(graph, C).columns).toEqual(['key']);
      expect(node(graph, JOB).columns).toEqual([]);
    });

    it('asks the fine-grained lineage of shown datasets and jobs fetched without it, only with columns on', () => {
      const answers = answersOf([hop(CENTER, 'UPSTREAM', [entity(A)]), hop(CENTER, 'DOWNSTREAM', [entity(JOB)])], {
        fineGrained: [[A, []]],
      });
      expect(buildLineageGraph(request([]), answers).missing).toEqual([]);
      expect(buildLineageGraph(request([], { columns: true }), answers).missing).toEqual([
        { kind: 'fineGrained', urn: CENTER },
        { kind: 'fineGrained', urn: JOB },
      ]);
    });

    it('uses fine-grained lineage fetched apart from the entity', () => {
      const graph = buildLineageGraph(
        request([], { columns: true }),
        answersOf([hop(CENTER, 'UPSTREAM', [entity(A, { fineGrained: [] })]), hop(CENTER, 'DOWNSTREAM', [])], {
          fineGrained: [[CENTER, centerLineage]],
        }),
      );
      expect(graph.columnEdges).toHaveLength(2);
    });

    it('caps the columns drawn in a node and counts the rest', () => {
      const many: FineGrainedEntry[] = Array.from({ length: MAX_NODE_COLUMNS + 5 }, (_, index) => ({
        upstreams: [field(A, `c${index}`)],
        downstreams: [field(CENTER, `c${index}`)],
      }));
      const graph = buildLineageGraph(
        request([], { columns: true }),
        answersOf([hop(CENTER, 'UPSTREAM', [entity(A, { fineGrained: [] })]), hop(CENTER, 'DOWNSTREAM', [])], {
          center: entity(CENTER, { fineGrained: many }),
        }),
      );
      expect(node(graph, CENTER).columns).toHaveLength(MAX_NODE_COLUMNS);
      expect(node(graph, CENTER).hiddenColumns).toBe(5);
      expect(graph.columnEdges).toHaveLength(MAX_NODE_COLUMNS + 5);
    });
  });
});

describe('columnEdgesOf', () => {
  it('makes an edge from each upstream to each downstream; an entry without either ends the list', () => {
    const edges = columnEdgesOf([
      { upstreams: [field(A, 'a'), A], downstreams: [field(B, 'b1'), field(B, 'b2')], transform: 'SUM' },
      { upstreams: [], downstreams: [field(B, 'b3')] },
      { upstreams: [field(A, 'a')], downstreams: [field(B, 'b4')] },
    ]);
    expect(edges.map((edge) => [edge.source, edge.target, edge.transforms])).toEqual([
      [{ urn: A, field: 'a' }, { urn: B, field: 'b1' }, ['SUM']],
      [{ urn: A }, { urn: B, field: 'b1' }, ['SUM']],
      [{ urn: A, field: 'a' }, { urn: B, field: 'b2' }, ['SUM']],
      [{ urn: A }, { urn: B, field: 'b2' }, ['SUM']],
    ]);
  });
});

describe('columnEnd and simpleFieldPath', () => {
  it('reads a schema field URN as its dataset and field path (commas and v2 paths included)', () => {
    expect(columnEnd(field(A, 'a,b'))).toEqual({ urn: A, field: 'a,b' });
    expect(columnEnd(A)).toEqual({ urn: A });
    expect(columnEnd('not a urn')).toBeUndefined();
    expect(columnEnd('urn:li:schemaField:(nope)')).toBeUndefined();
    expect(simpleFieldPath('[version=2.0].[type=struct].address.[type=string].zip')).toBe('address.zip');
    expect(simpleFieldPath('plain')).toBe('plain');
  });
});

describe('layout', () => {
  const graph = buildLineageGraph(
    request([{ urn: A, direction: 'UPSTREAM', pages: 1 }], { columns: true }),
    answersOf(
      [
        hop(CENTER, 'UPSTREAM', [entity(A, { fineGrained: [] })]),
        hop(CENTER, 'DOWNSTREAM', [entity(C, { fineGrained: [] })]),
        hop(A, 'UPSTREAM', [entity(D, { fineGrained: [] })], { total: 5 }),
      ],
      {
        center: entity(CENTER, {
          fineGrained: [{ upstreams: [field(A, 'k')], downstreams: [field(CENTER, 'k'), field(CENTER, 'l')] }],
        }),
      },
    ),
  );

  it('sizes each node by its head, its cut marks and its columns', () => {
    const input = layoutInput(graph, true);
    const heights = Object.fromEntries(input.nodes.map((item) => [item.id, item.height]));
    expect(input.nodes.every((item) => item.width === NODE_WIDTH)).toBe(true);
    expect(heights[CENTER]).toBe(NODE_HEAD_HEIGHT + 2 * NODE_COLUMN_HEIGHT + 8);
    expect(heights[A]).toBe(NODE_HEAD_HEIGHT + NODE_CUT_HEIGHT + NODE_COLUMN_HEIGHT + 8);
    expect(heights[D]).toBe(NODE_HEAD_HEIGHT);
    expect(layoutInput(graph, false).nodes.find((item) => item.id === CENTER)?.height).toBe(NODE_HEAD_HEIGHT);
    expect(input.edges).toEqual(
      expect.arrayContaining([
        { source: D, target: A },
        { source: A, target: CENTER },
        { source: CENTER, target: C },
      ]),
    );
  });

  it('lays out left to right: upstream left of the centre, downstream right of it, without overlaps', () => {
    const positions = layoutLineage(layoutInput(graph, true));
    const x = (urn: string) => positions.get(urn)?.x ?? Number.NaN;
    expect(x(D)).toBeLessThan(x(A));
    expect(x(A)).toBeLessThan(x(CENTER));
    expect(x(CENTER)).toBeLessThan(x(C));
    expect(x(A) + NODE_WIDTH).toBeLessThan(x(CENTER));
  });
});
