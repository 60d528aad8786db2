import { randomUUID } from 'node:crypto';

import { afterEach, describe, expect, it } from '@jest/globals';
import { ConflictError, timeseriesPointId } from '@strata/model';

import type {
  AspectStore,
  JsonObject,
  OutboxRecord,
  PutAspect,
  RestatedRow,
  RestateRequest,
  RowCursor,
  StoreCommit,
  StoredAspect,
  StoredTimeseriesValue,
} from './aspect-store';
import { describeWriteTraceContract } from './write-trace-contract';

/** What {@link describeAspectStoreContract} needs from an adapter. */
export interface AspectStoreContractFactory {
  /**
   * Opens an EMPTY store for one test (a new file, a new database): the outbox tests count every pending record.
   * Called once per test; the suite closes what it returns, then calls `dispose`. The store (and `reopen`'s) must
   * list `options.listedAspects`.
   */
  create(options: { readonly listedAspects: readonly string[] }): Promise<AspectStoreUnderTest>;
}

/** The aspects the contract lists across entities (any names would do: the store knows nothing of them). */
const LISTED = ['dataHubPolicyInfo', 'dataHubAccessTokenInfo'];

/** One test's store, and how to reach the same data again. */
export interface AspectStoreUnderTest {
  readonly store: AspectStore;
  /**
   * Opens another handle on the same data (same file, same database), as another process would. Called both while
   * `store` is open (concurrent writers) and after it was closed (durability), possibly more than once; the suite
   * closes every handle it gets. Every `close()` must tolerate being called again.
   */
  reopen(): Promise<AspectStore>;
  /** Releases whatever `create` set up besides the store (temporary files, a database to drop). Called last. */
  dispose?(): Promise<void>;
}

/**
 * The aspect-store contract (the invariants stated on {@link AspectStore}), as one jest `describe` block to run against
 * every adapter: `describeAspectStoreContract('SqliteAspectStore', { create: async () => … })`.
 */
