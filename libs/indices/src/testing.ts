import { randomUUID } from 'node:crypto';

import { describe, expect, it } from '@jest/globals';
import { ValidationError } from '@strata/model';

import { trackedIndices, type IndexUnderTest } from './contract-handles';
import { describeGraphHeldEdgesContract } from './graph-held-edges-contract';
import { describeGraphNeighboursContract } from './graph-neighbours-contract';
import {
  MAX_EDGE_SCROLL_COUNT,
  type EdgeScrollQuery,
  type GraphChange,
  type GraphEdge,
  type GraphIndex,
  type Relationship,
  type RelationshipQuery,
  type ScrolledEdge,
} from './graph-index';

/** What {@link describeGraphIndexContract} needs from an adapter. */
export interface GraphIndexContractFactory {
  /**
   * Opens an index for one test. Called once per test; the suite closes what it returns, then calls `dispose`. The
   * suite uses URNs unique to the run, so an index need not start empty; but its `clear` tests empty the whole index,
   * so each test's must be its own (a new file; on a shared cluster, an index under a prefix of the test's own).
   */
  create(): Promise<GraphIndexUnderTest>;
}

/** One test's index, and how to reach the same data again. */
export type GraphIndexUnderTest = IndexUnderTest<GraphIndex>;

/**
 * The graph-index contract (the invariants stated on {@link GraphIndex}), as one jest `describe` block to run against
 * every adapter: `describeGraphIndexContract('SqliteGraphIndex', { create: async () => … })`. It assumes nothing
 * beyond the port: every read goes through `relationships`.
 */
