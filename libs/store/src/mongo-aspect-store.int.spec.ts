import { randomUUID } from 'node:crypto';

import { afterEach, describe, expect, it } from '@jest/globals';
import { ConflictError } from '@strata/model';
import { MongoClient } from 'mongodb';

import type { AspectStore, OutboxRecord, PutAspect, StoreCommit } from './aspect-store';
import { MongoAspectStore } from './mongo-aspect-store';
import type { MongoAspectStoreOptions } from './mongo-aspect-store';
import { describeAspectStoreContract } from './testing';

// Against a real MongoDB replica set (or sharded cluster), e.g.
//   MONGODB_URI=mongodb://127.0.0.1:27017/?replicaSet=rs0 npx jest libs/store
// Every test gets a database of its own, dropped afterwards.
const uri = process.env['MONGODB_URI'];

if (uri === undefined || uri === '') {
  // Jest reports a wholly skipped file as "Test Suites: 1 skipped" (and the workspace reporter as "N skipped").
  describe.skip('MongoAspectStore against a real MongoDB (skipped: MONGODB_URI is not set)', () => {
    it('satisfies the AspectStore contract and keeps its documented layout', () => {
      // Never runs: listed so that the skip shows in jest's output.
    });
  });
} else {
  describeMongoAspectStore(uri);
}

