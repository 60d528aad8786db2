import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { testEntityRegistry } from '@strata/model/testing';

import { MAX_FILTER_CRITERIA, MAX_FILTER_VALUES } from './search-documents';
import type { Criterion, Filter } from './search-index';
import { MAX_QUERY_NESTING, MAX_QUERY_TERMS } from './search-query';
import { createSearchSchema } from './search-schema';
import { SqliteSearchIndex, type SqliteSearchIndexOptions } from './sqlite-search-index';
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

/**
 * Search indices on new temporary files, for the tests of the describe block calling this: those `open` gives are
 * closed after each test, and the files removed.
 */
function temporaryIndices(): {
  newFile: () => string;
  open: (options: Omit<SqliteSearchIndexOptions, 'schema'>) => SqliteSearchIndex;
} {
  const directories: string[] = [];
  const indices: SqliteSearchIndex[] = [];
  afterEach(async () => {
    for (const index of indices.splice(0)) await index.close();
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  return {
    newFile: () => {
      const directory = mkdtempSync(join(tmpdir(), 'strata-search-'));
      directories.push(directory);
      return join(directory, 'search.sqlite');
    },
    open: (options) => {
      const index = new SqliteSearchIndex({ schema, ...options });
      indices.push(index);
      return index;
    },
  };
}

describe('SqliteSearchIndex', () => {
  const { newFile } = temporaryIndices();

  it('rebuilds its derived tables from the stored documents when the layout it finds is not its own', async () => {
    const path = newFile();
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

describe('SqliteSearchIndex clear', () => {
  const { newFile, open } = temporaryIndices();

  /** Every row of every table of a file, FTS5's shadow tables included (their virtual tables read nothing alone). */
  function rowsOf(path: string): Record<string, unknown[]> {
    const db = new Database(path, { readonly: true });
    try {
      const tables = db
        .prepare<[], string>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name",
        )
        .pluck()
        .all();
      return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}"`).all()]));
    } finally {
      db.close();
    }
  }

  it('leaves every table as a new file holds it, meta and FTS5’s totals included', async () => {
    const path = newFile();
    const index = open({ path });
    await index.write([
      { put: datasetDocument({ name: 'db.orders', description: 'orders', tags: ['A'], browsePaths: ['/prod'] }) },
      { put: datasetDocument({ name: 'db.gone', description: 'gone', removed: true }) },
      { put: { urn: 'urn:li:corpuser:someone', entityType: 'corpuser', aspects: {} } },
    ]);
    const written = rowsOf(path);
    expect(written['documents']).toHaveLength(3);
    await index.clear();
    await index.close();
    const fresh = newFile();
    await open({ path: fresh }).close();

    const cleared = rowsOf(path);
    expect(Object.keys(cleared)).toEqual(Object.keys(written));
    expect(cleared).toEqual(rowsOf(fresh));
    expect(cleared['meta']).toEqual(written['meta']);
  });

  it('removes the writes queued before it and keeps those queued after it', async () => {
    const index = open({ path: newFile() });
    const first = datasetDocument({ name: 'db.first', description: 'queued' });
    const second = datasetDocument({ name: 'db.second', description: 'queued' });
    await Promise.all([index.write([{ put: first }]), index.clear(), index.write([{ put: second }])]);
    const page = await index.search({ entityType: 'dataset', input: 'queued', filter: [], start: 0, count: 10 });
    expect(page.hits.map((hit) => hit.urn)).toEqual([second.urn]);
  });
});

describe('SqliteSearchIndex result cache', () => {
  const { newFile, open } = temporaryIndices();
  const openOn = (path: string, resultCacheEntries?: number) =>
    open({ path, ...(resultCacheEntries === undefined ? {} : { resultCacheEntries }) });

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

  it('searches again after its own clear, and after another connection’s', async () => {
    const path = newFile();
    const index = openOn(path);
    const other = openOn(path);
    await index.write([{ put: orders }]);
    expect((await index.search(request)).total).toBe(1);
    await index.clear();
    expect(await index.search(request)).toMatchObject({ total: 0, hits: [] });
    await index.write([{ put: invoices }]);
    expect((await index.search(request)).hits.map((hit) => hit.urn)).toEqual([invoices.urn]);
    await other.clear();
    expect(await index.search(request)).toMatchObject({ total: 0, hits: [] });
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

describe('SqliteSearchIndex term lists', () => {
  const { newFile, open } = temporaryIndices();

  /** Two connections to one new file: one reading searches of plain words from the term lists, one having FTS5 score them. */
  function openPair(): { lists: SqliteSearchIndex; scored: SqliteSearchIndex; path: string } {
    const path = newFile();
    return {
      lists: open({ path, resultCacheEntries: 0 }),
      scored: open({ path, resultCacheEntries: 0, termLists: false }),
      path,
    };
  }

  /** Deterministic pseudo-random numbers (a linear congruential generator), so that a failure can be replayed. */
  function randomFrom(seed: number): (below: number) => number {
    let state = seed;
    return (below) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % below;
    };
  }

  const vocabulary = ['orders', 'users', 'daily', 'events', 'clicks', 'revenue', 'raw', 'clean', 'test', 'sales'];

  /**
   * Datasets whose words repeat with varied frequencies in fields of varied boosts, and of varied sizes. `alpha` and
   * `beta` are each in most descriptions, once to three times, independently: their documents meet sparsely within
   * each (frequency, size) group.
   */
  function corpus(random: (below: number) => number, count: number, generation: number) {
    const words = (n: number) => Array.from({ length: n }, () => vocabulary[random(vocabulary.length)]).join(' ');
    const often = (word: string) => (random(5) === 0 ? '' : `${word} `.repeat(1 + random(3)));
    return Array.from({ length: count }, (_, n) =>
      datasetDocument({
        name: `db.${vocabulary[random(vocabulary.length)]}_${n}`,
        description: `${words(random(12))} ${often('alpha')}${often('beta')}edit ${generation}`,
        tags: Array.from({ length: random(4) }, (_, t) => `${vocabulary[random(vocabulary.length)]}${t}`),
        owners: random(3) === 0 ? ['alice'] : ['bob', 'carol'].slice(0, random(3)),
        removed: random(10) === 0,
      }),
    );
  }

  /** One word, several ANDed (most matching over a thousand documents, where the lists rank them), repeats. */
  const inputs = [
    ...vocabulary,
    ...vocabulary.map((word) => `edit ${word}`),
    'orders users',
    'test test',
    'edit daily daily',
    'edit raw clean',
    'alpha beta',
    'beta edit alpha',
  ];

  async function expectSameAnswers(lists: SqliteSearchIndex, scored: SqliteSearchIndex): Promise<void> {
    for (const input of inputs) {
      for (const [start, count] of [
        [0, 10_000],
        [7, 13],
        [150, 40],
      ] as const) {
        const request = { entityType: 'dataset', input, filter: [], start, count };
        const expected = await scored.search(request);
        expect({ input, start, page: await lists.search(request) }).toEqual({ input, start, page: expected });
      }
    }
  }

  it('ranks and pages searches of plain words exactly as FTS5 scores them, through puts, soft deletes and removes', async () => {
    const { lists, scored, path } = openPair();
    const random = randomFrom(42);
    const first = corpus(random, 2_000, 1);
    await lists.write(first.map((put) => ({ put })));
    await expectSameAnswers(lists, scored);
    // Rewrites (sizes and frequencies change, some documents become removed or visible again) and deletions.
    const second = corpus(random, 1_200, 2);
    await lists.write([
      ...second.map((put) => ({ put })),
      ...first.slice(1_800).map((document) => ({ remove: document.urn })),
    ]);
    await expectSameAnswers(lists, scored);
    const request = { entityType: 'dataset', input: 'edit orders', filter: [], start: 0, count: 10 };
    expect((await lists.search(request)).total).toBeGreaterThan(1_000);
    // The lists answered those searches: without the postings of a word, their pages come out empty.
    const raw = new Database(path);
    try {
      raw.exec("DELETE FROM term_postings WHERE term = 'orders'");
    } finally {
      raw.close();
    }
    expect((await lists.search(request)).hits).toEqual([]);
    expect((await lists.search({ ...request, input: 'orders' })).hits).toEqual([]);
    expect((await scored.search(request)).hits).toHaveLength(10);
  });

  it('ranks searches of plain words as FTS5 scores them after a clear, as on a new file', async () => {
    const { lists, scored } = openPair();
    const fresh = openPair();
    const random = randomFrom(7);
    await lists.write(corpus(random, 800, 1).map((put) => ({ put })));
    await lists.clear();
    const second = corpus(random, 600, 2).map((put) => ({ put }));
    await lists.write(second);
    await fresh.lists.write(second);
    await expectSameAnswers(lists, scored);
    await expectSameAnswers(lists, fresh.scored);
  });

  it('reads one-word searches from the lists, and lets FTS5 score them while a visible document has other words', async () => {
    const { lists, path } = openPair();
    const orders = datasetDocument({ name: 'db.orders', description: 'orders of the day' });
    await lists.write([{ put: orders }]);
    const search = async () =>
      (await lists.search({ entityType: 'dataset', input: 'orders', filter: [], start: 0, count: 10 })).total;
    expect(await search()).toBe(1);
    // Counts only the lists hold tell which path answered.
    const raw = new Database(path);
    try {
      raw.exec("UPDATE term_groups SET visible = visible + 100 WHERE term = 'orders'");
      expect(await search()).toBe(101);
      const german = datasetDocument({ name: 'db.commandes', description: 'orders für die Straße' });
      await lists.write([{ put: german }]);
      expect(await search()).toBe(2);
      await lists.write([{ remove: german.urn }]);
      expect(await search()).toBe(101);
      // Soft-deleted, its words are in no list: the lists answer.
      await lists.write([{ put: { ...german, aspects: { ...german.aspects, status: { removed: [true] } } } }]);
      expect(await search()).toBe(101);
    } finally {
      raw.close();
    }
  });
});

describe('SqliteSearchIndex at the limits of search text and filters', () => {
  const { newFile, open } = temporaryIndices();
  const words = (count: number, prefix: string) => Array.from({ length: count }, (_unused, i) => `${prefix}${i}`);
  const criterion = (
    field: string,
    values: string[],
    condition: Criterion['condition'] = 'EQUAL',
    negated = false,
  ) => ({
    field,
    values,
    condition,
    negated,
  });
  const kept = datasetDocument({ name: 'edge.kept', description: 'alpha beta', tags: ['A'], browsePaths: ['/edge'] });
  const other = datasetDocument({ name: 'edge.other', origin: 'DEV', description: 'gamma', browsePaths: ['/edge'] });
  const perCriterion = MAX_FILTER_VALUES / MAX_FILTER_CRITERIA;

  /**
   * Every SQL path a search takes: FTS5 text (ranked by the term lists or by FTS5), text FTS5 cannot answer alone
   * (wildcards, negations standing alone: the unranked path), filters FTS5 answers from the filter keys (EQUAL) and
   * those answered from `field_values` (CONTAIN), each at its limit.
   */
  const texts = [
    words(MAX_QUERY_TERMS - 1, '-none')
      .concat('alpha')
      .join(' '),
    [...words(MAX_QUERY_TERMS - 1, 'none'), 'beta'].join(' OR '),
    [...words(MAX_QUERY_TERMS - 1, 'n?ne'), '?lpha*'].join(' OR '),
    [...words(MAX_QUERY_TERMS - 1, '-n?ne'), '-gamma'].join(' '),
    `${'-'.repeat(MAX_QUERY_NESTING)}?lpha*`,
    `${'-('.repeat(MAX_QUERY_NESTING / 2)}alpha${')'.repeat(MAX_QUERY_NESTING / 2)}`,
  ];
  const filters: Filter[] = [
    [
      Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) =>
        criterion('origin', [...words(perCriterion - 1, `o${i}x`), 'PROD']),
      ),
    ],
    [
      Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) =>
        criterion('id', [...words(perCriterion - 1, `i${i}x`), 'KEPT'], 'CONTAIN'),
      ),
    ],
    Array.from({ length: MAX_FILTER_CRITERIA }, (_unused, i) => [
      criterion('tags', i === 0 ? ['urn:li:tag:A'] : words(perCriterion, `urn:li:tag:t${i}x`)),
    ]),
    [[criterion('id', [...words(MAX_FILTER_VALUES - 1, 'nothing'), 'edge.k'], 'START_WITH')]],
  ];

  it.each([true, false])('answers every path at the limits (term lists %p)', async (termLists) => {
    const index = open({ path: newFile(), termLists, resultCacheEntries: 0 });
    await index.write([{ put: kept }, { put: other }]);
    for (const input of texts) {
      const page = await index.search({ entityType: 'dataset', input, filter: [], start: 0, count: 10 });
      expect({ input, urns: page.hits.map((hit) => hit.urn) }).toEqual({ input, urns: [kept.urn] });
      for (const filter of filters) {
        const filtered = await index.search({ entityType: 'dataset', input, filter, start: 0, count: 10 });
        expect({ input, urns: filtered.hits.map((hit) => hit.urn) }).toEqual({ input, urns: [kept.urn] });
      }
    }
    for (const filter of filters) {
      const browse = await index.browse({ entityType: 'dataset', path: '/edge', filter, start: 0, limit: 10 });
      expect(browse.entities.map((entity) => entity.urn)).toEqual([kept.urn]);
      const suggested = await index.autocomplete({ entityType: 'dataset', query: 'edge', filter, limit: 10 });
      expect(suggested.urns).toEqual([kept.urn]);
    }
  });
});
