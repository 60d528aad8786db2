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