export function describeAspectStoreContract(name: string, factory: AspectStoreContractFactory): void {
  // Per-run prefix, so that URNs never collide with data an earlier run left in a shared engine.
  const runId = randomUUID().slice(0, 8);
  let sequence = 0;
  const cleanups: (() => Promise<void>)[] = [];

  function newUrn(): string {
    sequence += 1;
    return `urn:li:corpuser:contract-${runId}-${sequence}`;
  }

  async function open(): Promise<{ store: AspectStore; reopen: () => Promise<AspectStore> }> {
    const underTest = await factory.create({ listedAspects: LISTED });
    const handles: AspectStore[] = [underTest.store];
    cleanups.push(async () => {
      for (const handle of handles.reverse()) await handle.close();
      await underTest.dispose?.();
    });
    return {
      store: underTest.store,
      reopen: async () => {
        const handle = await underTest.reopen();
        handles.push(handle);
        return handle;
      },
    };
  }

  afterEach(async () => {
    const pending = cleanups.splice(0);
    for (const cleanup of pending) await cleanup();
  });

  describe(`${name} satisfies the AspectStore contract`, () => {
    describe('versions', () => {
      it('writes ordinal 1 first and archives the previous latest under its ordinal on every change', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(commitOf(put(urn, 'corpUserInfo', 0, 1, { title: 'one' })));
        await store.commit(commitOf(put(urn, 'corpUserInfo', 1, 2, { title: 'two' })));
        await store.commit(commitOf(put(urn, 'corpUserInfo', 2, 3, { title: 'three' })));

        expect(await store.getVersion(urn, 'corpUserInfo', 0)).toEqual(
          stored(urn, 'corpUserInfo', 3, { title: 'three' }),
        );
        expect(await store.getVersion(urn, 'corpUserInfo', 3)).toEqual(
          stored(urn, 'corpUserInfo', 3, { title: 'three' }),
        );
        expect(await store.getVersion(urn, 'corpUserInfo', 2)).toEqual(
          stored(urn, 'corpUserInfo', 2, { title: 'two' }),
        );
        expect(await store.getVersion(urn, 'corpUserInfo', 1)).toEqual(
          stored(urn, 'corpUserInfo', 1, { title: 'one' }),
        );
        expect(await store.getLatest([{ urn, aspect: 'corpUserInfo' }])).toEqual([
          stored(urn, 'corpUserInfo', 3, { title: 'three' }),
        ]);
      });

      it('rewrites the latest in place when the row keeps the expected ordinal', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));
        await store.commit(commitOf(put(urn, 'status', 1, 2, { removed: true })));
        const observedAgain = put(urn, 'status', 2, 2, { removed: true }, { lastObserved: 99, runId: 'again' });
        await store.commit(commitOf(observedAgain));

        const latest = await store.getVersion(urn, 'status', 0);
        expect(latest).toEqual({ urn, aspect: 'status', ...observedAgain.row });
        expect(await store.getVersion(urn, 'status', 2)).toEqual(latest);
        expect(await store.getVersion(urn, 'status', 1)).toEqual(stored(urn, 'status', 1, { removed: false }));
        expect(await store.getVersion(urn, 'status', 3)).toBeUndefined();
      });

      it('applies the mutations of one commit in order, each seeing the ones before it', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(
          commitOf(
            put(urn, 'ownership', 0, 1, { owners: ['a'] }),
            put(urn, 'ownership', 1, 2, { owners: ['a', 'b'] }),
            put(urn, 'status', 0, 1, { removed: false }),
            { kind: 'deleteAspect', urn, aspect: 'status', expectedVersion: 1 },
          ),
        );

        expect(await store.getVersion(urn, 'ownership', 0)).toEqual(
          stored(urn, 'ownership', 2, { owners: ['a', 'b'] }),
        );
        expect(await store.getVersion(urn, 'ownership', 1)).toEqual(stored(urn, 'ownership', 1, { owners: ['a'] }));
        expect(await store.getVersion(urn, 'status', 0)).toBeUndefined();
      });

      it('rejects a put whose row version is neither the next ordinal nor a rewrite, writing nothing', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));
        const invalid = [
          { aspect: 'status', expected: 1, version: 3 },
          { aspect: 'status', expected: 1, version: 0 },
          { aspect: 'fresh', expected: 0, version: 0 },
          { aspect: 'fresh', expected: 0, version: 2 },
        ];
        for (const { aspect, expected, version } of invalid) {
          const failing = store.commit({
            mutations: [put(urn, 'other', 0, 1, {}), put(urn, aspect, expected, version, { removed: true })],
            outbox: [outbox('MetadataChangeLog_Versioned_v1', urn, 'must not appear')],
            appliedProposalIds: [`${urn}-bad-${aspect}-${version}`],
          });
          await expect(failing).rejects.toBeInstanceOf(Error);
          await expect(failing).rejects.not.toBeInstanceOf(ConflictError);
        }

        expect(await store.getEntity(urn)).toEqual([stored(urn, 'status', 1, { removed: false })]);
        expect(await store.pendingOutbox(10)).toEqual([]);
        expect(
          await store.findApplied(invalid.map(({ aspect, version }) => `${urn}-bad-${aspect}-${version}`)),
        ).toEqual(new Set());
      });

      it('returns undefined for a missing aspect, entity or version', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));

        expect(await store.getVersion(urn, 'corpUserInfo', 0)).toBeUndefined();
        expect(await store.getVersion(urn, 'corpUserInfo', 1)).toBeUndefined();
        expect(await store.getVersion(newUrn(), 'status', 0)).toBeUndefined();
        expect(await store.getVersion(urn, 'status', 2)).toBeUndefined();
        expect(await store.getLatest([{ urn: newUrn(), aspect: 'status' }])).toEqual([]);
        expect(await store.getEntity(newUrn())).toEqual([]);
      });

      it('returns values and system metadata as the plain JSON objects that were written', async () => {
        const { store } = await open();
        const urn = newUrn();
        const value = {
          name: 'Ünïcødé ✓ "quoted"',
          nested: { list: [1, 2.5, -3], flag: true, nothing: null, deep: [{ a: 'b' }] },
          empty: {},
        };
        const systemMetadata = {
          lastObserved: 1_700_000_000_000,
          runId: 'run-1',
          version: '1',
          properties: { k: 'v' },
        };
        await store.commit(commitOf(put(urn, 'corpUserInfo', 0, 1, value, systemMetadata)));

        const latest = await store.getVersion(urn, 'corpUserInfo', 0);
        expect(latest?.value).toEqual(value);
        expect(latest?.systemMetadata).toEqual(systemMetadata);
        expect(Object.getPrototypeOf(latest?.value)).toBe(Object.prototype);
      });
    });

    describe('reads', () => {
      it('returns the latest value of every aspect of an entity, ordered by aspect name, optionally filtered', async () => {
        const { store } = await open();
        const urn = newUrn();
        const neighbour = newUrn();
        await store.commit(
          commitOf(
            put(urn, 'status', 0, 1, { removed: false }),
            put(urn, 'corpUserKey', 0, 1, { username: 'u' }),
            put(urn, 'ownership', 0, 1, { owners: [] }),
            put(urn, 'ownership', 1, 2, { owners: ['x'] }),
            put(neighbour, 'globalTags', 0, 1, { tags: [] }),
          ),
        );

        expect(await store.getEntity(urn)).toEqual([
          stored(urn, 'corpUserKey', 1, { username: 'u' }),
          stored(urn, 'ownership', 2, { owners: ['x'] }),
          stored(urn, 'status', 1, { removed: false }),
        ]);
        expect(await store.getEntity(urn, ['status', 'ownership', 'unknownAspect'])).toEqual([
          stored(urn, 'ownership', 2, { owners: ['x'] }),
          stored(urn, 'status', 1, { removed: false }),
        ]);
        expect(await store.getEntity(urn, [])).toEqual([]);
      });

      it('returns the latest values of several keys, leaving out those that do not exist', async () => {
        const { store } = await open();
        const first = newUrn();
        const second = newUrn();
        await store.commit(
          commitOf(
            put(first, 'status', 0, 1, { removed: false }),
            put(first, 'status', 1, 2, { removed: true }),
            put(second, 'status', 0, 1, { removed: false }),
            put(second, 'ownership', 0, 1, { owners: [] }),
          ),
        );

        const latest = await store.getLatest([
          { urn: first, aspect: 'status' },
          { urn: second, aspect: 'ownership' },
          { urn: second, aspect: 'globalTags' },
          { urn: newUrn(), aspect: 'status' },
        ]);
        expect(sortByKey(latest)).toEqual(
          sortByKey([stored(first, 'status', 2, { removed: true }), stored(second, 'ownership', 1, { owners: [] })]),
        );
        expect(await store.getLatest([])).toEqual([]);
      });
    });

    describe('optimistic concurrency', () => {
      it('fails a whole commit with ConflictError when one expectation does not hold, leaving nothing visible', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));

        const failing = store.commit({
          mutations: [
            put(urn, 'ownership', 0, 1, { owners: ['x'] }),
            { kind: 'putTimeseries', value: timeseries(urn, 'operation', 1000, { n: 1 }) },
            put(urn, 'status', 0, 1, { removed: true }),
          ],
          outbox: [outbox('MetadataChangeLog_Versioned_v1', urn, 'lost')],
          appliedProposalIds: [`${urn}-proposal`],
        });
        await expect(failing).rejects.toBeInstanceOf(ConflictError);
        // The message names the aspect, the entity, and both ordinals (expected 0, found 1), whatever its wording.
        const { message } = (await failing.catch((caught: unknown) => caught)) as Error;
        expect(message).toContain(urn);
        expect(message).toContain('status');
        const rest = message.replace(urn, '').replace('status', '');
        expect(rest).toMatch(/\b0\b/);
        expect(rest).toMatch(/\b1\b/);

        expect(await store.getEntity(urn)).toEqual([stored(urn, 'status', 1, { removed: false })]);
        expect(await store.getTimeseries(urn, 'operation')).toEqual([]);
        expect(await store.pendingOutbox(10)).toEqual([]);
        expect(await store.findApplied([`${urn}-proposal`])).toEqual(new Set());
      });

      it('treats an absent aspect as ordinal 0, for puts and deletes alike', async () => {
        const { store } = await open();
        const urn = newUrn();
        await expect(store.commit(commitOf(put(urn, 'status', 1, 2, { removed: true })))).rejects.toBeInstanceOf(
          ConflictError,
        );
        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));
        await expect(
          store.commit(commitOf({ kind: 'deleteAspect', urn, aspect: 'status', expectedVersion: 2 })),
        ).rejects.toBeInstanceOf(ConflictError);
        await expect(store.commit(commitOf(put(urn, 'status', 0, 1, { removed: true })))).rejects.toBeInstanceOf(
          ConflictError,
        );
        expect(await store.getVersion(urn, 'status', 0)).toEqual(stored(urn, 'status', 1, { removed: false }));
      });

      it('lets exactly one of two writers on different handles win when both expect the same ordinal', async () => {
        const { store, reopen } = await open();
        const other = await reopen();
        const urn = newUrn();
        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));

        const results = await Promise.allSettled([
          store.commit(commitOf(put(urn, 'status', 1, 2, { removed: true, by: 'first' }))),
          other.commit(commitOf(put(urn, 'status', 1, 2, { removed: true, by: 'second' }))),
        ]);
        const won = results.filter((result) => result.status === 'fulfilled');
        const lost = results.filter((result) => result.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(ConflictError);
        const winner = results[0].status === 'fulfilled' ? 'first' : 'second';
        for (const reader of [store, other]) {
          expect(await reader.getVersion(urn, 'status', 0)).toEqual(
            stored(urn, 'status', 2, { removed: true, by: winner }),
          );
          expect(await reader.getVersion(urn, 'status', 1)).toEqual(stored(urn, 'status', 1, { removed: false }));
          expect(await reader.getVersion(urn, 'status', 3)).toBeUndefined();
        }
      });

      it('never loses an update nor reuses an ordinal when many writers race on one aspect', async () => {
        const { store, reopen } = await open();
        const other = await reopen();
        const urn = newUrn();
        const writers = 10;
        let conflicts = 0;

        // Each writer reads, decides and commits, re-reading after every conflict: the writer's real loop.
        async function write(handle: AspectStore, writer: number): Promise<void> {
          for (let attempt = 0; attempt < 100; attempt += 1) {
            const current = (await handle.getVersion(urn, 'counter', 0))?.version ?? 0;
            try {
              await handle.commit(commitOf(put(urn, 'counter', current, current + 1, { writer })));
              return;
            } catch (error) {
              if (!(error instanceof ConflictError)) throw error;
              conflicts += 1;
            }
          }
          throw new Error(`writer ${writer} never committed`);
        }
        await Promise.all(
          Array.from({ length: writers }, (_, writer) => write(writer % 2 === 0 ? store : other, writer)),
        );

        expect((await store.getVersion(urn, 'counter', 0))?.version).toBe(writers);
        const versions = await Promise.all(
          Array.from({ length: writers }, (_, index) => other.getVersion(urn, 'counter', index + 1)),
        );
        const writersSeen = versions.map((version) => version?.value['writer']);
        expect([...writersSeen].sort((a, b) => Number(a) - Number(b))).toEqual(
          Array.from({ length: writers }, (_, writer) => writer),
        );
        // The writers really raced (otherwise this test proves nothing).
        expect(conflicts).toBeGreaterThan(0);
      });
    });

    describe('deletes', () => {
      it('deletes every version of one aspect and lets it start again at ordinal 1', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(
          commitOf(
            put(urn, 'status', 0, 1, { removed: false }),
            put(urn, 'status', 1, 2, { removed: true }),
            put(urn, 'ownership', 0, 1, { owners: [] }),
          ),
        );
        await store.commit(commitOf({ kind: 'deleteAspect', urn, aspect: 'status', expectedVersion: 2 }));

        expect(await store.getVersion(urn, 'status', 0)).toBeUndefined();
        expect(await store.getVersion(urn, 'status', 1)).toBeUndefined();
        expect(await store.getVersion(urn, 'status', 2)).toBeUndefined();
        expect(await store.getEntity(urn)).toEqual([stored(urn, 'ownership', 1, { owners: [] })]);

        await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false, again: true })));
        expect(await store.getVersion(urn, 'status', 0)).toEqual(
          stored(urn, 'status', 1, { removed: false, again: true }),
        );
      });

      it('deletes an entity: every version of every aspect and its timeseries values, nothing of other entities', async () => {
        const { store } = await open();
        const urn = newUrn();
        const neighbour = newUrn();
        await store.commit(
          commitOf(
            put(urn, 'status', 0, 1, { removed: false }),
            put(urn, 'status', 1, 2, { removed: true }),
            put(urn, 'ownership', 0, 1, { owners: [] }),
            { kind: 'putTimeseries', value: timeseries(urn, 'operation', 1000, { n: 1 }) },
            put(neighbour, 'status', 0, 1, { removed: false }),
            { kind: 'putTimeseries', value: timeseries(neighbour, 'operation', 1000, { n: 2 }) },
          ),
        );
        await store.commit(commitOf({ kind: 'deleteEntity', urn }));

        expect(await store.getEntity(urn)).toEqual([]);
        expect(await store.getVersion(urn, 'status', 1)).toBeUndefined();
        expect(await store.getTimeseries(urn, 'operation')).toEqual([]);
        expect(await store.getEntity(neighbour)).toEqual([stored(neighbour, 'status', 1, { removed: false })]);
        expect(await store.getTimeseries(neighbour, 'operation')).toEqual([
          timeseries(neighbour, 'operation', 1000, { n: 2 }),
        ]);
      });
    });

    describe('values by ingestion run', () => {
      it('finds the latest values a run wrote last, by URN then aspect, up to the limit, never older versions', async () => {
        const { store } = await open();
        const [first, second] = [newUrn(), newUrn()].sort();
        const stamped = (urn: string, aspect: string, expected: number, version: number, runId: string) =>
          put(urn, aspect, expected, version, { v: version }, { runId });
        await store.commit(
          commitOf(stamped(first!, 'status', 0, 1, 'run-a'), stamped(first!, 'ownership', 0, 1, 'run-a')),
        );
        await store.commit(
          commitOf(stamped(second!, 'status', 0, 1, 'run-a'), stamped(first!, 'status', 1, 2, 'run-b')),
        );

        const found = await store.findLatestByRunId('run-a', 10);
        expect(found.map(({ urn, aspect, version }) => [urn, aspect, version])).toEqual([
          [first, 'ownership', 1],
          [second, 'status', 1],
        ]);
        expect((await store.findLatestByRunId('run-b', 10)).map(({ aspect, version }) => [aspect, version])).toEqual([
          ['status', 2],
        ]);
        expect(await store.findLatestByRunId('run-a', 1)).toHaveLength(1);
        expect(await store.findLatestByRunId('run-none', 10)).toEqual([]);
      });

      it('finds the latest values written last under a registry version, by URN then aspect, up to the limit', async () => {
        const { store } = await open();
        const [first, second] = [newUrn(), newUrn()].sort() as [string, string];
        const under = (registryName: string, registryVersion: unknown) => ({
          runId: 'r',
          registryName,
          registryVersion,
        });
        await store.commit(
          commitOf(
            put(first, 'status', 0, 1, { v: 1 }, under('model', '1.0.0')),
            put(first, 'ownership', 0, 1, { v: 1 }, under('model', '1.0.0')),
            put(second, 'status', 0, 1, { v: 1 }, under('model', '1.0.0')),
            put(second, 'ownership', 0, 1, { v: 1 }, under('model', '2.0.0')),
            put(second, 'globalTags', 0, 1, { v: 1 }, under('other', '1.0.0')),
            put(second, 'glossaryTerms', 0, 1, { v: 1 }, under('model', 1)),
            // The registry's words elsewhere in the system metadata name no registry.
            put(second, 'domains', 0, 1, { v: 1 }, { properties: { registryName: 'model', registryVersion: '1.0.0' } }),
          ),
        );
        // first's status written again under no registry: its earlier version no longer counts.
        await store.commit(commitOf(put(first, 'status', 1, 2, { v: 2 }, { runId: 'r2' })));

        const found = async (name: string, version: string, limit: number) =>
          (await store.findLatestByRegistry(name, version, limit)).map(({ urn, aspect, version: ordinal }) => [
            urn,
            aspect,
            ordinal,
          ]);
        expect(await found('model', '1.0.0', 10)).toEqual([
          [first, 'ownership', 1],
          [second, 'status', 1],
        ]);
        expect(await found('model', '2.0.0', 10)).toEqual([[second, 'ownership', 1]]);
        expect(await found('model', '1.0.0', 1)).toEqual([[first, 'ownership', 1]]);
        // Versions are compared whole, as strings.
        expect(await found('model', '1.0', 10)).toEqual([]);
        expect(await found('model', '1', 10)).toEqual([]);
        expect(await found('model', '1.0.0', 0)).toEqual([]);
        const [row] = await store.findLatestByRegistry('other', '1.0.0', 10);
        expect(row).toEqual({ ...row, value: { v: 1 }, systemMetadata: under('other', '1.0.0'), createdOn: 1001 });
      });
    });

    describe('runs, URNs and counts', () => {
      it('lists runs by their newest write, counting the latest values each wrote last, removed entities on request', async () => {
        const { store } = await open();
        const [a, b, c] = [newUrn(), newUrn(), newUrn()].sort() as [string, string, string];
        const by = (runId: string, lastObserved: number) => ({ runId, lastObserved });
        await store.commit(
          commitOf(
            put(a, 'status', 0, 1, { removed: false }, by('run-old', 100)),
            put(a, 'ownership', 0, 1, { owners: [] }, by('run-old', 150)),
            put(b, 'status', 0, 1, { removed: true }, by('run-new', 300)),
            put(b, 'ownership', 0, 1, { owners: [] }, by('run-new', 300)),
            put(c, 'ownership', 0, 1, { owners: [] }, by('no-run-id-provided', 400)),
          ),
        );
        // An overwrite moves the value to the newer run: the older run no longer counts it.
        await store.commit(commitOf(put(a, 'ownership', 1, 2, { owners: [1] }, by('run-new', 200))));

        expect(await store.listRuns({ start: 0, count: 10, includeSoft: true })).toEqual([
          { runId: 'run-new', rows: 3, timestamp: 300 },
          { runId: 'run-old', rows: 1, timestamp: 100 },
        ]);
        // b's status says removed: its values are left out, and run-new keeps only the value it wrote to a.
        expect(await store.listRuns({ start: 0, count: 10, includeSoft: false })).toEqual([
          { runId: 'run-new', rows: 1, timestamp: 200 },
          { runId: 'run-old', rows: 1, timestamp: 100 },
        ]);
        expect(await store.listRuns({ start: 1, count: 1, includeSoft: true })).toEqual([
          { runId: 'run-old', rows: 1, timestamp: 100 },
        ]);
        expect(await store.listRuns({ start: 0, count: 0, includeSoft: true })).toEqual([]);
      });

      it('lists the URNs that have a key aspect, by prefix, paged, with the total', async () => {
        const { store } = await open();
        const urns = [newUrn(), newUrn(), newUrn()].sort() as [string, string, string];
        const prefix = urns[0].slice(0, urns[0].lastIndexOf('-') + 1);
        for (const urn of urns) await store.commit(commitOf(put(urn, 'corpUserKey', 0, 1, {})));
        await store.commit(commitOf(put(`${prefix}without-key`, 'status', 0, 1, { removed: false })));

        expect(await store.listUrns({ urnPrefix: prefix, keyAspect: 'corpUserKey', start: 0, count: 2 })).toEqual({
          urns: urns.slice(0, 2),
          total: 3,
        });
        expect(await store.listUrns({ urnPrefix: prefix, keyAspect: 'corpUserKey', start: 2, count: 2 })).toEqual({
          urns: urns.slice(2),
          total: 3,
        });
        expect(
          await store.listUrns({ urnPrefix: 'urn:li:dataset:', keyAspect: 'corpUserKey', start: 0, count: 2 }),
        ).toEqual({ urns: [], total: 0 });
      });

      it('counts the latest values of an aspect, narrowed by URN prefix and predicate', async () => {
        const { store } = await open();
        const urns = [newUrn(), newUrn(), newUrn()].sort() as [string, string, string];
        const prefix = urns[0].slice(0, urns[0].lastIndexOf('-') + 1);
        for (const urn of urns) await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false })));
        await store.commit(commitOf(put(urns[0], 'status', 1, 2, { removed: true })));

        expect(await store.countLatest({ aspect: 'status', urnPrefix: prefix })).toBe(3);
        expect(
          await store.countLatest({ aspect: 'status', urnPrefix: prefix, urnMatches: (urn) => urn !== urns[1] }),
        ).toBe(2);
        expect(await store.countLatest({ aspect: 'ownership', urnPrefix: prefix })).toBe(0);
        expect(await store.countLatest({ aspect: 'status' })).toBeGreaterThanOrEqual(3);
      });
    });

    describe('restate', () => {
      /** Two entities of one prefix, each with two latest values (one of them versioned twice) and two points. */
      async function seeded(): Promise<{ store: AspectStore; urns: string[]; prefix: string }> {
        const { store } = await open();
        const urns = [newUrn(), newUrn()].sort();
        const prefix = urns[0]!.slice(0, urns[0]!.lastIndexOf('-') + 1);
        for (const urn of urns) {
          await store.commit(commitOf(put(urn, 'status', 0, 1, { removed: false }), put(urn, 'corpUserKey', 0, 1, {})));
          await store.commit(commitOf(put(urn, 'status', 1, 2, { removed: true })));
          await store.commit(
            commitOf(
              { kind: 'putTimeseries', value: timeseries(urn, 'operation', 100, {}) },
              { kind: 'putTimeseries', value: timeseries(urn, 'operation', 200, {}) },
            ),
          );
        }
        return { store, urns, prefix };
      }
      const describeRow = (row: RestatedRow) =>
        row.source === 'latest'
          ? `${row.row.urn} ${row.row.aspect} v${row.row.version}`
          : `${row.row.urn} ${row.row.aspect} @${row.row.timestampMillis}`;
      /** Restates one page, answering what was restated and the outbox records appended. */
      async function restated(store: AspectStore, request: RestateRequest) {
        let seen: string[] = [];
        const page = await store.restate(request, (rows) => {
          seen = rows.map(describeRow);
          return rows.map((row) => outbox('restore', row.row.urn, describeRow(row)));
        });
        return { page, seen };
      }

      it('walks the latest values by (urn, aspect), then the timeseries values, appending the records to the outbox', async () => {
        const { store, urns, prefix } = await seeded();
        const [a, b] = urns as [string, string];
        const { page, seen } = await restated(store, { urnPrefix: prefix, limit: 100 });
        const points = (urn: string) =>
          [100, 200].map((time) => timeseries(urn, 'operation', time, {})).sort((x, y) => (x.id < y.id ? -1 : 1));
        expect(seen).toEqual([
          `${a} corpUserKey v1`,
          `${a} status v2`,
          `${b} corpUserKey v1`,
          `${b} status v2`,
          ...points(a).map((point) => `${a} operation @${point.timestampMillis}`),
          ...points(b).map((point) => `${b} operation @${point.timestampMillis}`),
        ]);
        expect(page).toMatchObject({ rows: 8, skipped: 0, exhausted: true });
        expect(page.last).toEqual({ source: 'timeseries', urn: b, aspect: 'operation', id: points(b)[1]!.id });
        expect((await store.pendingOutbox(100)).map((record) => record.value.toString())).toEqual(seen);
      });

      it('counts the rows a whole restore replays', async () => {
        const { store } = await seeded();
        // Two entities, two latest values (archived versions aside) and two points each.
        expect(await store.countRows()).toEqual({ latest: 4, timeseries: 4 });
      });

      it('narrows by entity, aspect and predicate, skips rows, and resumes after a cursor', async () => {
        const { store, urns, prefix } = await seeded();
        const [a, b] = urns as [string, string];
        expect((await restated(store, { urn: b, aspects: ['status'], limit: 10 })).seen).toEqual([`${b} status v2`]);
        expect(
          (
            await restated(store, {
              urnPrefix: prefix,
              urnMatches: (urn) => urn === a,
              aspects: ['operation'],
              limit: 10,
            })
          ).seen,
        ).toHaveLength(2);
        const first = await restated(store, { urnPrefix: prefix, skip: 1, limit: 2 });
        expect(first.seen).toEqual([`${a} status v2`, `${b} corpUserKey v1`]);
        expect(first.page).toMatchObject({ rows: 2, skipped: 1, exhausted: false });
        const next = await restated(store, { urnPrefix: prefix, after: first.page.last, limit: 3 });
        expect(next.seen.slice(0, 2)).toEqual([`${b} status v2`, expect.stringContaining(`${a} operation @`)]);
        const rest = await restated(store, { urnPrefix: prefix, after: next.page.last, limit: 10 });
        expect(rest.seen).toHaveLength(2);
        expect(rest.page.exhausted).toBe(true);
        expect((await restated(store, { urnPrefix: `${prefix}none`, limit: 10 })).page).toMatchObject({
          rows: 0,
          last: undefined,
          exhausted: true,
        });
      });

      it('narrows by when each row was written (createdOn), bounds included, skipping and resuming as before', async () => {
        const { store, urns, prefix } = await seeded();
        const [a, b] = urns as [string, string];
        // Latest values were written at 1001 (corpUserKey) and 1002 (status v2); points at 101 and 201.
        expect((await restated(store, { urnPrefix: prefix, createdOn: { fromMillis: 1002 }, limit: 10 })).seen).toEqual(
          [`${a} status v2`, `${b} status v2`],
        );
        const early = await restated(store, { urnPrefix: prefix, createdOn: { untilMillis: 101 }, limit: 10 });
        expect(early.seen).toEqual([`${a} operation @100`, `${b} operation @100`]);
        const window = { fromMillis: 201, untilMillis: 1001 };
        const first = await restated(store, { urnPrefix: prefix, createdOn: window, skip: 1, limit: 2 });
        expect(first.seen).toEqual([`${b} corpUserKey v1`, `${a} operation @200`]);
        expect(first.page).toMatchObject({ rows: 2, skipped: 1, exhausted: false });
        const rest = await restated(store, { urnPrefix: prefix, createdOn: window, after: first.page.last, limit: 10 });
        expect(rest.seen).toEqual([`${b} operation @200`]);
        expect(rest.page.exhausted).toBe(true);
        expect((await restated(store, { urnPrefix: prefix, createdOn: { fromMillis: 2000 }, limit: 10 })).seen).toEqual(
          [],
        );
      });

      it('ends a page after scanLimit rows read, matching or not, resuming after the last row read', async () => {
        const { store, urns, prefix } = await seeded();
        const b = urns[1] as string;
        let read = 0;
        const request = {
          urnPrefix: prefix,
          urnMatches: (urn: string) => {
            read += 1;
            return urn === b;
          },
          scanLimit: 3,
          limit: 10,
        };
        const pages: { rows: number; read: number; exhausted: boolean }[] = [];
        const seen: string[] = [];
        let after: RowCursor | undefined;
        for (let exhausted = false; !exhausted && pages.length < 10;) {
          read = 0;
          const { page, seen: restatedRows } = await restated(store, { ...request, after });
          pages.push({ rows: page.rows, read, exhausted: page.exhausted });
          seen.push(...restatedRows);
          after = page.last ?? after;
          exhausted = page.exhausted;
        }
        // Eight rows in sequence, b's the 3rd, 4th, 7th and 8th: three pages, none reading more than three.
        expect(pages).toEqual([
          { rows: 1, read: 3, exhausted: false },
          { rows: 1, read: 3, exhausted: false },
          { rows: 2, read: 2, exhausted: true },
        ]);
        expect(seen.slice(0, 2)).toEqual([`${b} corpUserKey v1`, `${b} status v2`]);
        expect(seen.slice(2).sort()).toEqual([`${b} operation @100`, `${b} operation @200`]);
        const none = await restated(store, { urnPrefix: prefix, urnMatches: () => false, scanLimit: 3, limit: 10 });
        expect(none.page).toMatchObject({ rows: 0, exhausted: false, last: { source: 'latest', urn: b } });
      });
    });

    describe('timeseries', () => {
      it('keeps one value per timestamp (upsert) and returns them newest first, limited on request', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit(
          commitOf(
            { kind: 'putTimeseries', value: timeseries(urn, 'operation', 100, { n: 1 }) },
            { kind: 'putTimeseries', value: timeseries(urn, 'operation', 300, { n: 3 }) },
            { kind: 'putTimeseries', value: timeseries(urn, 'operation', 200, { n: 2 }) },
            { kind: 'putTimeseries', value: timeseries(urn, 'datasetProfile', 400, { rows: 9 }) },
          ),
        );
        await store.commit(commitOf({ kind: 'putTimeseries', value: timeseries(urn, 'operation', 200, { n: 22 }) }));

        expect(await store.getTimeseries(urn, 'operation')).toEqual([
          timeseries(urn, 'operation', 300, { n: 3 }),
          timeseries(urn, 'operation', 200, { n: 22 }),
          timeseries(urn, 'operation', 100, { n: 1 }),
        ]);
        expect(await store.getTimeseries(urn, 'operation', { limit: 2 })).toEqual([
          timeseries(urn, 'operation', 300, { n: 3 }),
          timeseries(urn, 'operation', 200, { n: 22 }),
        ]);
        expect(await store.getTimeseries(urn, 'datasetProfile')).toEqual([
          timeseries(urn, 'datasetProfile', 400, { rows: 9 }),
        ]);
        expect(await store.getTimeseries(newUrn(), 'operation')).toEqual([]);
      });

      it('keeps points that share a timestamp but differ in partition or message id apart', async () => {
        const { store } = await open();
        const urn = newUrn();
        const at = (extra: JsonObject) => timeseries(urn, 'datasetProfile', 100, extra);
        const points = [
          at({ partitionSpec: { partition: 'ds=1' }, rows: 1 }),
          at({ partitionSpec: { partition: 'ds=2' }, rows: 2 }),
          at({ messageId: 'm', rows: 3 }),
        ];
        await store.commit(commitOf(...points.map((value) => ({ kind: 'putTimeseries' as const, value }))));
        const replaced = at({ partitionSpec: { partition: 'ds=2' }, rows: 22 });
        await store.commit(commitOf({ kind: 'putTimeseries', value: replaced }));
        const read = await store.getTimeseries(urn, 'datasetProfile');
        expect(read).toHaveLength(3);
        expect(read).toEqual(expect.arrayContaining([points[0], replaced, points[2]]));
      });

      it('truncates one aspect up to a time (inclusive), for the entities of a prefix, at most a batch at a time', async () => {
        const { store } = await open();
        const [a, b] = [newUrn(), newUrn()];
        const prefix = a.slice(0, a.lastIndexOf('-') + 1);
        await store.commit(
          commitOf(
            ...[a, b].flatMap((urn) =>
              [100, 200, 300].map((time): StoreCommit['mutations'][number] => ({
                kind: 'putTimeseries',
                value: timeseries(urn, 'operation', time, { time }),
              })),
            ),
            { kind: 'putTimeseries', value: timeseries(a, 'datasetProfile', 100, {}) },
          ),
        );
        const request = { urnPrefix: prefix, aspect: 'operation', endTimeMillis: 200, limit: 3 };
        expect(await store.truncateTimeseries(request)).toBe(3);
        expect(await store.truncateTimeseries(request)).toBe(1);
        expect(await store.truncateTimeseries(request)).toBe(0);
        expect(await store.truncateTimeseries({ ...request, urnPrefix: 'urn:li:dataset:' })).toBe(0);
        for (const urn of [a, b]) {
          expect((await store.getTimeseries(urn, 'operation')).map((value) => value.timestampMillis)).toEqual([300]);
        }
        expect(await store.getTimeseries(a, 'datasetProfile')).toHaveLength(1);
      });

      it('counts and deletes the values of one aspect in an inclusive range, leaving the rest', async () => {
        const { store } = await open();
        const urn = newUrn();
        const neighbour = newUrn();
        await store.commit(
          commitOf(
            ...[100, 200, 300, 400].map((at): StoreCommit['mutations'][number] => ({
              kind: 'putTimeseries',
              value: timeseries(urn, 'operation', at, { at }),
            })),
            { kind: 'putTimeseries', value: timeseries(urn, 'datasetProfile', 200, { rows: 1 }) },
            { kind: 'putTimeseries', value: timeseries(neighbour, 'operation', 200, { at: 200 }) },
          ),
        );
        expect(await store.countTimeseries(urn, ['operation'])).toBe(4);
        expect(
          await store.countTimeseries(urn, ['operation', 'datasetProfile'], { fromMillis: 200, untilMillis: 300 }),
        ).toBe(3);
        expect(await store.countTimeseries(urn, ['operation'], { untilMillis: 100 })).toBe(1);
        expect(await store.countTimeseries(urn, [])).toBe(0);

        await store.commit(
          commitOf({
            kind: 'deleteTimeseries',
            urn,
            aspect: 'operation',
            range: { fromMillis: 200, untilMillis: 300 },
          }),
        );
        expect((await store.getTimeseries(urn, 'operation')).map((value) => value.timestampMillis)).toEqual([400, 100]);
        expect(await store.getTimeseries(urn, 'datasetProfile')).toHaveLength(1);
        expect(await store.getTimeseries(neighbour, 'operation')).toHaveLength(1);

        await store.commit(commitOf({ kind: 'deleteTimeseries', urn, aspect: 'operation', range: {} }));
        expect(await store.countTimeseries(urn, ['operation'])).toBe(0);
      });

      it('finds, counts and deletes the timeseries values an ingestion run wrote, leaving other runs’ values', async () => {
        const { store } = await open();
        const [a, b] = [newUrn(), newUrn()].sort() as [string, string];
        const written = (
          systemMetadata: JsonObject,
          urn: string,
          aspect: string,
          at: number,
        ): StoreCommit['mutations'][number] => ({
          kind: 'putTimeseries',
          value: { ...timeseries(urn, aspect, at, {}), systemMetadata: { lastObserved: at, ...systemMetadata } },
        });
        const by = (runId: string, urn: string, aspect: string, at: number) => written({ runId }, urn, aspect, at);
        await store.commit(
          commitOf(
            by('run-x', a, 'operation', 100),
            by('run-x', a, 'operation', 200),
            by('run-y', a, 'operation', 300),
            by('run-x', a, 'datasetProfile', 100),
            by('run-x', b, 'operation', 100),
            // No run, or its words elsewhere in the system metadata: no value of the run.
            written({}, b, 'operation', 200),
            written({ properties: { runId: 'run-x' } }, b, 'datasetProfile', 100),
          ),
        );
        const pairs = async (runId: string, limit: number) =>
          (await store.findTimeseriesByRunId(runId, limit)).map(({ urn, aspect, count }) => [urn, aspect, count]);
        expect(await pairs('run-x', 10)).toEqual([
          [a, 'datasetProfile', 1],
          [a, 'operation', 2],
          [b, 'operation', 1],
        ]);
        expect(await pairs('run-x', 2)).toEqual([
          [a, 'datasetProfile', 1],
          [a, 'operation', 2],
        ]);
        expect(await pairs('run-x', 0)).toEqual([]);
        expect(await pairs('run-none', 10)).toEqual([]);

        // A point written again by another run is that run's.
        await store.commit(commitOf(by('run-y', a, 'datasetProfile', 100)));
        expect(await pairs('run-x', 10)).toEqual([
          [a, 'operation', 2],
          [b, 'operation', 1],
        ]);
        expect(await pairs('run-y', 10)).toEqual([
          [a, 'datasetProfile', 1],
          [a, 'operation', 1],
        ]);

        expect(await store.countTimeseries(a, ['operation'], {}, 'run-x')).toBe(2);
        expect(await store.countTimeseries(a, ['operation', 'datasetProfile'], { fromMillis: 150 }, 'run-y')).toBe(1);
        expect(await store.countTimeseries(a, ['operation'], { untilMillis: 150 }, 'run-x')).toBe(1);
        expect(await store.countTimeseries(a, ['operation'], {}, 'run-none')).toBe(0);

        const times = async (urn: string, aspect: string) =>
          (await store.getTimeseries(urn, aspect)).map((value) => value.timestampMillis);
        await store.commit(
          commitOf({
            kind: 'deleteTimeseries',
            urn: a,
            aspect: 'operation',
            range: { untilMillis: 150 },
            runId: 'run-x',
          }),
        );
        expect(await times(a, 'operation')).toEqual([300, 200]);
        await store.commit(
          commitOf({ kind: 'deleteTimeseries', urn: a, aspect: 'operation', range: {}, runId: 'run-x' }),
        );
        expect(await times(a, 'operation')).toEqual([300]);
        expect(await times(a, 'datasetProfile')).toEqual([100]);
        expect(await times(b, 'operation')).toEqual([200, 100]);
        expect(await pairs('run-x', 10)).toEqual([[b, 'operation', 1]]);
      });
    });

    describeWriteTraceContract(open, newUrn);

    describe('outbox and applied proposals', () => {
      it('returns pending outbox records in commit order until they are marked published (idempotently)', async () => {
        const { store } = await open();
        const urn = newUrn();
        const first = outbox('MetadataChangeLog_Versioned_v1', urn, 'first', { requestId: 'r-1' });
        const second = outbox('MetadataChangeProposalOutcome_v1', urn, 'second');
        const third = outbox('MetadataChangeLog_Versioned_v1', urn, 'third', { traceId: 't' });
        await store.commit({
          mutations: [put(urn, 'status', 0, 1, {})],
          outbox: [first, second],
          appliedProposalIds: [],
        });
        await store.commit({ mutations: [], outbox: [third], appliedProposalIds: [] });

        const pending = await store.pendingOutbox(10);
        expect(pending.map(withoutId)).toEqual([first, second, third].map(normalized));
        expect(new Set(pending.map((record) => record.id)).size).toBe(3);
        expect((await store.pendingOutbox(2)).map(withoutId)).toEqual([first, second].map(normalized));

        const [a, b, c] = pending;
        await store.markPublished([a!.id]);
        expect((await store.pendingOutbox(10)).map((record) => record.id)).toEqual([b!.id, c!.id]);
        await store.markPublished([a!.id, a!.id, '999999999', 'not-an-id-of-this-store']);
        await store.markPublished([]);
        expect((await store.pendingOutbox(10)).map((record) => record.id)).toEqual([b!.id, c!.id]);
        await store.markPublished([c!.id, b!.id]);
        expect(await store.pendingOutbox(10)).toEqual([]);

        await store.commit({ mutations: [], outbox: [first], appliedProposalIds: [] });
        expect((await store.pendingOutbox(10)).map(withoutId)).toEqual([normalized(first)]);
      });

      it('reports the proposal ids a commit recorded, and only those', async () => {
        const { store } = await open();
        const urn = newUrn();
        await store.commit({
          mutations: [put(urn, 'status', 0, 1, {})],
          outbox: [],
          appliedProposalIds: [`${urn}-p1`, `${urn}-p2`],
        });
        await store.commit({ mutations: [], outbox: [], appliedProposalIds: [`${urn}-p3`] });

        expect(await store.findApplied([`${urn}-p1`, `${urn}-unknown`, `${urn}-p3`])).toEqual(
          new Set([`${urn}-p1`, `${urn}-p3`]),
        );
        expect(await store.findApplied([])).toEqual(new Set());
      });
    });

    describe('latest values of one aspect', () => {
      it('lists the latest value of an aspect across entities, by URN, in pages', async () => {
        const { store } = await open();
        const prefix = newUrn();
        const urns = [`${prefix}-c`, `${prefix}-a`, `${prefix}-b`];
        for (const urn of urns)
          await store.commit({
            mutations: [put(urn, 'dataHubPolicyInfo', 0, 1, { at: urn })],
            outbox: [],
            appliedProposalIds: [],
          });
        await store.commit({
          mutations: [
            put(`${prefix}-a`, 'dataHubPolicyInfo', 1, 2, { at: 'a2' }),
            put(`${prefix}-a`, 'dataHubAccessTokenInfo', 0, 1, {}),
          ],
          outbox: [],
          appliedProposalIds: [],
        });
        const mine = (rows: StoredAspect[]) => rows.filter((row) => row.urn.startsWith(prefix));
        const all = mine(await store.listLatest('dataHubPolicyInfo', { limit: 10_000 }));
        expect(all.map((row) => [row.urn, row.version, row.value])).toEqual([
          [`${prefix}-a`, 2, { at: 'a2' }],
          [`${prefix}-b`, 1, { at: `${prefix}-b` }],
          [`${prefix}-c`, 1, { at: `${prefix}-c` }],
        ]);
        const page = await store.listLatest('dataHubPolicyInfo', { afterUrn: `${prefix}-a`, limit: 1 });
        expect(page.map((row) => row.urn)).toEqual([`${prefix}-b`]);
        expect(await store.listLatest('dataHubPolicyInfo', { limit: 0 })).toEqual([]);
        expect(mine(await store.listLatest('dataHubAccessTokenInfo', { limit: 10 }))).toEqual([
          expect.objectContaining({ urn: `${prefix}-a`, aspect: 'dataHubAccessTokenInfo' }),
        ]);
        // Only listed aspects are indexed for it: another is a programming error.
        await expect(store.listLatest('status', { limit: 10 })).rejects.toThrow('cannot be listed');
        expect(LISTED.map((aspect) => store.listsAspect(aspect))).toEqual([true, true]);
        expect(store.listsAspect('status')).toBe(false);
      });
    });

    describe('entity scan', () => {
      it('reads whole entities of a URN prefix, in URN order, in pages, with the latest value of each aspect', async () => {
        const { store } = await open();
        const prefix = `urn:li:scan${randomUUID().replaceAll('-', '')}:`;
        const urns = ['c', 'a', 'b', 'd'].map((id) => `${prefix}${id}`);
        for (const urn of urns)
          await store.commit({
            mutations: [put(urn, 'status', 0, 1, { removed: false }), put(urn, 'ownership', 0, 1, { at: urn })],
            outbox: [],
            appliedProposalIds: [],
          });
        await store.commit({
          mutations: [put(`${prefix}a`, 'status', 1, 2, { removed: true })],
          outbox: [],
          appliedProposalIds: [],
        });
        // Beyond the prefix on both sides: never read.
        const outside = [prefix.slice(0, -1), `${prefix.slice(0, -1)};x`];
        for (const urn of outside)
          await store.commit({ mutations: [put(urn, 'status', 0, 1, {})], outbox: [], appliedProposalIds: [] });

        const first = await store.scanEntities({ urnPrefix: prefix, limit: 3 });
        expect(first.map((entity) => [entity.urn, entity.aspects.map((row) => [row.aspect, row.version])])).toEqual([
          [
            `${prefix}a`,
            [
              ['ownership', 1],
              ['status', 2],
            ],
          ],
          [
            `${prefix}b`,
            [
              ['ownership', 1],
              ['status', 1],
            ],
          ],
          [
            `${prefix}c`,
            [
              ['ownership', 1],
              ['status', 1],
            ],
          ],
        ]);
        expect(first[0]?.aspects.find((row) => row.aspect === 'status')?.value).toEqual({ removed: true });
        const rest = await store.scanEntities({ urnPrefix: prefix, afterUrn: `${prefix}c`, limit: 3 });
        expect(rest.map((entity) => entity.urn)).toEqual([`${prefix}d`]);
        expect(await store.scanEntities({ urnPrefix: prefix, afterUrn: `${prefix}d`, limit: 3 })).toEqual([]);
        expect(await store.scanEntities({ urnPrefix: prefix, limit: 0 })).toEqual([]);
        // A cursor before the prefix starts at the prefix.
        const fromStart = await store.scanEntities({ urnPrefix: prefix, afterUrn: 'urn:', limit: 1 });
        expect(fromStart.map((entity) => entity.urn)).toEqual([`${prefix}a`]);
      });
    });

    describe('marks', () => {
      it('sets marks in a commit, atomically with the rest, and reads the latest value of each', async () => {
        const { store } = await open();
        const urn = newUrn();
        const [first, second] = [`${urn}-a`, `${urn}-b`];
        expect(await store.getMarks([first, second])).toEqual(new Map());
        await store.commit({
          mutations: [put(urn, 'status', 0, 1, {}), { kind: 'setMark', name: first, value: 'v1' }],
          outbox: [],
          appliedProposalIds: [],
        });
        expect(await store.getMarks([first, second])).toEqual(new Map([[first, 'v1']]));
        await store.commit({
          mutations: [
            { kind: 'setMark', name: first, value: 'v2' },
            { kind: 'setMark', name: second, value: 'w1' },
          ],
          outbox: [],
          appliedProposalIds: [],
        });
        expect(await store.getMarks([first, second, first])).toEqual(
          new Map([
            [first, 'v2'],
            [second, 'w1'],
          ]),
        );
        expect(await store.getMarks([])).toEqual(new Map());

        // A commit that fails sets no mark.
        await expect(
          store.commit({
            mutations: [{ kind: 'setMark', name: first, value: 'lost' }, put(urn, 'status', 0, 1, {})],
            outbox: [],
            appliedProposalIds: [],
          }),
        ).rejects.toThrow(ConflictError);
        expect((await store.getMarks([first])).get(first)).toBe('v2');
      });
    });

    it('keeps everything across close and reopen', async () => {
      const { store, reopen } = await open();
      const urn = newUrn();
      const record = outbox('MetadataChangeLog_Versioned_v1', urn, 'durable', { requestId: 'r' });
      await store.commit({
        mutations: [
          put(urn, 'status', 0, 1, { removed: false }),
          put(urn, 'status', 1, 2, { removed: true }),
          { kind: 'putTimeseries', value: timeseries(urn, 'operation', 5, { n: 5 }) },
          { kind: 'setMark', name: `${urn}-mark`, value: 'kept' },
        ],
        outbox: [record],
        appliedProposalIds: [`${urn}-p`],
      });
      await store.close();

      const reopened = await reopen();
      expect(await reopened.getVersion(urn, 'status', 0)).toEqual(stored(urn, 'status', 2, { removed: true }));
      expect(await reopened.getVersion(urn, 'status', 1)).toEqual(stored(urn, 'status', 1, { removed: false }));
      expect(await reopened.getTimeseries(urn, 'operation')).toEqual([timeseries(urn, 'operation', 5, { n: 5 })]);
      expect((await reopened.pendingOutbox(10)).map(withoutId)).toEqual([normalized(record)]);
      expect(await reopened.findApplied([`${urn}-p`])).toEqual(new Set([`${urn}-p`]));
      expect(await reopened.getMarks([`${urn}-mark`])).toEqual(new Map([[`${urn}-mark`, 'kept']]));
    });
  });
}

