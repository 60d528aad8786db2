import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { ValidationError } from '@strata/model';

import type { GraphIndex } from './graph-index';
import { SqliteGraphIndex } from './sqlite-graph-index';
import { describeGraphIndexContract } from './testing';

describeGraphIndexContract('SqliteGraphIndex', {
  create: () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-graph-'));
    const path = join(directory, 'graph.sqlite');
    return Promise.resolve({
      index: new SqliteGraphIndex({ path }),
      reopen: () => Promise.resolve(new SqliteGraphIndex({ path })),
      dispose: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
});

describe('SqliteGraphIndex', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function openFile(): { index: GraphIndex; path: string } {
    const directory = mkdtempSync(join(tmpdir(), 'strata-graph-'));
    const path = join(directory, 'graph.sqlite');
    const index = new SqliteGraphIndex({ path });
    cleanups.push(async () => {
      await index.close();
      rmSync(directory, { recursive: true, force: true });
    });
    return { index, path };
  }

  it('keeps one row per (source, aspect, type, destination), with both directions indexed, in WAL mode', async () => {
    const { index, path } = openFile();
    await index.replaceEdges('urn:li:dataset:d', 'ownership', [
      { type: 'OwnedBy', destination: 'urn:li:corpuser:u', createdAt: 1, createdBy: 'urn:li:corpuser:w' },
      { type: 'OwnedBy', destination: 'urn:li:corpuser:u', createdAt: 2 },
    ]);
    await index.replaceEdges('urn:li:dataset:d', 'globalTags', [{ type: 'TaggedWith', destination: 'urn:li:tag:t' }]);

    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT * FROM edges ORDER BY aspect').all()).toEqual([
        {
          source: 'urn:li:dataset:d',
          aspect: 'globalTags',
          type: 'TaggedWith',
          destination: 'urn:li:tag:t',
          created_at: null,
          created_by: null,
          updated_at: null,
          updated_by: null,
          manual: null,
          holder: null,
        },
        {
          source: 'urn:li:dataset:d',
          aspect: 'ownership',
          type: 'OwnedBy',
          destination: 'urn:li:corpuser:u',
          created_at: 1,
          created_by: 'urn:li:corpuser:w',
          updated_at: null,
          updated_by: null,
          manual: null,
          holder: null,
        },
      ]);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'edges'").all();
      expect(indexes).toEqual(
        expect.arrayContaining([
          { name: 'edges_source_type' },
          { name: 'edges_destination_type' },
          { name: 'edges_holder' },
        ]),
      );
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('adds the update stamps and the manual mark to a file written before them, keeping its edges', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-graph-'));
    const path = join(directory, 'graph.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE edges (source TEXT NOT NULL, aspect TEXT NOT NULL, type TEXT NOT NULL,
      destination TEXT NOT NULL, created_at INTEGER, created_by TEXT, PRIMARY KEY (source, aspect, type, destination))
      WITHOUT ROWID`);
    old
      .prepare('INSERT INTO edges VALUES (?, ?, ?, ?, ?, ?)')
      .run('urn:li:dataset:a', 'up', 'DownstreamOf', 'urn:li:dataset:b', 3, null);
    old.close();
    const [first, second] = [new SqliteGraphIndex({ path }), new SqliteGraphIndex({ path })];
    cleanups.push(async () => {
      await first.close();
      await second.close();
      rmSync(directory, { recursive: true, force: true });
    });
    await second.replaceEdges('urn:li:dataset:c', 'up', [
      {
        type: 'DownstreamOf',
        destination: 'urn:li:dataset:b',
        updatedAt: 9,
        updatedBy: 'urn:li:corpuser:u',
        manual: true,
      },
    ]);
    const page = await first.neighbours({ urns: ['urn:li:dataset:b'], direction: 'INCOMING', types: [], limit: 10 });
    expect(page.edges).toEqual([
      { urn: 'urn:li:dataset:b', type: 'DownstreamOf', entity: 'urn:li:dataset:a', createdAt: 3 },
      {
        urn: 'urn:li:dataset:b',
        type: 'DownstreamOf',
        entity: 'urn:li:dataset:c',
        updatedAt: 9,
        updatedBy: 'urn:li:corpuser:u',
        manual: true,
      },
    ]);
  });

  it('keeps a held edge as a row of its own source, under the holder’s aspect key, found through the holder index', async () => {
    const { index, path } = openFile();
    const field = 'urn:li:schemaField:(urn:li:dataset:d,id)';
    const upstream = 'urn:li:schemaField:(urn:li:dataset:u,id)';
    await index.replaceHeldEdges('urn:li:dataset:d', 'upstreamLineage', [
      { source: field, type: 'DownstreamOf', destination: upstream },
    ]);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT source, aspect, destination, holder FROM edges').all()).toEqual([
        {
          source: field,
          aspect: 'upstreamLineage@urn:li:dataset:d',
          destination: upstream,
          holder: 'urn:li:dataset:d',
        },
      ]);
      const plan = db
        .prepare('EXPLAIN QUERY PLAN DELETE FROM edges WHERE holder = ? AND aspect = ?')
        .all('urn:li:dataset:d', 'upstreamLineage@urn:li:dataset:d') as { detail: string }[];
      expect(plan.map((step) => step.detail).join('\n')).toContain('edges_holder');
    } finally {
      db.close();
    }
  });

  it('adds the holder column and its index to a file written before held edges, keeping its edges', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-graph-'));
    const path = join(directory, 'graph.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE edges (source TEXT NOT NULL, aspect TEXT NOT NULL, type TEXT NOT NULL,
      destination TEXT NOT NULL, created_at INTEGER, created_by TEXT, updated_at INTEGER, updated_by TEXT,
      manual INTEGER, PRIMARY KEY (source, aspect, type, destination)) WITHOUT ROWID`);
    old
      .prepare('INSERT INTO edges (source, aspect, type, destination) VALUES (?, ?, ?, ?)')
      .run('urn:li:dataset:a', 'ownership', 'OwnedBy', 'urn:li:corpuser:u');
    old.close();
    const [first, second] = [new SqliteGraphIndex({ path }), new SqliteGraphIndex({ path })];
    cleanups.push(async () => {
      await first.close();
      await second.close();
      rmSync(directory, { recursive: true, force: true });
    });
    await second.removeEntity('urn:li:dataset:held-nothing');
    const query = { urn: 'urn:li:corpuser:u', direction: 'INCOMING' as const, types: [], start: 0, count: 10 };
    expect(await first.relationships(query)).toEqual({
      total: 1,
      relationships: [{ type: 'OwnedBy', entity: 'urn:li:dataset:a' }],
    });
    // The old row has no holder: removing its source takes it.
    await first.removeEntity('urn:li:dataset:a');
    expect((await second.relationships(query)).total).toBe(0);
  });

  it('reads neighbours through the direction’s index', () => {
    const { path } = openFile();
    const db = new Database(path, { readonly: true });
    try {
      const plan = (end: string) =>
        (
          db
            .prepare(`EXPLAIN QUERY PLAN SELECT type FROM edges WHERE ${end} IN (SELECT value FROM json_each(?))`)
            .all('["urn:li:corpuser:u"]') as { detail: string }[]
        )
          .map((step) => step.detail)
          .join('\n');
      expect(plan('source')).toMatch(/edges_source_type|PRIMARY KEY/);
      expect(plan('destination')).toContain('edges_destination_type');
    } finally {
      db.close();
    }
  });

  it('answers INCOMING queries from the destination index', () => {
    const { path } = openFile();
    const db = new Database(path, { readonly: true });
    try {
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT source FROM edges WHERE destination = ? AND type = ?')
        .all('urn:li:corpuser:u', 'OwnedBy') as { detail: string }[];
      expect(plan.map((step) => step.detail).join('\n')).toContain('edges_destination_type');
    } finally {
      db.close();
    }
  });

  it('rejects an unknown direction with ValidationError', async () => {
    const { index } = openFile();
    const query = { urn: 'urn:li:corpuser:u', direction: 'SIDEWAYS' as 'INCOMING', types: [], start: 0, count: 10 };
    await expect(index.relationships(query)).rejects.toBeInstanceOf(ValidationError);
    await expect(index.relationships(query)).rejects.toThrow('Invalid relationship direction SIDEWAYS');
  });

  it('clears after the writes queued before it, and before those queued after it', async () => {
    const { index, path } = openFile();
    const owner = 'urn:li:corpuser:u';
    const [first, second] = ['urn:li:dataset:first', 'urn:li:dataset:second'];
    await Promise.all([
      index.replaceEdges(first, 'ownership', [{ type: 'OwnedBy', destination: owner }]),
      index.clear(),
      index.replaceEdges(second, 'ownership', [{ type: 'OwnedBy', destination: owner }]),
    ]);
    expect(await index.relationships({ urn: owner, direction: 'INCOMING', types: [], start: 0, count: 10 })).toEqual({
      total: 1,
      relationships: [{ type: 'OwnedBy', entity: second }],
    });
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'edges' ORDER BY name").pluck().all()).toEqual(
        ['edges', 'edges_destination_type', 'edges_holder', 'edges_source_type'],
      );
    } finally {
      db.close();
    }
  });

  it('removes a node with more edges than one chunk holds, every one of them', async () => {
    const index = new SqliteGraphIndex({ path: ':memory:' });
    const tag = 'urn:li:tag:everywhere';
    const datasets = Array.from({ length: 2_500 }, (_, n) => `urn:li:dataset:(urn:li:dataPlatform:hive,t${n},PROD)`);
    await index.apply(
      datasets.map((source) => ({
        kind: 'replaceEdges' as const,
        source,
        aspect: 'globalTags',
        edges: [{ type: 'TaggedWith', destination: tag }],
      })),
    );
    await index.replaceEdges(tag, 'ownership', [{ type: 'OwnedBy', destination: 'urn:li:corpuser:u' }]);
    const incoming = { urn: tag, direction: 'INCOMING' as const, types: [], start: 0, count: 1 };
    expect((await index.relationships(incoming)).total).toBe(2_500);

    await index.removeNode(tag);
    expect((await index.relationships(incoming)).total).toBe(0);
    expect((await index.relationships({ ...incoming, direction: 'OUTGOING' })).total).toBe(0);
    await index.close();
  });

  it('works in memory, and rejects every call once closed', async () => {
    const index = new SqliteGraphIndex({ path: ':memory:' });
    await index.replaceEdges('urn:li:dataset:d', 'ownership', [{ type: 'OwnedBy', destination: 'urn:li:corpuser:u' }]);
    const query = { urn: 'urn:li:corpuser:u', direction: 'INCOMING' as const, types: [], start: 0, count: 10 };
    expect((await index.relationships(query)).total).toBe(1);
    await index.close();
    await index.close();
    await expect(index.relationships(query)).rejects.toThrow();
    await expect(index.removeEntity('urn:li:corpuser:u')).rejects.toThrow();
    await expect(index.removeNode('urn:li:corpuser:u')).rejects.toThrow();
    await expect(index.clear()).rejects.toThrow();
  });
});
