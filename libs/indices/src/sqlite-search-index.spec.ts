import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { testEntityRegistry } from '@strata/model/testing';

import { createSearchSchema } from './search-schema';
import { SqliteSearchIndex } from './sqlite-search-index';
import { datasetDocument, describeSearchIndexContract } from './testing';

const schema = createSearchSchema(testEntityRegistry());

describeSearchIndexContract('SqliteSearchIndex', {
  schema,
  create: () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-search-'));
    const path = join(directory, 'search.sqlite');
    return Promise.resolve({
      index: new SqliteSearchIndex({ path, schema }),
      reopen: () => Promise.resolve(new SqliteSearchIndex({ path, schema })),
      dispose: () => {
        rmSync(directory, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
});

describe('SqliteSearchIndex', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('rebuilds its derived tables from the stored documents when the layout it finds is not its own', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-search-'));
    directories.push(directory);
    const path = join(directory, 'search.sqlite');
    const first = new SqliteSearchIndex({ path, schema });
    const document = datasetDocument({
      name: 'db.kept',
      description: 'rebuilt words',
      tags: ['A'],
      browsePaths: ['/x'],
    });
    await first.write([{ put: document }]);
    await first.close();
    // As a file written by an older Strata would look: another layout, derived tables out of date.
    const raw = new Database(path);
    raw.exec("UPDATE meta SET value = 'an older layout' WHERE name = 'layout'; DELETE FROM field_values;");
    raw.close();

    const again = new SqliteSearchIndex({ path, schema });
    try {
      const page = await again.search({ entityType: 'dataset', input: 'rebuilt', filter: [], start: 0, count: 10 });
      expect(page.hits.map((hit) => hit.urn)).toEqual([document.urn]);
      expect(page.facets.find((facet) => facet.field === 'tags')?.counts).toEqual({ 'urn:li:tag:A': 1 });
      const browse = await again.browse({ entityType: 'dataset', path: '/', filter: [], start: 0, limit: 10 });
      expect(browse.groups).toEqual([{ name: 'x', count: 1 }]);
    } finally {
      await again.close();
    }
  });
});

describe('SqliteSearchIndex result cache', () => {
  const directories: string[] = [];
  const indices: SqliteSearchIndex[] = [];
  afterEach(async () => {
    for (const index of indices.splice(0)) await index.close();
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  function openOn(path: string, resultCacheEntries?: number): SqliteSearchIndex {
    const index = new SqliteSearchIndex({
      path,
      schema,
      ...(resultCacheEntries === undefined ? {} : { resultCacheEntries }),
    });
    indices.push(index);
    return index;
  }

  function newFile(): string {
    const directory = mkdtempSync(join(tmpdir(), 'strata-search-'));
    directories.push(directory);
    return join(directory, 'search.sqlite');
  }

  const orders = datasetDocument({ name: 'db.orders', description: 'kept orders' });
  const invoices = datasetDocument({ name: 'db.invoices', description: 'kept invoices' });
  const request = { entityType: 'dataset', input: 'kept', filter: [], start: 0, count: 10 };

  it('answers a repeated search from the page it kept, while nothing of that entity type changed', async () => {
    const index = openOn(newFile());
    await index.write([{ put: orders }]);
    const first = await index.search(request);
    expect(await index.search(request)).toBe(first);
    // Another entity type's write leaves the page valid.
    await index.write([{ put: { urn: 'urn:li:corpuser:someone', entityType: 'corpuser', aspects: {} } }]);
    expect(await index.search(request)).toBe(first);
    // Other paging is another request.
    expect(await index.search({ ...request, count: 5 })).not.toBe(first);
  });

  it('searches again after its own writes of that entity type: put and remove', async () => {
    const index = openOn(newFile());
    await index.write([{ put: orders }]);
    expect((await index.search(request)).hits.map((hit) => hit.urn)).toEqual([orders.urn]);
    await index.write([{ put: invoices }]);
    expect((await index.search(request)).hits.map((hit) => hit.urn).sort()).toEqual([invoices.urn, orders.urn].sort());
    await index.write([{ remove: orders.urn }]);
    expect((await index.search(request)).hits.map((hit) => hit.urn)).toEqual([invoices.urn]);
  });

  it('searches again after another connection to the same file wrote', async () => {
    const path = newFile();
    const reader = openOn(path);
    const writer = openOn(path);
    await writer.write([{ put: orders }]);
    expect((await reader.search(request)).total).toBe(1);
    await writer.write([{ put: invoices }]);
    expect((await reader.search(request)).total).toBe(2);
  });

  it('keeps nothing with resultCacheEntries 0, and refuses a negative size', async () => {
    const index = openOn(newFile(), 0);
    await index.write([{ put: orders }]);
    const first = await index.search(request);
    const second = await index.search(request);
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(() => new SqliteSearchIndex({ path: ':memory:', schema, resultCacheEntries: -1 })).toThrow(
      'resultCacheEntries must be a non-negative integer',
    );
  });
});
