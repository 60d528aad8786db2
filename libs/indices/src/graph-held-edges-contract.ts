import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';

import { trackedIndices, type IndexUnderTest } from './contract-handles';
import type { GraphChange, GraphEdge, GraphIndex, HeldEdge, RelationshipDirection } from './graph-index';

/**
 * The contract of held edges ({@link GraphIndex.replaceHeldEdges}: edges an aspect implies between other entities, such
 * as column-level lineage) and of {@link GraphIndex.removeNode}, as one jest `describe` block;
 * `describeGraphIndexContract` runs it for every adapter. It assumes nothing beyond the port.
 */
export function describeGraphHeldEdgesContract(name: string, create: () => Promise<IndexUnderTest<GraphIndex>>): void {
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  /** A fresh URN; its number keeps URNs made later after earlier ones in code-point order. */
  const newUrn = (type = 'dataset'): string => {
    sequence += 1;
    return `urn:li:${type}:held-${runId}-${String(sequence).padStart(5, '0')}`;
  };
  /** A field of a fresh dataset (its URN sorts with the order it was made in). */
  const newField = (): string => newUrn('schemaField');
  const open = trackedIndices(create);

  async function all(index: GraphIndex, urn: string, direction: RelationshipDirection) {
    return index.relationships({ urn, direction, types: [], start: 0, count: 1000 });
  }

  /** Every relationship of every URN, both directions: what two indices are compared by. */
  async function snapshot(index: GraphIndex, urns: readonly string[]): Promise<unknown> {
    const views = [];
    for (const urn of urns) {
      views.push({ urn, out: await all(index, urn, 'OUTGOING'), in: await all(index, urn, 'INCOMING') });
    }
    return views;
  }

  const none = { total: 0, relationships: [] };

  describe(`${name} satisfies the GraphIndex contract: held edges and node removal`, () => {
    describe('held edges', () => {
      it('answers them as edges from their own source, in both directions, to neighbours and to a scroll', async () => {
        const { index } = await open();
        const dataset = newUrn();
        const [field, first, second] = [newField(), newField(), newField()];
        await index.replaceHeldEdges(dataset, 'upstreamLineage', [
          held(field, 'DownstreamOf', second),
          held(field, 'DownstreamOf', first, { createdAt: 4, createdBy: actor }),
        ]);

        expect(await all(index, field, 'OUTGOING')).toEqual({
          total: 2,
          relationships: [
            { type: 'DownstreamOf', entity: first, createdAt: 4, createdBy: actor },
            { type: 'DownstreamOf', entity: second },
          ],
        });
        expect(await all(index, second, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: field }],
        });
        // The holder is no end of them.
        expect(await all(index, dataset, 'OUTGOING')).toEqual(none);
        expect(await all(index, dataset, 'INCOMING')).toEqual(none);
        expect(
          await index.neighbours({ urns: [first, second], direction: 'INCOMING', types: ['DownstreamOf'], limit: 10 }),
        ).toEqual({
          edges: [
            { urn: first, type: 'DownstreamOf', entity: field, createdAt: 4, createdBy: actor },
            { urn: second, type: 'DownstreamOf', entity: field },
          ],
          truncated: false,
        });
        const scrolled = await index.scrollEdges({
          types: [],
          sourceTypes: [],
          destinationTypes: [],
          sourceUrns: [field],
          destinationUrns: [],
          count: 10,
        });
        expect(scrolled).toEqual({
          edges: [
            { source: field, type: 'DownstreamOf', destination: first, createdAt: 4, createdBy: actor },
            { source: field, type: 'DownstreamOf', destination: second },
          ],
          hasMore: false,
        });
      });

      it('replaces a holder’s aspect whole: a source it no longer names loses its edges', async () => {
        const { index } = await open();
        const dataset = newUrn();
        const [kept, dropped, upstream, other] = [newField(), newField(), newField(), newField()];
        await index.replaceHeldEdges(dataset, 'upstreamLineage', [
          held(kept, 'DownstreamOf', upstream),
          held(dropped, 'DownstreamOf', upstream),
        ]);
        await index.replaceHeldEdges(dataset, 'upstreamLineage', [held(kept, 'DownstreamOf', other)]);

        expect(await all(index, kept, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: other }],
        });
        expect(await all(index, dropped, 'OUTGOING')).toEqual(none);
        expect(await all(index, upstream, 'INCOMING')).toEqual(none);

        await index.replaceHeldEdges(dataset, 'upstreamLineage', []);
        expect(await all(index, kept, 'OUTGOING')).toEqual(none);
        expect(await all(index, other, 'INCOMING')).toEqual(none);
      });

      it('is idempotent, and stores an edge given twice in one call once, with the first occurrence’s stamp', async () => {
        const { index } = await open();
        const dataset = newUrn();
        const [field, upstream] = [newField(), newField()];
        const edges = [
          held(field, 'DownstreamOf', upstream, { createdAt: 7, createdBy: actor }),
          held(field, 'DownstreamOf', upstream, { createdAt: 3, createdBy: otherActor }),
        ];
        await index.replaceHeldEdges(dataset, 'upstreamLineage', edges);
        await index.replaceHeldEdges(dataset, 'upstreamLineage', edges);

        expect(await all(index, field, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: upstream, createdAt: 7, createdBy: actor }],
        });
      });

      it('keeps each holder’s aspects apart from another’s and from the source’s own: an edge stays until all stop', async () => {
        const { index } = await open();
        const [first, second] = [newUrn(), newUrn('dataJob')];
        const [field, upstream] = [newField(), newField()];
        await index.replaceHeldEdges(first, 'upstreamLineage', [
          held(field, 'DownstreamOf', upstream, { createdAt: 20, createdBy: otherActor }),
        ]);
        await index.replaceHeldEdges(second, 'dataJobInputOutput', [
          held(field, 'DownstreamOf', upstream, { createdAt: 10, createdBy: actor }),
        ]);
        await index.replaceHeldEdges(first, 'dataJobInputOutput', [held(field, 'DownstreamOf', upstream)]);
        // The field's own aspect of the same name implies it too.
        await index.replaceEdges(field, 'upstreamLineage', [edge('DownstreamOf', upstream)]);

        const only = (createdAt?: number, createdBy?: string) => ({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: upstream, ...stamp({ createdAt, createdBy }) }],
        });
        expect(await all(index, field, 'OUTGOING')).toEqual(only(10, actor));
        await index.replaceHeldEdges(second, 'dataJobInputOutput', []);
        expect(await all(index, field, 'OUTGOING')).toEqual(only(20, otherActor));
        await index.replaceHeldEdges(first, 'upstreamLineage', []);
        expect(await all(index, field, 'OUTGOING')).toEqual(only());
        await index.replaceEdges(field, 'upstreamLineage', []);
        expect(await all(index, field, 'OUTGOING')).toEqual(only());
        await index.replaceHeldEdges(first, 'dataJobInputOutput', []);
        expect(await all(index, field, 'OUTGOING')).toEqual(none);
        expect(await all(index, upstream, 'INCOMING')).toEqual(none);
      });

      it('goes with its holder’s removal, and stays when its source is removed', async () => {
        const { index } = await open();
        const [dataset, job] = [newUrn(), newUrn('dataJob')];
        const [field, other, upstream] = [newField(), newField(), newField()];
        const tag = newUrn('tag');
        await index.replaceHeldEdges(dataset, 'upstreamLineage', [held(field, 'DownstreamOf', upstream)]);
        await index.replaceHeldEdges(job, 'dataJobInputOutput', [held(other, 'DownstreamOf', upstream)]);
        await index.replaceEdges(field, 'globalTags', [edge('TaggedWith', tag)]);

        // The field's own aspects are gone; the dataset's lineage still names it.
        await index.removeEntity(field);
        expect(await all(index, field, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: upstream }],
        });
        expect(await all(index, tag, 'INCOMING')).toEqual(none);

        await index.removeEntity(dataset);
        expect(await all(index, field, 'OUTGOING')).toEqual(none);
        expect(await all(index, upstream, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: other }],
        });
      });

      it('applies a list mixing held replacements, replacements and removals as the calls one by one', async () => {
        const { index: batched, reopen } = await open();
        const { index: oneByOne } = await open();
        const [dataset, job, removed] = [newUrn(), newUrn('dataJob'), newUrn()];
        const [a, b, c, d] = [newField(), newField(), newField(), newField()];
        const changes: GraphChange[] = [
          heldReplacement(dataset, 'upstreamLineage', [held(a, 'DownstreamOf', b), held(c, 'DownstreamOf', d)]),
          heldReplacement(removed, 'upstreamLineage', [held(b, 'DownstreamOf', d)]),
          { kind: 'replaceEdges', source: a, aspect: 'globalTags', edges: [edge('TaggedWith', newUrn('tag'))] },
          heldReplacement(job, 'dataJobInputOutput', [held(a, 'DownstreamOf', b, { createdAt: 2, createdBy: actor })]),
          { kind: 'removeEntity', urn: removed },
          // Replaced twice in one list: the second wins.
          heldReplacement(dataset, 'upstreamLineage', [held(c, 'DownstreamOf', b)]),
          { kind: 'removeEntity', urn: a },
          heldReplacement(removed, 'upstreamLineage', [held(d, 'DownstreamOf', a)]),
        ];
        await batched.apply(changes);
        for (const change of changes) {
          if (change.kind === 'removeEntity') await oneByOne.removeEntity(change.urn);
          else if (change.kind === 'replaceEdges')
            await oneByOne.replaceEdges(change.source, change.aspect, change.edges);
          else await oneByOne.replaceHeldEdges(change.holder, change.aspect, change.edges);
        }

        const urns = [dataset, job, removed, a, b, c, d];
        const applied = await snapshot(batched, urns);
        expect(applied).toEqual(await snapshot(oneByOne, urns));
        expect(await all(batched, a, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: b, createdAt: 2, createdBy: actor }],
        });
        expect(await all(batched, b, 'INCOMING')).toEqual({
          total: 2,
          relationships: [
            { type: 'DownstreamOf', entity: a, createdAt: 2, createdBy: actor },
            { type: 'DownstreamOf', entity: c },
          ],
        });
        expect(await all(batched, d, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: a }],
        });

        await batched.apply(changes);
        expect(await snapshot(batched, urns)).toEqual(applied);
        await batched.close();
        expect(await snapshot(await reopen(), urns)).toEqual(applied);
      });

      it('are emptied by clear', async () => {
        const { index } = await open();
        const [field, upstream] = [newField(), newField()];
        await index.replaceHeldEdges(newUrn(), 'upstreamLineage', [held(field, 'DownstreamOf', upstream)]);
        await index.clear();
        expect(await all(index, field, 'OUTGOING')).toEqual(none);
        expect(await all(index, upstream, 'INCOMING')).toEqual(none);
      });
    });

    describe('removing a node', () => {
      async function fixture() {
        const { index } = await open();
        const [node, pointing, bystander, holder] = [newUrn(), newUrn(), newUrn(), newUrn()];
        const [owner, tag] = [newUrn('corpuser'), newUrn('tag')];
        const [upstream, field, other, far] = [newField(), newField(), newField(), newField()];
        await index.replaceEdges(node, 'ownership', [edge('OwnedBy', owner, 1, actor)]);
        await index.replaceEdges(node, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(pointing, 'upstreamLineage', [edge('DownstreamOf', node), edge('DownstreamOf', far)]);
        await index.replaceEdges(bystander, 'ownership', [edge('OwnedBy', owner)]);
        // Held by another entity: from the node, and to it.
        await index.replaceHeldEdges(holder, 'upstreamLineage', [
          held(node, 'DownstreamOf', upstream),
          held(field, 'DownstreamOf', node),
          held(field, 'DownstreamOf', other),
        ]);
        // Held by the node, between two other entities.
        await index.replaceHeldEdges(node, 'upstreamLineage', [held(other, 'DownstreamOf', far)]);
        return { index, node, pointing, bystander, owner, tag, upstream, field, other, far };
      }

      it('removes every edge from, to and held by the URN, whichever aspect implied it, and nothing else', async () => {
        const { index, node, pointing, bystander, owner, tag, upstream, field, other, far } = await fixture();

        await index.removeNode(node);

        expect(await all(index, node, 'OUTGOING')).toEqual(none);
        expect(await all(index, node, 'INCOMING')).toEqual(none);
        expect(await all(index, owner, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: bystander }],
        });
        expect(await all(index, tag, 'INCOMING')).toEqual(none);
        expect(await all(index, upstream, 'INCOMING')).toEqual(none);
        expect(await all(index, pointing, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: far }],
        });
        expect(await all(index, field, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: other }],
        });
        expect(await all(index, other, 'OUTGOING')).toEqual(none);
        expect(await all(index, far, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'DownstreamOf', entity: pointing }],
        });
      });

      it('is idempotent, changes nothing for an unknown URN, and a later write brings edges back', async () => {
        const { index, node, pointing, bystander, owner, tag, upstream, field, other, far } = await fixture();
        const urns = [node, pointing, bystander, owner, tag, upstream, field, other, far];
        const before = await snapshot(index, urns);
        await index.removeNode(newUrn());
        expect(await snapshot(index, urns)).toEqual(before);

        await index.removeNode(node);
        const removed = await snapshot(index, urns);
        await index.removeNode(node);
        expect(await snapshot(index, urns)).toEqual(removed);

        // The aspects are untouched: writing one again implies its edges again.
        await index.replaceEdges(node, 'ownership', [edge('OwnedBy', owner, 1, actor)]);
        expect(await all(index, node, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: owner, createdAt: 1, createdBy: actor }],
        });
      });
    });
  });
}

const actor = 'urn:li:corpuser:held-contract-writer';
const otherActor = 'urn:li:corpuser:held-contract-other-writer';

function stamp(stamps: { createdAt?: number | undefined; createdBy?: string | undefined }): Partial<GraphEdge> {
  return {
    ...(stamps.createdAt === undefined ? {} : { createdAt: stamps.createdAt }),
    ...(stamps.createdBy === undefined ? {} : { createdBy: stamps.createdBy }),
  };
}

function edge(type: string, destination: string, createdAt?: number, createdBy?: string): GraphEdge {
  return { type, destination, ...stamp({ createdAt, createdBy }) };
}

function held(
  source: string,
  type: string,
  destination: string,
  stamps: { createdAt?: number; createdBy?: string } = {},
): HeldEdge {
  return { source, type, destination, ...stamp(stamps) };
}

function heldReplacement(holder: string, aspect: string, edges: readonly HeldEdge[]): GraphChange {
  return { kind: 'replaceHeldEdges', holder, aspect, edges };
}