export function describeGraphIndexContract(name: string, factory: GraphIndexContractFactory): void {
  // Per-run prefix, so that URNs never collide with data an earlier run left in a shared engine.
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;

  function newUrn(type = 'dataset'): string {
    sequence += 1;
    return `urn:li:${type}:contract-${runId}-${String(sequence).padStart(4, '0')}`;
  }

  const open = trackedIndices(() => factory.create());
  describeGraphNeighboursContract(name, () => factory.create());
  describeGraphHeldEdgesContract(name, () => factory.create());

  /** Every relationship of `urn` in one direction (all types, one large page). */
  async function all(
    index: GraphIndex,
    urn: string,
    direction: RelationshipQuery['direction'],
    types: readonly string[] = [],
  ): Promise<{ total: number; relationships: Relationship[] }> {
    return index.relationships({ urn, direction, types, start: 0, count: 1000 });
  }

  describe(`${name} satisfies the GraphIndex contract`, () => {
    describe('directions', () => {
      it('answers OUTGOING with the destinations of the edges the urn is the source of', async () => {
        const { index } = await open();
        const dataset = newUrn();
        const [owner, tag] = [newUrn('corpuser'), newUrn('tag')];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner, 10, actor)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', tag)]);

        expect(await all(index, dataset, 'OUTGOING')).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: owner, createdAt: 10, createdBy: actor },
            { type: 'TaggedWith', entity: tag },
          ],
        });
      });

      it('answers INCOMING with the sources of the edges pointing to the urn', async () => {
        const { index } = await open();
        const [first, second] = [newUrn(), newUrn()];
        const owner = newUrn('corpuser');
        await index.replaceEdges(second, 'ownership', [edge('OwnedBy', owner)]);
        await index.replaceEdges(first, 'ownership', [edge('OwnedBy', owner)]);

        expect(await all(index, owner, 'INCOMING')).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: first },
            { type: 'OwnedBy', entity: second },
          ],
        });
        expect(await all(index, owner, 'OUTGOING')).toEqual({ total: 0, relationships: [] });
        expect(await all(index, first, 'INCOMING')).toEqual({ total: 0, relationships: [] });
      });

      it('answers total 0 and no relationships for a URN it has never seen', async () => {
        const { index } = await open();
        await index.replaceEdges(newUrn(), 'ownership', [edge('OwnedBy', newUrn('corpuser'))]);
        const unknown = newUrn();

        expect(await all(index, unknown, 'OUTGOING')).toEqual({ total: 0, relationships: [] });
        expect(await all(index, unknown, 'INCOMING')).toEqual({ total: 0, relationships: [] });
      });
    });

    describe('type filter', () => {
      async function fixture(): Promise<{ index: GraphIndex; dataset: string; targets: Record<string, string> }> {
        const { index } = await open();
        const dataset = newUrn();
        const targets = { OwnedBy: newUrn('corpuser'), TaggedWith: newUrn('tag'), AssociatedWith: newUrn('domain') };
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', targets.OwnedBy)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', targets.TaggedWith)]);
        await index.replaceEdges(dataset, 'domains', [edge('AssociatedWith', targets.AssociatedWith)]);
        return { index, dataset, targets };
      }

      it('keeps only the one type asked for', async () => {
        const { index, dataset, targets } = await fixture();
        expect(await all(index, dataset, 'OUTGOING', ['TaggedWith'])).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: targets.TaggedWith }],
        });
      });

      it('keeps every type of several asked for, ignoring names that match nothing', async () => {
        const { index, dataset, targets } = await fixture();
        expect(await all(index, dataset, 'OUTGOING', ['TaggedWith', 'OwnedBy', 'NoSuchRelationship'])).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: targets.OwnedBy },
            { type: 'TaggedWith', entity: targets.TaggedWith },
          ],
        });
      });

      it('keeps every type when the list is empty, and none when only unknown types are asked for', async () => {
        const { index, dataset } = await fixture();
        expect((await all(index, dataset, 'OUTGOING', [])).total).toBe(3);
        expect(await all(index, dataset, 'OUTGOING', ['NoSuchRelationship'])).toEqual({ total: 0, relationships: [] });
      });

      it('filters INCOMING relationships by type as well', async () => {
        const { index } = await open();
        const [dataset, group] = [newUrn(), newUrn('corpGroup')];
        const user = newUrn('corpuser');
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', user)]);
        await index.replaceEdges(group, 'corpGroupInfo', [edge('IsPartOf', user)]);

        expect(await all(index, user, 'INCOMING', ['IsPartOf'])).toEqual({
          total: 1,
          relationships: [{ type: 'IsPartOf', entity: group }],
        });
      });
    });

    describe('replacing', () => {
      it("drops the edges an aspect no longer implies, and leaves other aspects' edges alone", async () => {
        const { index } = await open();
        const dataset = newUrn();
        const [kept, dropped, added, tag] = [
          newUrn('corpuser'),
          newUrn('corpuser'),
          newUrn('corpGroup'),
          newUrn('tag'),
        ];
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', kept), edge('OwnedBy', dropped)]);
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', kept), edge('OwnedBy', added)]);

        expect(await all(index, dataset, 'OUTGOING')).toEqual({
          total: 3,
          relationships: sorted([
            { type: 'OwnedBy', entity: kept },
            { type: 'OwnedBy', entity: added },
            { type: 'TaggedWith', entity: tag },
          ]),
        });
        expect(await all(index, dropped, 'INCOMING')).toEqual({ total: 0, relationships: [] });
      });

      it('removes all of an aspect’s edges when given an empty list', async () => {
        const { index } = await open();
        const dataset = newUrn();
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', newUrn('corpuser'))]);
        await index.replaceEdges(dataset, 'ownership', []);

        expect(await all(index, dataset, 'OUTGOING')).toEqual({ total: 0, relationships: [] });
      });

      it('replaces the created stamp of an edge the aspect still implies', async () => {
        const { index } = await open();
        const [dataset, owner] = [newUrn(), newUrn('corpuser')];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner, 1, actor)]);
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner, 2, otherActor)]);

        expect(await all(index, dataset, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: owner, createdAt: 2, createdBy: otherActor }],
        });
      });

      it('is idempotent: replaying the same change leaves the same edges', async () => {
        const { index } = await open();
        const dataset = newUrn();
        const edges = [edge('OwnedBy', newUrn('corpuser'), 5, actor), edge('OwnedBy', newUrn('corpuser'), 6, actor)];
        await index.replaceEdges(dataset, 'ownership', edges);
        const once = await all(index, dataset, 'OUTGOING');
        await index.replaceEdges(dataset, 'ownership', edges);
        await index.replaceEdges(dataset, 'ownership', edges);

        expect(once.total).toBe(2);
        expect(await all(index, dataset, 'OUTGOING')).toEqual(once);
      });

      it('stores a (type, destination) given twice in one call once, with the first occurrence’s stamp', async () => {
        const { index } = await open();
        const [dataset, owner] = [newUrn(), newUrn('corpuser')];
        await index.replaceEdges(dataset, 'ownership', [
          edge('OwnedBy', owner, 7, actor),
          edge('OwnedBy', owner, 8, otherActor),
        ]);

        expect(await all(index, dataset, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: owner, createdAt: 7, createdBy: actor }],
        });
        expect((await all(index, owner, 'INCOMING')).total).toBe(1);
      });

      it('keeps edges of the same destination under different types apart', async () => {
        const { index } = await open();
        const [group, user] = [newUrn('corpGroup'), newUrn('corpuser')];
        await index.replaceEdges(group, 'corpGroupInfo', [edge('OwnedBy', user), edge('IsPartOf', user)]);

        expect(await all(index, user, 'INCOMING')).toEqual({
          total: 2,
          relationships: [
            { type: 'IsPartOf', entity: group },
            { type: 'OwnedBy', entity: group },
          ],
        });
      });
    });

    describe('the same edge from several aspects', () => {
      it('is reported once, with the earliest created stamp among the aspects', async () => {
        const { index } = await open();
        const [dataset, tag] = [newUrn(), newUrn('tag')];
        await index.replaceEdges(dataset, 'schemaMetadata', [edge('TaggedWith', tag, 20, otherActor)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', tag, 10, actor)]);
        await index.replaceEdges(dataset, 'editableSchemaMetadata', [edge('TaggedWith', tag)]);

        expect(await all(index, dataset, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: tag, createdAt: 10, createdBy: actor }],
        });
        expect(await all(index, tag, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: dataset, createdAt: 10, createdBy: actor }],
        });
      });

      it('survives until the last aspect implying it stops, the stamp following the aspects that remain', async () => {
        const { index } = await open();
        const [dataset, tag] = [newUrn(), newUrn('tag')];
        await index.replaceEdges(dataset, 'schemaMetadata', [edge('TaggedWith', tag, 20, otherActor)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', tag, 10, actor)]);
        await index.replaceEdges(dataset, 'editableSchemaMetadata', [edge('TaggedWith', tag)]);

        await index.replaceEdges(dataset, 'globalTags', []);
        expect(await all(index, tag, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: dataset, createdAt: 20, createdBy: otherActor }],
        });

        await index.replaceEdges(dataset, 'schemaMetadata', []);
        expect(await all(index, tag, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: dataset }],
        });

        await index.replaceEdges(dataset, 'editableSchemaMetadata', []);
        expect(await all(index, tag, 'INCOMING')).toEqual({ total: 0, relationships: [] });
        expect(await all(index, dataset, 'OUTGOING')).toEqual({ total: 0, relationships: [] });
      });
    });

    describe('removing an entity', () => {
      it('removes every edge from it, and keeps those pointing to it while their sources name it', async () => {
        const { index } = await open();
        const [removed, other, pointing] = [newUrn('corpuser'), newUrn('corpuser'), newUrn()];
        const [group, bystander] = [newUrn('corpGroup'), newUrn()];
        await index.replaceEdges(removed, 'groupMembership', [edge('IsMemberOfGroup', group)]);
        await index.replaceEdges(pointing, 'ownership', [edge('OwnedBy', removed), edge('OwnedBy', other)]);
        await index.replaceEdges(bystander, 'ownership', [edge('OwnedBy', other)]);

        await index.removeEntity(removed);

        expect(await all(index, removed, 'OUTGOING')).toEqual({ total: 0, relationships: [] });
        expect(await all(index, group, 'INCOMING')).toEqual({ total: 0, relationships: [] });
        expect(await all(index, removed, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: pointing }],
        });
        expect((await all(index, pointing, 'OUTGOING')).total).toBe(2);
        expect((await all(index, other, 'INCOMING')).total).toBe(2);

        // Once the source no longer names it (its references cleaned), the edge goes like any other.
        await index.replaceEdges(pointing, 'ownership', [edge('OwnedBy', other)]);
        expect(await all(index, removed, 'INCOMING')).toEqual({ total: 0, relationships: [] });
      });

      it('is idempotent, and a no-op for an unknown URN', async () => {
        const { index } = await open();
        const [dataset, owner] = [newUrn(), newUrn('corpuser')];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner)]);

        await index.removeEntity(newUrn());
        expect((await all(index, owner, 'INCOMING')).total).toBe(1);
        await index.removeEntity(dataset);
        await index.removeEntity(dataset);
        expect(await all(index, dataset, 'OUTGOING')).toEqual({ total: 0, relationships: [] });
        expect((await all(index, owner, 'INCOMING')).total).toBe(0);
      });
    });

    describe('paging', () => {
      async function fixture(): Promise<{ index: GraphIndex; owner: string; expected: Relationship[] }> {
        const { index } = await open();
        const owner = newUrn('corpuser');
        const owned = Array.from({ length: 7 }, () => newUrn());
        // Written out of order, and under two types whose entities sort the other way round (mlModel > dataset), so
        // that the order can only come from sorting by type first, then entity.
        for (const urn of [...owned].reverse()) {
          await index.replaceEdges(urn, 'ownership', [edge('OwnedBy', owner)]);
        }
        const [firstEditor, secondEditor] = [newUrn('mlModel'), newUrn('mlModel')];
        await index.replaceEdges(secondEditor, 'ownership', [edge('DataOwnedBy', owner)]);
        await index.replaceEdges(firstEditor, 'ownership', [edge('DataOwnedBy', owner)]);
        const expected = [
          { type: 'DataOwnedBy', entity: firstEditor },
          { type: 'DataOwnedBy', entity: secondEditor },
          ...owned.map((entity) => ({ type: 'OwnedBy', entity })),
        ];
        return { index, owner, expected };
      }

      function page(owner: string, start: number, count: number): RelationshipQuery {
        return { urn: owner, direction: 'INCOMING', types: [], start, count };
      }

      it('orders by (type, entity) ascending and counts every match in total', async () => {
        const { index, owner, expected } = await fixture();
        expect(expected).toEqual(sorted(expected));
        expect(await index.relationships(page(owner, 0, 100))).toEqual({ total: 9, relationships: expected });
      });

      it('cuts pages from that order with start and count, neither overlapping nor skipping', async () => {
        const { index, owner, expected } = await fixture();
        const pages = [];
        for (let start = 0; start < 9; start += 4) pages.push(await index.relationships(page(owner, start, 4)));

        expect(pages.map((answer) => answer.total)).toEqual([9, 9, 9]);
        expect(pages.map((answer) => answer.relationships.length)).toEqual([4, 4, 1]);
        expect(pages.flatMap((answer) => answer.relationships)).toEqual(expected);
        expect(await index.relationships(page(owner, 3, 2))).toEqual({ total: 9, relationships: expected.slice(3, 5) });
      });

      it('answers the same page the same way every time', async () => {
        const { index, owner } = await fixture();
        const first = await index.relationships(page(owner, 2, 3));
        expect(await index.relationships(page(owner, 2, 3))).toEqual(first);
      });

      it('returns only the total for count 0 and an empty page past the end', async () => {
        const { index, owner } = await fixture();
        expect(await index.relationships(page(owner, 0, 0))).toEqual({ total: 9, relationships: [] });
        expect(await index.relationships(page(owner, 9, 5))).toEqual({ total: 9, relationships: [] });
        expect(await index.relationships(page(owner, 50, 5))).toEqual({ total: 9, relationships: [] });
      });

      it('pages within a type filter, the total counting the filtered matches only', async () => {
        const { index, owner, expected } = await fixture();
        expect(await index.relationships({ ...page(owner, 1, 3), types: ['OwnedBy'] })).toEqual({
          total: 7,
          relationships: expected.slice(3, 6),
        });
      });

      it('rejects a negative or fractional start or count with ValidationError', async () => {
        const { index } = await open();
        const owner = newUrn('corpuser');
        await expect(index.relationships(page(owner, -1, 10))).rejects.toBeInstanceOf(ValidationError);
        await expect(index.relationships(page(owner, 0, -1))).rejects.toBeInstanceOf(ValidationError);
        await expect(index.relationships(page(owner, 0.5, 10))).rejects.toBeInstanceOf(ValidationError);
        await expect(index.relationships(page(owner, 0, 1.5))).rejects.toBeInstanceOf(ValidationError);
      });
    });

    describe('applying a list of changes', () => {
      /** Every relationship of every URN, both directions: what two indices are compared by. */
      async function snapshot(index: GraphIndex, urns: readonly string[]): Promise<unknown> {
        const views = [];
        for (const urn of urns) {
          views.push({ urn, out: await all(index, urn, 'OUTGOING'), in: await all(index, urn, 'INCOMING') });
        }
        return views;
      }

      /** A list exercising what a log batch holds, the URNs it touches by name, and all of them. */
      function batch(): { changes: GraphChange[]; urn: Record<BatchUrn, string>; urns: string[] } {
        const urn: Record<BatchUrn, string> = {
          removed: newUrn(),
          pointing: newUrn(),
          twice: newUrn(),
          duplicated: newUrn(),
          bystander: newUrn(),
          owner: newUrn('corpuser'),
          firstOwner: newUrn('corpuser'),
          secondOwner: newUrn('corpuser'),
          laterOwner: newUrn('corpuser'),
          tag: newUrn('tag'),
          firstTag: newUrn('tag'),
          secondTag: newUrn('tag'),
        };
        const changes: GraphChange[] = [
          replace(urn.removed, 'ownership', [edge('OwnedBy', urn.owner, 1, actor)]),
          replace(urn.removed, 'globalTags', [edge('TaggedWith', urn.tag)]),
          replace(urn.pointing, 'ownership', [edge('OwnedBy', urn.removed), edge('OwnedBy', urn.owner)]),
          replace(urn.bystander, 'globalTags', [edge('TaggedWith', urn.tag, 4, actor)]),
          replace(urn.twice, 'ownership', [edge('OwnedBy', urn.firstOwner), edge('OwnedBy', urn.secondOwner)]),
          { kind: 'removeEntity', urn: urn.removed },
          // New edges from and to the removed URN, after its removal in the same list: they stay.
          replace(urn.removed, 'ownership', [edge('OwnedBy', urn.laterOwner, 2, otherActor)]),
          replace(urn.bystander, 'ownership', [edge('OwnedBy', urn.removed)]),
          // Aspects replaced twice in one list: the second list wins, the first's edges are gone.
          replace(urn.twice, 'globalTags', [edge('TaggedWith', urn.firstTag)]),
          replace(urn.twice, 'ownership', [edge('OwnedBy', urn.secondOwner, 3, actor)]),
          replace(urn.twice, 'globalTags', [edge('TaggedWith', urn.secondTag)]),
          // A (type, destination) twice in one replacement (stored once, first stamp), also implied by another aspect
          // of the same source with an earlier stamp.
          replace(urn.duplicated, 'ownership', [
            edge('OwnedBy', urn.owner, 7, actor),
            edge('OwnedBy', urn.owner, 8, otherActor),
          ]),
          replace(urn.duplicated, 'editableOwnership', [edge('OwnedBy', urn.owner, 6, otherActor)]),
        ];
        return { changes, urn, urns: Object.values(urn) };
      }

      it('ends as the same calls made one by one, in order', async () => {
        const { index: batched } = await open();
        const { index: oneByOne } = await open();
        const { changes, urns } = batch();

        await batched.apply(changes);
        for (const change of changes) {
          if (change.kind === 'removeEntity') await oneByOne.removeEntity(change.urn);
          else if (change.kind === 'replaceEdges')
            await oneByOne.replaceEdges(change.source, change.aspect, change.edges);
          else await oneByOne.replaceHeldEdges(change.holder, change.aspect, change.edges);
        }

        expect(await snapshot(batched, urns)).toEqual(await snapshot(oneByOne, urns));
      });

      it('removes an entity’s edges at its place in the list: edges from it added later stay, edges to it stay', async () => {
        const { index } = await open();
        const { changes, urn } = batch();
        await index.apply(changes);

        expect(await all(index, urn.removed, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: urn.laterOwner, createdAt: 2, createdBy: otherActor }],
        });
        expect(await all(index, urn.removed, 'INCOMING')).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: urn.pointing },
            { type: 'OwnedBy', entity: urn.bystander },
          ].sort((a, b) => (a.entity < b.entity ? -1 : 1)),
        });
        expect(await all(index, urn.pointing, 'OUTGOING')).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: urn.removed },
            { type: 'OwnedBy', entity: urn.owner },
          ].sort((a, b) => (a.entity < b.entity ? -1 : 1)),
        });
        expect(await all(index, urn.tag, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: urn.bystander, createdAt: 4, createdBy: actor }],
        });
      });

      it('keeps the last replacement of an aspect replaced twice, and a duplicated edge once', async () => {
        const { index } = await open();
        const { changes, urn } = batch();
        await index.apply(changes);

        expect(await all(index, urn.twice, 'OUTGOING')).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: urn.secondOwner, createdAt: 3, createdBy: actor },
            { type: 'TaggedWith', entity: urn.secondTag },
          ],
        });
        expect((await all(index, urn.firstOwner, 'INCOMING')).total).toBe(0);
        expect((await all(index, urn.firstTag, 'INCOMING')).total).toBe(0);
        expect(await all(index, urn.duplicated, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: urn.owner, createdAt: 6, createdBy: otherActor }],
        });

        await index.apply([replace(urn.duplicated, 'editableOwnership', [])]);
        expect(await all(index, urn.duplicated, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: urn.owner, createdAt: 7, createdBy: actor }],
        });
      });

      it('does nothing for an empty list', async () => {
        const { index } = await open();
        const [dataset, owner] = [newUrn(), newUrn('corpuser')];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner, 1, actor)]);
        const before = await snapshot(index, [dataset, owner]);

        await index.apply([]);
        expect(await snapshot(index, [dataset, owner])).toEqual(before);
      });

      it('is idempotent: replaying the list leaves the same edges', async () => {
        const { index } = await open();
        const { changes, urns } = batch();
        await index.apply(changes);
        const once = await snapshot(index, urns);
        await index.apply(changes);
        await index.apply(changes);

        expect(await snapshot(index, urns)).toEqual(once);
      });

      it('keeps what it applied across closing and reopening', async () => {
        const { index, reopen } = await open();
        const { changes, urns } = batch();
        await index.apply(changes);
        const applied = await snapshot(index, urns);
        await index.close();

        expect(await snapshot(await reopen(), urns)).toEqual(applied);
      });
    });

    describe('clear', () => {
      /** Edges of several sources, aspects and types, one of them implied by two aspects; their URNs. */
      function graph(): { changes: GraphChange[]; urns: string[] } {
        const [dataset, other, group] = [newUrn(), newUrn(), newUrn('corpGroup')];
        const [owner, tag] = [newUrn('corpuser'), newUrn('tag')];
        return {
          changes: [
            replace(dataset, 'ownership', [edge('OwnedBy', owner, 1, actor), edge('OwnedBy', group)]),
            replace(dataset, 'globalTags', [edge('TaggedWith', tag)]),
            replace(dataset, 'editableSchemaMetadata', [edge('TaggedWith', tag, 5, otherActor)]),
            replace(other, 'ownership', [edge('OwnedBy', owner)]),
            replace(group, 'corpGroupInfo', [edge('IsPartOf', owner)]),
          ],
          urns: [dataset, other, group, owner, tag],
        };
      }

      /** Every relationship of every URN, both directions. */
      async function views(index: GraphIndex, urns: readonly string[]): Promise<unknown[]> {
        const answers = [];
        for (const urn of urns) {
          answers.push({ urn, out: await all(index, urn, 'OUTGOING'), in: await all(index, urn, 'INCOMING') });
        }
        return answers;
      }

      const none = (urns: readonly string[]) =>
        urns.map((urn) => ({ urn, out: { total: 0, relationships: [] }, in: { total: 0, relationships: [] } }));

      it('removes every edge: every query then answers as on an empty index', async () => {
        const { index } = await open();
        const { changes, urns } = graph();
        await index.apply(changes);
        expect((await all(index, urns[3] ?? '', 'INCOMING')).total).toBe(3);

        await index.clear();
        expect(await views(index, urns)).toEqual(none(urns));
        expect(
          await index.relationships({ urn: urns[0] ?? '', direction: 'OUTGOING', types: [], start: 0, count: 0 }),
        ).toEqual({ total: 0, relationships: [] });
      });

      it('takes writes after a clear as a new index takes them', async () => {
        const { index } = await open();
        const { index: fresh } = await open();
        const { changes, urns } = graph();
        await index.apply(changes);
        await index.clear();

        // Part of the same aspects again (a replacement finds nothing left to replace), a removal, and new edges.
        const [dataset, other, group, owner, tag] = urns as [string, string, string, string, string];
        const again: GraphChange[] = [
          replace(dataset, 'ownership', [edge('OwnedBy', group, 2, actor)]),
          replace(other, 'globalTags', [edge('TaggedWith', tag)]),
          { kind: 'removeEntity', urn: group },
          replace(group, 'ownership', [edge('OwnedBy', owner)]),
        ];
        await index.apply(again);
        await fresh.apply(again);
        expect(await views(index, urns)).toEqual(await views(fresh, urns));
        expect(await all(index, dataset, 'OUTGOING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: group, createdAt: 2, createdBy: actor }],
        });
        expect(await all(index, owner, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: group }],
        });

        await index.replaceEdges(dataset, 'ownership', []);
        await fresh.replaceEdges(dataset, 'ownership', []);
        expect(await views(index, urns)).toEqual(await views(fresh, urns));
      });

      it('keeps the clear across closing and reopening, and clears an index cleared already', async () => {
        const { index, reopen } = await open();
        const { changes, urns } = graph();
        await index.apply(changes);
        await index.clear();
        await index.clear();
        await index.close();

        const reopened = await reopen();
        expect(await views(reopened, urns)).toEqual(none(urns));
        const [dataset, owner] = [urns[0] ?? '', urns[3] ?? ''];
        await reopened.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner)]);
        expect(await all(reopened, owner, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'OwnedBy', entity: dataset }],
        });
      });
    });

    describe('durability', () => {
      it('keeps every resolved write across closing and reopening', async () => {
        const { index, reopen } = await open();
        const [dataset, gone] = [newUrn(), newUrn()];
        const [owner, tag, removed] = [newUrn('corpuser'), newUrn('tag'), newUrn()];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner, 3, actor)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(removed, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(gone, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(gone, 'globalTags', []);
        await index.removeEntity(removed);
        await index.close();

        const reopened = await reopen();
        expect(await all(reopened, dataset, 'OUTGOING')).toEqual({
          total: 2,
          relationships: [
            { type: 'OwnedBy', entity: owner, createdAt: 3, createdBy: actor },
            { type: 'TaggedWith', entity: tag },
          ],
        });
        expect(await all(reopened, tag, 'INCOMING')).toEqual({
          total: 1,
          relationships: [{ type: 'TaggedWith', entity: dataset }],
        });
      });
    });

    describe('scrolling edges', () => {
      const everything: Omit<EdgeScrollQuery, 'count'> = {
        types: [],
        sourceTypes: [],
        destinationTypes: [],
        sourceUrns: [],
        destinationUrns: [],
      };

      /** Every edge the query matches, walked in pages of `count`, and the size of each page. */
      async function walk(
        index: GraphIndex,
        count: number,
        query: Partial<EdgeScrollQuery> = {},
      ): Promise<{ edges: ScrolledEdge[]; pages: number[] }> {
        const edges: ScrolledEdge[] = [];
        const pages: number[] = [];
        for (;;) {
          const last = edges[edges.length - 1];
          const page = await index.scrollEdges({
            ...everything,
            ...query,
            count,
            ...(last === undefined ? {} : { after: last }),
          });
          edges.push(...page.edges);
          pages.push(page.edges.length);
          if (!page.hasMore) return { edges, pages };
        }
      }

      it('walks every edge once, in (source, type, destination) order, page after page', async () => {
        const { index } = await open();
        const [first, second] = [newUrn(), newUrn()];
        const [owner, tag, domain] = [newUrn('corpuser'), newUrn('tag'), newUrn('domain')];
        await index.replaceEdges(second, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(first, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(first, 'ownership', [edge('OwnedBy', owner, 5, actor)]);
        await index.replaceEdges(first, 'domains', [edge('AssociatedWith', domain)]);

        const expected: ScrolledEdge[] = [
          { source: first, type: 'AssociatedWith', destination: domain },
          { source: first, type: 'OwnedBy', destination: owner, createdAt: 5, createdBy: actor },
          { source: first, type: 'TaggedWith', destination: tag },
          { source: second, type: 'TaggedWith', destination: tag },
        ];
        expect(await walk(index, 10)).toEqual({ edges: expected, pages: [4] });
        expect(await walk(index, 3)).toEqual({ edges: expected, pages: [3, 1] });
        expect(await walk(index, 1)).toEqual({ edges: expected, pages: [1, 1, 1, 1] });
        expect(await walk(index, 4)).toEqual({ edges: expected, pages: [4] });
      });

      it('reports an edge several aspects imply once, with the earliest stamp, across page boundaries', async () => {
        const { index } = await open();
        const dataset = newUrn();
        const [owner, later] = [newUrn('corpuser'), newUrn('corpuser')];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner, 20, 'urn:li:corpuser:late')]);
        await index.replaceEdges(dataset, 'editableOwnership', [edge('OwnedBy', owner, 10, actor)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('OwnedBy', owner)]);
        await index.replaceEdges(dataset, 'extraOwnership', [edge('OwnedBy', later)]);

        const expected: ScrolledEdge[] = [
          { source: dataset, type: 'OwnedBy', destination: owner, createdAt: 10, createdBy: actor },
          { source: dataset, type: 'OwnedBy', destination: later },
        ].sort((a, b) => (a.destination < b.destination ? -1 : 1));
        expect((await walk(index, 1)).edges).toEqual(expected);
        expect((await walk(index, 5)).edges).toEqual(expected);
      });

      it('keeps the edges every given filter matches: types, URNs and entity types of either end', async () => {
        const { index } = await open();
        const [dataset, chart] = [newUrn(), newUrn('chart')];
        const [owner, group, tag] = [newUrn('corpuser'), newUrn('corpGroup'), newUrn('tag')];
        await index.replaceEdges(dataset, 'ownership', [edge('OwnedBy', owner), edge('OwnedBy', group)]);
        await index.replaceEdges(dataset, 'globalTags', [edge('TaggedWith', tag)]);
        await index.replaceEdges(chart, 'ownership', [edge('OwnedBy', owner)]);
        const keys = async (query: Partial<EdgeScrollQuery>) =>
          (await walk(index, 2, query)).edges.map((each) => `${each.source} ${each.type} ${each.destination}`);

        expect(await keys({ types: ['TaggedWith', 'NoSuchType'] })).toEqual([`${dataset} TaggedWith ${tag}`]);
        expect(await keys({ sourceUrns: [chart] })).toEqual([`${chart} OwnedBy ${owner}`]);
        expect(await keys({ destinationUrns: [owner, tag] })).toEqual(
          [`${chart} OwnedBy ${owner}`, `${dataset} OwnedBy ${owner}`, `${dataset} TaggedWith ${tag}`].sort(),
        );
        expect(await keys({ sourceTypes: ['chart'] })).toEqual([`${chart} OwnedBy ${owner}`]);
        expect(await keys({ destinationTypes: ['corpGroup', 'tag'] })).toEqual(
          [`${dataset} OwnedBy ${group}`, `${dataset} TaggedWith ${tag}`].sort(),
        );
        expect(await keys({ types: ['OwnedBy'], sourceTypes: ['dataset'], destinationTypes: ['corpuser'] })).toEqual([
          `${dataset} OwnedBy ${owner}`,
        ]);
        expect(await keys({ sourceUrns: [newUrn()] })).toEqual([]);
      });

      it('sees every edge present for the whole walk once, whatever is written before the cursor meanwhile', async () => {
        const { index } = await open();
        const sources = [newUrn(), newUrn(), newUrn()];
        const tag = newUrn('tag');
        for (const source of sources) await index.replaceEdges(source, 'globalTags', [edge('TaggedWith', tag)]);

        const firstPage = await index.scrollEdges({ ...everything, count: 1 });
        expect(firstPage.edges.map((each) => each.source)).toEqual([sources[0]]);
        // Behind the cursor: an edge added there, and one removed there, change nothing ahead of it.
        await index.replaceEdges(sources[0] ?? '', 'ownership', [edge('OwnedBy', newUrn('corpuser'))]);
        const after = firstPage.edges[0];
        const rest = await index.scrollEdges({ ...everything, count: 10, ...(after === undefined ? {} : { after }) });
        expect(rest).toEqual({
          edges: sources.slice(1).map((source) => ({ source, type: 'TaggedWith', destination: tag })),
          hasMore: false,
        });
      });

      it('answers an empty last page for a walk of an empty graph', async () => {
        const { index } = await open();
        expect(await index.scrollEdges({ ...everything, count: 5 })).toEqual({ edges: [], hasMore: false });
      });

      it(`refuses a count that is not an integer from 1 to ${MAX_EDGE_SCROLL_COUNT} with ValidationError`, async () => {
        const { index } = await open();
        for (const count of [0, -1, 1.5, MAX_EDGE_SCROLL_COUNT + 1]) {
          await expect(index.scrollEdges({ ...everything, count })).rejects.toBeInstanceOf(ValidationError);
        }
      });
    });
  });
}