function describeMongoAspectStore(uri: string): void {
  /** A fresh database name: the contract's outbox tests need an empty store. */
  function newDatabase(): string {
    return `strata_store_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  }

  async function dropDatabase(database: string): Promise<void> {
    const client = new MongoClient(uri);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  }

  describeAspectStoreContract('MongoAspectStore', {
    create: async ({ listedAspects }) => {
      const database = newDatabase();
      const store = await MongoAspectStore.connect({ uri, database, listedAspects });
      return {
        store,
        // Its own client, as another process would have.
        reopen: () => MongoAspectStore.connect({ uri, database, listedAspects }),
        dispose: () => dropDatabase(database),
      };
    },
  });

  describe('MongoAspectStore', () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function open(
      options: Partial<MongoAspectStoreOptions> = {},
    ): Promise<{ store: AspectStore; client: MongoClient; database: string }> {
      const database = options.database ?? newDatabase();
      const client = new MongoClient(uri);
      await client.connect();
      cleanups.push(async () => {
        await client.db(database).dropDatabase();
        await client.close();
      });
      const store = await MongoAspectStore.connect({ uri, database, ...options });
      cleanups.push(() => store.close());
      return { store, client, database };
    }

    function put(expectedVersion: number, version: number, title: string): PutAspect {
      return {
        kind: 'put',
        urn: 'urn:li:corpuser:u',
        aspect: 'corpUserInfo',
        expectedVersion,
        row: {
          version,
          value: { title },
          systemMetadata: { version: String(version) },
          createdOn: version,
          createdBy: 'urn:li:corpuser:w',
        },
      };
    }

    const record: OutboxRecord = { topic: 't', key: 'k', value: Buffer.from('v'), headers: {} };

    function commitOf(partial: Partial<StoreCommit>): StoreCommit {
      return { mutations: [], outbox: [], appliedProposalIds: [], ...partial };
    }

    it("lays documents out as DataHub's metadata_aspect_v2: latest under version 0 with its ordinal, older under their own", async () => {
      const { store, client, database } = await open();
      await store.commit(commitOf({ mutations: [put(0, 1, 'one'), put(1, 2, 'two'), put(2, 3, 'three')] }));

      const documents = await client
        .db(database)
        .collection('metadata_aspect_v2')
        .find({}, { projection: { _id: 0, version: 1, ordinal: 1, metadata: 1 } })
        .sort({ version: 1 })
        .toArray();
      expect(documents).toEqual([
        { version: 0, ordinal: 3, metadata: '{"title":"three"}' },
        { version: 1, ordinal: 1, metadata: '{"title":"one"}' },
        { version: 2, ordinal: 2, metadata: '{"title":"two"}' },
      ]);
    });

    it('creates its unique indexes, and connecting again on the same database changes nothing', async () => {
      const { client, database } = await open();
      const again = await MongoAspectStore.connect({ uri, database });
      await again.close();

      const indexes = async (collection: string) =>
        (await client.db(database).collection(collection).indexes()).map(({ name, key, unique }) => ({
          name,
          key,
          unique: unique ?? false,
        }));
      expect(await indexes('metadata_aspect_v2')).toEqual([
        { name: '_id_', key: { _id: 1 }, unique: false },
        { name: 'urn_aspect_version', key: { urn: 1, aspect: 1, version: 1 }, unique: true },
        { name: 'urn_version_aspect', key: { urn: 1, version: 1, aspect: 1 }, unique: false },
        { name: 'latest_by_run', key: { runId: 1, urn: 1, aspect: 1 }, unique: false },
        { name: 'latest_by_aspect', key: { aspect: 1, urn: 1 }, unique: false },
      ]);
      expect(await indexes('timeseries_aspect')).toEqual([
        { name: '_id_', key: { _id: 1 }, unique: false },
        { name: 'urn_aspect_pointId', key: { urn: 1, aspect: 1, pointId: 1 }, unique: true },
        { name: 'urn_aspect_time', key: { urn: 1, aspect: 1, timestampMillis: 1 }, unique: false },
        { name: 'aspect_time', key: { aspect: 1, timestampMillis: 1 }, unique: false },
        { name: 'timeseries_by_run', key: { runId: 1, urn: 1, aspect: 1 }, unique: false },
      ]);
      const names = (await client.db(database).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'applied_proposal',
          'metadata_aspect_v2',
          'outbox',
          'outbox_sequence',
          'timeseries_aspect',
          'write_trace',
          'write_trace_publication',
        ]),
      );
    });

    it('keeps its collections behind the given prefix', async () => {
      const { client, database } = await open({ collectionPrefix: 'tenant_' });
      const names = (await client.db(database).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      expect(names.every((name) => name.startsWith('tenant_'))).toBe(true);
      expect(names).toContain('tenant_metadata_aspect_v2');
    });

    it('records when a proposal id was applied with the injected clock, and deletes published outbox documents', async () => {
      const { store, client, database } = await open({ now: () => 1234 });
      await store.commit(commitOf({ outbox: [record], appliedProposalIds: ['p-1', 'p-1'] }));
      const [pending] = await store.pendingOutbox(1);
      await store.markPublished([pending!.id]);

      const db = client.db(database);
      expect(await db.collection('applied_proposal').find({}).toArray()).toEqual([
        { _id: 'p-1', appliedAt: new Date(1234) },
      ]);
      expect(await db.collection('outbox').countDocuments()).toBe(0);
    });

    it('fails a commit that records a proposal id already recorded, with ConflictError, writing nothing', async () => {
      const { store } = await open();
      await store.commit(commitOf({ appliedProposalIds: ['p-1'] }));

      const failing = store.commit(
        commitOf({ mutations: [put(0, 1, 'one')], outbox: [record], appliedProposalIds: ['p-2', 'p-1'] }),
      );
      await expect(failing).rejects.toBeInstanceOf(ConflictError);
      expect(await store.getVersion('urn:li:corpuser:u', 'corpUserInfo', 0)).toBeUndefined();
      expect(await store.pendingOutbox(10)).toEqual([]);
      expect(await store.findApplied(['p-1', 'p-2'])).toEqual(new Set(['p-1']));
    });

    it('hands out gap-free outbox ids in commit order across handles, never reusing one after publishing', async () => {
      const { store, database } = await open();
      const other = await MongoAspectStore.connect({ uri, database });
      cleanups.push(() => other.close());

      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? store : other).commit(commitOf({ outbox: [{ ...record, key: `k${index}` }, record] })),
        ),
      );
      const ids = (await store.pendingOutbox(100)).map((pending) => Number(pending.id));
      expect(ids).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
      // The two records of one commit are adjacent.
      const pending = await store.pendingOutbox(100);
      for (let index = 0; index < pending.length; index += 2) {
        expect(pending[index]!.key).toMatch(/^k\d+$/);
        expect(pending[index + 1]!.key).toBe('k');
      }

      await store.markPublished(ids.map(String));
      await store.commit(commitOf({ outbox: [record] }));
      expect((await store.pendingOutbox(10)).map((next) => next.id)).toEqual(['41']);
    });

    it('leaves an injected client open on close, and rejects every call once closed', async () => {
      const { client, database } = await open();
      const store = await MongoAspectStore.connect({ uri: 'mongodb://unused.invalid', database, client });
      await store.commit(commitOf({ mutations: [put(0, 1, 'one')] }));
      await store.close();
      await store.close();
      await expect(store.getVersion('urn:li:corpuser:u', 'corpUserInfo', 0)).rejects.toThrow(/closed/);
      await expect(store.commit(commitOf({}))).rejects.toThrow(/closed/);
      expect(await client.db(database).collection('metadata_aspect_v2').countDocuments()).toBe(1);
    });

    it('answers undefined for a negative or fractional version instead of failing', async () => {
      const { store } = await open();
      await store.commit(commitOf({ mutations: [put(0, 1, 'one')] }));
      expect(await store.getVersion('urn:li:corpuser:u', 'corpUserInfo', -1)).toBeUndefined();
      expect(await store.getVersion('urn:li:corpuser:u', 'corpUserInfo', 0.5)).toBeUndefined();
    });
  });
}
