import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@strata/model';

import { trackedIndices, type IndexUnderTest } from './contract-handles';
import type { GraphEdge, GraphIndex, Neighbour, NeighbourQuery } from './graph-index';

/**
 * The contract of {@link GraphIndex.neighbours}, as one jest `describe` block; `describeGraphIndexContract` runs it for
 * every adapter. It assumes nothing beyond the port: edges are written with `replaceEdges` and `apply`.
 */
export function describeGraphNeighboursContract(name: string, create: () => Promise<IndexUnderTest<GraphIndex>>): void {
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  /** A fresh URN; its number keeps URNs made later after earlier ones in code-point order. */
  const newUrn = (type = 'dataset'): string => {
    sequence += 1;
    return `urn:li:${type}:neighbours-${runId}-${String(sequence).padStart(5, '0')}`;
  };
  const open = trackedIndices(create);
  const query = (urns: readonly string[], extra: Partial<NeighbourQuery> = {}): NeighbourQuery => ({
    urns,
    direction: 'OUTGOING',
    types: [],
    limit: 1000,
    ...extra,
  });

  describe(`${name} satisfies the GraphIndex contract: neighbours`, () => {
    it('answers the edges of several URNs at once, one per (URN, type, other end), in that order', async () => {
      const { index } = await open();
      const [a, b, c, d] = [newUrn(), newUrn(), newUrn(), newUrn()];
      const job = newUrn('dataJob');
      await index.replaceEdges(b, 'upstreamLineage', [edge('DownstreamOf', c, { createdAt: 7, createdBy: actor })]);
      await index.replaceEdges(a, 'upstreamLineage', [edge('DownstreamOf', c), edge('DownstreamOf', b)]);
      await index.replaceEdges(a, 'ownership', [edge('OwnedBy', 'urn:li:corpuser:x')]);
      await index.replaceEdges(job, 'dataJobInputOutput', [edge('Consumes', a), edge('Produces', d)]);

      expect(await index.neighbours(query([b, a, d, b]))).toEqual({
        edges: [
          { urn: a, type: 'DownstreamOf', entity: b },
          { urn: a, type: 'DownstreamOf', entity: c },
          { urn: a, type: 'OwnedBy', entity: 'urn:li:corpuser:x' },
          { urn: b, type: 'DownstreamOf', entity: c, createdAt: 7, createdBy: actor },
        ],
        truncated: false,
      });
      expect(await index.neighbours(query([c, a, d], { direction: 'INCOMING' }))).toEqual({
        edges: [
          { urn: a, type: 'Consumes', entity: job },
          { urn: c, type: 'DownstreamOf', entity: a },
          { urn: c, type: 'DownstreamOf', entity: b, createdAt: 7, createdBy: actor },
          { urn: d, type: 'Produces', entity: job },
        ],
        truncated: false,
      });
      expect(await index.neighbours(query([a, job], { types: ['DownstreamOf', 'Produces', 'NoSuchType'] }))).toEqual({
        // `urn:li:dataJob:…` sorts before `urn:li:dataset:…` (code points: `J` before `s`).
        edges: [
          { urn: job, type: 'Produces', entity: d },
          { urn: a, type: 'DownstreamOf', entity: b },
          { urn: a, type: 'DownstreamOf', entity: c },
        ],
        truncated: false,
      });
      expect(await index.neighbours(query([]))).toEqual({ edges: [], truncated: false });
      expect(await index.neighbours(query([newUrn()]))).toEqual({ edges: [], truncated: false });
    });

    it('merges the aspects implying one edge: earliest creation, latest update, manual when any is', async () => {
      const { index } = await open();
      const [a, b] = [newUrn(), newUrn()];
      await index.apply([
        {
          kind: 'replaceEdges',
          source: a,
          aspect: 'upstreamLineage',
          edges: [edge('DownstreamOf', b, { createdAt: 20, createdBy: 'urn:li:corpuser:late', updatedAt: 50 })],
        },
        {
          kind: 'replaceEdges',
          source: a,
          aspect: 'editableUpstreamLineage',
          edges: [
            edge('DownstreamOf', b, {
              createdAt: 10,
              createdBy: 'urn:li:corpuser:early',
              updatedAt: 40,
              updatedBy: 'urn:li:corpuser:editor',
              manual: true,
            }),
          ],
        },
        {
          kind: 'replaceEdges',
          source: a,
          aspect: 'zLineage',
          edges: [edge('DownstreamOf', b, { updatedAt: 60, updatedBy: 'urn:li:corpuser:last' })],
        },
      ]);
      expect(await index.neighbours(query([a]))).toEqual({
        edges: [
          {
            urn: a,
            type: 'DownstreamOf',
            entity: b,
            createdAt: 10,
            createdBy: 'urn:li:corpuser:early',
            updatedAt: 60,
            updatedBy: 'urn:li:corpuser:last',
            manual: true,
          },
        ],
        truncated: false,
      });
      await index.replaceEdges(a, 'editableUpstreamLineage', []);
      await index.replaceEdges(a, 'zLineage', []);
      expect(await index.neighbours(query([b], { direction: 'INCOMING' }))).toEqual({
        edges: [
          { urn: b, type: 'DownstreamOf', entity: a, createdAt: 20, createdBy: 'urn:li:corpuser:late', updatedAt: 50 },
        ],
        truncated: false,
      });
    });

    it('answers the first `limit` edges in order, and says when more matched', async () => {
      const { index } = await open();
      const [a, b] = [newUrn(), newUrn()];
      const [t0, t1, t2] = [newUrn(), newUrn(), newUrn()];
      const label = new Map([
        [t0, '0'],
        [t1, '1'],
        [t2, '2'],
      ]);
      await index.replaceEdges(
        a,
        'upstreamLineage',
        [t0, t1, t2].map((target) => edge('DownstreamOf', target)),
      );
      // An edge two aspects imply counts once towards the limit.
      await index.replaceEdges(a, 'editableUpstreamLineage', [edge('DownstreamOf', t0)]);
      await index.replaceEdges(b, 'upstreamLineage', [edge('DownstreamOf', t2)]);
      const entities = async (limit: number): Promise<[string[], boolean]> => {
        const page = await index.neighbours(query([a, b], { limit }));
        const found = page.edges.map(
          (neighbour) => `${neighbour.urn === a ? 'a' : 'b'}→${label.get(neighbour.entity)}`,
        );
        return [found, page.truncated];
      };
      expect(await entities(4)).toEqual([['a→0', 'a→1', 'a→2', 'b→2'], false]);
      expect(await entities(5)).toEqual([['a→0', 'a→1', 'a→2', 'b→2'], false]);
      expect(await entities(3)).toEqual([['a→0', 'a→1', 'a→2'], true]);
      expect(await entities(1)).toEqual([['a→0'], true]);
      expect(await entities(0)).toEqual([[], true]);
      expect(await index.neighbours(query([newUrn()], { limit: 0 }))).toEqual({ edges: [], truncated: false });
    });

    it('keeps, in a window, the edges created or updated in it, those of no time, and manual ones', async () => {
      const { index } = await open();
      const a = newUrn();
      const targets = {
        created: { urn: newUrn(), stamps: { createdAt: 150 } },
        updated: { urn: newUrn(), stamps: { createdAt: 50, updatedAt: 200 } },
        timeless: { urn: newUrn(), stamps: {} },
        zero: { urn: newUrn(), stamps: { createdAt: 0, updatedAt: 0 } },
        manual: { urn: newUrn(), stamps: { createdAt: 10, updatedAt: 20, manual: true } },
        before: { urn: newUrn(), stamps: { createdAt: 10, updatedAt: 99 } },
        after: { urn: newUrn(), stamps: { createdAt: 201, updatedAt: 300 } },
      };
      const named = Object.entries(targets);
      await index.replaceEdges(
        a,
        'upstreamLineage',
        named.map(([, target]) => edge('DownstreamOf', target.urn, target.stamps)),
      );
      const names = new Map(named.map(([name, target]) => [target.urn, name]));
      const kept = async (window: NeighbourQuery['window']): Promise<(string | undefined)[]> =>
        (await index.neighbours(query([a], window === undefined ? {} : { window }))).edges.map((found) =>
          names.get(found.entity),
        );
      expect(await kept({ start: 100, end: 200 })).toEqual(['created', 'updated', 'timeless', 'zero', 'manual']);
      expect(await kept({ start: 150, end: 150 })).toEqual(['created', 'timeless', 'zero', 'manual']);
      expect(await kept({ start: 250 })).toEqual(['timeless', 'zero', 'manual', 'after']);
      expect(await kept({ end: 15 })).toEqual(['timeless', 'zero', 'manual', 'before']);
      expect(await kept(undefined)).toHaveLength(7);
    });

    it('reads many URNs, over several chunks, in one call, in order', async () => {
      const { index } = await open();
      const sources = Array.from({ length: 1_201 }, () => newUrn());
      const target = newUrn();
      await index.apply(
        sources.map((source) => ({
          kind: 'replaceEdges',
          source,
          aspect: 'upstreamLineage',
          edges: [edge('DownstreamOf', target)],
        })),
      );
      const all = await index.neighbours(query([...sources].reverse(), { limit: 2_000 }));
      expect(all.truncated).toBe(false);
      expect(all.edges.map((found) => found.urn)).toEqual(sources);
      const cut = await index.neighbours(query(sources, { limit: 700 }));
      expect(cut.edges.map((found) => found.urn)).toEqual(sources.slice(0, 700));
      expect(cut.truncated).toBe(true);
      const incoming = await index.neighbours(query([target], { direction: 'INCOMING', limit: 2_000 }));
      expect(incoming.edges.map((found: Neighbour) => found.entity)).toEqual(sources);
    });

    it('refuses a bad direction, limit or window with ValidationError', async () => {
      const { index } = await open();
      const urns = [newUrn()];
      for (const bad of [
        query(urns, { direction: 'SIDEWAYS' as 'OUTGOING' }),
        query(urns, { limit: -1 }),
        query(urns, { limit: 1.5 }),
        query(urns, { window: { start: 2, end: 1 } }),
        query(urns, { window: { start: 0.5 } }),
      ]) {
        await expect(index.neighbours(bad)).rejects.toBeInstanceOf(ValidationError);
      }
    });
  });
}

const actor = 'urn:li:corpuser:neighbours-writer';

function edge(type: string, destination: string, stamps: Omit<GraphEdge, 'type' | 'destination'> = {}): GraphEdge {
  return { type, destination, ...stamps };
}