type BatchUrn =
  | 'removed'
  | 'pointing'
  | 'twice'
  | 'duplicated'
  | 'bystander'
  | 'owner'
  | 'firstOwner'
  | 'secondOwner'
  | 'laterOwner'
  | 'tag'
  | 'firstTag'
  | 'secondTag';

const actor = 'urn:li:corpuser:contract-writer';
const otherActor = 'urn:li:corpuser:contract-other-writer';

function replace(source: string, aspect: string, edges: readonly GraphEdge[]): GraphChange {
  return { kind: 'replaceEdges', source, aspect, edges };
}

function edge(type: string, destination: string, createdAt?: number, createdBy?: string): GraphEdge {
  return {
    type,
    destination,
    ...(createdAt === undefined ? {} : { createdAt }),
    ...(createdBy === undefined ? {} : { createdBy }),
  };
}

/** Relationships in the order the port promises: (type, entity) ascending by code point (test strings are ASCII). */
function sorted(relationships: readonly Relationship[]): Relationship[] {
  const key = (relationship: Relationship): [string, string] => [relationship.type, relationship.entity];
  return [...relationships].sort((a, b) => {
    const [aType, aEntity] = key(a);
    const [bType, bEntity] = key(b);
    if (aType !== bType) return aType < bType ? -1 : 1;
    return aEntity < bEntity ? -1 : aEntity > bEntity ? 1 : 0;
  });
}

export {
  datasetDocument,
  describeSearchIndexContract,
  type SearchIndexContractFactory,
  type SearchIndexUnderTest,
} from './search-index-contract';
export { describeAuditIndexContract, type AuditIndexContractFactory } from './audit-index-contract';
export { describeTimeseriesIndexContract, type TimeseriesIndexContractFactory } from './timeseries-index-contract';