const actor = 'urn:li:corpuser:contract-writer';

/** A put whose row is derived from its arguments, so that `stored` can predict what a read returns. */
function put(
  urn: string,
  aspect: string,
  expectedVersion: number,
  version: number,
  value: JsonObject,
  systemMetadata?: JsonObject,
): PutAspect {
  return {
    kind: 'put',
    urn,
    aspect,
    expectedVersion,
    row: {
      version,
      value,
      systemMetadata: systemMetadata ?? { lastObserved: 1000 + version, runId: 'contract', version: String(version) },
      createdOn: 1000 + version,
      createdBy: actor,
    },
  };
}

/** What reading back a version written by {@link put} (without explicit system metadata) returns. */
function stored(urn: string, aspect: string, version: number, value: JsonObject): StoredAspect {
  return { urn, aspect, ...put(urn, aspect, version - 1, version, value).row };
}

function timeseries(urn: string, aspect: string, timestampMillis: number, value: JsonObject): StoredTimeseriesValue {
  return {
    urn,
    aspect,
    id: timeseriesPointId(urn, { timestampMillis, ...value }),
    timestampMillis,
    value: { timestampMillis, ...value },
    systemMetadata: { lastObserved: timestampMillis, runId: 'contract' },
    createdOn: timestampMillis + 1,
    createdBy: actor,
  };
}

function outbox(topic: string, key: string, value: string, headers: Record<string, string> = {}): OutboxRecord {
  return { topic, key, value: Buffer.from(value), headers };
}

function commitOf(...mutations: StoreCommit['mutations']): StoreCommit {
  return { mutations, outbox: [], appliedProposalIds: [] };
}

/** An outbox record in a form `toEqual` compares by content (any Uint8Array an adapter returns becomes a Buffer). */
function normalized(record: OutboxRecord): OutboxRecord {
  return { topic: record.topic, key: record.key, value: Buffer.from(record.value), headers: { ...record.headers } };
}

function withoutId(record: OutboxRecord & { id: string }): OutboxRecord {
  return normalized(record);
}

function sortByKey(aspects: readonly StoredAspect[]): StoredAspect[] {
  return [...aspects].sort((a, b) => `${a.urn} ${a.aspect}`.localeCompare(`${b.urn} ${b.aspect}`));
}
