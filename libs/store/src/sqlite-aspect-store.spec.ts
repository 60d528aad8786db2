import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';

import type { AspectStore, PutAspect } from './aspect-store';
import { SqliteAspectStore } from './sqlite-aspect-store';
import { describeAspectStoreContract } from './testing';

describeAspectStoreContract('SqliteAspectStore', {
  create: ({ listedAspects }) => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-store-'));
    const path = join(directory, 'store.sqlite');
    return Promise.resolve({
      store: new SqliteAspectStore({ path, listedAspects }),
      reopen: () => Promise.resolve(new SqliteAspectStore({ path, listedAspects })),
      dispose: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
});

describe('SqliteAspectStore', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function openFile(now?: () => number): { store: AspectStore; path: string } {
    const directory = mkdtempSync(join(tmpdir(), 'strata-store-'));
    const path = join(directory, 'store.sqlite');
    const store = new SqliteAspectStore({ path, now });
    cleanups.push(async () => {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    });
    return { store, path };
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

  it("lays rows out as DataHub's metadata_aspect_v2: latest under version 0 with its ordinal, older under their own", async () => {
    const { store, path } = openFile();
    await store.commit({
      mutations: [put(0, 1, 'one'), put(1, 2, 'two'), put(2, 3, 'three')],
      outbox: [],
      appliedProposalIds: [],
    });

    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT version, ordinal, metadata FROM metadata_aspect_v2 ORDER BY version').all() as {
        version: number;
        ordinal: number;
        metadata: string;
      }[];
      expect(rows).toEqual([
        { version: 0, ordinal: 3, metadata: '{"title":"three"}' },
        { version: 1, ordinal: 1, metadata: '{"title":"one"}' },
        { version: 2, ordinal: 2, metadata: '{"title":"two"}' },
      ]);
    } finally {
      db.close();
    }
  });

  it('records when a proposal id was applied with the injected clock, and deletes published outbox rows', async () => {
    const { store, path } = openFile(() => 1234);
    await store.commit({
      mutations: [],
      outbox: [{ topic: 't', key: 'k', value: Buffer.from('v'), headers: {} }],
      appliedProposalIds: ['p-1', 'p-1'],
    });
    const [pending] = await store.pendingOutbox(1);
    await store.markPublished([pending!.id]);

    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT id, appliedat FROM applied_proposal').all()).toEqual([{ id: 'p-1', appliedat: 1234 }]);
      expect(db.prepare('SELECT COUNT(*) AS n FROM outbox').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('never reuses an outbox id, even after every record was published', async () => {
    const { store } = openFile();
    const record = { topic: 't', key: 'k', value: Buffer.from('v'), headers: {} };
    await store.commit({ mutations: [], outbox: [record], appliedProposalIds: [] });
    const [first] = await store.pendingOutbox(1);
    await store.markPublished([first!.id]);
    await store.commit({ mutations: [], outbox: [record], appliedProposalIds: [] });
    const [second] = await store.pendingOutbox(1);
    expect(Number(second!.id)).toBeGreaterThan(Number(first!.id));
  });

  it('works in memory, and rejects every call once closed', async () => {
    const store = new SqliteAspectStore({ path: ':memory:' });
    await store.commit({ mutations: [put(0, 1, 'one')], outbox: [], appliedProposalIds: [] });
    expect((await store.getVersion('urn:li:corpuser:u', 'corpUserInfo', 0))?.value).toEqual({ title: 'one' });
    await store.close();
    await store.close();
    await expect(store.getVersion('urn:li:corpuser:u', 'corpUserInfo', 0)).rejects.toThrow();
  });

  it('answers undefined for a negative or fractional version instead of failing', async () => {
    const { store } = openFile();
    await store.commit({ mutations: [put(0, 1, 'one')], outbox: [], appliedProposalIds: [] });
    expect(await store.getVersion('urn:li:corpuser:u', 'corpUserInfo', -1)).toBeUndefined();
    expect(await store.getVersion('urn:li:corpuser:u', 'corpUserInfo', 0.5)).toBeUndefined();
  });

  it('given a file of the earlier layout (one value per timestamp), when opened, then its values move over with their ids', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-store-'));
    const path = join(directory, 'store.sqlite');
    const legacy = new Database(path);
    legacy.exec(`CREATE TABLE timeseries_aspect (urn TEXT NOT NULL, aspect TEXT NOT NULL, timestampmillis INTEGER NOT NULL,
      metadata TEXT NOT NULL, systemmetadata TEXT NOT NULL, createdon INTEGER NOT NULL, createdby TEXT NOT NULL,
      PRIMARY KEY (urn, aspect, timestampmillis))`);
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
    const value = {
      timestampMillis: 1626912000000,
      partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
    };
    legacy
      .prepare('INSERT INTO timeseries_aspect VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(
        urn,
        'datasetProfile',
        value.timestampMillis,
        JSON.stringify(value),
        '{"runId":"r"}',
        7,
        'urn:li:corpuser:w',
      );
    legacy.close();

    const store = new SqliteAspectStore({ path });
    cleanups.push(async () => {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    });
    expect(await store.getTimeseries(urn, 'datasetProfile')).toEqual([
      {
        urn,
        aspect: 'datasetProfile',
        id: '1950387bd3110458968826d55dc486ec',
        timestampMillis: value.timestampMillis,
        value,
        systemMetadata: { runId: 'r' },
        createdOn: 7,
        createdBy: 'urn:li:corpuser:w',
      },
    ]);
    const inspect = new Database(path, { readonly: true });
    expect(inspect.prepare("SELECT name FROM sqlite_master WHERE name = 'timeseries_aspect'").get()).toBeUndefined();
    inspect.close();
  });
});
